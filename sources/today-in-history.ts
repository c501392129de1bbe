/**
 * "On this day in history" from Baidu Baike's monthly files
 * (https://baike.baidu.com/cms/home/eventsOnHistory/<MM>.json). One file holds every day of a
 * month as `{"MM": {"MMDD": [event…]}}`; titles and descriptions are HTML with `<a>` links and
 * the descriptions are cut short by Baidu. The events of a day are the same every year, so a
 * month file is fetched once and answers all of its days (see `monthFile`).
 */
import { SourceError } from '../src/kernel/errors.ts';
import { missingPath } from '../src/kernel/json-path.ts';
import type { HttpClient } from '../src/kernel/http.ts';
import { defineSource, type FetchContext, type Row } from '../src/kernel/source.ts';
import { formatDate, formatDateTime, shanghaiMidnight } from '../src/kernel/time.ts';
import { htmlToText, yearText } from './_shared/format.ts';
import { asArray, asRecord, asString, type HotItem } from './_shared/hot-list.ts';

export const monthUrl = (mm: string) => `https://baike.baidu.com/cms/home/eventsOnHistory/${mm}.json`;

export interface HistoryEvent extends HotItem {
  /** Year as Baidu writes it (e.g. `1602`, `-221` for 221 BC). */
  year: string;
  /** The year as Chinese text: `1602年`, `公元前221年`. */
  year_text: string;
  description: string;
  /** `birth`, `death` or `event` (Baidu's `type`). */
  event_type: string;
  festival?: string;
}

/** 60s's shape (`date` as month-day, `month`, `day`, `items`) with our count, the full date asked for and the fetch time. */
export interface DayInHistory {
  /** Month and day without padding, e.g. `11-21` or `1-5`. */
  date: string;
  month: number;
  day: number;
  /** The events, oldest first. */
  items: HistoryEvent[];
  total: number;
  /** The day asked for (YYYY-MM-DD); only month and day select the events. */
  requested_date: string;
  updated: string;
  updated_at: number;
}

function yearValue(year: string): number {
  const bc = /^(?:-|前|公元前)\s*(\d+)/.exec(year);
  if (bc) return -Number(bc[1]);
  const n = Number.parseInt(year, 10);
  return Number.isNaN(n) ? Number.MAX_SAFE_INTEGER : n;
}

