import { describe, expect, it } from 'vitest';
import { SourceError } from '../../src/kernel/errors.ts';
import { at, missingPath, need, pathSegments } from '../../src/kernel/json-path.ts';

const asArray = (v: unknown) => (Array.isArray(v) ? v : undefined);
const asRecord = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

describe('json-path: reading upstream JSON by path', () => {
  const answer = { ok: 1, data: { cards: [{ title: 'hot', card_group: [{ desc: 'a' }] }] } };

  it('splits dotted paths with indexes; the empty path is the root', () => {
    expect(pathSegments('data.cards[0].card_group')).toEqual(['data', 'cards', 0, 'card_group']);
    expect(pathSegments('list[2][1]')).toEqual(['list', 2, 1]);
    expect(pathSegments('')).toEqual([]);
    expect(() => pathSegments('a[b]')).toThrow(/bad JSON path/);
  });

  it('at walks objects and arrays and answers undefined for any missing step', () => {
    expect(at(answer, 'data.cards[0].card_group[0].desc')).toBe('a');
    expect(at(answer, '')).toBe(answer);
    expect(at(answer, 'data.cards[1].title')).toBeUndefined();
    expect(at('text', 'data')).toBeUndefined();
    expect(at(null, 'data')).toBeUndefined();
  });

  it('need narrows the value, or throws a parse error naming the path and what was found where it stopped', () => {
    expect(need(answer, 'data.cards[0].card_group', asArray)).toEqual([{ desc: 'a' }]);
    const missing = (() => {
      try {
        need(answer, 'data.cards[0].list', asArray, 'the hot list');
      } catch (e) {
        return e as SourceError;
      }
      return undefined;
    })();
    expect(missing).toBeInstanceOf(SourceError);
    expect(missing).toMatchObject({ kind: 'parse', path: 'data.cards[0].list' });
    expect(missing?.message).toBe('missing data.cards[0].list (the hot list): data.cards[0] is an object with keys title, card_group');
    expect(() => need(answer, 'data.cards', asRecord, 'an object')).toThrow('data.cards is not an object: it is an array of 1');
    expect(() => need('<!doctype html>', '', asRecord, 'a JSON object')).toThrow('the answer is not a JSON object: it is the string "<!doctype html>"');
    expect(missingPath({}, 'data').message).toBe('missing data: the answer is an empty object');
    expect(missingPath({}, '').path).toBe('$');
  });
});
