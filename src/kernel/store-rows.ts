/** Row shapes of the snapshot tables and their mapping to the Store types, shared by every SQL backend. */
import type { HistoryEntry, Snapshot } from './store.ts';

export interface SnapshotRow {
  source_id: string;
  params_key: string;
  params: string;
  status: Snapshot['status'];
  payload: string | null;
  payload_hash: string | null;
  item_count: number | null;
  fetched_at: number | null;
  expires_at: number | null;
  checked_at: number;
  next_attempt_at: number | null;
  fail_count: number;
  last_error: string | null;
}

export interface HistoryRow {
  source_id: string;
  params_key: string;
  history_key: string;
  fetched_at: number;
  payload_hash: string;
  payload: string;
}

export const toSnapshot = (r: SnapshotRow): Snapshot => ({
  sourceId: r.source_id,
  paramsKey: r.params_key,
  params: r.params,
  status: r.status,
  payload: r.payload,
  payloadHash: r.payload_hash,
  itemCount: r.item_count,
  fetchedAt: r.fetched_at,
  expiresAt: r.expires_at,
  checkedAt: r.checked_at,
  nextAttemptAt: r.next_attempt_at,
  failCount: r.fail_count,
  lastError: r.last_error,
});

export const toHistory = (r: HistoryRow): HistoryEntry => ({
  sourceId: r.source_id,
  paramsKey: r.params_key,
  historyKey: r.history_key,
  fetchedAt: r.fetched_at,
  payloadHash: r.payload_hash,
  payload: r.payload,
});
