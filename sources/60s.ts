/**
 * The daily "60 seconds" news digest, published once a day (usually 00:00–10:00 Asia/Shanghai)
 * by the 60s-static-host project as `<date>.json`. Before today's file exists we serve the
 * latest published day and say so (`is_today: false`); the most common complaint about the
 * reference project is yesterday's digest served silently as today's.
 */
import { SourceError } from '../src/kernel/errors.ts';
import { need } from '../src/kernel/json-path.ts';
import { defineSource, type Row } from '../src/kernel/source.ts';
import { addDays, formatDate, formatDateTime, formatSixtyDateTime, shanghaiMidnight, weekdayZh } from '../src/kernel/time.ts';
import { escapeHtml, htmlUrl, markdownUrl } from '../src/encoding/escape.ts';
import { asArray, asNumber, asRecord, asString } from './_shared/hot-list.ts';
import { tyme } from './_shared/tyme.ts';

/** Mirrors of the static host, tried in order. */
export const DIGEST_URLS = [
  (date: string) => `https://60s-static.viki.moe/60s/${date}.json`,
  (date: string) => `https://cdn.jsdelivr.net/gh/vikiboss/60s-static-host@main/static/60s/${date}.json`,
];

export interface Digest {
  date: string;
  day_of_week: string;
  lunar_date: string;
  news: string[];
  tip: string;
  cover: string;
  image: string;
  link: string;
  /** Whether `date` is today's date in Asia/Shanghai at fetch time. */
  is_today: boolean;
  /** The date that was asked for (today when none was given). */
  requested_date: string;
  /** When the issue was first published, and last changed, upstream (60s's `created` and `updated`). */
  created: string;
  created_at: number;
  updated: string;
  updated_at: number;
  /** Same as `updated`: when the issue was last changed upstream. */
  published: string;
  published_at: number;
  /** When we fetched it (60s's `api_updated`). */
  api_updated: string;
  api_updated_at: number;
}

/**
 * A digest stored before it had 60s's times: its `updated` was our fetch time (now `api_updated`)
 * and `published` the upstream's (now also `created` and `updated`). Today's digests pass unchanged.
 */
export function migrate(stored: unknown): Digest | undefined {
  const d = asRecord(stored);
  if (!d || 'api_updated_at' in d) return d as Digest | undefined;
  const { published, published_at, updated, updated_at, ...rest } = d;
  return { ...rest, created: published, created_at: published_at, updated: published, updated_at: published_at, published, published_at, api_updated: updated, api_updated_at: updated_at } as Digest;
}

function lunarDate(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const lunar = tyme().SolarDay.fromYmd(y, m, d).getLunarDay();
  return `${lunar.getLunarMonth().getName()}${lunar.getName()}`;
}

/** Parse one day's file. The `news` entries were `{title, link}` objects before Feb 2025 and are strings since. */
export function parse(raw: unknown, requestedDate: string, now: Date): Digest {
  const r = need(raw, '', asRecord, 'a JSON object');
  const date = need(r, 'date', (v) => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : undefined), 'a YYYY-MM-DD date');
  const news = (asArray(r.news) ?? [])
    .map((n) => (typeof n === 'string' ? n : asString(asRecord(n)?.title)))
    .filter((n): n is string => !!n && n.trim() !== '')
    .map((n) => n.trim());
  const createdAt = asNumber(r.created_at) ?? asNumber(r.updated_at) ?? shanghaiMidnight(date);
  const publishedAt = asNumber(r.updated_at) ?? createdAt;
  const at = now.getTime();
  return {
    date,
    day_of_week: weekdayZh(date),
    lunar_date: lunarDate(date),
    news,
    tip: asString(r.tip)?.trim() ?? '',
    cover: asString(r.cover) ?? '',
    image: asString(r.image) ?? `https://cdn.jsdelivr.net/gh/vikiboss/60s-static-host@main/static/images/${date}.png`,
    link: asString(r.link) ?? '',
    is_today: date === formatDate(at),
    requested_date: requestedDate,
    // 60s passes the file's own text (`2026/11/20 08:10`); older files without it get the same form.
    created: asString(r.created)?.trim() || formatSixtyDateTime(createdAt).slice(0, 16),
    created_at: createdAt,
    updated: asString(r.updated)?.trim() || formatSixtyDateTime(publishedAt).slice(0, 16),
    updated_at: publishedAt,
    published: formatDateTime(publishedAt),
    published_at: publishedAt,
    api_updated: formatSixtyDateTime(at),
    api_updated_at: at,
  };
}

/** The guid (and link) 60s's feed gives the digest of a day. */
export function sixtyFeedGuid(date: string): string {
  return `https://60s-static.viki.moe?date=${date}`;
}

function digestHtml(d: Digest): string {
  const items = d.news.map((n, i) => `<p>${i + 1}. ${escapeHtml(n)}</p>`).join('');
  return `<p>${escapeHtml(d.date)} ${escapeHtml(d.day_of_week)} 农历${escapeHtml(d.lunar_date)}</p>${items}<p>【微语】${escapeHtml(d.tip)}</p>${
    d.image ? `<p><img src="${htmlUrl(d.image)}" alt="${escapeHtml(d.date)}"></p>` : ''
  }`;
}

