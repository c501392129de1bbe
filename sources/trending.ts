/**
 * Cross-platform trending: the items on the general hot lists (every list source marked
 * `trending`), merged into events when they name the same real-world occurrence
 * (sources/_shared/trending.ts), ranked so that the day's biggest stories lead; the items of the
 * lists marked `trending: { role: 'coverage' }` join those events without forming or ranking any.
 * Computed from the stored lists, now or (`date`/`at`) as the archive held them then: never an
 * upstream request; a list not fetched yet is left out and shown as missing. The merge is kept
 * while the lists it was made of are unchanged.
 */
import { AT_SPEC, DATE_SPEC, momentFrom, type Moment } from '../src/kernel/archive-params.ts';
import { setBounded } from '../src/kernel/bounded-map.ts';
import { sha1 } from '../src/kernel/digest.ts';
import { AppError } from '../src/kernel/errors.ts';
import type { CurrentList, ListAccess, TrendingListInfo } from '../src/kernel/list-access.ts';
import { defineSource, type Row } from '../src/kernel/source.ts';
import { formatDateTime } from '../src/kernel/time.ts';
import { titleKey } from '../src/kernel/title-key.ts';
import { frequencyBucket, storedFrequencies } from './_shared/events/stored-frequencies.ts';
import { formatHeat } from './_shared/hot-list.ts';
import { mergeEvents, type PlatformEntry, type PlatformList, type TrendingEvent as MergedEvent } from './_shared/trending.ts';
import { listAccess } from './timeline.ts';
import { trendingHtml } from '../src/web/trending-page.ts';

/** One item of an event, as a list carries it. */
export interface TrendingItem {
  source: string;
  name: string;
  rank: number;
  title: string;
  hot_value: number | null;
  link: string | null;
  /** When this title was first seen on that list. */
  first_seen: string | null;
  first_seen_at: number | null;
}

/** One platform of an event: its best-placed item there, and when the event first appeared on it. */
export type TrendingPlatform = TrendingItem;

export interface TrendingEvent {
  /** Stable while the event trends: named after its earliest item (see eventId). */
  id: string;
  rank: number;
  title: string;
  platform_count: number;
  item_count: number;
  score: number;
  /** When its earliest item was first seen on any list. */
  first_seen: string | null;
  first_seen_at: number | null;
  /** One per platform, best-placed first, with when the event first appeared there. */
  platforms: TrendingPlatform[];
  /** All its items (several may come from one platform), strongest first. */
  items: TrendingItem[];
}

export interface TrendingList {
  source: string;
  name: string;
  /** `general` lists form and rank the events; `coverage` lists only join them (see TrendingRole). */
  role: 'general' | 'coverage';
  items: number;
  updated: string | null;
  updated_at: number | null;
  stale: boolean;
  missing: boolean;
}

export interface Trending {
  events: TrendingEvent[];
  total: number;
  lists: TrendingList[];
  updated: string;
  updated_at: number;
  /** With `date`/`at`: the moment the lists were read from the archive at. */
  snapshot?: string;
  snapshot_at?: number;
}

type StoredList = CurrentList & { info: TrendingListInfo };

/**
 * Merges, with their events in answer form, by the lists they were made of: the lists change
 * every few minutes, requests come more often.
 */
const merges = new WeakMap<ListAccess, Map<string, Promise<TrendingEvent[]>>>();

/**
 * A digest of a list's items, kept per items array: the current lists' arrays are kept parsed
 * while their payload is unchanged (list-access.ts), so a request digests only what changed.
 */
const itemDigests = new WeakMap<CurrentList['items'], string>();

function itemsDigest(items: CurrentList['items']): string {
  let digest = itemDigests.get(items);
  if (digest === undefined) {
    const text = items.map((i) => `${i.rank}.${i.title}.${i.hot ?? ''}.${i.link ?? ''}.${i.description ?? ''}`).join('\u0001');
    digest = sha1(text);
    itemDigests.set(items, digest);
  }
  return digest;
}

