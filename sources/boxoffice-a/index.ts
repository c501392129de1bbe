/**
 * Maoyan Pro box office (piaofang.maoyan.com): the all-time worldwide chart (an HTML page with
 * its data in `var props = {…};`) and three real-time dashboards (JSON): films, TV ratings and
 * web series heat. Dashboard requests are signed (sign.ts). In the film dashboard
 * the box-office figures are private-use characters drawn by a per-answer web font named in
 * `fontStyle` (digit-font.ts decodes it). A refused signature or risk control
 * answers a verification page or a JSON error without lists: both are `blocked`.
 */
import { setBounded } from '../../src/kernel/bounded-map.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { at, missingPath, need } from '../../src/kernel/json-path.ts';
import { defineSource, type ColumnLabels, type FetchContext } from '../../src/kernel/source.ts';
import { formatDateTime, formatSixtyDateTime } from '../../src/kernel/time.ts';
import { decodeDigitFont, decodeDigits, entityCodePoints } from './digit-font.ts';
import { DEFAULT_GUARD_SALT, DEFAULT_SIGN_KEY, signRequest } from './sign.ts';
import { asArray, asNumber, asRecord, asString, pick, validateHotList, type HotItem, type ListObject } from '../_shared/hot-list.ts';

export const ORIGIN = 'https://piaofang.maoyan.com';
export const ALL_TIME_URL = `${ORIGIN}/i/globalBox/historyRank`;
export const DASHBOARD_PATHS = {
  'realtime-movie': '/i/api/dashboard-ajax/movie',
  'realtime-tv': '/i/api/dashboard/getTVData',
  'realtime-web': '/i/api/dashboard/webHeatData',
} as const;
export const CHARTS = ['all-movie', 'realtime-movie', 'realtime-tv', 'realtime-web'] as const;
export type ChartId = (typeof CHARTS)[number];
const DASHBOARD_PAGE = `${ORIGIN}/dashboard`;
const movieLink = (id: number) => `${ORIGIN}/movie/${id}`;

const UNITS: Record<string, number> = { '': 1, 元: 1, 万: 1e4, 亿: 1e8, 万亿: 1e12 };

// ---------- data shapes ----------

export interface AllTimeItem extends HotItem {
  movie_id: number;
  /** The same as `movie_id` (60s's name on this chart). */
  maoyan_id: number;
  movie_name: string;
  release_year: string;
  /** Box office in yuan. */
  box_office: number;
  box_office_desc: string;
}

export interface RealtimeMovieItem extends HotItem {
  movie_id: number;
  movie_name: string;
  release_info: string;
  /** Today's box office as digit text, in `box_office_unit` (`hot_value` has it in yuan). */
  box_office: string;
  box_office_unit: string;
  box_office_desc: string;
  box_office_rate: string;
  /** Today's box office without service fees, as digit text in `split_box_office_unit`. */
  split_box_office: string;
  split_box_office_unit: string;
  split_box_office_desc: string;
  split_box_office_rate: string;
  show_count: number | null;
  show_count_rate: string;
  avg_show_view: string;
  avg_seat_view: string;
  sum_box_desc: string;
  sum_split_box_desc: string;
}

export interface TvItem extends HotItem {
  programme_name: string;
  channel_name: string;
  market_rate: number | null;
  market_rate_desc: string;
  attention_rate: number | null;
  attention_rate_desc: string;
}

export interface WebItem extends HotItem {
  series_id: number | null;
  series_name: string;
  release_info: string;
  platform_desc: string;
  /** The platform's code number. */
  platform_txt: number | null;
  curr_heat: number | null;
  curr_heat_desc: string;
  bar_value: number | null;
}

/** 60s answers these charts as objects around a `list`, so the count and times stay fields. */
interface ChartBase<I extends HotItem> extends ListObject<I> {
  /** `updated`: on the dashboards when the upstream last updated the data, else when we fetched it. */
  chart: ChartId;
  chart_title: string;
}

/** The upstream's own update time and age of the dashboard data. */
interface Dashboard {
  update_gap_second: number | null;
  source_updated: string | null;
  source_updated_at: number | null;
}

