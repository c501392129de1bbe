/** The common shape of hot lists and rankings, and the helpers every list source uses. */
import type { Row } from '../../src/kernel/source.ts';
import { formatDateTime } from '../../src/kernel/time.ts';

export interface HotItem {
  rank: number;
  title: string;
  /** Always an absolute URL. */
  link: string;
  hot_value?: number;
  score?: number;
  cover?: string;
  [extra: string]: unknown;
}

export interface HotList<I extends HotItem = HotItem> {
  list: I[];
  total: number;
  updated: string;
  updated_at: number;
}

/** Wrap parsed items with their count and the fetch time. */
export function hotList<I extends HotItem>(list: I[], now: Date): HotList<I> {
  const at = now.getTime();
  return { list, total: list.length, updated: formatDateTime(at), updated_at: at };
}

/** A list with fewer than `min` items, or an item without title or absolute link, is implausible. */
export function validateHotList(data: HotList, min = 5): string | undefined {
  if (!Array.isArray(data.list) || data.list.length < min) return `expected at least ${min} items, got ${data.list?.length ?? 0}`;
  const bad = data.list.find((i) => !i.title || !/^https?:\/\//.test(i.link));
  if (bad) return `item ${bad.rank} has no title or no absolute link`;
  return undefined;
}

/** Rows for the generic renderings: title, link, heat, cover. */
export function hotListRows(data: HotList): Row[] {
  return data.list.map((i) => ({
    title: i.title,
    link: i.link,
    ...(i.hot_value !== undefined ? { hot: i.hot_value } : i.score !== undefined ? { hot: i.score } : {}),
    ...(i.cover ? { cover: i.cover } : {}),
  }));
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
    const m = /\d+(?:\.\d+)?/.exec(v.replace(/,/g, ''));
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
