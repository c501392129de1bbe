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
import { rankChart, type RankSeries } from '../src/web/charts.ts';
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
/** Sparklines span ranks 1 to at least this, so that a steady 3rd place reads high and a steady 8th lower. */
const CHART_MIN_DEPTH = 10;
/** Lines drawn in the html chart (the most recently seen items); the table lists every item. */
const CHART_SERIES = 8;

/** Rank over time as block characters: the higher on its list, the taller. */
export function sparkline(ranks: readonly number[]): string {
  if (!ranks.length) return '';
  const worst = Math.max(...ranks, CHART_MIN_DEPTH);
  return ranks.map((r) => SPARK[Math.round(((worst - r) / (worst - 1)) * (SPARK.length - 1))]).join('');
}

const heat = (v: number | null) => (v === null ? '' : formatHeat(v));
const heading = (d: Timeline) => `「${d.q}」的榜单时间线（近 ${d.days} 天${d.source ? ` · ${d.source}` : ''}）`;
const place = (i: TimelineItem) => `${i.source_name}${i.params ? ` (${i.params})` : ''}`;

/** One line per item (an item is one title on one list): named by its list, and by its title where a list has several. */
export function chartSeries(items: readonly TimelineItem[]): RankSeries[] {
  const shown = items.slice(0, CHART_SERIES);
  const perList = new Map<string, number>();
  for (const i of shown) perList.set(place(i), (perList.get(place(i)) ?? 0) + 1);
  return shown.map((i) => ({
    label: (perList.get(place(i)) ?? 0) > 1 ? `${place(i)}：${i.title.length > 14 ? `${i.title.slice(0, 13)}…` : i.title}` : place(i),
    points: i.samples.map((s) => ({ at: s.time_at, rank: s.rank })),
  }));
}

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
        return `<tr><td>${title}<div class="s">${escapeHtml(place(i))}</div></td><td class="n">${i.peak_rank}</td><td class="h">${escapeHtml(heat(i.peak_hot_value))}</td><td class="s">${escapeHtml(i.first_seen.slice(5, 16))}<br>${escapeHtml(i.last_seen.slice(5, 16))}</td></tr>`;
      });
      const table = d.items.length
        ? `${rankChart(chartSeries(d.items), `「${d.q}」的名次走势：${d.items.length} 个条目，名次越靠上越热`)}\n<table><thead><tr><th>标题</th><th>最高名次</th><th>最高热度</th><th>首次 / 最后出现</th></tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>`
        : `<p>近 ${d.days} 天的榜单中没有标题含「${escapeHtml(d.q)}」的条目。</p>`;
      return `<p>自 ${escapeHtml(d.since)} 起 · 共 ${d.total} 条</p>\n${table}`;
    },
    encodings: ['json', 'text', 'markdown', 'html'],
  },
  example: '/v2/apis/timeline?q=%E8%88%AA%E7%BA%BF',
});
