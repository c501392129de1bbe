/** Time helpers: everything is stored as ms epoch and formatted in Asia/Shanghai at render time. */

export const TIME_ZONE = 'Asia/Shanghai';

export const DAY_MS = 86_400_000;

const dateTimeParts = new Intl.DateTimeFormat('en-CA', {
  timeZone: TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

function parts(ms: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of dateTimeParts.formatToParts(new Date(ms))) out[p.type] = p.value;
  return out;
}

/**
 * Asia/Shanghai has kept UTC+8 without daylight saving since 1991, so later times are formatted by
 * arithmetic: the time-zone database (Intl, about 9 µs a call) only for earlier ones.
 */
const FIXED_OFFSET_FROM = Date.UTC(1991, 11, 31, 16);
const FIXED_OFFSET_UNTIL = Date.UTC(9999, 11, 31);

function shanghaiIso(ms: number): string | undefined {
  return ms >= FIXED_OFFSET_FROM && ms < FIXED_OFFSET_UNTIL ? new Date(ms + 8 * 3_600_000).toISOString() : undefined;
}

/** `YYYY-MM-DD HH:mm:ss` in Asia/Shanghai. */
export function formatDateTime(ms: number): string {
  const iso = shanghaiIso(ms);
  if (iso) return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  const p = parts(ms);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/**
 * `YYYY/MM/DD HH:mm:ss` in Asia/Shanghai: 60s's date-time text (its `Common.localeTime`, zh-CN), for
 * the fields 60s writes so (the digest's `api_updated`, exchange rates, Epic, whois, fuel prices,
 * Zhihu, Quark, Douyin's `event_time`, changya's `publish`, Maoyan's `update_time`). Fields 60s
 * writes with dashes, and our own, use formatDateTime.
 */
export function formatSixtyDateTime(ms: number): string {
  const text = formatDateTime(ms);
  return `${text.slice(0, 4)}/${text.slice(5, 7)}/${text.slice(8)}`;
}

const DASHED_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})( \d{2}:\d{2}(?::\d{2})?)$/;

/**
 * `fields` of stored data written as `YYYY-MM-DD HH:mm:ss` by a release before 60s's format, in
 * 60s's `YYYY/MM/DD HH:mm:ss` (a migrate step); the same object when none needs it.
 */
export function withSixtyDateTimes<T extends object>(data: T, fields: readonly string[]): T {
  const record = data as Record<string, unknown>;
  const changed = fields.filter((f) => typeof record[f] === 'string' && DASHED_DATE_TIME.test(record[f] as string));
  if (!changed.length) return data;
  const out: Record<string, unknown> = { ...record };
  for (const f of changed) out[f] = (record[f] as string).replace(DASHED_DATE_TIME, '$1/$2/$3$4');
  return out as T;
}

/** `YYYY-MM-DD` in Asia/Shanghai. */
export function formatDate(ms: number): string {
  const iso = shanghaiIso(ms);
  if (iso) return iso.slice(0, 10);
  const p = parts(ms);
  return `${p.year}-${p.month}-${p.day}`;
}

/** The `xxx` / `xxx_at` pair of the spec's naming rule. */
export function timePair<K extends string>(name: K, ms: number): Record<K | `${K}_at`, string | number> {
  return { [name]: formatDateTime(ms), [`${name}_at`]: ms } as Record<K | `${K}_at`, string | number>;
}

/** Midnight (00:00 Asia/Shanghai) of a `YYYY-MM-DD` date, as ms epoch. */
export function shanghaiMidnight(date: string): number {
  return Date.parse(`${date}T00:00:00+08:00`);
}

/** Shift a `YYYY-MM-DD` date by whole days. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Whether a string is a real calendar date in `YYYY-MM-DD` form. */
export function isIsoDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

const WEEKDAYS_ZH = ['星期日', '星期一', '星期二', '星期三', '星期四', '星期五', '星期六'];
/** Chinese weekday name of a `YYYY-MM-DD` date. */
export function weekdayZh(date: string): string {
  return WEEKDAYS_ZH[new Date(`${date}T00:00:00Z`).getUTCDay()] ?? '';
}
