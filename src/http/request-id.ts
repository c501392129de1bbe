/**
 * Request ids: random (version 4) UUIDs, as node:crypto's `randomUUID` makes them, but returned as
 * flat strings. `randomUUID` joins its text from pieces, and every response's header check (a
 * regular expression over each value) then copies the pieces into one string again; here the text
 * is written into a buffer and read out once. The randomness is the same: the system's CSPRNG,
 * drawn for 128 ids at a time as node does.
 */
import { randomFillSync } from 'node:crypto';

const BATCH = 128;
const pool = Buffer.alloc(16 * BATCH);
let used = BATCH;
const text = Buffer.alloc(36);
const HEX = Buffer.from('0123456789abcdef', 'latin1');

export function newRequestId(): string {
  if (used === BATCH) {
    randomFillSync(pool);
    used = 0;
  }
  const at = used++ * 16;
  pool[at + 6] = (pool[at + 6]! & 0x0f) | 0x40; // version 4
  pool[at + 8] = (pool[at + 8]! & 0x3f) | 0x80; // RFC 9562 variant
  let out = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text[out++] = 0x2d;
    const byte = pool[at + i]!;
    text[out++] = HEX[byte >> 4]!;
    text[out++] = HEX[byte & 15]!;
  }
  return text.toString('latin1', 0, 36);
}
