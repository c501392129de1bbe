/**
 * The hot board of the news feed, from https://www.toutiao.com/hot-event/hot-board/ (the PC
 * site's JSON, no headers needed). Fields are PascalCase; `HotValue` is a digit string; `Url`
 * carries tracking query parameters that we drop. `fixed_top_data` holds pinned official news,
 * which is not part of the ranking.
 */
import { defineHotList, parseDeclared, type DeclaredItem, type JsonList } from './_shared/declared-list.ts';
import { asString, pick } from './_shared/hot-list.ts';

/** Labels of the board → the badge they show. */
const LABELS: Record<string, string> = { hot: '热', new: '新', refuted: '辟谣', interpretation: '解读', exclusive: '独家', boom: '爆' };

export interface NewsFeedItem extends DeclaredItem {
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

export const list: JsonList = {
  id: 'hot-news-feed',
  name: '今日头条热榜',
  description: 'The hot board of the news feed: rank, title, heat, cover, badge and the event link.',
  homepage: 'https://www.toutiao.com/',
  path: '/hot-news-feed',
  trending: {},
  pace: 'hot',
  request: { url: 'https://www.toutiao.com/hot-event/hot-board/', searchParams: { origin: 'toutiao_pc' } },
  headers: { referer: 'https://www.toutiao.com/' },
  okWhen: { field: 'status', is: 'success' },
  items: ['data'],
  item: (e) => {
    const label = asString(e.Label)?.trim();
    const clusterId = asString(e.ClusterIdStr) ?? asString(e.ClusterId);
    return {
      id: clusterId,
      title: e.Title,
      link: cleanLink(asString(e.Url) ?? ''),
      hot: e.HotValue ?? 0,
      cover: asString(pick(e, 'Image', 'url')) ?? asString(pick(e, 'Image', 'url_list', 0, 'url')),
      extra: { cover: '', label: label ? (LABELS[label] ?? (asString(e.LabelDesc) || null)) : null, cluster_id: clusterId ?? null },
    };
  },
};

export const parse = (raw: unknown) => parseDeclared(list, raw) as NewsFeedItem[];

export default defineHotList(list);
