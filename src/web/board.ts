/**
 * The board: every archived list of the catalogue (each scheduled source with list rows, once per
 * parameter set its schedule keeps), as it is now or as it was at a moment, each with its place
 * in its snapshots. Read from the store and the archive only, never from an upstream.
 */
import type { Moment } from '../kernel/archive-params.ts';
import type { Engine, ReadResult } from '../kernel/engine.ts';
import { parseParams } from '../kernel/params.ts';
import type { Registry } from '../kernel/registry.ts';
import type { AnyParams, FetchedSource, Row } from '../kernel/source.ts';
import { categoryOf } from '../http/categories.ts';
import type { Snapshots } from './snapshots.ts';
import type { SnapshotNav } from './time-machine.ts';

export interface BoardList {
  source: FetchedSource;
  params: AnyParams;
  /** The list's page (`encoding=html`), without a moment. */
  href: string;
  category: string;
}

export interface BoardCard extends BoardList {
  title: string;
  /** Undefined while nothing is stored (for the moment asked). */
  read: ReadResult | undefined;
  rows: Row[];
  nav: SnapshotNav | undefined;
}

export interface Board {
  /** The moment shown: the one asked for, or undefined for now. */
  at: number | undefined;
  cards: BoardCard[];
  nav: SnapshotNav | undefined;
}

/** The page of a list: the route whose fixed parameters it has, its path parameters filled, the others in the query. */
export function listHref(source: FetchedSource, raw: Readonly<Record<string, string>>, params: AnyParams = raw): string {
  // Fixed values are matched against the parsed parameters (defaults included: music-rank's list is `id=''`).
  const route =
    source.routes.find((r) => r.fixed && Object.entries(r.fixed).every(([k, v]) => String(params[k] ?? '') === v)) ??
    source.routes.find((r) => !r.fixed && !r.forceEncoding) ??
    (source.routes[0] as (typeof source.routes)[number]);
  const used = new Set(Object.keys(route.fixed ?? {}));
  // An optional path parameter left out takes its slash with it (`/music-rank/:id?` → `/music-rank`).
  const path = route.path.replace(/\/:(\w+)(\?)?/g, (_, name: string, optional: string | undefined) => {
    used.add(name);
    const value = raw[name];
    return value === undefined ? (optional ? '' : '/') : `/${encodeURIComponent(value)}`;
  });
  const query = new URLSearchParams(Object.entries(raw).filter(([k]) => !used.has(k)));
  query.set('encoding', 'html');
  return `/v2/apis${path}?${query.toString()}`;
}

/** Every list on the board, in catalogue order. */
export function boardLists(registry: Registry, engine: Pick<Engine, 'warmKeysOf'>): BoardList[] {
  return registry.sources.flatMap((source) => {
    if (source.mode !== 'scheduled' || !source.view.rows) return [];
    const sets = (source.prefetch?.length ? source.prefetch : [{}]) as Record<string, string>[];
    return sets.map((raw) => {
      const params = parseParams(source.params, raw);
      return { source, params, href: listHref(source, raw, params), category: categoryOf(source) };
    });
  });
}

const momentAt = (at: number): Moment => ({ at, param: 'at', value: String(at), live: false });

/**
 * The board's place in time from its lists': shown at the latest change of any list (or the
 * moment asked); the previous state is the latest earlier snapshot time among the lists (the
 * previous one of those that changed last), the next the earliest later one.
 */
export function boardNav(cards: readonly BoardCard[], at: number | undefined): SnapshotNav | undefined {
  const navs = cards.flatMap((c) => (c.nav ? [c.nav] : []));
  if (!navs.length) return undefined;
  const latest = Math.max(...navs.map((n) => n.at));
  const earlier = navs.flatMap((n) => (n.at === latest ? (n.previousAt === undefined ? [] : [n.previousAt]) : [n.at]));
  const later = navs.flatMap((n) => (n.nextAt === undefined ? [] : [n.nextAt]));
  return {
    at: at ?? latest,
    past: at !== undefined,
    previousAt: earlier.length ? Math.max(...earlier) : undefined,
    nextAt: later.length ? Math.min(...later) : undefined,
    previousRows: undefined,
  };
}

export async function readBoard(deps: { lists: readonly BoardList[]; engine: Pick<Engine, 'readStored' | 'readAt'>; snapshots: Snapshots }, at: number | undefined): Promise<Board> {
  const cards = await Promise.all(
    deps.lists.map(async (list): Promise<BoardCard> => {
      let read: ReadResult | undefined;
      try {
        read = at === undefined ? await deps.engine.readStored(list.source, list.params) : await deps.engine.readAt(list.source, list.params, momentAt(at));
      } catch {
        read = undefined; // nothing stored for that moment
      }
      const view = list.source.view;
      const rows = read ? (view.rows?.(read.data as never, read.params as never) ?? []) : [];
      const title = read ? (view.title?.(read.data as never, read.params as never) ?? list.source.name) : list.source.name;
      const nav = read ? await deps.snapshots.navOf(read) : undefined;
      return { ...list, title, read, rows, nav };
    }),
  );
  return { at, cards, nav: boardNav(cards, at) };
}
