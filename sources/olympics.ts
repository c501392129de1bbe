/**
 * Olympic medal tables from olympics.com's public back-end for front-end (bff-api.olympics.com):
 * `POST /bff/api/session/exchange {"tid":"sed"}` hands out a session cookie (`__sdw-bff`), then
 * `GET /bff/api/usdm/v1/competitions/<slug>` resolves an event id (204 = unknown event) and
 * `…/competitions/<id>/awards/noc` lists medals per NOC (`golden`, `silver`, `bronze`, `total`;
 * `organisation.code` is "<prefix>$<NOC>"). While a Games is running, the Games site's own
 * medal API (listed per event in data/olympics-events.json) is read instead, as it updates live:
 * `medalStandings.medalsTable[]` with `medalsNumber[type=Total]`.
 */
import eventsJson from '../data/olympics-events.json' with { type: 'json' };
import { escapeHtml } from '../src/encoding/escape.ts';
import { SourceError } from '../src/kernel/errors.ts';
import { need } from '../src/kernel/json-path.ts';
import { defineSource, type FetchContext, type Row } from '../src/kernel/source.ts';
import { addDays, formatDate, formatDateTime } from '../src/kernel/time.ts';
import { htmlTable, mdTable } from './_shared/format.ts';
import { asArray, asNumber, asRecord, asString, listObject, pick, type HotItem, type ListObject } from './_shared/hot-list.ts';

const BFF = 'https://bff-api.olympics.com/bff/api';

export interface OlympicEvent {
  id: string;
  name: string;
  name_en: string;
  season: string;
  year: number;
  host_city: string;
  start_date: string;
  end_date: string;
  live_medals_url?: string;
}

export const EVENTS: readonly OlympicEvent[] = eventsJson.events;

export interface MedalRow extends HotItem {
  code: string;
  country: string;
  gold: number;
  silver: number;
  bronze: number;
  total: number;
  flag: string;
}

export interface MedalTable extends ListObject<MedalRow> {
  event_id: string;
  event_name: string;
  season: string;
  start_date: string;
  end_date: string;
  /** Whether the Games were running at fetch time (the live medal API was read). */
  is_live: boolean;
}

/** The most recent Games that has started by `today`. */
export function latestEvent(today: string): OlympicEvent {
  return [...EVENTS].filter((e) => e.start_date <= today).sort((a, b) => (a.start_date < b.start_date ? 1 : -1))[0] ?? (EVENTS[0] as OlympicEvent);
}

const flag = (noc: string) => `https://gstatic.olympics.com/s3/noc/oly/3x2/${noc}.png`;

interface Counts {
  code: string;
  country: string;
  gold: number;
  silver: number;
  bronze: number;
  total: number;
}

/** Ordered by gold, silver, bronze (the IOC's order); equal counts share a rank. */
function ranked(rows: Counts[], event: string): MedalRow[] {
  const sorted = [...rows].sort((a, b) => b.gold - a.gold || b.silver - a.silver || b.bronze - a.bronze || a.country.localeCompare(b.country, 'zh-CN'));
  let rank = 0;
  return sorted.map((r, i) => {
    const prev = sorted[i - 1];
    if (!prev || prev.gold !== r.gold || prev.silver !== r.silver || prev.bronze !== r.bronze) rank = i + 1;
    return { rank, title: r.country, link: `https://www.olympics.com/zh/olympic-games/${event}/medals`, cover: flag(r.code), flag: flag(r.code), ...r };
  });
}

const count = (v: unknown) => {
  const n = asNumber(v);
  return n !== undefined && Number.isInteger(n) && n >= 0 ? n : Number.NaN;
};

/** The live medal API of a running Games. */
export function parseLive(raw: unknown, event: OlympicEvent, now: Date): MedalTable {
  const table = need(raw, 'medalStandings.medalsTable', asArray, 'an array');
  const rows = table
    .map(asRecord)
    .filter((r): r is Record<string, unknown> => !!r)
    .map((r) => {
      const totals = asRecord((asArray(r.medalsNumber) ?? []).map(asRecord).find((m) => m?.type === 'Total'));
      return { code: asString(r.organisation) ?? '', country: asString(r.description)?.trim() ?? '', gold: count(totals?.gold), silver: count(totals?.silver), bronze: count(totals?.bronze), total: count(totals?.total) };
    })
    .filter((r) => r.code && r.country);
  return table_(ranked(rows, event.id), event, true, now);
}

/** The `awards/noc` answer of the back-end. */
export function parseAwards(raw: unknown, event: OlympicEvent, now: Date): MedalTable {
  const data = need(raw, 'data', asArray, 'an array');
  const rows = data
    .map(asRecord)
    .filter((r): r is Record<string, unknown> => !!r)
    .map((r) => {
      const org = asRecord(r.organisation);
      const rawCode = asString(org?.code) ?? '';
      return {
        code: rawCode.includes('$') ? (rawCode.split('$').pop() ?? '') : rawCode,
        country: (asString(org?.name) ?? asString(org?.country) ?? '').trim(),
        gold: count(r.golden ?? r.gold),
        silver: count(r.silver),
        bronze: count(r.bronze),
        total: count(r.total),
      };
    })
    .filter((r) => r.code && r.country);
  return table_(ranked(rows, event.id), event, false, now);
}

function table_(list: MedalRow[], event: OlympicEvent, live: boolean, now: Date): MedalTable {
  return { ...listObject(list, now), event_id: event.id, event_name: event.name, season: event.season, start_date: event.start_date, end_date: event.end_date, is_live: live };
}