export interface AllTimeData extends ChartBase<AllTimeItem> {
  chart: 'all-movie';
  tip: string;
  /** When we fetched the chart (60s's names). */
  update_time: string;
  update_time_at: number;
}

export interface RealtimeMovieData extends ChartBase<RealtimeMovieItem>, Dashboard {
  chart: 'realtime-movie';
  /** The dashboard's heading, e.g. "今日实时". */
  title: string;
  show_count_desc: string;
  view_count_desc: string;
  /** Today's total box office as digit text in `box_office_unit`; '' when unreadable. */
  box_office: string;
  box_office_unit: string;
  box_office_desc: string;
  split_box_office: string;
  split_box_office_unit: string;
  split_box_office_desc: string;
}

export interface TvData extends ChartBase<TvItem>, Dashboard {
  chart: 'realtime-tv';
}

export interface WebData extends ChartBase<WebItem>, Dashboard {
  chart: 'realtime-web';
}

export type BoxOfficeData = AllTimeData | RealtimeMovieData | TvData | WebData;

export const CHART_TITLES: Record<ChartId, string> = {
  'all-movie': '全球电影票房总榜',
  'realtime-movie': '实时电影票房',
  'realtime-tv': '电视收视排行',
  'realtime-web': '网剧实时热度',
};

// ---------- helpers ----------

/** 2_923_456_789 (yuan) → "29.23亿元". */
export function yuanDesc(yuan: number): string {
  const trim = (n: number) => String(Math.round(n * 100) / 100);
  if (yuan >= 1e12) return `${trim(yuan / 1e12)}万亿元`;
  if (yuan >= 1e8) return `${trim(yuan / 1e8)}亿元`;
  if (yuan >= 1e4) return `${trim(yuan / 1e4)}万元`;
  return `${trim(yuan)}元`;
}

/** The object literal assigned to `var <name> =` in a page's script, read with string-aware brace matching. */
export function assignedObject(html: string, name: string): unknown {
  const at = new RegExp(`var\\s+${name}\\s*=\\s*\\{`).exec(html);
  if (!at) return undefined;
  const start = at.index + at[0].length - 1;
  let depth = 0;
  let quote: string | undefined;
  for (let i = start; i < html.length; i += 1) {
    const ch = html[i];
    if (quote) {
      if (ch === '\\') i += 1;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '{') depth += 1;
    else if (ch === '}') {
      depth -= 1;
      if (depth === 0) {
        try {
          return JSON.parse(html.slice(start, i + 1)) as unknown;
        } catch {
          throw new SourceError('parse', `var ${name} is not valid JSON`);
        }
      }
    }
  }
  throw new SourceError('parse', `var ${name} is not closed`);
}

const VERIFY_PAGE = /验证中心|安全验证|verify|yoda/i;

/**
 * Where each dashboard answer keeps its section (the object holding `list` and `updateInfo`): the
 * layout 60s v2.53.1 reads first (`movieList`, `tvListAll.data`, `dataList`), then the older one
 * (`movieList.data`, `tvList.data`, `webList.data`), then a bare `data`.
 */
export const SECTION_PATHS = {
  'realtime-movie': ['movieList', 'movieList.data', 'data'],
  'realtime-tv': ['tvListAll.data', 'tvList.data', 'data'],
  'realtime-web': ['dataList', 'webList.data', 'data'],
} as const satisfies Record<Exclude<ChartId, 'all-movie'>, readonly string[]>;

/** The dashboard section that holds a list; a refusal is `blocked`, any other answer a parse error naming the path. */
function section(raw: unknown, chart: Exclude<ChartId, 'all-movie'>): Record<string, unknown> {
  const root = need(raw, '', asRecord, 'a JSON object');
  const paths = SECTION_PATHS[chart];
  for (const path of paths) {
    const sec = asRecord(at(root, path));
    if (sec && asArray(sec.list)) return sec;
  }
  const code = asNumber(root.code) ?? asNumber(root.errorCode);
  const msg = asString(root.msg) ?? asString(root.errorMsg) ?? asString(root.message) ?? '';
  if (root.status === false || root.success === false || (code !== undefined && code !== 0 && code !== 200)) {
    throw new SourceError('blocked', `piaofang.maoyan.com refused the ${chart} dashboard request (${[code, msg].filter((x) => x !== undefined && x !== '').join(' ') || 'status false'}): signature or risk control`);
  }
  throw missingPath(root, `${paths[0]}.list`, `the list; ${paths.slice(1).map((p) => `${p}.list`).join(' and ')} are missing too`);
}

