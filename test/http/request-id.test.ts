/** newRequestId (src/http/request-id.ts): random version 4 UUIDs, distinct across its batches of randomness. */
import { describe, expect, it } from 'vitest';
import { newRequestId } from '../../src/http/request-id.ts';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newRequestId', () => {
  it('makes version 4 UUIDs, each different, over many batches', () => {
    const ids = Array.from({ length: 5000 }, () => newRequestId());
    for (const id of ids) expect(id).toMatch(V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uses every hex digit in the random positions (the bytes are random, not a counter)', () => {
    const digits = new Set<string>();
    for (let i = 0; i < 300; i++) for (const c of newRequestId().slice(24)) digits.add(c);
    expect(digits.size).toBe(16);
  });

  it('returns a string that does not change when the next id is made (the buffer is not shared)', () => {
    const first = newRequestId();
    const copy = `${first}`;
    newRequestId();
    expect(first).toBe(copy);
  });
});
