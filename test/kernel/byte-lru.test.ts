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
