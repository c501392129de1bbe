/**
 * Cross-platform trending: the items now on the general hot lists, merged into events when their
 * titles name the same thing on several platforms (sources/_shared/trending.ts), ranked by how
 * many platforms carry the event and how high. Computed from the stored lists: never an upstream
 * request; a list not fetched yet is left out and shown as missing.
 */
import { setBounded } from '../src/kernel/bounded-map.ts';
import { AppError } from '../src/kernel/errors.ts';
import type { ListAccess } from '../src/kernel/list-access.ts';
import { defineSource } from '../src/kernel/source.ts';
import { DAY_MS, formatDateTime } from '../src/kernel/time.ts';
import { formatHeat } from './_shared/hot-list.ts';
import { mergeEvents, type PlatformList, type TrendingEvent as MergedEvent } from './_shared/trending.ts';
import { listAccess } from './timeline.ts';

/** The general hot lists compared (by source id, with the parameters of the list meant). */
export const PLATFORMS: readonly { source: string; params?: Record<string, string> }[] = [
  { source: 'hot-microblog' },
  { source: 'hot-short-video-a' },
  { source: 'search-a', params: { board: 'hot' } },
  { source: 'hot-qa-site' },
  { source: 'hot-news-feed' },
  { source: 'hot-search-b' },
  { source: 'hot-video-site' },
  { source: 'hot-lifestyle-a' },
];

export interface TrendingPlatform {
  source: string;
  name: string;
  rank: number;
  title: string;
  hot_value: number | null;
  link: string | null;
}

export interface TrendingEvent {
  rank: number;
  title: string;
  platform_count: number;
  score: number;
  platforms: TrendingPlatform[];
  /** When one of its platforms first listed it (the item index), or null when the index has no sighting: the RSS item's date. */
  first_seen: string | null;
  first_seen_at: number | null;
}

export interface TrendingList {
  source: string;
  name: string;
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
}

/** The most events an answer holds (the `limit` maximum). */
const MAX_EVENTS = 100;

/**
 * The last merge, by the lists it was made of (they change every few minutes, requests come more
 * often), with the first sightings of its events, looked up once per merge.
 */
let lastMerge: { key: string; events: MergedEvent[]; firstSeen?: Promise<(number | null)[]> } | undefined;

/** First sightings by list and title: a sighting never moves, so each found one is looked up once. */
const firstSightings = new Map<string, number>();

/** When the item index first saw this title on this list, or undefined when it has no sighting. */
async function firstSeenAt(access: ListAccess, source: string, title: string, now: number): Promise<number | undefined> {
  const key = `${source}\u0001${title}`;
  const known = firstSightings.get(key);
  if (known !== undefined) return known;
  const found = (await access.timelines({ q: title, sourceId: source, since: now - DAY_MS, limit: 10 })).filter((i) => i.title === title);
  if (!found.length) return undefined;
  const at = Math.min(...found.map((i) => i.firstSeenAt));
  setBounded(firstSightings, key, at, 5_000);
  return at;
}

/** When one of its platforms first listed each event (the earliest sighting), null where the index has none. */
async function eventSightings(access: ListAccess, events: readonly MergedEvent[], now: number): Promise<(number | null)[]> {
  return Promise.all(
    events.map(async (e) => {
      const seen = (await Promise.all(e.platforms.map((x) => firstSeenAt(access, x.sourceId, x.title, now)))).filter((t): t is number => t !== undefined);
      return seen.length ? Math.min(...seen) : null;
    }),
  );
}

function merged(lists: readonly (PlatformList & { fetchedAt: number })[]): NonNullable<typeof lastMerge> {
  const key = lists.map((l) => `${l.sourceId}@${l.fetchedAt}:${l.items.map((i) => `${i.rank}.${i.title}.${i.hot ?? ''}.${i.link ?? ''}`).join('\u0001')}`).join('\u0002');
  if (lastMerge?.key !== key) lastMerge = { key, events: mergeEvents(lists) };
  return lastMerge;
}

export default defineSource({
  id: 'trending',
  name: '全网热点',
  description:
    'The items now on the hot lists of microblog, short video, search, Q&A, news and video platforms, merged into events when their titles name the same thing, ranked by how many platforms carry each event and how high; each event lists its platforms with rank, heat and link.',
  routes: [{ path: '/trending' }],
  params: {
    limit: { type: 'integer', min: 1, max: MAX_EVENTS, default: 30, doc: 'How many events to answer' },
  },
  mode: 'local',
  async compute(ctx, p): Promise<Trending> {
    const access = listAccess(ctx);
    const wanted = PLATFORMS.filter((pl) => access.source(pl.source));
    const current = await Promise.all(wanted.map((pl) => access.current(pl.source, pl.params)));
    const lists = current.flatMap((c) => (c ? [{ sourceId: c.sourceId, name: c.name, items: c.items, fetchedAt: c.fetchedAt }] : []));
    if (!lists.length) throw new AppError(503, 'No hot list has been fetched yet; trending is computed from them. Try again in a minute.', { headers: { 'Retry-After': '60' }, expose: true });
    const merge = merged(lists);
    // The sightings only date the events: when the item index fails, the events go undated and the next request asks again.
    const firstSeen = await (merge.firstSeen ??= eventSightings(access, merge.events.slice(0, MAX_EVENTS), ctx.now().getTime()).catch((err: unknown) => {
      ctx.log.warn({ err: (err as Error).message }, 'trending: first sightings could not be read');
      merge.firstSeen = undefined;
      return [];
    }));
    const events = merge.events.slice(0, p.limit).map((e, n): TrendingEvent => {
      const first = firstSeen[n] ?? null;
      return {
        rank: n + 1,
        title: e.title,
        platform_count: e.platforms.length,
        score: e.score,
        platforms: e.platforms.map((x) => ({ source: x.sourceId, name: x.name, rank: x.rank, title: x.title, hot_value: x.hot ?? null, link: x.link ?? null })),
        first_seen: first === null ? null : formatDateTime(first),
        first_seen_at: first,
      };
    });
    const updatedAt = Math.max(...current.flatMap((c) => (c ? [c.fetchedAt] : [])));
    return {
      events,
      total: events.length,
      lists: wanted.map((pl, i) => {
        const c = current[i];
        return {
          source: pl.source,
          name: access.source(pl.source)?.name ?? pl.source,
          items: c?.items.length ?? 0,
          updated: c ? formatDateTime(c.fetchedAt) : null,
          updated_at: c?.fetchedAt ?? null,
          stale: c?.stale ?? false,
          missing: !c,
        };
      }),
      updated: formatDateTime(updatedAt),
      updated_at: updatedAt,
    };
  },
  view: {
    rows: (d) =>
      d.events.map((e) => {
        const best = e.platforms.find((x) => x.link) ?? e.platforms[0];
        return {
          title: e.title,
          ...(best?.link ? { link: best.link } : {}),
          summary: e.platforms.map((x) => `${x.name} #${x.rank}${x.hot_value !== null ? ` ${formatHeat(x.hot_value)}` : ''}${x.title !== e.title ? `「${x.title}」` : ''}`).join(' · '),
          hot: `${e.platform_count} 平台`,
          guid: `trending:${e.title}`,
          // Dated when first seen on a platform, so a reader lists an event once, where it began.
          date: e.first_seen_at ?? d.updated_at,
        };
      }),
  },
  example: '/v2/apis/trending?limit=10',
});
