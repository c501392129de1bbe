/**
 * Daily AI news from ai-bot.cn (AI工具集, https://ai-bot.cn/daily-ai-news/). The page lists the
 * last days as `.news-date` headings ("11月21·周六", no year) followed by `.news-item`s: the title
 * link in `.news-content h2 a`, the summary as the text of `p.text-muted`, and "来源：…" in
 * `.news-time`. The year of a heading is the one that puts it on or before today (a page read on
 * 2 January still shows 31 December of the year before). Days we have seen are kept in history,
 * so `date` answers them after they drop off the page.
 */
import { load } from './_shared/html.ts';
import { SourceError } from '../src/kernel/errors.ts';
import { defineSource, type Row } from '../src/kernel/source.ts';
import { addDays, formatDate, formatDateTime, shanghaiMidnight } from '../src/kernel/time.ts';
import { absoluteUrl, type HotItem } from './_shared/hot-list.ts';

export const PAGE_URL = 'https://ai-bot.cn/daily-ai-news/';

export interface AiNewsItem extends HotItem {
  detail: string;
  source: string;
  /** Day the item was listed under (YYYY-MM-DD). */
  date: string;
}

/** 60s's container: the day and its `news`, with our count, fetch time and the days the page lists. */
export interface AiNews {
  /** The day shown (YYYY-MM-DD), or `all` with `all=1`. */
  date: string;
  news: AiNewsItem[];
  total: number;
  updated: string;
  updated_at: number;
  all: boolean;
  /** Whether `date` is today (Asia/Shanghai) at fetch time. */
  is_today: boolean;
  /** Every day the page listed, newest first. */
  dates: string[];
}

/** "11月21·周六", "11月21日 周六" or "2026年11月21日" → YYYY-MM-DD, placed on or before `today`. */
export function headingDate(text: string, today: string): string | undefined {
  const m = /(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})/.exec(text);
  if (!m) return undefined;
  const mmdd = `${m[2]!.padStart(2, '0')}-${m[3]!.padStart(2, '0')}`;
  if (m[1]) return `${m[1]}-${mmdd}`;
  const year = Number(today.slice(0, 4));
  // A heading a day "ahead" is tolerated (time zones of the site); anything later is last year's.
  return `${year}-${mmdd}` <= addDays(today, 1) ? `${year}-${mmdd}` : `${year - 1}-${mmdd}`;
}

/** Every item of the page with its day, in page order (ranked by `parse`). */
export function parsePage(html: string, now: Date): AiNewsItem[] {
  const $ = load(html);
  const today = formatDate(now.getTime());
  const items: AiNewsItem[] = [];
  let day: string | undefined;
  // Document order: an item belongs to the heading above it (nested or flat markup alike).
  $('.news-date, .news-item').each((_, el) => {
    const $el = $(el);
    if ($el.hasClass('news-date')) {
      day = headingDate($el.text(), today);
      return;
    }
    const a = $el.find('.news-content h2 a, h2 a').first();
    const title = a.text().replace(/\s+/g, ' ').trim();
    const link = absoluteUrl(a.attr('href'), PAGE_URL);
    if (!day || !title || !link) return;
    const p = $el.find('p.text-muted').first();
    const detail = p
      .contents()
      .toArray()
      .filter((n) => n.type === 'text')
      .map((n) => $(n).text())
      .join('')
      .replace(/\s+/g, ' ')
      .trim();
    const source = $el.find('.news-time').first().text().replace(/^\s*来源[:：]\s*/, '').trim();
    items.push({ rank: 0, title, link, detail, source, date: day });
  });
  if (!$('.news-date').length) throw new SourceError('parse', 'the page has no .news-date headings');
  return items;
}

function build(items: AiNewsItem[], date: string, all: boolean, dates: string[], now: Date): AiNews {
  const at = now.getTime();
  const news = items.map((i, n) => ({ ...i, rank: n + 1 }));
  return { date, news, total: news.length, updated: formatDateTime(at), updated_at: at, all, is_today: !all && date === formatDate(at), dates };
}

/**
 * The news of one day (`date`), of today (falling back to the newest day with news) or of every
 * day on the page (`all`).
 */
