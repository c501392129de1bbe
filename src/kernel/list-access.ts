/**
 * Read access to the stored lists for local sources that compute over them (`LocalContext.lists`):
 * the current snapshot of any scheduled list, and the item index. Reads only: never an upstream
 * request; the scheduler keeps the lists warm.
 */
import type { IndexedItem, ItemIndex, ItemQuery } from './item-index.ts';
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

export interface ListAccess {
  /** The scheduled list sources (with list rows), by id; undefined for any other id. */
  source(sourceId: string): ListSourceInfo | undefined;
  /** The last good data of a list (default parameters unless given), or undefined while none is stored. */
  current(sourceId: string, params?: Record<string, string>): Promise<CurrentList | undefined>;
  /** Items of the item index whose title contains the query, with their rank samples. */
  timelines(query: ItemQuery): Promise<IndexedItem[]>;
}

const isList = (s: AnySource | undefined): s is AnySource & { mode: 'scheduled' } => s?.mode === 'scheduled' && !!s.view.rows;

/** `store.name` (a guarded store, see store-guard.ts) also names the item index's database in its failures. */
export function createListAccess(deps: { registry: Registry; store: Store & { readonly name?: string }; itemIndex: ItemIndex; now: () => number }): ListAccess {
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
      const items = listItems(JSON.parse(snap.payload) as unknown);
      if (!items) return undefined;
      const stale = snap.status !== 'ok' || snap.expiresAt === null || snap.expiresAt <= deps.now();
      return { sourceId, name: s.name, paramsKey: key, fetchedAt: snap.fetchedAt, stale, items };
    },
    timelines: (query) =>
      deps.itemIndex.search(query).catch((err: unknown) => {
        throw deps.store.name ? storeFailure(deps.store.name, err) : err;
      }),
  };
}