/** The list with its count and a time: `updated` is the fetch time unless the upstream gives its own. */
function chartBase<I extends HotItem>(list: I[], chart: ChartId, now: Date, upstreamAt?: number | null): ChartBase<I> {
  const at = upstreamAt ?? now.getTime();
  return { list, total: list.length, updated: formatDateTime(at), updated_at: at, chart, chart_title: CHART_TITLES[chart] };
}

function dashboardTime(sec: Record<string, unknown>): Dashboard {
  const info = asRecord(sec.updateInfo);
  const at = asNumber(info?.updateTimestamp);
  return {
    update_gap_second: asNumber(info?.updateGapSecond) ?? null,
    source_updated: at ? formatDateTime(at) : null,
    source_updated_at: at ?? null,
  };
}

function decodedAmount(v: unknown, digits: ReadonlyMap<number, number>): { num: number | null; text: string; unit: string; desc: string } {
  const r = asRecord(v);
  const text = decodeDigits(asString(r?.num) ?? '', digits).trim();
  const unit = asString(r?.unit)?.trim() ?? '';
  const num = /^\d+(\.\d+)?$/.test(text) ? Number(text) : null;
  return { num, text, unit, desc: text ? `${text}${unit}` : '' };
}

// ---------- parsers ----------

/** The all-time worldwide chart page. */
export function parseAllTime(html: string, now: Date): AllTimeData {
  const props = assignedObject(html, 'props');
  if (props === undefined) {
    if (VERIFY_PAGE.test(html)) throw new SourceError('blocked', 'piaofang.maoyan.com answered a verification page instead of the chart');
    throw new SourceError('parse', 'the chart page has no `var props`');
  }
  const entries = need(props, 'data.detail.list', asArray, 'an array');
  const detail = asRecord(at(props, 'data.detail')) ?? {};
  const rows = entries
    .map((e) => asRecord(e))
    .filter((e): e is Record<string, unknown> => !!e)
    .map((e) => ({ id: asNumber(e.movieId), name: asString(e.movieName)?.trim(), value: asNumber(e.rawValue), year: asString(e.releaseTime) ?? '' }))
    .filter((e): e is { id: number; name: string; value: number; year: string } => e.id !== undefined && !!e.name && e.value !== undefined)
    .sort((a, b) => b.value - a.value);
  const list: AllTimeItem[] = rows.map((e, i) => ({
    rank: i + 1,
    title: e.name,
    link: movieLink(e.id),
    hot_value: e.value,
    movie_id: e.id,
    maoyan_id: e.id,
    movie_name: e.name,
    release_year: e.year,
    box_office: e.value,
    box_office_desc: yuanDesc(e.value),
  }));
  const base = chartBase(list, 'all-movie', now);
  return { ...base, chart: 'all-movie', tip: asString(detail.tips)?.trim() ?? '', update_time: formatSixtyDateTime(base.updated_at), update_time_at: base.updated_at };
}

/** The woff URL in the film dashboard's `fontStyle` CSS (protocol-relative there). */
export function fontUrl(raw: unknown): string | undefined {
  const css = asString(pick(raw, 'fontStyle')) ?? asString(pick(raw, 'movieList', 'fontStyle')) ?? asString(pick(raw, 'data', 'fontStyle')) ?? '';
  const m = /url\(\s*["']?([^"')]+?\.woff2?)(?:[?#][^"')]*)?["']?\s*\)/i.exec(css);
  if (!m) return undefined;
  return new URL(m[1]!, `${ORIGIN}/`).toString();
}

