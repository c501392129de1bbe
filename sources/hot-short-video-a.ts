/**
 * Hot searches of the short-video platform, from the legacy app endpoint
 * https://aweme-lq.snssdk.com/aweme/v1/hot/search/list/ (no signature needed). `data.word_list`
 * is the ranked board; `event_time` is in seconds (the reference forgot to convert it to ms);
 * `data.active_time` is the board's own update time as Shanghai wall-clock text.
 * A non-zero `status_code` is the app API refusing the request (risk control).
 */
import { formatSixtyDateTime } from '../src/kernel/time.ts';
import { defineHotList, parseDeclared, type DeclaredItem, type JsonList } from './_shared/declared-list.ts';
import { asNumber, asString, epochMs, missing, pick, shanghaiTimeMs } from './_shared/hot-list.ts';

export const UPSTREAM_URL = 'https://aweme-lq.snssdk.com/aweme/v1/hot/search/list/';
export const UPSTREAM_QUERY = { aid: 1128, version_code: 880 } as const;

export interface ShortVideoItem extends DeclaredItem {
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

export const list: JsonList = {
  id: 'hot-short-video-a',
  name: '抖音热搜',
  description: 'Hot searches of the short-video platform: rank, title, heat, cover, event time and a search link.',
  homepage: 'https://www.douyin.com/hot',
  path: '/hot-short-video-a',
  trending: {},
  pace: 'live',
  request: { url: UPSTREAM_URL, searchParams: UPSTREAM_QUERY },
    refused: (root) => {
    const status = asNumber(root.status_code);
    return status !== undefined && status !== 0 ? `upstream refused the request: status_code=${status} ${asString(root.status_msg) ?? ''}`.trim() : undefined;
  },
  items: ['data', 'word_list'],
  item: (w, root) => {
    const title = asString(w.word)?.trim();
    const activeAt = shanghaiTimeMs(pick(root, 'data', 'active_time')) ?? null;
    const eventAt = epochMs(w.event_time) ?? null;
    const views = asNumber(w.view_count);
    const videos = asNumber(w.video_count);
    return {
      rank: asNumber(w.position),
      id: w.sentence_id,
      title,
      link: title ? `https://www.douyin.com/search/${encodeURIComponent(title)}` : undefined,
      hot: asNumber(w.hot_value) ?? 0,
      extra: {
        cover: asString(pick(w, 'word_cover', 'url_list', 0)) ?? '',
        ...(views !== undefined ? { view_count: views } : {}),
        ...(videos !== undefined ? { video_count: videos } : {}),
        event_time: eventAt === null ? null : formatSixtyDateTime(eventAt),
        event_time_at: eventAt,
        active_time: activeAt === null ? null : (asString(pick(root, 'data', 'active_time'))?.trim() ?? formatSixtyDateTime(activeAt)), // 60s passes the upstream's own text
        active_time_at: activeAt,
      },
    };
  },
  // The board's time moved from the container onto every item.
  upgrade: { fill: (i, container) => missing(i, { cover: '', event_time: null, event_time_at: null, active_time: container.active_time ?? null, active_time_at: container.active_time_at ?? null }) },
};

export const parse = (raw: unknown) => parseDeclared(list, raw) as ShortVideoItem[];

export default defineHotList(list);
