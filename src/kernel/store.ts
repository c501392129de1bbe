/**
 * The snapshot store: the narrow interface the refresh engine, the handlers and the status
 * routes use. SQLite (`sqlite-store.ts`) is the default; other backends implement the same
 * interface and run the same test suite.
 *
 * Write rules (the last good data is sacred):
 * - success: replace the payload, reset the failure count, upsert the row of its history key
 *   (sources that declare `history`), remember first-seen times of row guids;
 * - failure: touch only status, checked_at, fail_count, last_error and next_attempt_at.
 *
 * Every dated state of scheduled sources is kept apart, in the archive (`store.archive`, see
 * archive.ts), which the engine writes after each successful commit.
 */
import type { Archive } from './archive.ts';

export type SnapshotStatus = 'ok' | 'failing' | 'never';

export interface Snapshot {
  sourceId: string;
  paramsKey: string;
  /** The validated parameters as JSON, so the scheduler can refresh the key later. */
  params: string;
  status: SnapshotStatus;
  /** The last good data as JSON text, or null when none was ever fetched. */
  payload: string | null;
  payloadHash: string | null;
  itemCount: number | null;
  fetchedAt: number | null;
  expiresAt: number | null;
  checkedAt: number;
  nextAttemptAt: number | null;
  failCount: number;
  lastError: string | null;
}

export interface HistoryEntry {
  sourceId: string;
  paramsKey: string;
  historyKey: string;
  fetchedAt: number;
  payloadHash: string;
  payload: string;
}

export interface RunRecord {
  sourceId: string;
  paramsKey: string;
  startedAt: number;
  ms: number;
  outcome: 'ok' | 'unchanged' | 'failed';
  error?: string;
}

export interface SuccessWrite {
  sourceId: string;
  paramsKey: string;
  params: string;
  payload: string;
  payloadHash: string;
  itemCount: number | null;
  fetchedAt: number;
  expiresAt: number;
  /** Key of the history row (e.g. a date); without it no history row is written. */
  historyKey?: string;
  /** paramsKey under which history rows are kept (defaults to `paramsKey`). */
  historyParamsKey?: string;
  /** Guids of list rows, to remember when each was first seen (RSS item dates). */
  guids?: readonly string[];
}

export interface FailureWrite {
  sourceId: string;
  paramsKey: string;
  params: string;
  checkedAt: number;
  error: string;
  nextAttemptAt: number;
}

export interface Store {
  /** The dated snapshots of scheduled sources (see archive.ts). */
  readonly archive: Archive;
  getSnapshot(sourceId: string, paramsKey: string): Promise<Snapshot | undefined>;
  listSnapshots(sourceId?: string): Promise<Snapshot[]>;
  commitSuccess(w: SuccessWrite): Promise<{ changed: boolean }>;
  recordFailure(w: FailureWrite): Promise<void>;
  getHistory(sourceId: string, paramsKey: string, historyKey: string): Promise<HistoryEntry | undefined>;
  /** Newest first. */
  listHistory(sourceId: string, paramsKey: string, limit: number): Promise<HistoryEntry[]>;
  firstSeen(sourceId: string, paramsKey: string, guids: readonly string[]): Promise<Map<string, number>>;
  recordRun(r: RunRecord): Promise<void>;
  /** Newest first. */
  recentRuns(sourceId: string, limit: number): Promise<RunRecord[]>;
  /**
   * Drop history older than the retention (keeping the newest `keepPerKey` rows per key; a
   * retention of 0 keeps all), old runs, and the least recently checked snapshots of a source
   * beyond its key cap. The archive prunes itself (`archive.prune`).
   */
  prune(opts: { now: number; retentionDays: number; keepPerKey: number; keyCaps: Record<string, number> }): Promise<void>;
  close(): Promise<void>;
}