/** The film dashboard; `digits` maps the font's code points to digits (empty when no number is encoded). */
export function parseRealtimeMovie(raw: unknown, digits: ReadonlyMap<number, number>, now: Date): RealtimeMovieData {
  const sec = section(raw, 'realtime-movie');
  const entries = asArray(sec.list) ?? [];
  const list: RealtimeMovieItem[] = [];
  for (const entry of entries) {
    const e = asRecord(entry);
    const info = asRecord(e?.movieInfo);
    const id = asNumber(info?.movieId);
    const name = asString(info?.movieName)?.trim();
    if (!e || id === undefined || !name) continue;
    const box = decodedAmount(e.boxSplitUnit, digits);
    const split = decodedAmount(e.splitBoxSplitUnit, digits);
    list.push({
      rank: list.length + 1,
      title: name,
      link: movieLink(id),
      ...(box.num !== null ? { hot_value: Math.round(box.num * (UNITS[box.unit] ?? 1)) } : {}),
      movie_id: id,
      movie_name: name,
      release_info: asString(info?.releaseInfo) ?? '',
      box_office: box.text,
      box_office_unit: box.unit,
      box_office_desc: box.desc,
      box_office_rate: asString(e.boxRate) ?? '',
      split_box_office: split.text,
      split_box_office_unit: split.unit,
      split_box_office_desc: split.desc,
      split_box_office_rate: asString(e.splitBoxRate) ?? '',
      show_count: asNumber(e.showCount) ?? null,
      show_count_rate: asString(e.showCountRate) ?? '',
      avg_show_view: asString(e.avgShowView) ?? '',
      avg_seat_view: asString(e.avgSeatView) ?? '',
      sum_box_desc: asString(e.sumBoxDesc) ?? '',
      sum_split_box_desc: asString(e.sumSplitBoxDesc) ?? '',
    });
  }
  const nation = asRecord(sec.nationBoxInfo) ?? {};
  const total = decodedAmount(nation.nationBoxSplitUnit, digits);
  const totalSplit = decodedAmount(nation.nationSplitBoxSplitUnit, digits);
  const time = dashboardTime(sec);
  return {
    ...chartBase(list, 'realtime-movie', now, time.source_updated_at),
    chart: 'realtime-movie',
    title: asString(nation.title)?.trim() ?? '',
    show_count_desc: asString(nation.showCountDesc) ?? '',
    view_count_desc: asString(nation.viewCountDesc) ?? '',
    box_office: total.text,
    box_office_unit: total.unit,
    box_office_desc: total.desc,
    split_box_office: totalSplit.text,
    split_box_office_unit: totalSplit.unit,
    split_box_office_desc: totalSplit.desc,
    ...time,
  };
}

export function parseTv(raw: unknown, now: Date): TvData {
  const sec = section(raw, 'realtime-tv');
  const entries = asArray(sec.list) ?? [];
  const list: TvItem[] = [];
  for (const entry of entries) {
    const e = asRecord(entry);
    const programme = asString(e?.programmeName)?.trim();
    if (!e || !programme) continue;
    const market = asNumber(e.marketRate) ?? null;
    const channel = asString(e.channelName)?.trim() ?? '';
    list.push({
      rank: list.length + 1,
      title: programme,
      link: DASHBOARD_PAGE,
      ...(market !== null ? { hot_value: market } : {}),
      programme_name: programme,
      channel_name: channel,
      market_rate: market,
      market_rate_desc: asString(e.marketRateDesc) ?? '',
      attention_rate: asNumber(e.attentionRate) ?? null,
      attention_rate_desc: asString(e.attentionRateDesc) ?? '',
    });
  }
  const time = dashboardTime(sec);
  return { ...chartBase(list, 'realtime-tv', now, time.source_updated_at), chart: 'realtime-tv', ...time };
}

