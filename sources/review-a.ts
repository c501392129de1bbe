/**
 * Douban weekly word-of-mouth charts, read from the mobile site's rexxar API
 * (`m.douban.com/rexxar/api/v2/subject_collection/<collection>/items`). The API refuses
 * requests without a mobile Referer with HTTP 400 and a `{code, msg}` body, and risk control
 * redirects to a sec.douban.com HTML page: both are `blocked`. Covers stay the upstream
 * doubanio.com URLs (those hosts check the Referer when images are hot-linked).
 */
import { SourceError } from '../src/kernel/errors.ts';
import { missingPath, need } from '../src/kernel/json-path.ts';
import { defineSource } from '../src/kernel/source.ts';
import { asArray, asNumber, asRecord, asString, migrateHotList, missing, validateHotList, type HotItem, type HotList } from './_shared/hot-list.ts';

export const CHARTS = {
  movie: { collection: 'movie_weekly_best', title: '豆瓣一周口碑电影榜' },
  tv_chinese: { collection: 'tv_chinese_best_weekly', title: '豆瓣华语口碑剧集榜' },
  tv_global: { collection: 'tv_global_best_weekly', title: '豆瓣全球口碑剧集榜' },
  show_chinese: { collection: 'show_chinese_best_weekly', title: '豆瓣国内口碑综艺榜' },
  show_global: { collection: 'show_global_best_weekly', title: '豆瓣国外口碑综艺榜' },
} as const;
export type ChartType = keyof typeof CHARTS;
export const CHART_TYPES = Object.keys(CHARTS) as ChartType[];

export const itemsUrl = (type: ChartType) => `https://m.douban.com/rexxar/api/v2/subject_collection/${CHARTS[type].collection}/items`;

const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

export interface ReviewItem extends HotItem {
  id: string;
  /** Rating out of 10; absent while too few people rated. */
  score?: number;
  /** Rating out of 10; 0 while too few people rated. */
  rating: number;
  rating_count: number;
  /** Share of good ratings in percent; 0 when unknown. */
  good_rate: number;
  /** Cover image; '' when none. */
  cover: string;
  /**
   * The cover for pages that cannot send a Douban Referer. 60s points this at its own image
   * proxy; we have none, so it is the cover URL itself (load it with `referrerpolicy="no-referrer"`).
   */
  cover_proxy: string;
  /** The same as `link` (60s's name). */
  url: string;
  trend: 'up' | 'down' | 'equal';
  rank_change: number;
  card_subtitle: string;
  description: string;
  tags: string[];
  subject_type: string | null;
}

export type ReviewChart = HotList<ReviewItem>;

function trendOf(e: Record<string, unknown>, change: number): ReviewItem['trend'] {
  if (e.trend_up === true || change > 0) return 'up';
  if (e.trend_down === true || change < 0) return 'down';
  return 'equal';
}

export function parse(raw: unknown): ReviewChart {
  const root = need(raw, '', asRecord, 'a JSON object');
  const entries = asArray(root.subject_collection_items);
  if (!entries) {
    const code = asNumber(root.code);
    if (code !== undefined || root.msg !== undefined) throw new SourceError('blocked', `m.douban.com refused the request (code=${code ?? '?'} ${asString(root.msg) ?? ''})`.trim());
    throw missingPath(root, 'subject_collection_items', 'an array');
  }
  const list: ReviewItem[] = [];
  for (const entry of entries) {
    const e = asRecord(entry);
    const id = asString(e?.id);
    const title = asString(e?.title)?.trim();
    if (!e || !id || !title) continue;
    const rating = asRecord(e.rating);
    const score = asNumber(rating?.value);
    const change = asNumber(e.rank_value_changed) ?? 0;
    const cover = asString(e.cover_url) || asString(asRecord(e.cover)?.url) || asString(asRecord(e.pic)?.large) || asString(asRecord(e.pic)?.normal);
    const url = asString(e.url);
    const link = url && /^https?:\/\//.test(url) ? url : `https://movie.douban.com/subject/${id}/`;
    list.push({
      rank: asNumber(e.rank) ?? list.length + 1,
      title,
      link,
      url: link,
      ...(score !== undefined && score > 0 ? { score } : {}),
      rating: score ?? 0,
      cover: cover ?? '',
      cover_proxy: cover ?? '',
      id,
      rating_count: asNumber(rating?.count) ?? 0,
      good_rate: asNumber(e.good_rating_stats) ?? 0,
      trend: trendOf(e, change),
      rank_change: change,
      card_subtitle: asString(e.card_subtitle)?.trim() ?? '',
      description: asString(e.description)?.trim() ?? '',
      tags: (asArray(e.tags) ?? []).map((t) => asString(asRecord(t)?.name) ?? asString(t) ?? '').filter((t) => t !== ''),
      subject_type: asString(e.type) ?? null,
    });
  }
  list.sort((a, b) => a.rank - b.rank);
  return list;
}

