/**
 * Douban weekly word-of-mouth charts, read from the mobile site's rexxar API
 * (`m.douban.com/rexxar/api/v2/subject_collection/<collection>/items`). The API refuses
 * requests without a mobile Referer with HTTP 400 and a `{code, msg}` body, and risk control
 * redirects to a sec.douban.com HTML page: both are `blocked`. Covers stay the upstream
 * doubanio.com URLs (those hosts check the Referer when images are hot-linked).
 */
import { defineHotList, parseDeclared, type DeclaredItem, type JsonList } from './_shared/declared-list.ts';
import { asArray, asNumber, asRecord, asString, missing, validateHotList } from './_shared/hot-list.ts';

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

export interface ReviewItem extends DeclaredItem {
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

export type ReviewChart = ReviewItem[];

function trendOf(e: Record<string, unknown>, change: number): ReviewItem['trend'] {
  if (e.trend_up === true || change > 0) return 'up';
  if (e.trend_down === true || change < 0) return 'down';
  return 'equal';
}

const TREND_MARK = { up: '↑', down: '↓', equal: '' } as const;

export const list: JsonList = {
  id: 'review-a',
  name: '豆瓣口碑榜',
  description: 'Douban weekly word-of-mouth charts (movies, Chinese and global series, Chinese and global variety shows): rank, rating, rating count, trend, subtitle and cover.',
  homepage: 'https://m.douban.com/subject_collection/movie_weekly_best',
  path: '/review-a/weekly/movie',
  pathVariant: 'movie',
  alsoAt: [
    { path: '/review-a/weekly/tv_chinese', variant: 'tv_chinese', summary: 'Douban weekly chart of Chinese-language series.' },
    { path: '/review-a/weekly/tv_global', variant: 'tv_global', summary: 'Douban weekly chart of series worldwide.' },
    { path: '/review-a/weekly/show_chinese', variant: 'show_chinese', summary: 'Douban weekly chart of Chinese variety shows.' },
    { path: '/review-a/weekly/show_global', variant: 'show_global', summary: 'Douban weekly chart of variety shows worldwide.' },
  ],
  variants: {
    param: 'type',
    doc: 'Which chart (set by the route)',
    values: Object.fromEntries(CHART_TYPES.map((t) => [t, CHARTS[t].title])),
    warm: true,
    titles: Object.fromEntries(CHART_TYPES.map((t) => [t, CHARTS[t].title])),
  },
  pace: 'hourly',
  headers: { 'user-agent': IPHONE_UA, referer: 'https://m.douban.com/subject_collection' },
  request: (_now, type) => ({
    url: itemsUrl((type ?? 'movie') as ChartType),
    searchParams: { start: 0, count: 10, items_only: 1, for_mobile: 1 },
    allowStatus: [400],
  }),
  refused: (root) =>
    !Array.isArray(root.subject_collection_items) && (root.code !== undefined || root.msg !== undefined)
      ? `m.douban.com refused the request (code=${asString(root.code) ?? '?'} ${asString(root.msg) ?? ''})`.trim()
      : undefined,
  items: ['subject_collection_items'],
  item: (e) => {
    const id = asString(e.id);
    if (!id) return undefined;
    const rating = asRecord(e.rating);
    const score = asNumber(rating?.value);
    const change = asNumber(e.rank_value_changed) ?? 0;
    const cover = asString(e.cover_url) || asString(asRecord(e.cover)?.url) || asString(asRecord(e.pic)?.large) || asString(asRecord(e.pic)?.normal) || '';
    const url = asString(e.url);
    const link = url && /^https?:\/\//.test(url) ? url : `https://movie.douban.com/subject/${id}/`;
    return {
      rank: asNumber(e.rank),
      id,
      title: e.title,
      link,
      // The cover stays the upstream's URL as it is (not normalised): it is one of 60s's fields.
      extra: {
        url: link,
        ...(score !== undefined && score > 0 ? { score } : {}),
        rating: score ?? 0,
        cover,
        cover_proxy: cover,
        rating_count: asNumber(rating?.count) ?? 0,
        good_rate: asNumber(e.good_rating_stats) ?? 0,
        trend: trendOf(e, change),
        rank_change: change,
        card_subtitle: asString(e.card_subtitle)?.trim() ?? '',
        description: asString(e.description)?.trim() ?? '',
        tags: (asArray(e.tags) ?? []).map((t) => asString(asRecord(t)?.name) ?? asString(t) ?? '').filter((t) => t !== ''),
        subject_type: asString(e.type) ?? null,
      },
    };
  },
  upgrade: {
    fill: (i) => ({ ...missing(i, { url: i.link, rating: i.score ?? 0, cover: '', cover_proxy: i.cover ?? '' }), rating_count: i.rating_count ?? 0, good_rate: i.good_rate ?? 0 }),
  },
  view: {
    hot: (i: ReviewItem) => (i.score !== undefined ? `★${i.score}${TREND_MARK[i.trend]}` : undefined),
    summary: (i: ReviewItem) => i.card_subtitle || undefined,
    columns: (type) => ({ title: type === 'movie' ? '电影' : type?.startsWith('tv') ? '剧集' : '节目', hot: '评分' }),
  },
};

export const parse = (raw: unknown): ReviewChart => parseDeclared(list, raw) as ReviewChart;

export function validate(data: ReviewChart): string | undefined {
  return validateHotList(data, 5);
}

export default defineHotList(list);
