/**
 * Generic renderings used when a source gives no override: from `rows` when it has them,
 * otherwise from the data itself (flattened into labelled lines).
 */
import type { ColumnLabels, Row } from '../kernel/source.ts';
import { barChart, type Bar } from '../web/charts.ts';
import { htmlPage } from '../web/shell.ts';
import { compareRows, leftList, timelineLink, timeMachineBar, type SnapshotNav } from '../web/time-machine.ts';
import { escapeHtml, escapeMarkdown, markdownUrl, safeUrl } from './escape.ts';

export interface GenericInput {
  title: string;
  data: unknown;
  rows: Row[] | undefined;
  /** "Updated 2026-11-21 10:00:00 (Asia/Shanghai)" or similar footer line (in Chinese for html pages). */
  footer: string | undefined;
}

export interface HtmlInput extends GenericInput {
  /** The table's column labels (html only). */
  columns?: ColumnLabels | undefined;
  /** Already-escaped page content instead of the rows or the data table (a source's `htmlBody`). */
  body?: string | undefined;
  /** Bars drawn above the table (a source's `bars` hint, e.g. box office). */
  bars?: Bar[] | undefined;
}

function hotText(hot: Row['hot']): string {
  return hot === undefined || hot === '' ? '' : ` (${typeof hot === 'number' ? hot.toLocaleString('en-US') : hot})`;
}

/** Flatten nested data into `path: value` pairs (arrays by index), skipping empty values. */
export function flatten(data: unknown, prefix = '', out: [string, string][] = [], depth = 0): [string, string][] {
  if (data === null || data === undefined || data === '') return out;
  if (Array.isArray(data)) {
    data.forEach((v, i) => flatten(v, `${prefix}[${i}]`, out, depth + 1));
  } else if (typeof data === 'object' && depth < 8) {
    for (const [k, v] of Object.entries(data as Record<string, unknown>)) flatten(v, prefix ? `${prefix}.${k}` : k, out, depth + 1);
  } else {
    out.push([prefix || 'value', typeof data === 'object' ? JSON.stringify(data) : String(data)]);
  }
  return out;
}

export function renderText(input: GenericInput): string {
  const lines = [input.title, ''];
  if (input.rows) {
    input.rows.forEach((r, i) => {
      lines.push(`${i + 1}. ${r.title}${hotText(r.hot)}`);
      if (r.summary) lines.push(`   ${r.summary.replace(/\s*\n\s*/g, ' ')}`);
    });
  } else {
    for (const [k, v] of flatten(input.data)) lines.push(`${k}: ${v}`);
  }
  if (input.footer) lines.push('', input.footer);
  return `${lines.join('\n')}\n`;
}

export function renderMarkdown(input: GenericInput): string {
  const lines = [`# ${escapeMarkdown(input.title)}`, ''];
  if (input.rows) {
    input.rows.forEach((r, i) => {
      const title = escapeMarkdown(r.title);
      const link = safeUrl(r.link);
      lines.push(`${i + 1}. ${link ? `[${title}](${markdownUrl(link)})` : title}${hotText(r.hot)}`);
      if (r.summary) lines.push(`   > ${escapeMarkdown(r.summary)}`);
    });
  } else {
    lines.push('| field | value |', '| --- | --- |');
    for (const [k, v] of flatten(input.data)) lines.push(`| ${escapeMarkdown(k)} | ${escapeMarkdown(v)} |`);
  }
  if (input.footer) lines.push('', `_${escapeMarkdown(input.footer)}_`);
  return `${lines.join('\n')}\n`;
}

/** A list page's place in its snapshots (the time machine), for archived lists. */
export interface ListPageNav {
  nav: SnapshotNav;
  /** The page's own path and query, without at/date: the time machine's links set `at` on it. */
  base: string;
  /** The list's source, whose timeline each title links to (where the item index keeps its items). */
  sourceId: string;
}

export function renderHtml(input: HtmlInput & { list?: ListPageNav | undefined }): string {
  const parts = [`<h1>${escapeHtml(input.title)}</h1>`];
  const list = input.list;
  if (list) parts.push(timeMachineBar(list.nav, list.base, '榜单时刻'));
  if (input.body !== undefined) {
    parts.push(input.body);
  } else if (input.rows) {
    if (input.bars?.length) parts.push(barChart(input.bars, `${input.title}：${input.columns?.hot ?? '数值'}柱状图`));
    const { marks, left } = compareRows(input.rows, list?.nav.previousRows);
    const hasHot = input.rows.some((r) => r.hot !== undefined && r.hot !== '');
    const head = ['#', input.columns?.title ?? '标题', ...(hasHot ? [input.columns?.hot ?? '热度'] : [])];
    parts.push(`<table><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>`);
    input.rows.forEach((r, i) => {
      const link = safeUrl(r.link);
      const title = link ? `<a href="${escapeHtml(link)}" rel="noopener noreferrer">${escapeHtml(r.title)}</a>` : escapeHtml(r.title);
      const chart = list?.nav.titlesIndexed ? ` <a class="tl" href="${escapeHtml(timelineLink(r.title, list.sourceId))}" title="名次走势图">走势</a>` : '';
      const summary = r.summary ? `<div class="s">${escapeHtml(r.summary)}</div>` : '';
      const hot = r.hot === undefined ? '' : escapeHtml(typeof r.hot === 'number' ? r.hot.toLocaleString('en-US') : r.hot);
      parts.push(`<tr><td class="n">${i + 1}${marks[i]}</td><td>${title}${chart}${summary}</td>${hasHot ? `<td class="h">${hot}</td>` : ''}</tr>`);
    });
    parts.push('</tbody></table>');
    parts.push(leftList(left));
  } else {
    parts.push('<table><tbody>');
    for (const [k, v] of flatten(input.data)) parts.push(`<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`);
    parts.push('</tbody></table>');
  }
  return htmlPage(input.title, parts.join('\n'), input.footer ? escapeHtml(input.footer) : undefined);
}