export function validate(data: ReviewChart): string | undefined {
  return validateHotList(data, 5);
}

const TREND_MARK = { up: '↑', down: '↓', equal: '' } as const;

export default defineSource({
  id: 'review-a',
  name: '豆瓣口碑榜',
  description: 'Douban weekly word-of-mouth charts (movies, Chinese and global series, Chinese and global variety shows): rank, rating, rating count, trend, subtitle and cover.',
  homepage: 'https://m.douban.com/subject_collection/movie_weekly_best',
  routes: [
    { path: '/review-a/weekly/movie', fixed: { type: 'movie' }, summary: 'Douban weekly word-of-mouth movie chart.' },
    { path: '/review-a/weekly/tv_chinese', fixed: { type: 'tv_chinese' }, example: '/v2/apis/review-a/weekly/tv_chinese?encoding=text', summary: 'Douban weekly chart of Chinese-language series.' },
    { path: '/review-a/weekly/tv_global', fixed: { type: 'tv_global' }, example: '/v2/apis/review-a/weekly/tv_global?encoding=text', summary: 'Douban weekly chart of series worldwide.' },
    { path: '/review-a/weekly/show_chinese', fixed: { type: 'show_chinese' }, example: '/v2/apis/review-a/weekly/show_chinese?encoding=text', summary: 'Douban weekly chart of Chinese variety shows.' },
    { path: '/review-a/weekly/show_global', fixed: { type: 'show_global' }, example: '/v2/apis/review-a/weekly/show_global?encoding=text', summary: 'Douban weekly chart of variety shows worldwide.' },
  ],
  params: {
    type: { type: 'string', enum: CHART_TYPES, default: 'movie', doc: 'Which chart (set by the route).' },
  },
  mode: 'scheduled',
  schedule: '23 * * * *',
  prefetch: CHART_TYPES.map((type) => ({ type })),
  freshness: { ttlSec: 3600, timeoutMs: 15_000, backoffCapSec: 6 * 3600 },
  headers: { 'user-agent': IPHONE_UA, referer: 'https://m.douban.com/subject_collection', accept: 'application/json' },
  concurrency: 2,
  async fetch(ctx, p) {
    const type = p.type as ChartType;
    const res = await ctx.http.request(itemsUrl(type), {
      searchParams: { start: 0, count: 10, items_only: 1, for_mobile: 1 },
      signal: ctx.signal,
      allowStatus: [400],
    });
    if (/text\/html/i.test(String(res.headers['content-type'])) || /sec\.douban\.com/.test(res.url)) {
      throw new SourceError('blocked', 'm.douban.com answered an HTML page (risk control) instead of JSON');
    }
    return parse(res.json());
  },
  validate,
  migrate: migrateHotList({
    fill: (i) => ({ ...missing(i, { url: i.link, rating: i.score ?? 0, cover: '', cover_proxy: i.cover ?? '' }), rating_count: i.rating_count ?? 0, good_rate: i.good_rate ?? 0 }),
  }),
  view: {
    title: (_d, p) => CHARTS[p.type as ChartType]?.title ?? '豆瓣口碑榜',
    columns: (_d, p) => ({ title: p.type === 'movie' ? '电影' : p.type.startsWith('tv') ? '剧集' : '节目', hot: '评分' }),
    rows: (d) =>
      d.map((i) => ({
        title: i.title,
        link: i.link,
        ...(i.score !== undefined ? { hot: `★${i.score}${TREND_MARK[i.trend]}` } : {}),
        ...(i.card_subtitle ? { summary: i.card_subtitle } : {}),
        ...(i.cover ? { cover: i.cover } : {}),
      })),
  },
  example: '/v2/apis/review-a/weekly/movie?encoding=text',
});
