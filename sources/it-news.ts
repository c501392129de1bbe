/**
 * IT news (IT之家): the site's RSS 2.0 feed https://www.ithome.com/rss/, the upstream 60s's
 * `/v2/it-news` reads. Each `<item>` gives `title`, `link`, `description` (HTML) and `pubDate`
 * (RFC 822); the format is RSS 2.0 (https://www.rssboard.org/rss-specification).
 */
import { SourceError } from '../src/kernel/errors.ts';
import { defineSource } from '../src/kernel/source.ts';
import { formatDateTime } from '../src/kernel/time.ts';
import { htmlToText } from './_shared/format.ts';
import { load } from './_shared/html.ts';
import { hotListRowsWith, validateHotList, type HotItem, type HotList } from './_shared/hot-list.ts';

export const RSS_URL = 'https://www.ithome.com/rss/';
/** 60s cuts descriptions at this many characters and marks the cut with `...`. */
const MAX_DESCRIPTION = 360;

export interface ItNewsItem extends HotItem {
  description: string;
  /** Publication time as 60s writes it (`YYYY-MM-DD HH:mm:ss`, Asia/Shanghai), and in ms. */
  created: string;
  created_at: number;
}

/** The feed's items, newest first as the feed lists them, at most `limit`; items without a title or an http(s) link are skipped. */
export function parseRss(xml: string, limit: number): HotList<ItNewsItem> {
  const $ = load(xml, { xmlMode: true });
  if (!$('rss > channel').length) {
    if (/<html[\s>]/i.test(xml)) throw new SourceError('blocked', 'www.ithome.com answered an HTML page instead of its RSS feed');
    throw new SourceError('parse', 'missing rss > channel: the answer is not an RSS 2.0 feed', { path: 'rss > channel' });
  }
  const list: ItNewsItem[] = [];
  $('rss > channel > item').each((_, el) => {
    if (list.length >= limit) return false;
    const item = $(el);
    const title = item.children('title').first().text().trim();
    const link = item.children('link').first().text().trim();
    if (!title || !/^https?:\/\//.test(link)) return undefined;
    const text = htmlToText(item.children('description').first().text());
    const published = Date.parse(item.children('pubDate').first().text().trim());
    if (!Number.isFinite(published)) return undefined;
    list.push({
      rank: list.length + 1,
      title,
      link,
      description: text.length >= MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION)}...` : text,
      created: formatDateTime(published),
      created_at: published,
    });
    return undefined;
  });
  return list;
}

export default defineSource({
  id: 'it-news',
  name: 'IT之家资讯',
  description: 'The latest IT news of IT之家 (its RSS feed): title, summary, link and publication time, newest first.',
  homepage: 'https://www.ithome.com',
  routes: [{ path: '/it-news' }],
  params: {
    limit: { type: 'integer', default: 20, min: 1, max: 50, doc: 'Number of news items (1–50).' },
  },
  mode: 'scheduled',
  schedule: '*/10 * * * *',
  freshness: { ttlSec: 600, timeoutMs: 15_000, backoffCapSec: 3600 },
  headers: { accept: 'application/rss+xml, application/xml;q=0.9, */*;q=0.8' },
  maxKeys: 50,
  async fetch(ctx, p): Promise<HotList<ItNewsItem>> {
    return parseRss(await ctx.http.text(RSS_URL, { signal: ctx.signal }), p.limit);
  },
  validate: (d) => validateHotList(d, 1),
  view: {
    title: () => '实时 IT 资讯',
    columns: () => ({ title: '资讯', hot: '发布时间' }),
    rows: (d) => hotListRowsWith(d, { hot: (i) => i.created.slice(5, 16), summary: (i) => i.description, date: (i) => i.created_at }),
  },
  example: '/v2/apis/it-news?limit=10&encoding=text',
});
