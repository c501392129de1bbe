/**
 * The hot board of the news feed, from https://www.toutiao.com/hot-event/hot-board/ (the PC
 * site's JSON, no headers needed). Fields are PascalCase; `HotValue` is a digit string; `Url`
 * carries tracking query parameters that we drop. `fixed_top_data` holds pinned official news,
 * which is not part of the ranking.
 */
import { SourceError } from '../src/kernel/errors.ts';
import { missingPath, need } from '../src/kernel/json-path.ts';
import { defineSource } from '../src/kernel/source.ts';
import { asArray, asNumber, asRecord, asString, dedupeByLink, hotListRows, migrateHotList, missing, pick, validateHotList, type HotItem, type HotList } from './_shared/hot-list.ts';

export const UPSTREAM_URL = 'https://www.toutiao.com/hot-event/hot-board/';

/** Labels of the board → the badge they show. */
const LABELS: Record<string, string> = { hot: '热', new: '新', refuted: '辟谣', interpretation: '解读', exclusive: '独家', boom: '爆' };

export interface NewsFeedItem extends HotItem {
  hot_value: number;
  /** The event's image; '' when it has none. */
  cover: string;
  /** Badge (热, 新…) or null. */
  label: string | null;
  cluster_id: string | null;
}

/** `https://www.toutiao.com/trending/123/?log_from=…` → `https://www.toutiao.com/trending/123` */
export function cleanLink(url: string): string | undefined {
  try {
    const u = new URL(url, 'https://www.toutiao.com/');
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return undefined;
    return `https://${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return undefined;
  }
}

export function parse(raw: unknown): HotList<NewsFeedItem> {
  const root = need(raw, '', asRecord, 'a JSON object');
  const status = asString(root.status);
  if (status !== undefined && status !== 'success') throw new SourceError('blocked', `upstream answered status=${status}`);
  const entries = asArray(root.data);
  if (!entries) throw missingPath(root, 'data', 'an array');
  const list: NewsFeedItem[] = [];
  for (const entry of entries) {
    const e = asRecord(entry);
    const title = asString(e?.Title)?.trim();
    const link = cleanLink(asString(e?.Url) ?? '');
    if (!e || !title || !link) continue;
    const cover = asString(pick(e, 'Image', 'url')) ?? asString(pick(e, 'Image', 'url_list', 0, 'url'));
    const label = asString(e.Label)?.trim();
    list.push({
      rank: list.length + 1,
      title,
      link,
      hot_value: asNumber(e.HotValue) ?? 0,
      cover: cover ?? '',
      label: label ? (LABELS[label] ?? (asString(e.LabelDesc) || null)) : null,
      cluster_id: asString(e.ClusterIdStr) ?? asString(e.ClusterId) ?? null,
    });
  }
  return dedupeByLink(list);
}

export default defineSource({
  id: 'hot-news-feed',
  name: '今日头条热榜',
  description: 'The hot board of the news feed: rank, title, heat, cover, badge and the event link.',
  homepage: 'https://www.toutiao.com/',
  routes: [{ path: '/hot-news-feed' }],
  mode: 'scheduled',
  schedule: '*/10 * * * *',
  trending: {},
  freshness: { ttlSec: 600, backoffCapSec: 3600 },
  headers: { accept: 'application/json', referer: 'https://www.toutiao.com/' },
  async fetch(ctx) {
    const res = await ctx.http.request(UPSTREAM_URL, { searchParams: { origin: 'toutiao_pc' }, signal: ctx.signal });
    if (/text\/html/i.test(String(res.headers['content-type']))) throw new SourceError('blocked', 'upstream answered an HTML page (verification) instead of JSON');
    return parse(res.json());
  },
  validate: (data) => validateHotList(data, 5),
  migrate: migrateHotList({ fill: (i) => missing(i, { cover: '' }) }),
  view: { rows: hotListRows },
  example: '/v2/apis/hot-news-feed?encoding=text',
});
