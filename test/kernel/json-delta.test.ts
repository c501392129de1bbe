/**
 * The archive's structural JSON delta: `patch(prev, diff(prev, next))` gives `next` back with the
 * same text (keys in the same order), whatever changed, and a list whose numbers drift costs a
 * small delta.
 */
import { describe, expect, it } from 'vitest';
import { diff, patch } from '../../src/kernel/json-delta.ts';

const roundTrip = (prev: unknown, next: unknown) => JSON.stringify(patch(JSON.parse(JSON.stringify(prev)), JSON.parse(JSON.stringify(diff(prev, next)))));

describe('json delta', () => {
  it('gives the same text back for every kind of change', () => {
    const cases: [unknown, unknown][] = [
      [1, 2],
      ['a', 'a'],
      [null, { a: 1 }],
      [{ a: 1, b: 2 }, { b: 2, a: 1 }],
      [{ a: 1, b: 2 }, { a: 1 }],
      [{ a: 1 }, { a: 1, c: [1, 2] }],
      [{ '2': 'x', '1': 'y', z: 0 }, { '1': 'y', z: 1, '10': 3 }],
      [[1, 2, 3], [3, 2, 1, 0]],
      [[{ link: 'a', n: 1 }, { link: 'b', n: 2 }], [{ link: 'b', n: 3 }, { link: 'c', n: 1 }, { link: 'a', n: 1 }]],
      [[{ title: 'dup' }, { title: 'dup', x: 1 }], [{ title: 'dup', x: 1 }, { title: 'dup' }, { title: 'dup' }]],
      [[{ a: 1 }, { a: 2 }], [{ a: 2 }, { a: 1 }]],
      [{ list: [{ id: 1, tags: ['x'] }], total: 1 }, { list: [{ id: 1, tags: ['x', 'y'] }], total: 1 }],
      [[[1, 2], [3]], [[1], [3, 4]]],
      [{ a: [1] }, { a: { 0: 1 } }],
      [[], []],
      [{ a: { b: { c: 1 } } }, { a: { b: { c: 1 } } }],
    ];
    for (const [prev, next] of cases) expect(roundTrip(prev, next), JSON.stringify([prev, next])).toBe(JSON.stringify(next));
  });

  it('says unchanged for equal values and keeps moved items as indexes', () => {
    expect(diff({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toEqual([0]);
    const prev = [{ link: 'a' }, { link: 'b' }, { link: 'c' }];
    expect(diff(prev, [prev[2], prev[0], prev[1]])).toEqual([3, [2, 0, 1]]);
  });

  it('a list whose heat values drift costs a fraction of its text', () => {
    const prev = Array.from({ length: 50 }, (_, i) => ({ rank: i + 1, title: `第 ${i + 1} 条热搜的标题文字`, link: `https://example.test/item/${i}`, hot_value: 9_000_000 - i * 100_000, cover: `https://img.example.test/${i}.jpg` }));
    const next = prev.map((x, i) => ({ ...x, hot_value: x.hot_value + 1234 * (i % 5) }));
    const d = JSON.stringify(diff(prev, next));
    expect(roundTrip(prev, next)).toBe(JSON.stringify(next));
    expect(d.length).toBeLessThan(JSON.stringify(next).length / 5);
  });
});
