/**
 * Ids the gateway makes per request (a settlement's `settleId`, a credit reservation's id): a
 * random prefix drawn once per process (96 bits from the system's CSPRNG) and a counter. Unique
 * across processes, restarts and instances as the random ids they replace were (two processes
 * share a prefix with probability 2^-96), without a call into the CSPRNG per request. They name
 * rows; they are no secret, so being predictable within a process costs nothing.
 */
import { randomBytes } from 'node:crypto';

const PREFIX = randomBytes(12).toString('base64url');
let counter = 0;

/** A new unique id: the process prefix, then the counter in base 36. */
export function nextId(): string {
  return `${PREFIX}${(counter++).toString(36)}`;
}