/** What the merge depends on: the lists' content (a refetch of the same content reuses it) and the rarity table. */
function contentKey(lists: readonly StoredList[], frequencyBucket: number): string {
  return `${frequencyBucket}\u0003${lists.map((l) => `${l.sourceId}@${l.paramsKey}:${itemsDigest(l.items)}`).join('\u0002')}`;
}

/** Each item with when its title was first seen on its list (never after the list's own time). */
async function withFirstSeen(access: ListAccess, l: StoredList): Promise<PlatformList> {
  const keys = l.items.map((i) => titleKey(i.title));
  const seen = await access.firstSeen(l.sourceId, l.paramsKey, [...new Set(keys)]);
  return {
    sourceId: l.sourceId,
    name: l.name,
    role: l.info.role,
    items: l.items.map((i, n) => {
      const at = seen.get(keys[n]!);
      return { ...i, firstSeenAt: at === undefined ? undefined : Math.min(at, l.fetchedAt) };
    }),
  };
}

async function merged(access: ListAccess, lists: readonly StoredList[], at: number): Promise<TrendingEvent[]> {
  let byKey = merges.get(access);
  if (!byKey) merges.set(access, (byKey = new Map()));
  const frequencies = await storedFrequencies(access, at);
  const key = contentKey(lists, frequencyBucket(at));
  let events = byKey.get(key);
  if (!events) {
    events = Promise.all(lists.map((l) => withFirstSeen(access, l))).then((platformLists) => mergeEvents(platformLists, { frequencies }).map(toEvent));
    events.catch(() => byKey.delete(key));
    setBounded(byKey, key, events, 4);
  }
  return events;
}

/**
 * An event's id: a hash of its earliest item of a general list (first seen first; then by list and
 * title), which stays in the event while it trends, so the id does too, and reads the same from
 * the archive. Coverage items come and go without changing it.
 */
export function eventId(platforms: readonly PlatformEntry[]): string {
  const anchor = platforms.filter((p) => p.role === 'general').sort(
    (a, b) => (a.firstSeenAt ?? Infinity) - (b.firstSeenAt ?? Infinity) || a.sourceId.localeCompare(b.sourceId) || titleKey(a.title).localeCompare(titleKey(b.title)),
  )[0]!;
  return sha1(`${anchor.sourceId}\u0000${titleKey(anchor.title)}`).slice(0, 12);
}

const timePair = (at: number | undefined) => (at === undefined ? { first_seen: null, first_seen_at: null } : { first_seen: formatDateTime(at), first_seen_at: at });

function toItem(x: PlatformEntry): TrendingItem {
  return { source: x.sourceId, name: x.name, rank: x.rank, title: x.title, hot_value: x.hot ?? null, link: x.link ?? null, ...timePair(x.firstSeenAt) };
}

function toEvent(e: MergedEvent, n: number): TrendingEvent {
  const platforms = new Map<string, TrendingItem>();
  for (const x of e.platforms) {
    const have = platforms.get(x.sourceId);
    if (!have) platforms.set(x.sourceId, toItem(x));
    else if (x.firstSeenAt !== undefined && (have.first_seen_at === null || x.firstSeenAt < have.first_seen_at)) Object.assign(have, timePair(x.firstSeenAt));
  }
  const seen = e.platforms.flatMap((x) => (x.firstSeenAt === undefined ? [] : [x.firstSeenAt]));
  return {
    id: eventId(e.platforms),
    rank: n + 1,
    title: e.title,
    platform_count: e.platformCount,
    item_count: e.platforms.length,
    score: e.score,
    ...timePair(seen.length ? Math.min(...seen) : undefined),
    platforms: [...platforms.values()],
    items: e.platforms.map(toItem),
  };
}

async function readLists(access: ListAccess, wanted: readonly TrendingListInfo[], moment: Moment | undefined): Promise<(StoredList | undefined)[]> {
  const read = await Promise.all(wanted.map((pl) => (moment ? access.at(pl.id, pl.params, moment.at) : access.current(pl.id, pl.params))));
  return read.map((c, i) => (c ? { ...c, info: wanted[i]! } : undefined));
}

