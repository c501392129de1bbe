/**
 * Hot searches of the video site. Primary: the web search square
 * https://api.bilibili.com/x/web-interface/wbi/search/square (`data.trending.list`, no WBI
 * signature needed for this call). Fallback: the app's trending ranking
 * https://app.bilibili.com/x/v2/search/trending/ranking (`data.list`, promoted entries carry
 * `is_commercial: "1"`). The fallback is used whenever the primary fails, answers a non-zero
 * `code` (-412 is risk control), or gives a list that validation rejects — not only on errors.
 */
import { SourceError } from '../src/kernel/errors.ts';
import { missingPath, need } from '../src/kernel/json-path.ts';
import { defineSource, type FetchContext } from '../src/kernel/source.ts';
import {
  asArray,
  asNumber,
  asRecord,
  asString,
  dedupeByLink,
  hotListRows,
  migrateHotList,
  pick,
  validateHotList,
  type HotItem,
  type HotList,
} from './_shared/hot-list.ts';

export const SQUARE_URL = 'https://api.bilibili.com/x/web-interface/wbi/search/square';
export const RANKING_URL = 'https://app.bilibili.com/x/v2/search/trending/ranking';
const LIMIT = 50;
const MIN_ITEMS = 5;

export interface VideoSiteItem extends HotItem {
  /** The search keyword (the title is the display name, which can differ). */
  keyword: string;
  /** Badge image (热, 新…), or null. */
  icon: string | null;
}

export type VideoSiteList = HotList<VideoSiteItem>;

/** Which upstream to read: `web` (search square) or `app` (trending ranking). */
type Upstream = 'web' | 'app';

function entries(raw: unknown, upstream: Upstream): unknown[] {
  const root = need(raw, '', asRecord, 'a JSON object');
  const code = asNumber(root.code);
  if (code !== undefined && code !== 0) {
    throw new SourceError(code === -412 || code === -352 || code === -403 ? 'blocked' : 'transient', `${upstream} upstream answered code=${code} ${asString(root.message) ?? ''}`.trim());
  }
  const list = asArray(upstream === 'web' ? pick(root, 'data', 'trending', 'list') : pick(root, 'data', 'list'));
  if (!list) throw missingPath(root, upstream === 'web' ? 'data.trending.list' : 'data.list', 'an array');
  return list;
}

/** Parse either upstream's answer (`web` = search square, `app` = trending ranking). */
export function parse(raw: unknown, upstream: Upstream): VideoSiteList {
  const list: VideoSiteItem[] = [];
  for (const entry of entries(raw, upstream)) {
    const e = asRecord(entry);
    if (!e || asNumber(e.is_commercial) === 1) continue;
    const keyword = (asString(e.keyword) || asString(e.show_name))?.trim();
    const title = (asString(e.show_name) || keyword)?.trim();
    if (!keyword || !title) continue;
    list.push({
      rank: list.length + 1,
      title,
      keyword,
      link: `https://search.bilibili.com/all?keyword=${encodeURIComponent(keyword)}`,
      icon: asString(e.icon)?.replace(/^http:/, 'https:') || null,
    });
  }
  return dedupeByLink(list);
}

export function validate(data: VideoSiteList): string | undefined {
  return validateHotList(data, MIN_ITEMS);
}

async function fetchOne(ctx: FetchContext<VideoSiteList>, upstream: Upstream): Promise<VideoSiteList> {
  const url = upstream === 'web' ? SQUARE_URL : RANKING_URL;
  const res = await ctx.http.request(url, { searchParams: { limit: LIMIT }, signal: ctx.signal });
  if (/text\/html/i.test(String(res.headers['content-type']))) throw new SourceError('blocked', `${upstream} upstream answered an HTML page instead of JSON`);
  const data = parse(res.json(), upstream);
  const reason = validate(data);
  if (reason) throw new SourceError('empty', `${upstream} list rejected: ${reason}`);
  return data;
}

export default defineSource({
  id: 'hot-video-site',
  name: '哔哩哔哩热搜',
  description: 'Hot searches of the video site: rank, title, keyword and a search link. Falls back to the app ranking when the web list fails or is implausible.',
  homepage: 'https://search.bilibili.com/',
  routes: [{ path: '/hot-video-site' }],
  mode: 'scheduled',
  schedule: '*/10 * * * *',
  trending: {},
  freshness: { ttlSec: 600, backoffCapSec: 3600 },
  headers: { referer: 'https://www.bilibili.com/', origin: 'https://www.bilibili.com', accept: 'application/json, text/plain, */*' },
  async fetch(ctx) {
    try {
      return await fetchOne(ctx, 'web');
    } catch (primary) {
      ctx.log.info({ err: (primary as Error).message }, 'web list failed, trying the app ranking');
      try {
        return await fetchOne(ctx, 'app');
      } catch (fallback) {
        // Report the more telling failure: a block on either side outranks the rest.
        const kinds = [primary, fallback].filter((e): e is SourceError => e instanceof SourceError);
        const blocked = kinds.find((e) => e.kind === 'blocked');
        const chosen = blocked ?? (fallback instanceof Error ? fallback : primary);
        throw new SourceError(chosen instanceof SourceError ? chosen.kind : 'transient', `both upstreams failed: web: ${(primary as Error).message}; app: ${(fallback as Error).message}`);
      }
    }
  },
  validate,
  migrate: migrateHotList(),
  view: { rows: (d: VideoSiteList) => hotListRows(d) },
  example: '/v2/apis/hot-video-site?encoding=text',
});
