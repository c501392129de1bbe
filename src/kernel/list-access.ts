/**
 * Read access to the stored lists for local sources that compute over them (`LocalContext.lists`):
 * the current snapshot of any scheduled list, and the item index. Reads only: never an upstream
 * request; the scheduler keeps the lists warm.
 */
import type { IndexedItem, ItemIndex, ItemQuery } from './item-index.ts';
import { setBounded } from './bounded-map.ts';
import { listItems, type ListItem } from './list-items.ts';
import { paramsKey, parseParams } from './params.ts';
import type { Registry } from './registry.ts';
import type { AnySource } from './source.ts';
import type { Store } from './store.ts';
import { storeFailure } from './store-guard.ts';

export interface CurrentList {
  sourceId: string;
  name: string;
  paramsKey: string;
  fetchedAt: number;
  /** The last refresh failed or the data is past its freshness. */
  stale: boolean;
  items: ListItem[];
}

export interface ListSourceInfo {
  id: string;
  name: string;
  homepage: string | undefined;
}

/** A list that takes part in trending: its source, the parameters of the list meant and its role (see TrendingRole). */
export interface TrendingListInfo extends ListSourceInfo {
  params: Record<string, string>;
  role: 'general' | 'coverage';
}

export interface ListAccess {
  /** The scheduled list sources (with list rows), by id; undefined for any other id. */
  source(sourceId: string): ListSourceInfo | undefined;
  /** The last good data of a list (default parameters unless given), or undefined while none is stored; its items are shared, not to be changed. */
  current(sourceId: string, params?: Record<string, string>): Promise<CurrentList | undefined>;
  /** The list as it stood at a moment, from the snapshot archive; undefined when none was stored by then. */
  at(sourceId: string, params: Record<string, string> | undefined, at: number): Promise<CurrentList | undefined>;
  /** The lists marked `trending`, in registry order. */
  trendingLists(): TrendingListInfo[];
  /** Items of the item index whose title contains the query, with their rank samples. */
  timelines(query: ItemQuery): Promise<IndexedItem[]>;
  /** Titles on any list during [from, to], most recently seen first (see ItemIndex.titles). */
  titles(range: { from: number; to: number; limit: number }): Promise<string[]>;
  /** When each title key was first seen on a list (see ItemIndex.firstSeen). */
  firstSeen(sourceId: string, paramsKey: string, titleKeys: readonly string[]): Promise<Map<string, number>>;
}

/** An archived list last seen this long before the moment asked about was no longer being refreshed then. */
const STALE_AFTER_MS = 2 * 60 * 60_000;

const isList = (s: AnySource | undefined): s is AnySource & { mode: 'scheduled' } => s?.mode === 'scheduled' && !!s.view.rows;

/** Lists whose items are kept parsed (by their payload's hash): trending reads every marked list on each request. */
const PARSED_MAX = 256;

/** `store.name` (a guarded store, see store-guard.ts) also names the item index's database in its failures. */
export function createListAccess(deps: { registry: Registry; store: Store & { readonly name?: string }; itemIndex: ItemIndex; now: () => number }): ListAccess {
  const parsed = new Map<string, { hash: string; items: ListItem[] }>();
  const indexRead = <T>(read: Promise<T>): Promise<T> =>
    read.catch((err: unknown) => {
      throw deps.store.name ? storeFailure(deps.store.name, err) : err;
    });
  return {
    source(sourceId) {
      const s = deps.registry.byId.get(sourceId);
      return isList(s) ? { id: s.id, name: s.name, homepage: s.homepage } : undefined;
    },
    async current(sourceId, params = {}) {
      const s = deps.registry.byId.get(sourceId);
      if (!isList(s)) throw new Error(`${sourceId} is not a scheduled list source`);
      const key = paramsKey(parseParams(s.params, params));
      const snap = await deps.store.getSnapshot(sourceId, key);
      if (!snap?.payload || snap.fetchedAt === null) return undefined;
      const memoKey = `${sourceId}\u0000${key}`;
      const known = parsed.get(memoKey);
      let items = known && snap.payloadHash !== null && known.hash === snap.payloadHash ? known.items : undefined;
      if (!items) {
        items = listItems(JSON.parse(snap.payload) as unknown);
        if (items && snap.payloadHash !== null) setBounded(parsed, memoKey, { hash: snap.payloadHash, items }, PARSED_MAX);
      }
      if (!items) return undefined;
      const stale = snap.status !== 'ok' || snap.expiresAt === null || snap.expiresAt <= deps.now();
      return { sourceId, name: s.name, paramsKey: key, fetchedAt: snap.fetchedAt, stale, items };
    },
    async at(sourceId, params = {}, at) {
      const s = deps.registry.byId.get(sourceId);
      if (!isList(s)) throw new Error(`${sourceId} is not a scheduled list source`);
      const key = paramsKey(parseParams(s.params, params));
      const snap = await deps.store.archive.at(sourceId, key, at);
      if (!snap) return undefined;
      const items = listItems(JSON.parse(snap.payload) as unknown);
      if (!items) return undefined;
      return { sourceId, name: s.name, paramsKey: key, fetchedAt: snap.fetchedAt, stale: snap.seenUntil < at - STALE_AFTER_MS, items };
    },
    trendingLists() {
      return deps.registry.sources.flatMap((s) => (isList(s) && s.trending ? [{ id: s.id, name: s.name, homepage: s.homepage, params: s.trending.params ?? {}, role: s.trending.role ?? 'general' }] : []));
    },
    timelines: (query) => indexRead(deps.itemIndex.search(query)),
    titles: (range) => indexRead(deps.itemIndex.titles(range)),
    firstSeen: (sourceId, key, titleKeys) => indexRead(deps.itemIndex.firstSeen(sourceId, key, titleKeys)),
  };
}