/** The event's heat column: its highest heat on any platform (platforms count heat on their own scales). */
function heatOf(e: TrendingEvent): { hot?: string } {
  const heats = e.platforms.flatMap((x) => (x.hot_value === null ? [] : [x.hot_value]));
  return heats.length ? { hot: formatHeat(Math.max(...heats)) } : {};
}

/** One row per event (text, markdown, rss and the html table). */
function eventRows(d: Trending): Row[] {
  return d.events.map((e) => {
    const best = e.items.find((x) => x.link) ?? e.items[0];
    return {
      title: e.title,
      ...(best?.link ? { link: best.link } : {}),
      summary: `${e.platform_count} 个平台${e.item_count > e.platform_count ? ` ${e.item_count} 条` : ''}：${e.items.map((x) => `${x.name} #${x.rank}${x.hot_value !== null ? ` ${formatHeat(x.hot_value)}` : ''}${x.title !== e.title ? `「${x.title}」` : ''}`).join(' · ')}`,
      ...heatOf(e),
      guid: `trending:${e.id}`,
      date: e.first_seen_at ?? d.updated_at,
    };
  });
}

export default defineSource({
  id: 'trending',
  name: '全网热点',
  description:
    'The items now (or, with date/at, then) on the hot lists of microblog, short video, search, Q&A, news and video platforms, merged into events when they name the same real-world occurrence and joined by the items of tech-news and forum lists that tell of them, the biggest stories first (how many platforms and items carry each, how high, how hot); each event has a stable id, its platforms with when it first appeared on each, and all its items with rank, heat and link.',
  routes: [{ path: '/trending' }],
  params: {
    limit: { type: 'integer', min: 1, max: 100, default: 30, doc: 'How many events to answer' },
    date: { ...DATE_SPEC, doc: 'A past day (Asia/Shanghai): trending as the archived lists stood at its end (or now, for today).' },
    at: { ...AT_SPEC, doc: 'A past moment (ISO 8601 or ms timestamp): trending as the archived lists stood then.' },
  },
  mode: 'local',
  async compute(ctx, p): Promise<Trending> {
    const access = listAccess(ctx);
    const now = ctx.now().getTime();
    const moment = momentFrom({ date: p.date, at: p.at }, ['date', 'at'], now);
    const wanted = access.trendingLists();
    const stored = await readLists(access, wanted, moment);
    const lists = stored.filter((c): c is StoredList => !!c);
    if (!lists.length) {
      if (moment) throw new AppError(404, `No hot list was stored by ${formatDateTime(moment.at)} (Asia/Shanghai), so trending has no answer for ${moment.param}=${moment.value}; ask about a later moment.`, { expose: true });
      throw new AppError(503, 'No hot list has been fetched yet; trending is computed from them. Try again in a minute.', { headers: { 'Retry-After': '60' }, expose: true });
    }
    const events = (await merged(access, lists, moment?.at ?? now)).slice(0, p.limit);
    const updatedAt = Math.max(...lists.map((c) => c.fetchedAt));
    return {
      events,
      total: events.length,
      lists: wanted.map((pl, i) => {
        const c = stored[i];
        return {
          source: pl.id,
          name: pl.name,
          role: pl.role,
          items: c?.items.length ?? 0,
          updated: c ? formatDateTime(c.fetchedAt) : null,
          updated_at: c?.fetchedAt ?? null,
          stale: c?.stale ?? false,
          missing: !c,
        };
      }),
      updated: formatDateTime(updatedAt),
      updated_at: updatedAt,
      ...(moment ? { snapshot: formatDateTime(moment.at), snapshot_at: moment.at } : {}),
    };
  },
  view: {
    rows: eventRows,
    htmlBody: (d) => trendingHtml(d, eventRows(d)),
  },
  example: '/v2/apis/trending?limit=10',
});
