/**
 * The common shape of hot lists and rankings, and the helpers every list source uses.
 *
 * A hot list's data is a bare array of items: vikiboss/60s answers its lists that way and its
 * clients read `data[0].title`. When the list was fetched and how many items it holds are not
 * fields of the data: the encoding layer sends them as the `Last-Modified` and `X-Total-Count`
 * headers of every array-shaped answer (src/encoding/index.ts).
 */
import type { Row } from '../../src/kernel/source.ts';
import { formatDateTime } from '../../src/kernel/time.ts';

export interface HotItem {
  rank: number;
  title: string;
  /** Always an absolute URL. */
  link: string;
  hot_value?: number;
  /** A rating or heat, as a number or as the upstream's text (60s's `score` differs per list). */
  score?: number | string;
  /** A cover image URL; `''` or null where 60s's field says "none" that way. */
  cover?: string | null;
  [extra: string]: unknown;
}

/** A hot list: its items in rank order. */
export type HotList<I extends HotItem = HotItem> = I[];

/**
 * A list inside an object container, with its count and fetch time, for endpoints that 60s
 * answers as an object around a list (e.g. today-in-history, the medal table).
 */
export interface ListObject<I> {
  list: I[];
  total: number;
  updated: string;
  updated_at: number;
}

/** Wrap items with their count and the fetch time (object containers only; hot lists are bare arrays). */
export function listObject<I>(list: I[], now: Date): ListObject<I> {
  const at = now.getTime();
  return { list, total: list.length, updated: formatDateTime(at), updated_at: at };
}

/**
 * How an item stored before hot lists became bare arrays differs from today's: fields renamed
 * (old name → new name, in place), and the fields to set from the old item and its container
 * (new fields, and values whose type changed).
 */
export interface ItemUpgrade {
  renamed?: Readonly<Record<string, string>>;
  fill?(item: Record<string, unknown>, container: Record<string, unknown>): Record<string, unknown>;
}

/**
 * The `migrate` of a hot list (see the source contract): a list stored in the older
 * `{list, total, updated, updated_at, …}` container becomes the bare array, each item upgraded;
 * a bare array is today's shape and passes unchanged.
 */
export function migrateHotList<I extends HotItem = HotItem>(upgrade: ItemUpgrade = {}): (stored: unknown) => I[] | undefined {
  return (stored) => {
    if (Array.isArray(stored)) return stored as I[];
    const container = asRecord(stored);
    const list = asArray(container?.list);
    if (!container || !list) return undefined;
    return list.map((item) => upgradeItem(asRecord(item) ?? {}, container, upgrade) as I);
  };
}

/** One item with `upgrade` applied: renamed fields keep their place, filled ones replace or follow. */
export function upgradeItem(item: Record<string, unknown>, container: Record<string, unknown>, upgrade: ItemUpgrade): Record<string, unknown> {
  const renamed = upgrade.renamed ?? {};
  const out = Object.fromEntries(Object.entries(item).map(([k, v]) => [renamed[k] ?? k, v]));
  return { ...out, ...upgrade.fill?.(out, container) };
}

/** The entries of `fields` whose key `item` lacks: defaults for fields added later. */
export function missing(item: Record<string, unknown>, fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([k]) => !(k in item)));
}

