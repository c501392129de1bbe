/**
 * IT news rankings (IT之家): the day, week and month lists of the most read articles on the
 * site's home page https://www.ithome.com/, the upstream 60s's `/v2/it-news/rank` reads: in the
 * `#rank` block, lists `#d-1` (day), `#d-2` (week) and `#d-3` (month) of `<li><a href title>`.
 * The page has no published format; this is the layout 60s's module (src/modules/it-news.module.ts) reads.
 */
import { SourceError } from '../src/kernel/errors.ts';
import { defineSource } from '../src/kernel/source.ts';
import { load } from './_shared/html.ts';
import { absoluteUrl, hotListRowsWith, validateHotList, type HotItem, type HotList } from './_shared/hot-list.ts';

export const HOME_URL = 'https://www.ithome.com/';
export const RANK_TYPES = ['day', 'week', 'month'] as const;
export type RankType = (typeof RANK_TYPES)[number];
const LIST_OF: Record<RankType, string> = { day: '#d-1', week: '#d-2', month: '#d-3' };
const TITLES: Record<RankType, string> = { day: 'IT之家日榜', week: 'IT之家周榜', month: 'IT之家月榜' };

export type ItNewsRankItem = HotItem;

/** One ranking of the home page; articles without a title or an http(s) link are skipped. */
export function parseRank(html: string, type: RankType): HotList<ItNewsRankItem> {
  const $ = load(html);
  const block = $('#rank');
  if (!block.length) throw new SourceError('parse', 'missing #rank: the home page has no ranking block', { path: '#rank' });
  const list: ItNewsRankItem[] = [];
  block
    .find(LIST_OF[type])
    .find('li')
    .each((_, el) => {
      const a = $(el).find('a').first();
      const title = (a.attr('title') ?? a.text()).trim();
      const link = absoluteUrl(a.attr('href'), HOME_URL);
      if (title && link) list.push({ rank: list.length + 1, title, link });
    });
  return list;
}

export default defineSource({
  id: 'it-news-rank',
  name: 'IT之家热榜',
  description: 'The most read articles of IT之家 of the day, the week or the month (its home page rankings): title and link.',
  homepage: 'https://www.ithome.com',
  routes: [{ path: '/it-news/rank' }],
  params: {
    type: { type: 'string', enum: RANK_TYPES, default: 'day', doc: 'Which ranking: day, week or month.' },
  },
  mode: 'scheduled',
  schedule: '*/30 * * * *',
  prefetch: RANK_TYPES.map((type) => ({ type })),
  freshness: { ttlSec: 1800, timeoutMs: 15_000, backoffCapSec: 6 * 3600 },
  headers: { accept: 'text/html,application/xhtml+xml' },
  async fetch(ctx, p): Promise<HotList<ItNewsRankItem>> {
    return parseRank(await ctx.http.text(HOME_URL, { signal: ctx.signal }), p.type as RankType);
  },
  validate: (d) => validateHotList(d, 3),
  view: {
    title: (_d, p) => TITLES[p.type as RankType] ?? 'IT之家热榜',
    rows: (d) => hotListRowsWith(d, {}),
  },
  example: '/v2/apis/it-news/rank?type=week&encoding=text',
});