function heading(d: Digest): string {
  return `每天 60 秒读懂世界（${d.date} ${d.day_of_week}）`;
}

function notTodayNote(d: Digest): string | undefined {
  return d.is_today || d.requested_date !== formatDate(d.api_updated_at) ? undefined : `今日（${d.requested_date}）简报尚未发布，以下为最近一期 ${d.date} 的内容。`;
}

export default defineSource({
  id: '60s',
  name: '每天 60 秒读懂世界',
  description: 'The daily 60-second news digest: about 15 headlines and a quote. `date` reads past days from our history; before today\'s issue is published the latest day is served with `is_today: false`.',
  homepage: 'https://60s.viki.moe',
  routes: [
    { path: '/60s' },
    { path: '/60s/rss', forceEncoding: 'rss', example: '/v2/apis/60s/rss', summary: 'RSS 2.0 feed of the digest: one item per day, the last 10 days.' },
  ],
  params: {
    date: { type: 'date', doc: 'Day of the digest (YYYY-MM-DD, Asia/Shanghai); today by default.', example: '2026-08-22' },
  },
  mode: 'scheduled',
  schedule: '*/15 * * * *',
  freshness: { ttlSec: 900, backoffCapSec: 3600, timeoutMs: 20_000 },
  history: { key: (d) => d.date, param: 'date' },
  // The feed shows the last 10 days from the first start on.
  backfill: { days: 10 },
  async fetch(ctx, params) {
    const today = formatDate(ctx.now().getTime());
    if (params.date && params.date > today) throw new SourceError('bad_input', `date ${params.date} is in the future; the newest digest is today's (${today})`);
    // A named date must be exactly that day; without one, fall back day by day to the latest published issue.
    const requested = params.date ?? today;
    const candidates = params.date ? [params.date] : [today, addDays(today, -1), addDays(today, -2)];
    let lastError: unknown;
    for (const date of candidates) {
      for (const url of DIGEST_URLS) {
        try {
          const res = await ctx.http.request(url(date), { signal: ctx.signal, allowStatus: [404], retry: 0, timeoutMs: 5_000 });
          if (res.status === 404) {
            lastError = new SourceError('not_found', `no digest has been published for ${date}`);
            continue;
          }
          const digest = parse(res.json(), requested, ctx.now());
          if (digest.news.length) return digest;
          lastError = new SourceError('empty', `digest for ${date} has no news`);
        } catch (err) {
          lastError = err;
        }
      }
    }
    if (params.date && lastError instanceof SourceError && lastError.kind === 'not_found') throw lastError;
    if (lastError instanceof SourceError && lastError.kind === 'not_found') throw new SourceError('transient', `no digest published for ${candidates.join(', ')}`);
    throw lastError instanceof Error ? lastError : new SourceError('transient', 'no digest could be fetched');
  },
  validate(d) {
    if (d.news.length < 3) return `only ${d.news.length} news items`;
    return undefined;
  },
  migrate,
  count: (d) => d.news.length,
  view: {
    title: heading,
    text(d) {
      const note = notTodayNote(d);
      return `${heading(d)}\n${note ? `${note}\n` : ''}\n${d.news.map((n, i) => `${i + 1}. ${n}`).join('\n')}\n\n【微语】${d.tip}\n`;
    },
    markdown(d) {
      const note = notTodayNote(d);
      return `# ${heading(d)}\n\n> ${d.date} ${d.day_of_week} · 农历${d.lunar_date}${note ? `\n>\n> ${note}` : ''}\n\n${d.news
        .map((n, i) => `${i + 1}. ${n}`)
        .join('\n')}\n\n_【微语】${d.tip}_\n${d.image ? `\n![${d.date}](${markdownUrl(d.image)})\n` : ''}`;
    },
    htmlBody(d) {
      const note = notTodayNote(d);
      return `${note ? `<p><em>${escapeHtml(note)}</em></p>` : ''}${digestHtml(d)}`;
    },
    imageUrl: (d) => d.image || undefined,
    feedChannel: { title: '每天 60 秒读懂世界', description: '每日早间新闻简报：约 15 条国内外要闻和一句微语，每天一期，附图片版。' },
    feedFromHistory: {
      days: 10,
      rows: (history): Row[] =>
        [...history]
          .sort((a, b) => b.data.date.localeCompare(a.data.date))
          .map(({ data: d }) => ({
          title: `📅 ${d.date} ${d.day_of_week}`,
          link: d.link || `https://60s.viki.moe/?date=${d.date}`,
          // 60s's own guid of the day (its item link), so a reader that switches feeds sees no item twice.
          guid: sixtyFeedGuid(d.date),
          date: shanghaiMidnight(d.date),
          contentHtml: digestHtml(d),
          ...(d.image ? { cover: d.image } : {}),
        })),
    },
  },
  example: '/v2/apis/60s?encoding=text',
});
