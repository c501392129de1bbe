/**
 * Small rendering helpers for sources that write their own text, markdown or html (tables of
 * prices, rates, forecasts; an html page's content goes to the `htmlBody` hint), and for turning
 * upstream HTML snippets into plain text.
 */
import { load } from './html.ts';
import { escapeHtml, escapeMarkdown } from '../../src/encoding/escape.ts';

export type Cell = string | number | null | undefined;

function cellText(c: Cell): string {
  return c === null || c === undefined ? '' : String(c);
}

/** A markdown table; every cell is escaped. */
export function mdTable(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const line = (cells: readonly Cell[]) => `| ${cells.map((c) => escapeMarkdown(cellText(c))).join(' | ')} |`;
  return [line(headers), `| ${headers.map(() => '---').join(' | ')} |`, ...rows.map(line)].join('\n');
}

/** An html table; every cell is escaped. */
export function htmlTable(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const head = `<thead><tr>${headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead>`;
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(cellText(c))}</td>`).join('')}</tr>`).join('\n');
  return `<table>${head}<tbody>\n${body}\n</tbody></table>`;
}

/** Plain text of an HTML fragment: tags dropped, entities decoded, white space collapsed. */
export function htmlToText(html: string): string {
  if (!/[<&]/.test(html)) return html.replace(/\s+/g, ' ').trim();
  return load(`<div>${html}</div>`, null, false).root().text().replace(/\s+/g, ' ').trim();
}

/** A number with at most `digits` decimals, without trailing zeros (1.50 → "1.5"). */
export function trimNumber(n: number, digits = 4): string {
  return String(Number(n.toFixed(digits)));
}

/** A year as Chinese text: `-221` → `公元前221年`, `1602` → `1602年` (Baidu and others write years before the common era as negative numbers or with 前). */
export function yearText(year: string): string {
  const y = year.trim();
  const bc = /^(?:-|前|公元前)\s*(\d+)/.exec(y);
  if (bc) return `公元前${bc[1]}年`;
  return /^\d+$/.test(y) ? `${y}年` : y;
}
