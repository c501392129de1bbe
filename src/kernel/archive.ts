/**
 * The snapshot archive: every distinct state of a scheduled source's data, dated. A fetch whose
 * content equals the key's newest snapshot only extends that snapshot's `seen_until`; a change
 * appends a snapshot. Payloads are stored once per content hash (compressed), however often the
 * content recurs, so a list that flips back and forth costs one payload per distinct state.
 *
 * Tables (same on SQLite and PostgreSQL; see sqlite-archive.ts and pg-archive.ts):
 * - `archive_snapshots (id, source_id, params_key, fetched_at, seen_until, content_hash)`,
 *   unique on (source_id, params_key, fetched_at): "the snapshot in force at T" is one index seek;
 * - `archive_payloads (content_hash, body, bytes, base_hash, depth)`: the JSON text, whole or as a
 *   delta against the key's previous payload (`base_hash`), brotli-compressed (archive-payloads.ts);
 *   `bytes` is the JSON text's length.
 */
import { sha1 } from './digest.ts';

/** One stored state of a key's data. */
export interface ArchivedSnapshot {
  sourceId: string;
  paramsKey: string;
  /** When this content was first fetched (ms): the snapshot's time. */
  fetchedAt: number;
  /** The last fetch that still returned this content (ms). */
  seenUntil: number;
  contentHash: string;
  /** The data as JSON text, as first fetched. */
  payload: string;
}

export interface ArchiveWrite {
  sourceId: string;
  paramsKey: string;
  fetchedAt: number;
  /** `contentHash(data)`: equal for fetches that differ only in their fetch-time fields. */
  contentHash: string;
  payload: string;
}

export interface ArchiveBounds {
  /** The oldest stored snapshot's time. */
  first: number;
  /** The newest snapshot's time, and the last time it was seen. */
  last: number;
  lastSeen: number;
  count: number;
}

export interface ArchiveStats {
  snapshots: number;
  payloads: number;
  /** Compressed bytes of all payloads. */
  storedBytes: number;
  /** Uncompressed bytes of all payloads. */
  rawBytes: number;
}

export interface Archive {
  /** Record a successful fetch: extend the newest snapshot when the content is the same, else append one. */
  record(w: ArchiveWrite): Promise<{ appended: boolean; snapshotAt: number }>;
  /** The snapshot in force at `at`: the newest one first fetched at or before it. */
  at(sourceId: string, paramsKey: string, at: number): Promise<ArchivedSnapshot | undefined>;
  /** The span a key's snapshots cover, or undefined when none is stored. */
  bounds(sourceId: string, paramsKey: string): Promise<ArchiveBounds | undefined>;
  /**
   * The snapshots in force at some moment of [from, to] (seen_until ≥ from, fetched_at ≤ to),
   * oldest first, at most `limit`.
   */
  list(sourceId: string, paramsKey: string, opts: { from: number; to: number; limit: number }): Promise<ArchivedSnapshot[]>;
  /**
   * Drop snapshots last seen before now − retentionDays (never a key's newest one), then the
   * payloads no snapshot refers to. retentionDays 0 keeps everything.
   */
  prune(opts: { now: number; retentionDays: number }): Promise<{ snapshots: number; payloads: number }>;
  stats(): Promise<ArchiveStats>;
}

/** Top-level fields that only say when the data was fetched: not part of the content. */
export const FETCH_TIME_FIELDS: readonly string[] = ['updated', 'updated_at'];

/** Hash of the data without its fetch-time fields: two fetches of an unchanged list hash alike. */
export function contentHash(data: unknown): string {
  let content = data;
  if (data && typeof data === 'object' && !Array.isArray(data) && FETCH_TIME_FIELDS.some((f) => f in data)) {
    content = Object.fromEntries(Object.entries(data).filter(([k]) => !FETCH_TIME_FIELDS.includes(k)));
  }
  return sha1(JSON.stringify(content));
}

/** A history row of the format before the archive: key `t<ms>`, one per changed fetch. */
export interface LegacyHistoryRow {
  id: number;
  source_id: string;
  params_key: string;
  fetched_at: number;
  payload: string;
}

/** The archive write of a legacy row; undefined when its payload is not JSON. */
export function legacyWrite(r: LegacyHistoryRow): ArchiveWrite | undefined {
  try {
    return { sourceId: r.source_id, paramsKey: r.params_key, fetchedAt: r.fetched_at, contentHash: contentHash(JSON.parse(r.payload)), payload: r.payload };
  } catch {
    return undefined;
  }
}

/**
 * Move the old per-change history rows into the archive (the migration of existing databases):
 * `nextBatch(afterId)` reads rows in id order, `drop()` deletes them once all are recorded.
 * Safe to run again after an interruption (a snapshot's time is unique per key).
 */
export async function importLegacyHistory(
  archive: Archive,
  nextBatch: (afterId: number) => Promise<LegacyHistoryRow[]>,
  drop: () => Promise<void>,
): Promise<number> {
  let after = 0;
  let moved = 0;
  for (;;) {
    const rows = await nextBatch(after);
    if (!rows.length) break;
    for (const r of rows) {
      const w = legacyWrite(r);
      if (!w) continue;
      await archive.record(w);
      moved++;
    }
    after = rows[rows.length - 1]!.id;
  }
  await drop();
  return moved;
}

/** Name of the data migration that runs `importLegacyHistory` once per database. */
export const LEGACY_IMPORT = 'archive-002-import-legacy-history';

/** A row of `archive_snapshots` as either backend returns it (PostgreSQL's BIGINT is converted here). */
export interface ArchiveRow {
  id: number;
  source_id: string;
  params_key: string;
  fetched_at: number;
  seen_until: number;
  content_hash: string;
}

export const toSnapshot = (r: ArchiveRow, payload: string): ArchivedSnapshot => ({
  sourceId: r.source_id,
  paramsKey: r.params_key,
  fetchedAt: Number(r.fetched_at),
  seenUntil: Number(r.seen_until),
  contentHash: r.content_hash,
  payload,
});
