import { describe, expect, it } from 'vitest';
import { setBounded } from '../../src/kernel/bounded-map.ts';

describe('setBounded', () => {
  it('drops the oldest key set once the map is full, and replaces a present key without dropping one', () => {
    const m = new Map<string, number>();
    for (const [k, v] of [['a', 1], ['b', 2], ['c', 3]] as const) setBounded(m, k, v, 3);
    setBounded(m, 'b', 20, 3);
    expect([...m]).toEqual([['a', 1], ['b', 20], ['c', 3]]);
    setBounded(m, 'd', 4, 3);
    expect([...m.keys()]).toEqual(['b', 'c', 'd']);
  });
});
