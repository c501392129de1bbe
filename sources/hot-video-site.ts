/**
 * Hot searches of the video site. Primary: the web search square
 * https://api.bilibili.com/x/web-interface/wbi/search/square (`data.trending.list`, no WBI
 * signature needed for this call). Fallback: the app's trending ranking
 * https://app.bilibili.com/x/v2/search/trending/ranking (`data.list`, promoted entries carry
 * `is_commercial: "1"`). The fallback is used whenever the primary fails, answers a non-zero
 * `code` (-412 is risk control), or gives a list that validation rejects — not only on errors.
 */
import { defineHotList, fallbackOf, parseDeclared, type DeclaredItem, type JsonList } from './_shared/declared-list.ts';
import { asNumber, asString } from './_shared/hot-list.ts';

export const SQUARE_URL = 'https://api.bilibili.com/x/web-interface/wbi/search/square';
export const RANKING_URL = 'https://app.bilibili.com/x/v2/search/trending/ranking';
const LIMIT = 50;

export interface VideoSiteItem extends DeclaredItem {
  /** The search keyword (the title is the display name, which can differ). */
  keyword: string;
  /** Badge image (热, 新…), or null. */
  icon: string | null;
}

export type VideoSiteList = VideoSiteItem[];

export const list: JsonList = {
  id: 'hot-video-site',
  name: '哔哩哔哩热搜',
  description: 'Hot searches of the video site: rank, title, keyword and a search link. Falls back to the app ranking when the web list fails or is implausible.',
  homepage: 'https://search.bilibili.com/',
  path: '/hot-video-site',
  pace: 'hot',
  trending: {},
  headers: { referer: 'https://www.bilibili.com/', origin: 'https://www.bilibili.com', accept: 'application/json, text/plain, */*' },
  request: { url: SQUARE_URL, searchParams: { limit: LIMIT } },
  okWhen: { field: 'code', is: 0, message: 'message' },
  items: ['data', 'trending', 'list'],
  fallback: { labels: ['web', 'app'], request: { url: RANKING_URL, searchParams: { limit: LIMIT } }, items: ['data', 'list'] },
  item: (e) => {
    if (asNumber(e.is_commercial) === 1) return undefined;
    const keyword = (asString(e.keyword) || asString(e.show_name))?.trim();
    if (!keyword) return undefined;
    return {
      id: keyword,
      title: asString(e.show_name) || keyword,
      link: `https://search.bilibili.com/all?keyword=${encodeURIComponent(keyword)}`,
      extra: { keyword, icon: asString(e.icon)?.replace(/^http:/, 'https:') || null },
    };
  },
};

/** Parse either upstream's answer (`web` = search square, `app` = trending ranking). */
export function parse(raw: unknown, upstream: 'web' | 'app'): VideoSiteList {
  return parseDeclared(upstream === 'web' ? list : fallbackOf(list), raw) as VideoSiteList;
}

export default defineHotList(list);
