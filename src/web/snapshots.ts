/**
 * Where a list's data stands in its archived snapshots, for the time machine of the html pages:
 * the snapshot's time, the previous one (with its rows, to mark what changed) and the next one.
 * Reads the archive only, never an upstream. A snapshot's neighbours never change once it has a
 * next one, so those answers are kept; the newest snapshot's are asked again after a few seconds.
 */
import type { ListPageNav } from '../encoding/generic.ts';
import { isArchived, type Moment } from '../kernel/archive-params.ts';
import type { Archive } from '../kernel/archive.ts';
import { setBounded } from '../kernel/bounded-map.ts';
import { StoreUnavailableError } from '../kernel/errors.ts';
import type { Engine, ReadResult } from '../kernel/engine.ts';
import { listItems } from '../kernel/list-items.ts';
import type { AnyParams, AnySource, FetchedSource, Row } from '../kernel/source.ts';
import type { SnapshotNav } from './time-machine.ts';

export interface SnapshotDeps {
  engine: Pick<Engine, 'readAt' | 'warmKeysOf' | 'now'>;
  archive: Archive;
}

/** How long the neighbours of a key's newest snapshot are kept before the archive is asked again (ms). */
const NEWEST_KEPT_MS = 5_000;
const KEPT = 512;

interface Kept {
  nav: Omit<SnapshotNav, 'past' | 'titlesIndexed'>;
  until: number;
}

/** Parameters a list page's links keep: the encoding and the source's own ones (never at/date). */
function pageBase(source: AnySource, url: string): string {
  const u = new URL(url, 'http://x');
  const own = new Set(['encoding', ...Object.keys(source.params ?? {})]);
  const kept = new URLSearchParams();
  for (const [k, v] of u.searchParams) if (own.has(k) && k !== 'at' && k !== 'date') kept.append(k, v);
  const q = kept.toString();
  return `${u.pathname}${q ? `?${q}` : ''}`;
}

const momentAt = (at: number): Moment => ({ at, param: 'at', value: String(at), live: false });

export class Snapshots {
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly deps: SnapshotDeps) {}

  /** Whether the key's every state is archived: a list the scheduler keeps (see Engine.warmKeysOf). */
  archived(source: AnySource, key: string): source is FetchedSource {
    return isArchived(source) && !!source.view.rows && this.deps.engine.warmKeysOf(source).has(key);
  }

  /** The page's place in the snapshots of its list; undefined for data that is not an archived list. */
  async listNav(r: ReadResult, url: string): Promise<ListPageNav | undefined> {
    if (!this.archived(r.source, r.paramsKey)) return undefined;
    const nav = await this.navOf(r).catch((e: unknown) => {
      if (e instanceof StoreUnavailableError) return undefined; // the list itself still shows, from memory
      throw e;
    });
    return nav && { nav, base: pageBase(r.source, url), sourceId: r.source.id };
  }

  /** The snapshot navigation of a read of an archived key (current or HISTORY). */
  async navOf(r: ReadResult): Promise<SnapshotNav | undefined> {
    const source = r.source as FetchedSource;
    const past = r.cache === 'HISTORY';
    let at = r.fetchedAt;
    if (!past) {
      const bounds = await this.deps.archive.bounds(source.id, r.paramsKey);
      if (!bounds) return undefined;
      at = bounds.last;
    }
    const cacheKey = `${source.id}|${r.paramsKey}|${at}`;
    const now = Date.now();
    const hit = this.kept.get(cacheKey);
    // Titles link to their timeline where the item index keeps the list's items (titled items; not e.g. a digest's lines).
    const titlesIndexed = !!listItems(r.data)?.length;
    if (hit && hit.until > now) return { ...hit.nav, past, titlesIndexed };
    const [previous, nextAt] = await Promise.all([this.previous(source, r.params, at), this.nextAfter(source.id, r.paramsKey, at)]);
    const nav = { at, previousAt: previous?.at, nextAt, previousRows: previous?.rows };
    setBounded(this.kept, cacheKey, { nav, until: nextAt === undefined ? now + NEWEST_KEPT_MS : Infinity }, KEPT);
    return { ...nav, past, titlesIndexed };
  }

  /** The snapshot before the one of time `at`, with its rows (in the source's current shape). */
  private async previous(source: FetchedSource, params: AnyParams, at: number): Promise<{ at: number; rows: Row[] } | undefined> {
    try {
      const r = await this.deps.engine.readAt(source, params, momentAt(at - 1));
      return { at: r.fetchedAt, rows: source.view.rows?.(r.data as never, r.params as never) ?? [] };
    } catch {
      return undefined; // none stored before it
    }
  }

  /** The time of the snapshot after `at`, if any. */
  private async nextAfter(sourceId: string, key: string, at: number): Promise<number | undefined> {
    const following = await this.deps.archive.list(sourceId, key, { from: at + 1, to: this.deps.engine.now(), limit: 2 });
    return following.find((s) => s.fetchedAt > at)?.fetchedAt;
  }
}
