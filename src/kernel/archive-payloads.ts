/**
 * How archived payloads are stored: a payload is either whole (a keyframe: its brotli-compressed
 * JSON text) or a delta against its key's previous payload (`base_hash`; brotli-compressed
 * json-delta.ts JSON), at most MAX_CHAIN deltas after a keyframe. Consecutive snapshots of a hot
 * list differ in a few numbers per item, so a delta costs a fraction of the whole list, and
 * reading a payload is its chain: one index lookup per link (one recursive query), one keyframe
 * decode and up to MAX_CHAIN small patches.
 *
 * Rows written before deltas existed have no base: they read as keyframes (no migration needed).
 */
import zlib from 'node:zlib';
import { diff, patch, type Delta } from './json-delta.ts';

/** Longest run of deltas after a keyframe: bounds the work of one read. */
export const MAX_CHAIN = 32;
/** A delta is kept only when its text is below this share of the whole payload's. */
const DELTA_SHARE = 0.6;

/** Brotli at `quality`: 9 for whole payloads (tens of KB), 11 for deltas (small: the best ratio costs about a millisecond). */
export function packPayload(text: string, quality = 9): Buffer {
  return zlib.brotliCompressSync(Buffer.from(text, 'utf8'), {
    params: { [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT, [zlib.constants.BROTLI_PARAM_QUALITY]: quality },
  });
}

export function unpackPayload(body: Buffer | Uint8Array): string {
  return zlib.brotliDecompressSync(body).toString('utf8');
}

/** A payload the next one of its key may be stored against. */
export interface PayloadBase {
  hash: string;
  /** Deltas between it and its keyframe (0: it is one). */
  depth: number;
  data: unknown;
}

export interface EncodedPayload {
  body: Buffer;
  baseHash: string | null;
  depth: number;
}

/** The stored form of `payload`: a delta against `base` when that is worth it, else whole. */
export function encodePayload(payload: string, data: unknown, base: PayloadBase | undefined): EncodedPayload {
  if (base && base.depth < MAX_CHAIN) {
    const delta = diff(base.data, data);
    const text = JSON.stringify(delta);
    // Only a delta that gives the very same text back is kept (key order, numbers).
    if (text.length < payload.length * DELTA_SHARE && JSON.stringify(patch(base.data, delta)) === payload) {
      return { body: packPayload(text, 11), baseHash: base.hash, depth: base.depth + 1 };
    }
  }
  return { body: packPayload(payload), baseHash: null, depth: 0 };
}

/** One stored link of a chain. */
export interface ChainLink {
  content_hash: string;
  body: Buffer | Uint8Array;
  base_hash: string | null;
}

/**
 * The JSON text (and data) at the end of a chain, given keyframe first. With `decoded` (data by
 * content hash, e.g. of the snapshots listed so far), decoding starts at the newest link already
 * decoded and records what it decodes. A chain that does not start with a keyframe (a base lost)
 * is an error: the archive never deletes a payload's base.
 */
export function decodeChain(links: readonly ChainLink[], decoded?: Map<string, unknown>): { text: string; data: unknown } {
  const first = links[0];
  if (!first || first.base_hash !== null) throw new Error('archive payload chain has no keyframe');
  let start = links.length - 1;
  while (start >= 0 && !decoded?.has((links[start] as ChainLink).content_hash)) start--;
  if (start === -1 && links.length === 1) {
    const text = unpackPayload(first.body);
    const data = JSON.parse(text) as unknown;
    decoded?.set(first.content_hash, data);
    return { text, data };
  }
  let data = start === -1 ? (JSON.parse(unpackPayload(first.body)) as unknown) : decoded?.get((links[start] as ChainLink).content_hash);
  if (start === -1) decoded?.set(first.content_hash, data);
  for (const link of links.slice(Math.max(start, 0) + 1)) {
    data = patch(data, JSON.parse(unpackPayload(link.body)) as Delta);
    decoded?.set(link.content_hash, data);
  }
  return { text: JSON.stringify(data), data };
}

/**
 * The chain of one payload, keyframe first (`n` counts links back from the payload asked for; the
 * bound only guards against a damaged table: chains are at most MAX_CHAIN long).
 */
export const CHAIN_SQL = (param: string) => `
  WITH RECURSIVE chain (content_hash, body, base_hash, n) AS (
    SELECT content_hash, body, base_hash, 0 FROM archive_payloads WHERE content_hash = ${param}
    UNION ALL
    SELECT p.content_hash, p.body, p.base_hash, c.n + 1 FROM archive_payloads p JOIN chain c ON p.content_hash = c.base_hash WHERE c.n < ${4 * MAX_CHAIN}
  )
  SELECT content_hash, body, base_hash FROM chain ORDER BY n DESC`;

/** Payloads no snapshot needs, directly or as a base of one it needs. */
export const UNNEEDED_PAYLOADS_SQL = `
  DELETE FROM archive_payloads WHERE content_hash NOT IN (
    WITH RECURSIVE needed (h) AS (
      SELECT content_hash FROM archive_snapshots
      UNION
      SELECT p.base_hash FROM archive_payloads p JOIN needed n ON p.content_hash = n.h WHERE p.base_hash IS NOT NULL
    )
    SELECT h FROM needed
  )`;
