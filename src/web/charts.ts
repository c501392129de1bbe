/**
 * Charts drawn on the server as inline SVG (no script, no library, no outside font): ranks over
 * time (rank 1 at the top, one line per series, a point at every sample) and horizontal bars.
 * The viewBox is narrow enough that its 13-unit labels stay about 12 px on a 390 px phone; on a
 * wide screen the stylesheet caps the chart's width.
 */
import { escapeHtml } from '../encoding/escape.ts';
import { formatDateTime } from '../kernel/time.ts';

/** Line colours with at least 3:1 contrast on white and on the dark background. */
export const SERIES_COLOURS = ['#0969da', '#cf222e', '#1a7f37', '#8250df', '#bc4c00', '#0a7d91', '#bf3989', '#6e7781'] as const;

export interface RankSeries {
  label: string;
  points: readonly { at: number; rank: number }[];
}

const W = 400;
const H = 240;
const LEFT = 36;
const RIGHT = 12;
const TOP = 26;
const BOTTOM = 44;
/** Ranks shown at least down to this, so that a steady 3rd place reads high and a steady 8th lower. */
const MIN_DEPTH = 10;

/** Ticks of the rank axis: 1 and round steps down to the worst rank. */
export function rankTicks(worst: number): number[] {
  const step = worst <= 10 ? 3 : worst <= 20 ? 5 : worst <= 50 ? 10 : 25;
  const ticks = [1];
  for (let r = step; r <= worst; r += step) if (r - (ticks[ticks.length - 1] as number) >= step / 2) ticks.push(r);
  const lastTick = ticks[ticks.length - 1] as number;
  if (lastTick !== worst) {
    if (worst - lastTick < step / 2 && ticks.length > 1) ticks.pop();
    ticks.push(worst);
  }
  return ticks;
}

/** `MM-DD HH:mm` (Asia/Shanghai), or `HH:mm` when the whole chart is one day. */
function timeLabel(ms: number, oneDay: boolean): string {
  const t = formatDateTime(ms);
  return oneDay ? t.slice(11, 16) : `${t.slice(5, 10)} ${t.slice(11, 16)}`;
}

/**
 * Samples (in time order) split where a gap is much longer than the usual spacing: the item was
 * off the list meanwhile, so no line is drawn across.
 */
export function continuousRuns<P extends { at: number }>(pts: readonly P[]): P[][] {
  if (pts.length < 3) return [[...pts]];
  const gaps = pts.slice(1).map((p, i) => p.at - (pts[i] as P).at).sort((a, b) => a - b);
  const usual = gaps[Math.floor(gaps.length / 2)] as number;
  const runs: P[][] = [[pts[0] as P]];
  for (let i = 1; i < pts.length; i++) {
    const p = pts[i] as P;
    if (p.at - (pts[i - 1] as P).at > usual * 3) runs.push([]);
    (runs[runs.length - 1] as P[]).push(p);
  }
  return runs;
}

/**
 * Ranks over time of one or more series (e.g. one item on several platforms), with a time axis,
 * a rank axis and a point at every sample; `title` names the chart for screen readers.
 */
