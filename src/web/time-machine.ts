/**
 * The time machine's page parts: the bar with the moment shown, a date-time picker (a GET form
 * with `at`, no script needed) and links to the previous and next snapshot; and the marks of a
 * list against its previous snapshot (new entries, rank moves, entries that left).
 */
import { escapeHtml, safeUrl } from '../encoding/escape.ts';
import { MAX_QUERY_LENGTH } from '../kernel/item-index.ts';
import type { Row } from '../kernel/source.ts';
import { formatDateTime } from '../kernel/time.ts';
import { titleKey } from '../kernel/title-key.ts';

/** Where a page stands in a list's (or the board's) snapshots. */
export interface SnapshotNav {
  /** The time of the snapshot shown. */
  at: number;
  /** The page shows the past (an `at` or `date` was asked for), not the current data. */
  past: boolean;
  previousAt: number | undefined;
  nextAt: number | undefined;
  /** The previous snapshot's rows, to mark what changed since. */
  previousRows: Row[] | undefined;
  /** The item index keeps this list's items: its titles can link to their timelines. */
  titlesIndexed?: boolean;
}

/** `YYYY-MM-DDTHH:mm` in Asia/Shanghai: the value of a datetime-local input. */
export function pickerValue(ms: number): string {
  return formatDateTime(ms).slice(0, 16).replace(' ', 'T');
}

/** `base` (a path with its query, without at/date) with `at` set. */
export function withAt(base: string, at: number | undefined): string {
  const [path, query = ''] = base.split('?', 2) as [string, string?];
  const params = new URLSearchParams(query);
  params.delete('at');
  params.delete('date');
  if (at !== undefined) params.set('at', String(at));
  const q = params.toString();
  return q ? `${path}?${q}` : path;
}

/**
 * The bar: what moment is shown, a picker that keeps the page's other parameters (hidden fields),
 * and previous / next / now links.
 */
export function timeMachineBar(nav: SnapshotNav, base: string, what: string): string {
  const [path, query = ''] = base.split('?', 2) as [string, string?];
  const hidden = [...new URLSearchParams(query)]
    .filter(([k]) => k !== 'at' && k !== 'date')
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');
  const shown = `${formatDateTime(nav.at).slice(0, 16)}（北京时间）`;
  const link = (at: number | undefined, rel: string, text: string, label: string) =>
    at === undefined ? `<span class="s">${text}</span>` : `<a rel="${rel}" href="${escapeHtml(withAt(base, at))}" title="${escapeHtml(label)}">${text}</a>`;
  return `<section class="tm" aria-label="时光机">
<span>${nav.past ? `${escapeHtml(what)}：<span class="at" data-at="${nav.at}">${shown}</span> · 存档快照` : `${escapeHtml(what)}：最新，<span class="at" data-at="${nav.at}">${shown}</span> 起未变`}</span>
<nav aria-label="快照">${link(nav.previousAt, 'prev', '← 上一快照', nav.previousAt === undefined ? '' : formatDateTime(nav.previousAt))}${link(nav.nextAt, 'next', '下一快照 →', nav.nextAt === undefined ? '' : formatDateTime(nav.nextAt))}${nav.past ? `<a href="${escapeHtml(withAt(base, undefined))}">回到现在</a>` : ''}</nav>
<form method="get" action="${escapeHtml(path)}">${hidden}<label for="tm-at">查看某一时刻</label><input id="tm-at" type="datetime-local" name="at" value="${pickerValue(nav.at)}" step="60"><button type="submit">前往</button></form>
</section>`;
}

export interface RowMark {
  /** Html after the rank: new entry, or rank up / down since the previous snapshot. */
  mark: string;
}

/** Each row's mark against the previous snapshot, and the previous rows no longer on the list. */
export function compareRows(rows: readonly Row[], previous: readonly Row[] | undefined): { marks: string[]; left: Row[] } {
  if (!previous) return { marks: rows.map(() => ''), left: [] };
  const before = new Map<string, number>();
  previous.forEach((r, i) => {
    const k = titleKey(r.title);
    if (!before.has(k)) before.set(k, i + 1);
  });
  const now = new Set<string>();
  const marks = rows.map((r, i) => {
    const k = titleKey(r.title);
    now.add(k);
    const was = before.get(k);
    if (was === undefined) return ' <span class="new" title="上一快照中没有">新</span>';
    const moved = was - (i + 1);
    if (moved > 0) return ` <span class="up" title="比上一快照上升 ${moved} 名">↑${moved}</span>`;
    if (moved < 0) return ` <span class="down" title="比上一快照下降 ${-moved} 名">↓${-moved}</span>`;
    return '';
  });
  const left = previous.filter((r) => !now.has(titleKey(r.title)));
  return { marks, left };
}

/** The previous snapshot's rows that left the list. */
export function leftList(left: readonly Row[]): string {
  if (!left.length) return '';
  const items = left.map((r) => {
    const link = safeUrl(r.link);
    return `<li>${link ? `<a href="${escapeHtml(link)}" rel="noopener noreferrer">${escapeHtml(r.title)}</a>` : escapeHtml(r.title)}</li>`;
  });
  return `<section class="left"><h2>上一快照之后离榜（${left.length}）</h2><ul>${items.join('')}</ul></section>`;
}

/** The timeline page of a title on one list: its rank chart over the last days. */
export function timelineLink(title: string, sourceId: string): string {
  const q = [...title].slice(0, MAX_QUERY_LENGTH).join('');
  return `/v2/apis/timeline?q=${encodeURIComponent(q)}&source=${encodeURIComponent(sourceId)}&encoding=html`;
}