function withEllipsis(text: string): string {
  return !text || /[。！？.!?”"」）)…]$/.test(text) ? text : `${text}…`;
}

/** The events of one day (`date` = YYYY-MM-DD) from a month file. */
export function parse(raw: unknown, date: string, now: Date): DayInHistory {
  const [, mm = '', dd = ''] = date.split('-');
  const month = asRecord(asRecord(raw)?.[mm]);
  if (!month) throw missingPath(raw, mm, 'the month object');
  // A month file without a single event is broken; a day without an entry is a quiet day (no events, as 60s answers).
  if (!Object.values(month).some((day) => asArray(day)?.length)) throw new SourceError('empty', `month file has no event on any day of "${mm}"`);
  const entries = asArray(month[`${mm}${dd}`]) ?? [];
  const events: HistoryEvent[] = [];
  for (const entry of entries) {
    const e = asRecord(entry);
    const title = htmlToText(asString(e?.title) ?? '');
    const year = asString(e?.year)?.trim() ?? '';
    if (!e || !title || !year) continue;
    const link = asString(e.link)?.trim();
    const cover = asString(e.cover);
    const festival = asString(e.festival)?.trim();
    events.push({
      rank: 0,
      title,
      link: link && /^https?:\/\//.test(link) ? link : `https://baike.baidu.com/item/${encodeURIComponent(title)}`,
      year,
      year_text: yearText(year),
      description: withEllipsis(htmlToText(asString(e.desc) ?? '')),
      event_type: asString(e.type)?.trim().toLowerCase() || 'event',
      ...(festival ? { festival } : {}),
      ...(cover && /^https?:\/\//.test(cover) ? { cover } : {}),
    });
  }
  if (entries.length && !events.length) throw missingPath(raw, `${mm}.${mm}${dd}[0].title`, 'a non-empty title');
  events.sort((a, b) => yearValue(a.year) - yearValue(b.year));
  const at = now.getTime();
  return {
    date: `${Number(mm)}-${Number(dd)}`,
    month: Number(mm),
    day: Number(dd),
    items: events.map((e, i) => ({ ...e, rank: i + 1 })),
    total: events.length,
    requested_date: date,
    updated: formatDateTime(at),
    updated_at: at,
  };
}

/**
 * A day stored before 60s's shape (release 271b638): `{list, total, updated, updated_at, date:
 * YYYY-MM-DD, month, day}` with events without `year_text`. The events become `items` with their
 * year as text, `date` the month-day and the full date `requested_date`. Today's data passes unchanged.
 */
export function migrate(stored: unknown): DayInHistory | undefined {
  const d = asRecord(stored);
  if (!d || 'items' in d) return d as DayInHistory | undefined;
  const list = asArray(d.list);
  const requested = asString(d.date);
  if (!list || !requested || typeof d.month !== 'number' || typeof d.day !== 'number') return undefined;
  const items = list.map((e) => {
    const r = asRecord(e) ?? {};
    return { ...r, year_text: yearText(asString(r.year) ?? '') } as HistoryEvent;
  });
  return {
    date: `${d.month}-${d.day}`,
    month: d.month,
    day: d.day,
    items,
    total: items.length,
    requested_date: requested,
    updated: asString(d.updated) ?? '',
    updated_at: typeof d.updated_at === 'number' ? d.updated_at : 0,
  };
}

export function validateDay(d: DayInHistory): string | undefined {
  const bad = d.items.find((e) => !e.title || !/^https?:\/\//.test(e.link));
  return bad ? `event ${bad.rank} has no title or link` : undefined;
}

// A month file answers every day of the month: keep it (per service, per month) for a while.
const MONTH_FILE_TTL_MS = 6 * 3600_000;
const monthFiles = new WeakMap<HttpClient, Map<string, { at: number; file: Promise<unknown> }>>();

function monthFile(ctx: FetchContext<DayInHistory>, mm: string): Promise<unknown> {
  let files = monthFiles.get(ctx.http);
  if (!files) monthFiles.set(ctx.http, (files = new Map()));
  const now = ctx.now().getTime();
  const cached = files.get(mm);
  if (cached && now - cached.at < MONTH_FILE_TTL_MS) return cached.file;
  const file = ctx.http.json(monthUrl(mm), { signal: ctx.signal }).then((raw) => {
    if (!asRecord(asRecord(raw)?.[mm])) throw missingPath(raw, mm, `the month object of ${mm}.json`);
    return raw;
  });
  files.set(mm, { at: now, file });
  file.catch(() => {
    if (files.get(mm)?.file === file) files.delete(mm);
  });
  return file;
}

function heading(d: DayInHistory): string {
  return `历史上的今天（${d.month}月${d.day}日）`;
}

const typeLabel: Record<string, string> = { birth: '出生', death: '逝世', event: '事件' };

export default defineSource({
  id: 'today-in-history',
  name: '历史上的今天',
  description: 'Events, births and deaths that happened on a day of the year (Baidu Baike), oldest first (a day without recorded events answers an empty `items`, as 60s). `date` picks the day; today by default.',
  homepage: 'https://baike.baidu.com/calendar/',
  routes: [{ path: '/today-in-history' }],
  params: {
    date: { type: 'date', monthDay: true, doc: 'The day (YYYY-MM-DD, or month-day such as 11-21; only month and day matter); today (Asia/Shanghai) by default.', example: '2026-11-21' },
  },
  mode: 'scheduled',
  // The default key is "today": refreshed often enough to switch right after midnight.
  schedule: '*/10 * * * *',
  freshness: { ttlSec: 600, backoffCapSec: 3600 },
  headers: { referer: 'https://baike.baidu.com/', accept: 'application/json, text/plain, */*' },
  async fetch(ctx, params) {
    const date = params.date ?? formatDate(ctx.now().getTime());
    return parse(await monthFile(ctx, date.slice(5, 7)), date, ctx.now());
  },
  validate: validateDay,
  migrate,
  view: {
    title: heading,
    feedChannel: { title: '历史上的今天', description: '百度百科的历史上的今天：这一天发生的大事、出生与逝世的人物，按年份排列。' },
    rows: (d): Row[] =>
      d.items.map((e) => ({
        title: `${e.year_text} ${e.title}`,
        link: e.link,
        summary: e.description,
        guid: `today-in-history:${d.requested_date.slice(5)}:${e.year}:${e.title}`,
        date: shanghaiMidnight(d.requested_date),
        ...(e.cover ? { cover: e.cover } : {}),
      })),
    text: (d) => `${heading(d)}\n\n${d.items.length ? d.items.map((e) => `${e.rank}. ${e.title}（${e.year_text}，${typeLabel[e.event_type] ?? e.event_type}）`).join('\n') : '这一天没有记载的事件。'}\n\n更新于 ${formatDateTime(d.updated_at)}\n`,
  },
  example: '/v2/apis/today-in-history?date=2026-11-21&encoding=text',
});