export function rankChart(series: readonly RankSeries[], title: string): string {
  const all = series.flatMap((s) => s.points);
  if (!all.length) return '';
  const first = Math.min(...all.map((p) => p.at));
  const last = Math.max(...all.map((p) => p.at));
  const span = last - first;
  const worst = Math.max(MIN_DEPTH, ...all.map((p) => p.rank));
  const plotW = W - LEFT - RIGHT;
  const plotH = H - TOP - BOTTOM;
  const x = (t: number) => LEFT + (span ? ((t - first) / span) * plotW : plotW / 2);
  const y = (r: number) => TOP + ((r - 1) / (worst - 1)) * plotH;
  const oneDay = formatDateTime(first).slice(0, 10) === formatDateTime(last).slice(0, 10);
  const parts: string[] = [];
  for (const r of rankTicks(worst)) {
    parts.push(`<line class="grid" x1="${LEFT}" x2="${W - RIGHT}" y1="${y(r).toFixed(1)}" y2="${y(r).toFixed(1)}"/>`);
    parts.push(`<text class="tick" x="${LEFT - 5}" y="${(y(r) + 4.5).toFixed(1)}" text-anchor="end">${r}</text>`);
  }
  const timeTicks = span ? [first, first + span / 2, last] : [first];
  timeTicks.forEach((t, i) => {
    const anchor = timeTicks.length === 1 ? 'middle' : i === 0 ? 'start' : i === timeTicks.length - 1 ? 'end' : 'middle';
    parts.push(`<line class="axis" x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="${H - BOTTOM}" y2="${H - BOTTOM + 4}"/>`);
    parts.push(`<text class="tick" x="${x(t).toFixed(1)}" y="${H - BOTTOM + 18}" text-anchor="${anchor}">${escapeHtml(timeLabel(t, oneDay))}</text>`);
  });
  parts.push(`<line class="axis" x1="${LEFT}" x2="${W - RIGHT}" y1="${H - BOTTOM}" y2="${H - BOTTOM}"/>`);
  parts.push(`<line class="axis" x1="${LEFT}" x2="${LEFT}" y1="${TOP}" y2="${H - BOTTOM}"/>`);
  parts.push(`<text class="label" x="${LEFT + plotW / 2}" y="${H - 6}" text-anchor="middle">时间（北京时间${oneDay ? ` ${formatDateTime(first).slice(0, 10)}` : ''}）</text>`);
  parts.push(`<text class="label" x="4" y="${TOP - 12}">名次</text>`);
  series.forEach((s, i) => {
    const colour = SERIES_COLOURS[i % SERIES_COLOURS.length];
    const pts = [...s.points].sort((a, b) => a.at - b.at);
    for (const run of continuousRuns(pts)) {
      if (run.length > 1) parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${run.map((p) => `${x(p.at).toFixed(1)},${y(p.rank).toFixed(1)}`).join(' ')}"/>`);
    }
    for (const p of pts) {
      parts.push(`<circle cx="${x(p.at).toFixed(1)}" cy="${y(p.rank).toFixed(1)}" r="3" fill="${colour}"><title>${escapeHtml(`${s.label} · ${formatDateTime(p.at)} · 第 ${p.rank} 名`)}</title></circle>`);
    }
  });
  const legend = series
    .map((s, i) => `<li><i style="background:${SERIES_COLOURS[i % SERIES_COLOURS.length]}"></i>${escapeHtml(s.label)}</li>`)
    .join('');
  return `<figure class="chart"><svg role="img" aria-label="${escapeHtml(title)}" viewBox="0 0 ${W} ${H}" xmlns="http://www.w3.org/2000/svg"><title>${escapeHtml(title)}</title>${parts.join('')}</svg><figcaption><ul class="legend">${legend}</ul></figcaption></figure>`;
}

export interface Bar {
  label: string;
  value: number;
  /** The value as shown (e.g. "1.2亿"). */
  text: string;
}

const BAR_H = 26;
const BAR_LABEL_W = 150;

/** Horizontal bars, longest first as given, each labelled with its name and value. */
export function barChart(bars: readonly Bar[], title: string): string {
  if (!bars.length) return '';
  const max = Math.max(...bars.map((b) => b.value), 1);
  const plotW = W - BAR_LABEL_W - 70;
  const height = bars.length * BAR_H + 8;
  const rows = bars.map((b, i) => {
    const y = 4 + i * BAR_H;
    const w = Math.max(1, (b.value / max) * plotW);
    const label = b.label.length > 11 ? `${b.label.slice(0, 10)}…` : b.label;
    return `<g><title>${escapeHtml(`${b.label}：${b.text}`)}</title><text class="tick" x="${BAR_LABEL_W - 6}" y="${y + 17}" text-anchor="end">${escapeHtml(label)}</text><rect class="bar" x="${BAR_LABEL_W}" y="${y + 3}" width="${w.toFixed(1)}" height="${BAR_H - 8}" rx="2"/><text class="tick" x="${(BAR_LABEL_W + w + 5).toFixed(1)}" y="${y + 17}">${escapeHtml(b.text)}</text></g>`;
  });
  return `<figure class="chart"><svg role="img" aria-label="${escapeHtml(title)}" viewBox="0 0 ${W} ${height}" xmlns="http://www.w3.org/2000/svg"><title>${escapeHtml(title)}</title>${rows.join('')}</svg></figure>`;
}

