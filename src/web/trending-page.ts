/**
 * The html of `/v2/apis/trending`: the events as the other encodings list them (rank, title,
 * its items on each platform, heat), each cross-platform event with the chart of how it spread:
 * when it reached each platform, up to the moment shown. The chart's numbers are the json's
 * `platforms[].first_seen_at` and `rank`.
 */
import { escapeHtml, safeUrl } from '../encoding/escape.ts';
import type { Row } from '../kernel/source.ts';
import { formatDateTime } from '../kernel/time.ts';
import type { Trending, TrendingEvent } from '../../sources/trending.ts';
import { spreadChart } from './charts.ts';

/** The anchor of an event on the trending page (the home page links to it). */
export const eventAnchor = (id: string): string => `event-${id}`;

function spread(e: TrendingEvent, end: number): string {
  if (e.platforms.length < 2) return '';
  const rows = e.platforms.map((p) => ({ label: p.name, since: p.first_seen_at ?? undefined, rank: p.rank }));
  const earliest = [...e.platforms].filter((p) => p.first_seen_at !== null).sort((a, b) => (a.first_seen_at as number) - (b.first_seen_at as number))[0];
  const title = `「${e.title}」在 ${e.platforms.length} 个平台的扩散${earliest ? `：${formatDateTime(earliest.first_seen_at as number).slice(5, 16)} 最早见于${earliest.name}` : ''}`;
  return spreadChart(rows, end, title);
}

/** `rows` are the view's rows of the same data (title, link, summary, heat per event, in order). */
export function trendingHtml(d: Trending, rows: readonly Row[]): string {
  if (!d.events.length) return '<p>各平台榜单中还没有可合并的热点。</p>';
  const end = d.snapshot_at ?? d.updated_at;
  const body = d.events.map((e, i) => {
    const r = rows[i] as Row;
    const link = safeUrl(r.link);
    const title = link ? `<a href="${escapeHtml(link)}" rel="noopener noreferrer">${escapeHtml(r.title)}</a>` : escapeHtml(r.title);
    const hot = r.hot === undefined ? '' : escapeHtml(String(r.hot));
    const chart = spread(e, end);
    // The chart has a row of its own, across the columns, so that it keeps its width on a phone.
    const row = `<tr id="${escapeHtml(eventAnchor(e.id))}"${chart ? ' class="has-spread"' : ''}><td class="n">${e.rank}</td><td>${title}${r.summary ? `<div class="s">${escapeHtml(r.summary)}</div>` : ''}</td><td class="h">${hot}</td></tr>`;
    return chart ? `${row}\n<tr class="spread-row"><td colspan="3">${chart}</td></tr>` : row;
  });
  return `<p class="s">每个跨平台热点下的图是它在各平台首次上榜的时间，直到 ${escapeHtml(formatDateTime(end).slice(0, 16))}（北京时间）。</p>\n<table><thead><tr><th>#</th><th>热点</th><th>热度</th></tr></thead><tbody>\n${body.join('\n')}\n</tbody></table>`;
}