export function validateTable(d: MedalTable): string | undefined {
  if (!d.list.length) return 'empty medal table';
  const bad = d.list.find((r) => ![r.gold, r.silver, r.bronze, r.total].every(Number.isFinite) || r.gold + r.silver + r.bronze !== r.total);
  return bad ? `medal counts of ${bad.country} do not add up` : undefined;
}

/** A session cookie of the back-end, when it hands one out. */
async function session(ctx: FetchContext<MedalTable>): Promise<string | undefined> {
  const res = await ctx.http.request(`${BFF}/session/exchange`, { method: 'POST', json: { tid: 'sed' }, signal: ctx.signal, followRedirect: false, allowStatus: [204, 301, 302] });
  const setCookie = res.headers['set-cookie'];
  const cookies = (Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []).map((c) => c.split(';')[0] ?? '').filter((c) => /^__sdw-bff=./.test(c));
  return cookies.length ? cookies.join('; ') : undefined;
}

async function fromBackEnd(ctx: FetchContext<MedalTable>, event: OlympicEvent): Promise<MedalTable> {
  const cookie = await session(ctx);
  const headers = { referer: `https://www.olympics.com/zh/olympic-games/${event.id}/medals`, ...(cookie ? { cookie } : {}) };
  const comp = await ctx.http.request(`${BFF}/usdm/v1/competitions/${encodeURIComponent(event.id)}`, { signal: ctx.signal, headers, searchParams: { languageCode: 'ZH' }, allowStatus: [204, 404] });
  if (comp.status === 204 || comp.status === 404) throw new SourceError('not_found', `olympics.com has no event "${event.id}". Known ids: ${EVENTS.map((e) => e.id).join(', ')}.`);
  const competition = comp.json();
  const data = asRecord(asRecord(competition)?.data);
  const id = need(competition, 'data.id', asString, 'a string');
  const named: OlympicEvent = EVENTS.some((e) => e.id === event.id)
    ? event
    : { ...event, name: asString(data?.title) ?? event.id, start_date: (asString(data?.startDate) ?? '').slice(0, 10), end_date: (asString(data?.finishDate) ?? '').slice(0, 10) };
  const awards = await ctx.http.json(`${BFF}/usdm/v1/competitions/${encodeURIComponent(id)}/awards/noc`, { signal: ctx.signal, headers, searchParams: { languageCode: 'ZH' } });
  return parseAwards(awards, named, ctx.now());
}

const medalLine = (r: MedalRow) => `${r.rank}. ${r.country} 🥇${r.gold} 🥈${r.silver} 🥉${r.bronze} 共 ${r.total}`;
const HEAD = ['排名', '国家/地区', '金牌', '银牌', '铜牌', '总数'];
const cells = (r: MedalRow) => [r.rank, r.country, r.gold, r.silver, r.bronze, r.total];

export default defineSource({
  id: 'olympics',
  name: '奥运会奖牌榜',
  description: 'Medal table of an Olympic Games (olympics.com): rank, NOC code, country, gold, silver, bronze, total and flag. The latest Games by default; `id` picks another (e.g. paris-2024).',
  homepage: 'https://www.olympics.com/zh/olympic-games',
  routes: [{ path: '/olympics' }],
  params: {
    id: {
      type: 'string',
      maxLength: 64,
      pattern: /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
      patternDoc: `an event id of olympics.com such as ${EVENTS.slice(0, 4)
        .map((e) => e.id)
        .join(', ')}`,
      doc: 'Event id (olympics.com slug); the latest Games by default.',
      example: 'paris-2024',
    },
  },
  mode: 'scheduled',
  schedule: '*/30 * * * *',
  freshness: { ttlSec: 1800, backoffCapSec: 6 * 3600 },
  maxKeys: 50,
  headers: { accept: 'application/json, text/plain, */*', origin: 'https://www.olympics.com', referer: 'https://www.olympics.com/' },
  async fetch(ctx, params) {
    const today = formatDate(ctx.now().getTime());
    const event = params.id ? (EVENTS.find((e) => e.id === params.id) ?? { id: params.id, name: params.id, name_en: params.id, season: '', year: 0, host_city: '', start_date: '', end_date: '' }) : latestEvent(today);
    const running = !!event.end_date && event.start_date <= today && today <= addDays(event.end_date, 1);
    if (event.live_medals_url && running) return parseLive(await ctx.http.json(event.live_medals_url, { signal: ctx.signal, followRedirect: false }), event, ctx.now());
    return fromBackEnd(ctx, event);
  },
  validate: validateTable,
  view: {
    title: (d) => `${d.event_name} 奖牌榜`,
    rows: (d): Row[] =>
      d.list.map((r) => ({ title: `${r.rank}. ${r.country}`, link: r.link, hot: `🥇${r.gold} 🥈${r.silver} 🥉${r.bronze}`, summary: `金 ${r.gold} 银 ${r.silver} 铜 ${r.bronze}，共 ${r.total} 枚`, guid: `olympics:${d.event_id}:${r.code}`, cover: r.flag })),
    text: (d) => `${d.event_name} 奖牌榜${d.is_live ? '（进行中）' : ''}\n更新于 ${formatDateTime(d.updated_at)}\n\n${d.list.map(medalLine).join('\n')}\n`,
    markdown: (d) => `# ${d.event_name} 奖牌榜\n\n> ${d.start_date} 至 ${d.end_date}${d.is_live ? '（进行中）' : ''} · 更新于 ${d.updated}\n\n${mdTable(HEAD, d.list.map(cells))}\n`,
    htmlBody: (d) => [`<p class="s">${escapeHtml(`${d.start_date} 至 ${d.end_date}${d.is_live ? '（进行中）' : ''}`)}</p>`, htmlTable(HEAD, d.list.map(cells))].join('\n'),
  },
  example: '/v2/apis/olympics?id=paris-2024&encoding=text',
});
