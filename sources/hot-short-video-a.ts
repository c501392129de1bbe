/**
 * Hot searches of the short-video platform, from the legacy app endpoint
 * https://aweme-lq.snssdk.com/aweme/v1/hot/search/list/ (no signature needed). `data.word_list`
 * is the ranked board; `event_time` is in seconds (the reference forgot to convert it to ms);
 * `data.active_time` is the board's own update time as Shanghai wall-clock text.
 * A non-zero `status_code` is the app API refusing the request (risk control).
 */
import { SourceError } from '../src/kernel/errors.ts';
import { missingPath, need } from '../src/kernel/json-path.ts';
import { defineSource } from '../src/kernel/source.ts';
import { formatDateTime, formatSixtyDateTime } from '../src/kernel/time.ts';
import {
  asArray,
  asNumber,
  asRecord,
  asString,
  dedupeByLink,
  epochMs,
  hotListRows,
  migrateHotList,
  missing,
  pick,
  shanghaiTimeMs,
  validateHotList,
  type HotItem,
  type HotList,
} from './_shared/hot-list.ts';

export const UPSTREAM_URL = 'https://aweme-lq.snssdk.com/aweme/v1/hot/search/list/';
export const UPSTREAM_QUERY = { aid: 1128, version_code: 880 } as const;

export interface ShortVideoItem extends HotItem {
  hot_value: number;
  /** The topic's cover image; '' when it has none. */
  cover: string;
  /** Views of the topic's videos, when the upstream gives it. */
  view_count?: number;
  video_count?: number;
  /** When the topic started trending; null when the upstream does not say. */
  event_time: string | null;
  event_time_at: number | null;
  /** When the platform last recomputed the board (the same on every item). */
  active_time: string | null;
  active_time_at: number | null;
}

export function parse(raw: unknown): HotList<ShortVideoItem> {
  const root = need(raw, '', asRecord, 'a JSON object');
  const status = asNumber(root.status_code);
  if (status !== undefined && status !== 0) {
    throw new SourceError('blocked', `upstream refused the request: status_code=${status} ${asString(root.status_msg) ?? ''}`.trim());
  }
  const words = asArray(pick(root, 'data', 'word_list'));
  if (!words) throw missingPath(root, 'data.word_list', 'an array');
  const activeAt = shanghaiTimeMs(pick(root, 'data', 'active_time')) ?? null;
  // 60s passes the upstream's own text of active_time.
  const active = { active_time: activeAt === null ? null : (asString(pick(root, 'data', 'active_time'))?.trim() ?? formatDateTime(activeAt)), active_time_at: activeAt };
  const list: ShortVideoItem[] = [];
  words.forEach((entry, index) => {
    const w = asRecord(entry);
    const title = asString(w?.word)?.trim();
    if (!w || !title) return;
    const eventAt = epochMs(w.event_time) ?? null;
    const views = asNumber(w.view_count);
    const videos = asNumber(w.video_count);
    list.push({
      rank: asNumber(w.position) ?? index + 1,
      title,
      link: `https://www.douyin.com/search/${encodeURIComponent(title)}`,
      hot_value: asNumber(w.hot_value) ?? 0,
      cover: asString(pick(w, 'word_cover', 'url_list', 0)) ?? '',
      ...(views !== undefined ? { view_count: views } : {}),
      ...(videos !== undefined ? { video_count: videos } : {}),
      event_time: eventAt === null ? null : formatSixtyDateTime(eventAt),
      event_time_at: eventAt,
      ...active,
    });
  });
  return dedupeByLink(list);
}

export default defineSource({
  id: 'hot-short-video-a',
  name: '抖音热搜',
  description: 'Hot searches of the short-video platform: rank, title, heat, cover, event time and a search link.',
  homepage: 'https://www.douyin.com/hot',
  routes: [{ path: '/hot-short-video-a' }],
  mode: 'scheduled',
  schedule: '*/5 * * * *',
  trending: {},
  freshness: { ttlSec: 300, backoffCapSec: 3600 },
  headers: { accept: 'application/json' },
  async fetch(ctx) {
    const res = await ctx.http.request(UPSTREAM_URL, { searchParams: UPSTREAM_QUERY, signal: ctx.signal });
    if (/text\/html/i.test(String(res.headers['content-type']))) throw new SourceError('blocked', 'upstream answered an HTML page (verification) instead of JSON');
    return parse(res.json());
  },
  validate: (data) => validateHotList(data, 5),
  migrate: migrateHotList({
    // The board's time moved from the container onto every item.
    fill: (i, list) => missing(i, { cover: '', event_time: null, event_time_at: null, active_time: list.active_time ?? null, active_time_at: list.active_time_at ?? null }),
  }),
  view: { rows: hotListRows },
  example: '/v2/apis/hot-short-video-a?encoding=text',
});
