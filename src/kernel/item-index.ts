/**
 * The item index: every item that appeared on a scheduled list, keyed by (source, params key,
 * title key), with when it was first and last seen, its best rank and heat, and rank samples over
 * time. The engine records each successful list commit (see `Engine` `itemIndex`); the timeline
 * route searches it. SQLite (`sqlite-item-index.ts`) and PostgreSQL (`pg-item-index.ts`) keep
 * the same tables and follow the plan made here, so both write the same rows.
 *
 * Storage stays bounded: an unchanged list is recorded at most once per `SAMPLE_INTERVAL_MS`
 * (to extend `last_seen_at`), and an item gets a new rank sample only when its rank moved and
 * its last sample is `MIN_SAMPLE_GAP_MS` old, or when `SAMPLE_INTERVAL_MS` passed. Peaks are
 * updated on every recording, so they are exact even between samples.
 */
import type { ListItem } from './list-items.ts';
import { titleKey } from './title-key.ts';

export const MIN_SAMPLE_GAP_MS = 30 * 60_000;
export const SAMPLE_INTERVAL_MS = 60 * 60_000;
/** Longest query text (characters) and most items one search answers. */
export const MAX_QUERY_LENGTH = 64;
export const MAX_RESULTS = 50;

export interface ListCommit {
  sourceId: string;
  paramsKey: string;
  fetchedAt: number;
  /** Whether the list's content differs from the previous commit. */
  changed: boolean;
  items: readonly ListItem[];
}

export interface RankSample {
  at: number;
  rank: number;
  hot: number | null;
}

export interface IndexedItem {
  sourceId: string;
  paramsKey: string;
  title: string;
  link: string | null;
  firstSeenAt: number;
  lastSeenAt: number;
  peakRank: number;
  peakHot: number | null;
  /** Oldest first, within the query window. */
  samples: RankSample[];
}

export interface ItemQuery {
  /** Text the title must contain (compared in `titleKey` form). */
  q: string;
  sourceId?: string;
  /** Items last seen at or after this time (ms); samples from this time on. */
  since: number;
  /** At most this many items (default and cap MAX_RESULTS). */
  limit?: number;
}

export interface ItemIndex {
  /** Record one successful list commit; `written` is false when the plan skipped it. */
  record(commit: ListCommit): Promise<{ written: boolean; samples: number }>;
  /** Items whose title contains the query, most recently seen first, with their samples. */
  search(query: ItemQuery): Promise<IndexedItem[]>;
  /**
   * Titles of items on any list during [from, to] (first seen at or before `to`, last seen at or
   * after `from`), most recently seen first, at most `limit`: what was being said then.
   */
  titles(range: { from: number; to: number; limit: number }): Promise<string[]>;
  /** When each title key (see titleKey) was first seen on a list, for the keys the index holds. */
  firstSeen(sourceId: string, paramsKey: string, titleKeys: readonly string[]): Promise<Map<string, number>>;
  /** Drop samples and items last seen before the retention; `retentionDays` 0 keeps everything. */
  prune(opts: { now: number; retentionDays: number }): Promise<void>;
}

/** What the index holds about an item of a list, as the plan needs it. */
export interface KnownItem {
  id: number;
  lastRank: number;
  lastSampleAt: number;
}

/** One item of a commit, in the form both backends write. */
export interface ItemWrite {
  key: string;
  title: string;
  link: string | null;
  rank: number;
  hot: number | null;
  /** Whether a rank sample is written for it now. */
  sample: boolean;
}

/** Whether a commit is recorded at all, given when its list was last recorded. */
export function shouldRecord(commit: ListCommit, lastRecordedAt: number | undefined): boolean {
  return commit.changed || lastRecordedAt === undefined || commit.fetchedAt - lastRecordedAt >= SAMPLE_INTERVAL_MS;
}

/** The items of a commit, one per title key (its best rank wins). */
export function commitItems(commit: ListCommit): Omit<ItemWrite, 'sample'>[] {
  const byKey = new Map<string, Omit<ItemWrite, 'sample'>>();
  for (const item of commit.items) {
    const key = titleKey(item.title);
    if (!key) continue;
    const prev = byKey.get(key);
    if (prev && prev.rank <= item.rank) continue;
    byKey.set(key, { key, title: item.title, link: item.link ?? null, rank: item.rank, hot: item.hot ?? null });
  }
  return [...byKey.values()];
}

/** Whether an item gets a new sample (see the file comment). */
export function sampleDue(known: KnownItem | undefined, rank: number, at: number): boolean {
  if (!known) return true;
  const age = at - known.lastSampleAt;
  return age >= SAMPLE_INTERVAL_MS || (rank !== known.lastRank && age >= MIN_SAMPLE_GAP_MS);
}

/** The query text in title-key form, or undefined when nothing searchable is left. */
export function queryKey(q: string): string | undefined {
  const key = titleKey(q);
  return key ? key : undefined;
}

/** An `items` row as both backends select it for a search. */
export interface ItemRow {
  id: number;
  source_id: string;
  params_key: string;
  title: string;
  link: string | null;
  first_seen_at: number;
  last_seen_at: number;
  peak_rank: number;
  peak_hot: number | null;
}

export interface SampleRow {
  item_id: number;
  at: number;
  rank: number;
  hot: number | null;
}

export function samplesByItem(rows: readonly SampleRow[]): Map<number, RankSample[]> {
  const out = new Map<number, RankSample[]>();
  for (const s of rows) {
    let list = out.get(s.item_id);
    if (!list) out.set(s.item_id, (list = []));
    list.push({ at: s.at, rank: s.rank, hot: s.hot });
  }
  return out;
}

export function toIndexedItem(r: ItemRow, samples: RankSample[]): IndexedItem {
  return {
    sourceId: r.source_id,
    paramsKey: r.params_key,
    title: r.title,
    link: r.link,
    firstSeenAt: r.first_seen_at,
    lastSeenAt: r.last_seen_at,
    peakRank: r.peak_rank,
    peakHot: r.peak_hot,
    samples,
  };
}
