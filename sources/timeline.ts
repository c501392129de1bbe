/**
 * Item timelines: every item of the scheduled lists whose title contains `q`, read from the item
 * index (src/kernel/item-index.ts), with when it was first and last seen, its best rank and heat,
 * and its rank over time. Computed locally: never an upstream request.
 */
import { escapeHtml, safeUrl } from '../src/encoding/escape.ts';
import { AppError, badParam } from '../src/kernel/errors.ts';
import { MAX_QUERY_LENGTH, queryKey } from '../src/kernel/item-index.ts';
import type { ListAccess } from '../src/kernel/list-access.ts';
import { defineSource, type LocalContext } from '../src/kernel/source.ts';
import { DAY_MS, formatDateTime, timePair } from '../src/kernel/time.ts';
import { formatHeat } from './_shared/hot-list.ts';

/** Most rank samples answered per item: more than a chart can show (an item on a chart for 90 days has up to 4320). */
export const MAX_SAMPLES = 200;

/** At most `max` of the samples, evenly spaced, the first and the last kept. */
export function thin<T>(samples: readonly T[], max = MAX_SAMPLES): T[] {
  if (samples.length <= max) return [...samples];
  return Array.from({ length: max }, (_, i) => samples[Math.round((i * (samples.length - 1)) / (max - 1))]!);
}

export interface TimelineSample {
  time: string;
  time_at: number;
  rank: number;
  hot_value: number | null;
}

export interface TimelineItem {
  source: string;
  source_name: string;
  /** The list's parameters (e.g. `board=hot`), empty for a source's one list. */
  params: string;
  title: string;
  link: string | null;
  first_seen: string;
  first_seen_at: number;
  last_seen: string;
  last_seen_at: number;
  peak_rank: number;
  peak_hot_value: number | null;
  samples: TimelineSample[];
}

export interface Timeline {
  q: string;
  source: string | null;
  days: number;
  since: string;
  since_at: number;
  total: number;
  items: TimelineItem[];
}

export function listAccess(ctx: LocalContext): ListAccess {
  if (!ctx.lists) throw new AppError(503, 'The stored lists are not available in this service.', { expose: true });
  return ctx.lists;
}

const SPARK = '▁▂▃▄▅▆▇█';
/** Charts span ranks 1 to at least this, so that a steady 3rd place reads high and a steady 8th lower. */
const CHART_MIN_DEPTH = 10;

/** Rank over time as block characters: the higher on its list, the taller. */
export function sparkline(ranks: readonly number[]): string {
  if (!ranks.length) return '';
  const worst = Math.max(...ranks, CHART_MIN_DEPTH);
  return ranks.map((r) => SPARK[Math.round(((worst - r) / (worst - 1)) * (SPARK.length - 1))]).join('');
}

/** Rank over time as a small inline SVG (rank 1 at the top), with the time range in its title. */
export function rankChart(samples: readonly TimelineSample[], width = 160, height = 36): string {
  if (!samples.length) return '';
  const pad = 3;
  const first = samples[0]!.time_at;
  const span = Math.max(samples[samples.length - 1]!.time_at - first, 1);
  const worst = Math.max(...samples.map((s) => s.rank), CHART_MIN_DEPTH);
  const x = (t: number) => (samples.length === 1 ? width / 2 : pad + ((t - first) / span) * (width - 2 * pad));
  const y = (r: number) => pad + ((r - 1) / (worst - 1)) * (height - 2 * pad);
  const points = samples.map((s) => `${x(s.time_at).toFixed(1)},${y(s.rank).toFixed(1)}`).join(' ');
  const label = `rank ${samples.map((s) => s.rank).join(' → ')} (${samples[0]!.time} – ${samples[samples.length - 1]!.time})`;
  const dot = samples.length === 1 ? `<circle cx="${x(first).toFixed(1)}" cy="${y(samples[0]!.rank).toFixed(1)}" r="2.5" fill="currentColor"/>` : '';
  return `<svg class="rank" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg"><title>${escapeHtml(label)}</title><polyline fill="none" stroke="currentColor" stroke-width="1.5" points="${points}"/>${dot}</svg>`;
}