export function parseWeb(raw: unknown, now: Date): WebData {
  const sec = section(raw, 'realtime-web');
  const entries = asArray(sec.list) ?? [];
  const list: WebItem[] = [];
  for (const entry of entries) {
    const e = asRecord(entry);
    const info = asRecord(e?.seriesInfo);
    const name = asString(info?.name)?.trim();
    if (!e || !info || !name) continue;
    const heat = asNumber(e.currHeat) ?? null;
    list.push({
      rank: list.length + 1,
      title: name,
      link: DASHBOARD_PAGE,
      ...(heat !== null ? { hot_value: heat } : {}),
      series_id: asNumber(info.seriesId) ?? null,
      series_name: name,
      release_info: asString(info.releaseInfo) ?? '',
      platform_desc: asString(info.platformDesc) ?? '',
      platform_txt: asNumber(info.platformTxt) ?? null,
      curr_heat: heat,
      curr_heat_desc: asString(e.currHeatDesc) ?? '',
      bar_value: asNumber(e.barValue) ?? null,
    });
  }
  const time = dashboardTime(sec);
  return { ...chartBase(list, 'realtime-web', now, time.source_updated_at), chart: 'realtime-web', ...time };
}

// ---------- fetching ----------

/** Decoded fonts by URL: the same font is often served to several answers in a row. */
const fontCache = new Map<string, ReadonlyMap<number, number>>();

async function digitsFor(ctx: FetchContext<BoxOfficeData>, raw: unknown): Promise<ReadonlyMap<number, number>> {
  if (!entityCodePoints(JSON.stringify(raw)).length) return new Map();
  const url = fontUrl(raw);
  if (!url) throw new SourceError('parse', 'film dashboard has encoded numbers but no font URL in fontStyle');
  let digits = fontCache.get(url);
  if (!digits) {
    // The font's URL is the upstream's data: fetched under the address checks of untrusted URLs,
    // whose refusals are the upstream's fault here, not the caller's.
    const res = await ctx.http.request(url, { untrusted: true, signal: ctx.signal, maxBytes: 2 * 1024 * 1024, headers: { referer: `${ORIGIN}/`, accept: '*/*' } }).catch((err: unknown) => {
      throw err instanceof SourceError && err.kind === 'bad_input' ? new SourceError('parse', `the font URL in fontStyle was refused: ${err.message}`) : err;
    });
    digits = decodeDigitFont(res.body);
    setBounded(fontCache, url, digits, 16);
  }
  return digits;
}

async function dashboard(ctx: FetchContext<BoxOfficeData>, chart: Exclude<ChartId, 'all-movie'>): Promise<unknown> {
  const path = DASHBOARD_PATHS[chart];
  const signed = signRequest(path, ctx.now().getTime(), Math.random(), {
    signKey: ctx.env('SOURCE_BOXOFFICE_A_SIGN_KEY') ?? DEFAULT_SIGN_KEY,
    salt: ctx.env('SOURCE_BOXOFFICE_A_GUARD_SALT') ?? DEFAULT_GUARD_SALT,
  });
  const res = await ctx.http.request(`${ORIGIN}${path}`, { searchParams: signed.query, headers: { mygsig: signed.mygsig }, signal: ctx.signal });
  if (/text\/html/i.test(String(res.headers['content-type']))) throw new SourceError('blocked', 'piaofang.maoyan.com answered an HTML page (verification) instead of JSON');
  return res.json();
}

export async function fetchChart(ctx: FetchContext<BoxOfficeData>, chart: ChartId): Promise<BoxOfficeData> {
  switch (chart) {
    case 'all-movie':
      return parseAllTime(await ctx.http.text(ALL_TIME_URL, { signal: ctx.signal, headers: { referer: `${ORIGIN}/`, accept: 'text/html' } }), ctx.now());
    case 'realtime-movie': {
      const raw = await dashboard(ctx, chart);
      return parseRealtimeMovie(raw, await digitsFor(ctx, raw), ctx.now());
    }
    case 'realtime-tv':
      return parseTv(await dashboard(ctx, chart), ctx.now());
    case 'realtime-web':
      return parseWeb(await dashboard(ctx, chart), ctx.now());
  }
}

/** A box office amount stored as a number before 60s's shapes: its digit text (null: unreadable, ''). */
const amountText = (v: unknown): unknown => (typeof v === 'number' ? String(v) : v === null ? '' : v);

