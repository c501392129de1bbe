/**
 * Cross-platform trending: the items now on the general hot lists, merged into events when their
 * titles name the same thing on several platforms (sources/_shared/trending.ts), ranked by how
 * many platforms carry the event and how high. Computed from the stored lists: never an upstream
 * request; a list not fetched yet is left out and shown as missing.
 */
import { AppError } from '../src/kernel/errors.ts';
import { defineSource } from '../src/kernel/source.ts';
import { formatDateTime } from '../src/kernel/time.ts';
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

/** The last merge, by the lists it was made of: the lists change every few minutes, requests more often. */
let lastMerge: { key: string; events: MergedEvent[] } | undefined;

function merged(lists: readonly (PlatformList & { fetchedAt: number })[]): MergedEvent[] {
  const key = lists.map((l) => `${l.sourceId}@${l.fetchedAt}:${l.items.map((i) => `${i.rank}.${i.title}.${i.hot ?? ''}.${i.link ?? ''}`).join('\u0001')}`).join('\u0002');
  if (lastMerge?.key !== key) lastMerge = { key, events: mergeEvents(lists) };
  return lastMerge.events;
}

/** The event's heat column: its highest heat on any platform (platforms count heat on their own scales). */
function heatOf(e: TrendingEvent): { hot?: string } {
  const heats = e.platforms.flatMap((x) => (x.hot_value === null ? [] : [x.hot_value]));
  return heats.length ? { hot: formatHeat(Math.max(...heats)) } : {};
}

export default defineSource({
  id: 'trending',
  name: '全网热点',
  description:
    'The items now on the hot lists of microblog, short video, search, Q&A, news and video platforms, merged into events when their titles name the same thing, ranked by how many platforms carry each event and how high; each event lists its platforms with rank, heat and link.',
  routes: [{ path: '/trending' }],
  params: {
    limit: { type: 'integer', min: 1, max: 100, default: 30, doc: 'How many events to answer' },
  },
  mode: 'local',
  async compute(ctx, p): Promise<Trending> {
    const access = listAccess(ctx);
    const wanted = PLATFORMS.filter((pl) => access.source(pl.source));
    const current = await Promise.all(wanted.map((pl) => access.current(pl.source, pl.params)));
    const lists = current.flatMap((c) => (c ? [{ sourceId: c.sourceId, name: c.name, items: c.items, fetchedAt: c.fetchedAt }] : []));
    if (!lists.length) throw new AppError(503, 'No hot list has been fetched yet; trending is computed from them. Try again in a minute.', { headers: { 'Retry-After': '60' }, expose: true });
    const events = merged(lists)
      .slice(0, p.limit)
      .map(
        (e, n): TrendingEvent => ({
          rank: n + 1,
          title: e.title,
          platform_count: e.platforms.length,
          score: e.score,
          platforms: e.platforms.map((x) => ({ source: x.sourceId, name: x.name, rank: x.rank, title: x.title, hot_value: x.hot ?? null, link: x.link ?? null })),
        }),
      );
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
          summary: `${e.platform_count} 个平台：${e.platforms.map((x) => `${x.name} #${x.rank}${x.hot_value !== null ? ` ${formatHeat(x.hot_value)}` : ''}${x.title !== e.title ? `「${x.title}」` : ''}`).join(' · ')}`,
          ...heatOf(e),
          guid: `trending:${e.title}`,
          date: d.updated_at,
        };
      }),
  },
  example: '/v2/apis/trending?limit=10',
});