const heat = (v: number | null) => (v === null ? '' : formatHeat(v));
const heading = (d: Timeline) => `「${d.q}」的榜单时间线（近 ${d.days} 天${d.source ? ` · ${d.source}` : ''}）`;
const place = (i: TimelineItem) => `${i.source_name}${i.params ? ` (${i.params})` : ''}`;

export default defineSource({
  id: 'timeline',
  name: '榜单时间线',
  description:
    'Every item of the scheduled lists whose title contains q (case, width and punctuation aside), at most 50, most recently seen first: its list, title, link, first and last seen, best rank and heat, and its rank over time (at most 200 samples per item, evenly spaced). Read from the stored lists, never from an upstream.',
  routes: [{ path: '/timeline' }],
  params: {
    q: { type: 'string', required: true, maxLength: MAX_QUERY_LENGTH, doc: 'Text the title must contain (Chinese, letters or digits)', example: '航线' },
    source: { type: 'string', pattern: /^[a-z0-9][a-z0-9-]{0,63}$/, patternDoc: 'the id of a scheduled list source, e.g. hot-microblog', doc: 'Only items of this list source' },
    days: { type: 'integer', min: 1, max: 90, default: 7, doc: 'How many days back to look' },
  },
  mode: 'local',
  async compute(ctx, p): Promise<Timeline> {
    const lists = listAccess(ctx);
    if (!queryKey(p.q)) throw badParam('q', 'text with at least one letter, digit or Chinese character');
    if (p.source !== undefined && !lists.source(p.source)) throw badParam('source', 'the id of a scheduled list source, e.g. hot-microblog');
    const since = ctx.now().getTime() - p.days * DAY_MS;
    const found = await lists.timelines({ q: p.q, since, ...(p.source !== undefined ? { sourceId: p.source } : {}) });
    const items = found.map(
      (i): TimelineItem => ({
        source: i.sourceId,
        source_name: lists.source(i.sourceId)?.name ?? i.sourceId,
        params: i.paramsKey,
        title: i.title,
        link: i.link,
        ...(timePair('first_seen', i.firstSeenAt) as { first_seen: string; first_seen_at: number }),
        ...(timePair('last_seen', i.lastSeenAt) as { last_seen: string; last_seen_at: number }),
        peak_rank: i.peakRank,
        peak_hot_value: i.peakHot,
        samples: thin(i.samples).map((s) => ({ time: formatDateTime(s.at), time_at: s.at, rank: s.rank, hot_value: s.hot })),
      }),
    );
    return { q: p.q, source: p.source ?? null, days: p.days, since: formatDateTime(since), since_at: since, total: items.length, items };
  },
  view: {
    title: heading,
    rows: (d) =>
      d.items.map((i) => ({
        title: i.title,
        ...(i.link ? { link: i.link } : {}),
        summary: `${place(i)} · 最高第 ${i.peak_rank} 名 · ${i.first_seen} 至 ${i.last_seen} · ${sparkline(i.samples.map((s) => s.rank))}`,
        ...(i.peak_hot_value !== null ? { hot: formatHeat(i.peak_hot_value) } : {}),
      })),
    htmlBody: (d) => {
      const rows = d.items.map((i) => {
        const link = safeUrl(i.link ?? undefined);
        const title = link ? `<a href="${escapeHtml(link)}" rel="noopener noreferrer">${escapeHtml(i.title)}</a>` : escapeHtml(i.title);
        return `<tr><td>${title}<div class="s">${escapeHtml(place(i))}</div></td><td class="n">${i.peak_rank}</td><td class="h">${escapeHtml(heat(i.peak_hot_value))}</td><td class="s">${escapeHtml(i.first_seen)}<br>${escapeHtml(i.last_seen)}</td><td>${rankChart(i.samples)}</td></tr>`;
      });
      const table = d.items.length
        ? `<table><thead><tr><th>标题</th><th>最高名次</th><th>最高热度</th><th>首次 / 最后出现</th><th>名次走势</th></tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>`
        : `<p>近 ${d.days} 天的榜单中没有标题含「${escapeHtml(d.q)}」的条目。</p>`;
      return `<p>自 ${escapeHtml(d.since)} 起 · 共 ${d.total} 条</p>\n${table}`;
    },
    encodings: ['json', 'text', 'markdown', 'html'],
  },
  example: '/v2/apis/timeline?q=%E8%88%AA%E7%BA%BF',
});