export function parse(html: string, opts: { date?: string | undefined; all?: boolean | undefined }, now: Date): AiNews {
  const items = parsePage(html, now);
  const dates = [...new Set(items.map((i) => i.date))].sort().reverse();
  if (opts.all) return build(items, 'all', true, dates, now);
  const today = formatDate(now.getTime());
  if (opts.date) {
    const day = items.filter((i) => i.date === opts.date);
    if (!day.length) {
      const oldest = dates[dates.length - 1];
      throw new SourceError(
        'not_found',
        oldest && opts.date < oldest
          ? `No AI news is stored for ${opts.date}; the page reaches back to ${oldest} only.`
          : `No AI news was listed for ${opts.date}${opts.date === today ? ' yet' : ''}.`,
      );
    }
    return build(day, opts.date, false, dates, now);
  }
  const latest = items.some((i) => i.date === today) ? today : dates[0];
  return build(
    items.filter((i) => i.date === latest),
    latest ?? today,
    false,
    dates,
    now,
  );
}

export function validateNews(d: AiNews): string | undefined {
  if (!d.news.length) return 'no news items';
  const bad = d.news.find((i) => !i.title || !/^https?:\/\//.test(i.link) || !/^\d{4}-\d{2}-\d{2}$/.test(i.date));
  return bad ? `item ${bad.rank} has no title, link or day` : undefined;
}

/** Stored data of before 60s's container: `{list, …, date}` (`date` the newest day with `all`) becomes `{date, news, …}`. */
export function migrate(stored: unknown): AiNews | undefined {
  const o = stored && typeof stored === 'object' && !Array.isArray(stored) ? (stored as Record<string, unknown>) : undefined;
  if (!o || 'news' in o || !Array.isArray(o.list)) return o as AiNews | undefined;
  const { list, total, updated, updated_at, date, all, is_today, dates, ...rest } = o;
  return { date: all ? 'all' : date, news: list, total, updated, updated_at, all, is_today: !all && is_today, dates, ...rest } as AiNews;
}

function heading(d: AiNews): string {
  return d.all ? 'AI 资讯快报（全部）' : `AI 资讯快报（${d.date}${d.is_today ? '，实时更新' : ''}）`;
}

export default defineSource({
  id: 'ai-news',
  name: 'AI 资讯快报',
  description: 'Daily AI industry news (ai-bot.cn): title, summary, source and link. `date` reads a day (from our history once it left the page); `all=1` returns every day the page lists.',
  homepage: PAGE_URL,
  routes: [{ path: '/ai-news' }],
  params: {
    date: { type: 'date', doc: 'Day of the news (YYYY-MM-DD, Asia/Shanghai); today by default, or the latest day with news before today\'s first item.', example: '2026-11-20' },
    all: { type: 'boolean', default: false, doc: '`1` returns the news of every day on the page (cannot be combined with `date`).' },
  },
  mode: 'scheduled',
  schedule: '*/30 * * * *',
  freshness: { ttlSec: 1800, backoffCapSec: 3 * 3600 },
  history: { key: (d) => (d.all ? 'all' : d.date), param: 'date' },
  // The days the page still lists, kept once they drop off it.
  backfill: { days: 14, available: (d) => d.dates },
  async fetch(ctx, params) {
    const today = formatDate(ctx.now().getTime());
    if (params.all && params.date) throw new SourceError('bad_input', 'Invalid parameter "all": it cannot be combined with "date"; use one of them.');
    if (params.date && params.date > today) throw new SourceError('bad_input', `Invalid parameter "date": ${params.date} is in the future.`);
    const res = await ctx.http.request(PAGE_URL, { signal: ctx.signal });
    const html = res.text();
    if (!/news-date|news-item/.test(html) && /验证|captcha|cf-chl|Just a moment/i.test(html)) throw new SourceError('blocked', 'ai-bot.cn answered a verification page');
    return parse(html, { date: params.date, all: params.all }, ctx.now());
  },
  validate: validateNews,
  migrate,
  view: {
    title: heading,
    feedChannel: { title: 'AI 资讯快报', description: '每日 AI 行业资讯：标题、摘要、来源与原文链接。' },
    columns: () => ({ title: '资讯', hot: '来源' }),
    rows: (d): Row[] =>
      d.news.map((i) => ({
        title: i.title,
        link: i.link,
        summary: i.detail,
        ...(i.source ? { hot: i.source } : {}),
        guid: `ai-news:${i.date}:${i.title}`,
        date: shanghaiMidnight(i.date),
      })),
    text: (d) =>
      `${heading(d)}\n\n${d.news
        .map((i) => `${i.rank}. ${i.title}\n   ${i.detail}${i.source ? `（来源：${i.source}）` : ''}${d.all ? ` [${i.date}]` : ''}\n   ${i.link}`)
        .join('\n\n')}\n\n更新于 ${d.updated}\n`,
  },
  example: '/v2/apis/ai-news?encoding=text',
});
