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

describe('ByteLru with probation', () => {
  it('keeps an entry only once it is read again, so one-off keys never push out repeated ones', () => {
    const lru = new ByteLru<string>(40, { probation: 2 });
    lru.set('a', 'A', 4);
    expect(lru.size).toBe(0);
    expect(lru.get('a')).toBe('A'); // read again: kept
    expect(lru.size).toBe(1);
    for (let i = 0; i < 50; i++) lru.set(`once-${i}`, 'x', 4);
    expect(lru.get('a')).toBe('A');
    expect(lru.size).toBe(1);
    expect(lru.bytes).toBe(4);
  });

  it('holds the last n entries set, and no more than a quarter of the bound in bytes', () => {
    const lru = new ByteLru<string>(100, { probation: 2 });
    lru.set('a', 'A', 1);
    lru.set('b', 'B', 1);
    lru.set('c', 'C', 1); // a leaves probation unread
    expect(lru.get('a')).toBeUndefined();
    expect(lru.get('b')).toBe('B');
    lru.set('big1', 'x', 20);
    lru.set('big2', 'y', 20); // 41 bytes waiting > 25: c and big1 leave
    expect(lru.get('c')).toBeUndefined();
    expect(lru.get('big1')).toBeUndefined();
    expect(lru.get('big2')).toBe('y');
    expect([lru.size, lru.bytes]).toEqual([2, 21]);
  });
});