export interface SpreadRow {
  /** The platform's name. */
  label: string;
  /** When the event first appeared on that platform; undefined when not known. */
  since: number | undefined;
  /** Its place there at the chart's end. */
  rank: number;
}

/** Narrower than the other charts: its labels stay legible in a table cell on a phone. */
const SPREAD_W = 360;
const SPREAD_ROW_H = 24;
const SPREAD_LABEL_W = 96;
const SPREAD_RIGHT = 56;
const SPREAD_AXIS_H = 40;

/**
 * How an event spread across platforms: one row per platform, a bar from when it first appeared
 * there to `end` (the moment the chart shows), a point where it arrived, its place at the end.
 * The time axis starts at the earliest arrival.
 */
export function spreadChart(rows: readonly SpreadRow[], end: number, title: string): string {
  const known = rows.flatMap((r) => (r.since === undefined ? [] : [Math.min(r.since, end)]));
  if (!rows.length || !known.length) return '';
  const first = Math.min(...known);
  const span = end - first;
  const plotW = SPREAD_W - SPREAD_LABEL_W - SPREAD_RIGHT;
  const x = (t: number) => SPREAD_LABEL_W + (span ? ((t - first) / span) * plotW : 0);
  const height = rows.length * SPREAD_ROW_H + SPREAD_AXIS_H;
  const axisY = rows.length * SPREAD_ROW_H + 4;
  const oneDay = formatDateTime(first).slice(0, 10) === formatDateTime(end).slice(0, 10);
  const parts: string[] = [];
  rows.forEach((r, i) => {
    const colour = SERIES_COLOURS[i % SERIES_COLOURS.length];
    const mid = i * SPREAD_ROW_H + SPREAD_ROW_H / 2 + 2;
    const label = r.label.length > 6 ? `${r.label.slice(0, 6)}…` : r.label;
    parts.push(`<text class="tick" x="${SPREAD_LABEL_W - 8}" y="${(mid + 4.5).toFixed(1)}" text-anchor="end">${escapeHtml(label)}</text>`);
    const place = `<text class="tick" x="${SPREAD_W - SPREAD_RIGHT + 8}" y="${(mid + 4.5).toFixed(1)}">第 ${r.rank} 名</text>`;
    if (r.since === undefined) {
      parts.push(`<g><title>${escapeHtml(`${r.label} · 首次上榜时间不明 · 现第 ${r.rank} 名`)}</title>${place}</g>`);
      return;
    }
    const from = x(Math.min(r.since, end));
    const tip = `${r.label} · ${formatDateTime(r.since)} 首次上榜 · 现第 ${r.rank} 名`;
    parts.push(
      `<g><title>${escapeHtml(tip)}</title><rect x="${from.toFixed(1)}" y="${(mid - 5).toFixed(1)}" width="${Math.max(0, x(end) - from).toFixed(1)}" height="10" rx="3" fill="${colour}" opacity="0.85"/><circle cx="${from.toFixed(1)}" cy="${mid.toFixed(1)}" r="5" fill="${colour}"/>${place}</g>`,
    );
  });
  parts.push(`<line class="axis" x1="${SPREAD_LABEL_W}" x2="${SPREAD_W - SPREAD_RIGHT}" y1="${axisY}" y2="${axisY}"/>`);
  const ticks = span ? [first, end] : [end];
  ticks.forEach((t, i) => {
    const anchor = ticks.length === 1 ? 'start' : i === 0 ? 'start' : 'end';
    parts.push(`<line class="axis" x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="${axisY}" y2="${axisY + 4}"/>`);
    parts.push(`<text class="tick" x="${x(t).toFixed(1)}" y="${axisY + 18}" text-anchor="${anchor}">${escapeHtml(timeLabel(t, oneDay))}</text>`);
  });
  parts.push(`<text class="label" x="${SPREAD_LABEL_W + plotW / 2}" y="${height - 2}" text-anchor="middle">首次上榜时间（北京时间${oneDay ? ` ${formatDateTime(end).slice(0, 10)}` : ''}）</text>`);
  return `<figure class="chart spread"><svg role="img" aria-label="${escapeHtml(title)}" viewBox="0 0 ${SPREAD_W} ${height}" xmlns="http://www.w3.org/2000/svg"><title>${escapeHtml(title)}</title>${parts.join('')}</svg></figure>`;
}
