import { describe, expect, it } from 'vitest';
import { ByteLru } from '../../src/kernel/byte-lru.ts';

describe('ByteLru', () => {
  it('drops the least recently read entries once the bytes pass the bound', () => {
    const lru = new ByteLru<string>(10);
    lru.set('a', 'A', 4);
    lru.set('b', 'B', 4);
    expect(lru.get('a')).toBe('A'); // a is now the most recent
    lru.set('c', 'C', 4); // 12 > 10: b, the least recent, goes
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe('A');
    expect(lru.get('c')).toBe('C');
    expect(lru.bytes).toBe(8);
    expect(lru.size).toBe(2);
  });

  it('replacing a key counts its new size only; a value larger than the bound is not kept', () => {
    const lru = new ByteLru<string>(10);
    lru.set('a', 'A', 6);
    lru.set('a', 'A2', 3);
    expect(lru.bytes).toBe(3);
    expect(lru.get('a')).toBe('A2');
    lru.set('huge', 'H', 11);
    expect(lru.get('huge')).toBeUndefined();
    expect(lru.get('a')).toBe('A2');
  });
});

describe('ByteLru with admission on the second set', () => {
  it('keeps a key only when it is set again while remembered as seen, so one-off keys never push out repeated ones', () => {
    const lru = new ByteLru<string>(10, { admitOnSecondSet: 100 });
    lru.set('a', 'A', 4);
    expect(lru.get('a')).toBeUndefined();
    lru.set('a', 'A', 4);
    expect(lru.get('a')).toBe('A');
    for (let i = 0; i < 50; i++) lru.set(`once-${i}`, 'x', 4);
    expect(lru.get('a')).toBe('A');
    expect(lru.size).toBe(1);
  });

  it('forgets the keys seen once when their characters pass the budget, and never remembers a longer key', () => {
    const lru = new ByteLru<string>(100, { admitOnSecondSet: 6 });
    lru.set('abc', '1', 1);
    lru.set('def', '2', 1); // 6 characters seen: both remembered
    lru.set('ghi', '3', 1); // past the budget: abc and def are forgotten
    lru.set('abc', '1', 1);
    expect(lru.get('abc')).toBeUndefined();
    lru.set('ghi', '3', 1);
    expect(lru.get('ghi')).toBe('3');
    lru.set('longer-than-six', 'L', 1);
    lru.set('longer-than-six', 'L', 1);
    expect(lru.get('longer-than-six')).toBeUndefined();
  });
});