/**
 * Stored charts of before 60s's shapes: amounts as numbers (now digit text), no `title` on the
 * film dashboard, no `maoyan_id`/`update_time` on the all-time chart, the web platform as text
 * (now its code number). Today's charts pass unchanged.
 */
export function migrate(stored: unknown): BoxOfficeData | undefined {
  const o = asRecord(stored);
  const list = asArray(o?.list);
  if (!o || !list) return undefined;
  const items = list.map((x) => asRecord(x) ?? {});
  switch (o.chart) {
    case 'all-movie':
      if ('update_time' in o) return o as unknown as AllTimeData;
      return { ...o, list: items.map((i) => ({ ...i, maoyan_id: i.maoyan_id ?? i.movie_id })), update_time: o.updated, update_time_at: o.updated_at } as unknown as AllTimeData;
    case 'realtime-movie':
      if (typeof o.box_office === 'string' && 'title' in o) return o as unknown as RealtimeMovieData;
      return {
        ...o,
        title: o.title ?? '',
        box_office: amountText(o.box_office),
        split_box_office: amountText(o.split_box_office),
        list: items.map((i) => ({ ...i, box_office: amountText(i.box_office), split_box_office: amountText(i.split_box_office) })),
      } as unknown as RealtimeMovieData;
    case 'realtime-web':
      if (!items.some((i) => typeof i.platform_txt === 'string')) return o as unknown as WebData;
      return { ...o, list: items.map((i) => (typeof i.platform_txt === 'string' ? { ...i, platform_txt: asNumber(i.platform_txt) ?? null } : i)) } as unknown as WebData;
    default:
      return o as unknown as BoxOfficeData;
  }
}

export function validate(data: BoxOfficeData): string | undefined {
  const reason = validateHotList(data.list, data.chart === 'realtime-tv' ? 3 : 5);
  if (reason) return reason;
  if (data.chart === 'realtime-movie' && data.list.some((i) => !/^\d+(\.\d+)?\D*$/.test(i.box_office_desc))) return 'a film has no readable box office';
  return undefined;
}

function summary(d: BoxOfficeData, i: number): string | undefined {
  switch (d.chart) {
    case 'all-movie':
      return d.list[i]!.release_year ? `上映年份 ${d.list[i]!.release_year}` : undefined;
    case 'realtime-movie': {
      const m = d.list[i]!;
      return [m.release_info, m.box_office_rate && `票房占比 ${m.box_office_rate}`, m.show_count_rate && `排片占比 ${m.show_count_rate}`, m.sum_box_desc && `累计 ${m.sum_box_desc}`]
        .filter(Boolean)
        .join(' · ');
    }
    case 'realtime-tv': {
      const t = d.list[i]!;
      return [t.channel_name, t.attention_rate_desc && `关注度 ${t.attention_rate_desc}`].filter(Boolean).join(' · ');
    }
    case 'realtime-web': {
      const w = d.list[i]!;
      return [w.platform_desc, w.release_info].filter(Boolean).join(' · ');
    }
  }
}

function hot(d: BoxOfficeData, i: number): string | undefined {
  switch (d.chart) {
    case 'all-movie':
      return d.list[i]!.box_office_desc;
    case 'realtime-movie':
      return d.list[i]!.box_office_desc;
    case 'realtime-tv':
      return d.list[i]!.market_rate_desc || undefined;
    case 'realtime-web':
      return d.list[i]!.curr_heat_desc || undefined;
  }
}

/** The number behind `hot()` (yuan, percent or heat), for the html page's bars. */
function barValue(d: BoxOfficeData, i: number): number | null | undefined {
  switch (d.chart) {
    case 'all-movie':
      return d.list[i]!.box_office;
    case 'realtime-movie':
      return d.list[i]!.hot_value;
    case 'realtime-tv':
      return d.list[i]!.market_rate;
    case 'realtime-web':
      return d.list[i]!.curr_heat;
  }
}

/** Most bars drawn: the chart's top, as on the dashboard. */
const BARS = 10;