/** A list with fewer than `min` items, or an item without title or absolute link, is implausible. */
export function validateHotList(data: readonly HotItem[], min = 5): string | undefined {
  if (!Array.isArray(data) || data.length < min) return `expected at least ${min} items, got ${Array.isArray(data) ? data.length : 0}`;
  const bad = data.find((i) => !i.title || !/^https?:\/\//.test(i.link));
  if (bad) return `item ${bad.rank} has no title or no absolute link`;
  return undefined;
}

/** Rows for the generic renderings: title, link, heat, cover. */
export function hotListRows(data: readonly HotItem[]): Row[] {
  return hotListRowsWith(data, {});
}

/** Narrowing helpers for upstream JSON, which enters as `unknown`. */
export function asRecord(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function asArray(v: unknown): unknown[] | undefined {
  return Array.isArray(v) ? v : undefined;
}

export function asString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** A number from a number or from the first digit run of a string ("综艺 1050401" → 1050401). */
export function asNumber(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string') {
    const m = /-?\d+(?:\.\d+)?/.exec(v.replace(/,/g, ''));
    if (m) return Number(m[0]);
  }
  return undefined;
}

/** Follow a path of keys and indexes into unknown JSON. */
export function pick(v: unknown, ...path: (string | number)[]): unknown {
  let cur = v;
  for (const k of path) {
    if (cur === null || cur === undefined || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[k];
  }
  return cur;
}

/** Multipliers of the Chinese and shorthand units upstreams use for heat and counts. */
const HEAT_UNITS: Record<string, number> = { 万: 1e4, w: 1e4, W: 1e4, 亿: 1e8, k: 1e3, K: 1e3 };

/**
 * A heat or count value as a number: numbers as they are, digit strings, and unit-suffixed
 * text such as "612.3万", "88 万热度", "1.2亿", "12.3w" or "1,234".
 */
export function parseHeat(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const m = /(\d+(?:\.\d+)?)\s*(万|亿|w|W|k|K)?/.exec(v.replace(/,/g, ''));
  if (!m) return undefined;
  const n = Number(m[1]) * (m[2] ? (HEAT_UNITS[m[2]] ?? 1) : 1);
  return Math.round(n);
}

/** A heat value as short Chinese text: 6123000 → "612.3万", 120000000 → "1.2亿", 8765 → "8765". */
export function formatHeat(n: number): string {
  const trim = (x: number) => String(Math.round(x * 10) / 10);
  if (n >= 1e8) return `${trim(n / 1e8)}亿`;
  if (n >= 1e4) return `${trim(n / 1e4)}万`;
  return String(n);
}

/** An epoch timestamp in seconds or milliseconds (told apart by magnitude) as milliseconds. */
export function epochMs(v: unknown): number | undefined {
  const n = typeof v === 'string' && /^\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return undefined;
  return n < 1e11 ? Math.round(n * 1000) : Math.round(n);
}

/** "YYYY-MM-DD HH:mm[:ss]" read as Asia/Shanghai local time, in ms. */
export function shanghaiTimeMs(v: unknown): number | undefined {
  const m = /^(\d{4})[-/](\d{2})[-/](\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(typeof v === 'string' ? v.trim() : '');
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}+08:00`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** An absolute http(s) URL from a possibly relative or protocol-relative one. */
export function absoluteUrl(v: unknown, base: string): string | undefined {
  const s = asString(v)?.trim();
  if (!s) return undefined;
  try {
    // Some sites send a whole URL percent-encoded ("https%3A%2F%2F…"), which would otherwise resolve as a relative path.
    const u = new URL(/^https?%3A/i.test(s) ? decodeURIComponent(s) : s, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : undefined;
  } catch {
    return undefined;
  }
}

/** Drop later items whose link repeats an earlier one (links are RSS guids and must be unique). */
export function dedupeByLink<I extends HotItem>(items: I[]): I[] {
  const seen = new Set<string>();
  return items.filter((i) => {
    if (seen.has(i.link)) return false;
    seen.add(i.link);
    return true;
  });
}

/** Rows like `hotListRows`, with per-source choices for the heat label, summary and date. */
export function hotListRowsWith<I extends HotItem>(
  data: readonly I[],
  pickers: { hot?(i: I): number | string | undefined; summary?(i: I): string | undefined; date?(i: I): number | undefined },
): Row[] {
  return data.map((i) => {
    const hot = pickers.hot ? pickers.hot(i) : (i.hot_value ?? i.score);
    const summary = pickers.summary?.(i);
    const date = pickers.date?.(i);
    return {
      title: i.title,
      link: i.link,
      ...(hot !== undefined && hot !== '' ? { hot } : {}),
      ...(i.cover ? { cover: i.cover } : {}),
      ...(summary ? { summary } : {}),
      ...(date !== undefined ? { date } : {}),
    };
  });
}
