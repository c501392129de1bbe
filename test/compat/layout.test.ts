import { describe, expect, it } from 'vitest';
import { layoutMismatches } from './layout.ts';

describe('60s layout checker', () => {
  it('accepts a value that has every field with its type, extra fields included', () => {
    expect(layoutMismatches({ title: 'a', hot_value: 1, extra: true, cover: null }, { title: 'string', hot_value: 'number', cover: 'string|null' })).toEqual([]);
    expect(layoutMismatches([{ a: 1 }, { a: 2 }], [{ a: 'number' }])).toEqual([]);
  });

  it('names each missing field, wrong type and wrong container with its path', () => {
    expect(layoutMismatches({ list: [{ title: 1 }] }, [{ title: 'string' }])).toEqual(['data: expected array, got object']);
    expect(layoutMismatches([{ title: 1 }, {}], [{ title: 'string' }])).toEqual(['data[0].title: expected string, got number', 'data[1].title: missing']);
    expect(layoutMismatches({ a: { b: null } }, { a: { b: 'number' } })).toEqual(['data.a.b: expected number, got null']);
    expect(layoutMismatches([], { x: 'string' })).toEqual(['data: expected object, got array']);
  });

  it("checks 60s's date-time texts: YYYY/MM/DD HH:mm:ss, its digest's YYYY/MM/DD HH:mm and dayjs's YYYY-MM-DD HH:mm:ss", () => {
    expect(layoutMismatches({ a: '2026/11/20 08:10:00', b: '2026/11/20 08:10', c: '2026-11-20 08:10:00' }, { a: 'time/', b: 'time/m', c: 'time-' })).toEqual([]);
    expect(layoutMismatches({ a: '2026-11-20 08:10:00' }, { a: 'time/' })).toEqual(['data.a: expected time/, got "2026-11-20 08:10:00"']);
    expect(layoutMismatches({ a: null }, { a: 'time/|null' })).toEqual([]);
    expect(layoutMismatches({ a: 1 }, { a: 'time-' })).toEqual(['data.a: expected time-, got number']);
  });

  it('checks an optional field only when present', () => {
    expect(layoutMismatches({}, { 'tag?': 'string' })).toEqual([]);
    expect(layoutMismatches({ tag: 3 }, { 'tag?': 'string' })).toEqual(['data.tag: expected string, got number']);
  });
});