/** What the html table's columns hold, per chart (the `hot` column is `hot()` above). */
const COLUMNS: Record<ChartId, ColumnLabels> = {
  'all-movie': { title: '电影', hot: '总票房' },
  'realtime-movie': { title: '电影', hot: '今日票房' },
  'realtime-tv': { title: '节目', hot: '市场占有率' },
  'realtime-web': { title: '剧集', hot: '热度' },
};

/** RSS guids: tv and web rows share the dashboard link, so they get their own. */
function guid(d: BoxOfficeData, i: number): string | undefined {
  if (d.chart === 'realtime-tv') return `boxoffice-a:tv:${d.list[i]!.channel_name}:${d.list[i]!.programme_name}`;
  if (d.chart === 'realtime-web') return `boxoffice-a:web:${d.list[i]!.series_id ?? d.list[i]!.series_name}`;
  return undefined;
}

export default defineSource({
  id: 'boxoffice-a',
  name: '猫眼专业版票房',
  description: 'Maoyan Pro box office: the all-time worldwide chart, and real-time film box office (numbers decoded from the per-answer digit font), TV ratings and web series heat.',
  homepage: `${ORIGIN}/dashboard`,
  routes: [
    { path: '/boxoffice-a/all/movie', fixed: { chart: 'all-movie' }, example: '/v2/apis/boxoffice-a/all/movie?encoding=text', summary: 'All-time worldwide box office chart (Maoyan Pro).' },
    { path: '/boxoffice-a/realtime/movie', fixed: { chart: 'realtime-movie' }, summary: "Today's real-time film box office in mainland China (Maoyan Pro)." },
    { path: '/boxoffice-a/realtime/tv', fixed: { chart: 'realtime-tv' }, example: '/v2/apis/boxoffice-a/realtime/tv?encoding=text', summary: "Today's TV ratings (Maoyan Pro)." },
    { path: '/boxoffice-a/realtime/web', fixed: { chart: 'realtime-web' }, example: '/v2/apis/boxoffice-a/realtime/web?encoding=text', summary: "Today's web series heat (Maoyan Pro)." },
  ],
  params: {
    chart: { type: 'string', enum: CHARTS, default: 'realtime-movie', doc: 'Which chart (set by the route).' },
  },
  mode: 'scheduled',
  schedule: '*/5 * * * *',
  prefetch: CHARTS.map((chart) => ({ chart })),
  freshness: { ttlSec: 300, timeoutMs: 20_000, backoffCapSec: 3600 },
  env: [
    {
      name: 'SOURCE_BOXOFFICE_A_SIGN_KEY',
      doc: 'Client key in the signKey md5 of the Maoyan Pro dashboard API (a constant of its web client)',
      default: DEFAULT_SIGN_KEY,
    },
    {
      name: 'SOURCE_BOXOFFICE_A_GUARD_SALT',
      doc: 'Salt of the `mygsig` request signature of the Maoyan Pro dashboard API (a constant of its web client)',
      default: DEFAULT_GUARD_SALT,
    },
  ],
  headers: { referer: `${ORIGIN}/dashboard`, accept: 'application/json, text/plain, */*' },
  concurrency: 2,
  fetch: (ctx, p) => fetchChart(ctx, p.chart as ChartId),
  validate,
  migrate,
  view: {
    title: (d) =>
      d.chart === 'realtime-movie' && d.box_office_desc ? `${d.chart_title} · 今日大盘 ${d.box_office_desc}` : d.chart_title,
    columns: (_d, p) => COLUMNS[p.chart as ChartId],
    bars: (d) =>
      d.list.slice(0, BARS).flatMap((item, i) => {
        const value = barValue(d, i);
        return typeof value === 'number' && Number.isFinite(value) && value > 0 ? [{ label: item.title, value, text: hot(d, i) ?? String(value) }] : [];
      }),
    rows: (d) =>
      d.list.map((item, i) => {
        const s = summary(d, i);
        const h = hot(d, i);
        const g = guid(d, i);
        return { title: item.title, link: item.link, ...(h ? { hot: h } : {}), ...(s ? { summary: s } : {}), ...(g ? { guid: g } : {}) };
      }),
  },
  example: '/v2/apis/boxoffice-a/realtime/movie?encoding=text',
});
