/**
 * Retail fuel prices per province from qiyoujiage.com (汽油价格网), one page per region
 * (e.g. /beijing.shtml; the province list with paths is data/fuel-regions.json). Prices are
 * `#youjia dl` pairs (`<dt>北京92#汽油</dt><dd>7.83</dd>`); the forecast of the next adjustment
 * is the boxed paragraph of `#youjiaCont` (red #EA5146 border): "下次油价11月28日24时调整 …
 * 预计上调150元/吨(0.12元/升-0.14元/升)". One history row per region and day is kept, so `days`
 * can return the recent prices from our own store.
 */
import { load } from './_shared/html.ts';
import regionsJson from '../data/fuel-regions.json' with { type: 'json' };
import { escapeHtml } from '../src/encoding/escape.ts';
import { SourceError } from '../src/kernel/errors.ts';
import { defineSource, type FetchContext } from '../src/kernel/source.ts';
import { addDays, formatDate, formatDateTime, formatSixtyDateTime, shanghaiMidnight, withSixtyDateTimes } from '../src/kernel/time.ts';
import { htmlTable, mdTable, trimNumber } from './_shared/format.ts';
import { asArray, asRecord, asString } from './_shared/hot-list.ts';

export const SITE = 'http://www.qiyoujiage.com';

export const REGIONS: ReadonlyMap<string, string> = new Map(regionsJson.regions.map((r) => [r.name, r.path]));
const REGION_SUFFIX = '(?:省|市|自治区|壮族自治区|回族自治区|维吾尔自治区)';
const REGION_PATTERN = new RegExp(`^(?:${[...REGIONS.keys()].join('|')})${REGION_SUFFIX}?$`);

/** "广西壮族自治区" → "广西". */
export function regionName(value: string): string {
  return value.replace(new RegExp(`${REGION_SUFFIX}$`), '');
}

export interface FuelItem {
  name: string;
  price: number;
  price_desc: string;
}

export interface FuelTrend {
  /** The announced time of the next adjustment as the site writes it, e.g. `11月28日24时` (60s's field). */
  next_adjustment_date: string;
  /** When the next adjustment takes effect ("11月28日24时" → the 29th, 00:00). */
  next_adjustment: string;
  next_adjustment_at: number | null;
  /** 上调, 下调 or 搁浅 (no change). */
  direction: string;
  change_ton: number | null;
  change_ton_desc: string;
  change_liter_min: number | null;
  change_liter_max: number | null;
  change_liter_desc: string;
  description: string;
}

export interface FuelHistoryDay {
  date: string;
  items: { name: string; price: number }[];
}

export interface FuelPrices {
  region: string;
  /** Day of these prices (Asia/Shanghai). */
  date: string;
  items: FuelItem[];
  trend: FuelTrend | null;
  link: string;
  updated: string;
  updated_at: number;
  /** With `days`: the prices of the last days from our history, newest first. */
  history?: FuelHistoryDay[];
}

function parseTrend(text: string, now: Date): FuelTrend | null {
  const t = text.replace(/\s+/g, ' ').trim();
  const next = /下次油价\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日\s*(\d{1,2})\s*[时点]/.exec(t);
  const direction = /预计\s*(上调|下调|搁浅)/.exec(t)?.[1] ?? /(上调|下调|搁浅)/.exec(t)?.[1];
  if (!next && !direction) return null;
  let nextAt: number | null = null;
  if (next) {
    const today = formatDate(now.getTime());
    let year = Number(today.slice(0, 4));
    const mmdd = `${next[1]!.padStart(2, '0')}-${next[2]!.padStart(2, '0')}`;
    // The next adjustment lies ahead: a month earlier than this one is next year's.
    if (`${year}-${mmdd}` < addDays(today, -31)) year++;
    nextAt = shanghaiMidnight(`${year}-${mmdd}`) + Number(next[3]) * 3600_000;
  }
  const ton = /(上调|下调)\s*(\d+(?:\.\d+)?)\s*元\s*\/\s*吨/.exec(t);
  const liter = /(\d+(?:\.\d+)?)\s*元\s*\/\s*升\s*[-—~～至]\s*(\d+(?:\.\d+)?)\s*元\s*\/\s*升/.exec(t);
  // No change announced: the amounts are truly zero.
  const none = direction === '搁浅' ? 0 : null;
  return {
    next_adjustment_date: next ? `${Number(next[1])}月${Number(next[2])}日${Number(next[3])}时` : '',
    next_adjustment: nextAt === null ? '' : formatDateTime(nextAt),
    next_adjustment_at: nextAt,
    direction: direction ?? '',
    change_ton: ton ? Number(ton[2]) : none,
    change_ton_desc: ton ? `${ton[1]}${ton[2]}元/吨` : '',
    change_liter_min: liter ? Number(liter[1]) : none,
    change_liter_max: liter ? Number(liter[2]) : none,
    change_liter_desc: liter ? `${liter[1]}元/升-${liter[2]}元/升` : '',
    description: t,
  };
}

export function parse(html: string, region: string, now: Date): FuelPrices {
  const path = REGIONS.get(region);
  if (!path) throw new SourceError('bad_input', `Invalid parameter "region": ${region} is not a supported region.`);
  const $ = load(html);
  const table = $('#youjia');
  if (!table.length) throw new SourceError('parse', 'the page has no #youjia price table');
  const items: FuelItem[] = [];
  table.find('dl').each((_, dl) => {
    const dds = $(dl).find('dd').toArray();
    $(dl)
      .find('dt')
      .each((i, dt) => {
        const name = $(dt).text().trim().replace(/^[^0-9]+/, '');
        const price = Number.parseFloat($(dds[i]).text().trim());
        if (name && Number.isFinite(price)) items.push({ name, price, price_desc: `${price.toFixed(2)} 元/升` });
      });
  });
  const boxed = $('#youjiaCont > div')
    .toArray()
    .find((d) => /border/i.test($(d).attr('style') ?? '') && /#EA5146/i.test($(d).attr('style') ?? ''));
  const trendText = boxed ? $(boxed).text() : $('#left > div').first().text();
  const at = now.getTime();
  return { region, date: formatDate(at), items, trend: parseTrend(trendText, now), link: `${SITE}${path}`, updated: formatSixtyDateTime(at), updated_at: at };
}

/**
 * Prices stored before 60s's shape (release 271b638): the trend had no `next_adjustment_date`
 * and no change as null amounts. The trend is read again from its stored text (`description`)
 * as of the fetch time, which gives every field as a fetch today would. Today's data passes unchanged.
 */
export function migrate(stored: unknown): FuelPrices | undefined {
  const stored60 = asRecord(stored) as FuelPrices | undefined;
  const d = stored60 && withSixtyDateTimes(stored60, ['updated']);
  if (!d || !d.trend || typeof d.trend.next_adjustment_date === 'string') return d;
  const trend = parseTrend(d.trend.description, new Date(d.updated_at)) ?? { ...d.trend, next_adjustment_date: '' };
  return { ...d, trend };
}

export function validateFuel(d: FuelPrices): string | undefined {
  if (d.items.length < 2) return `only ${d.items.length} fuel prices`;
  const bad = d.items.find((i) => !(i.price > 2 && i.price < 30));
  return bad ? `implausible price ${bad.price} for ${bad.name}` : undefined;
}

/** The stored days of this region within the window, newest first, today's fresh prices first. */
async function recentDays(ctx: FetchContext<FuelPrices>, current: FuelPrices, days: number): Promise<FuelHistoryDay[]> {
  const oldest = addDays(current.date, 1 - days);
  const out: FuelHistoryDay[] = [{ date: current.date, items: current.items.map(({ name, price }) => ({ name, price })) }];
  for (const { data } of (await ctx.history?.(days + 1)) ?? []) {
    const date = asString(data.date);
    if (!date || date >= current.date || date < oldest || out.some((d) => d.date === date)) continue;
    const items = (asArray(data.items) ?? [])
      .map(asRecord)
      .map((i) => ({ name: asString(i?.name) ?? '', price: typeof i?.price === 'number' ? i.price : Number.NaN }))
      .filter((i) => i.name && Number.isFinite(i.price));
    out.push({ date, items });
  }
  return out.sort((a, b) => (a.date < b.date ? 1 : -1));
}

function title(d: FuelPrices): string {
  return `今日油价（${d.region}）`;
}

function trendLine(t: FuelTrend): string {
  return [t.next_adjustment ? `下次调价 ${t.next_adjustment}` : '', t.direction ? `预计${t.direction}` : '', t.change_ton_desc, t.change_liter_desc ? `（${t.change_liter_desc}）` : ''].filter(Boolean).join(' ');
}

function historyTable(d: FuelPrices): { head: string[]; rows: string[][] } | undefined {
  if (!d.history?.length) return undefined;
  const names = d.items.map((i) => i.name);
  return { head: ['日期', ...names], rows: d.history.map((h) => [h.date, ...names.map((n) => { const p = h.items.find((i) => i.name === n)?.price; return p === undefined ? '-' : trimNumber(p, 2); })]) };
}

export default defineSource({
  id: 'fuel-price',
  name: '今日油价',
  description: 'Retail petrol and diesel prices of a Chinese province (元/升) with the forecast of the next price adjustment; `days` adds the prices of the last days from our stored history.',
  homepage: SITE,
  routes: [{ path: '/fuel-price', methods: ['GET', 'POST'] }],
  params: {
    region: {
      type: 'string',
      default: '北京',
      pattern: REGION_PATTERN,
      patternDoc: `a province-level region: ${[...REGIONS.keys()].join(', ')} (a 省/市/自治区 suffix is accepted)`,
      normalize: regionName,
      doc: 'Province-level region (URL-encode Chinese characters).',
      example: '广东',
    },
    days: { type: 'integer', min: 1, max: 90, doc: 'Also return `history`: the prices of the last 1–90 days we stored (one entry per day, newest first).', example: '7' },
  },
  mode: 'scheduled',
  // 北京 is kept warm; other regions are fetched on demand. Prices change about every ten working days.
  schedule: '17 * * * *',
  freshness: { ttlSec: 3600, backoffCapSec: 6 * 3600 },
  // One row per region and day; `days` only picks how many of them are shown.
  history: { key: (d) => d.date, omit: ['days'] },
  async fetch(ctx, params) {
    const path = REGIONS.get(params.region) as string;
    const data = parse(await ctx.http.text(`${SITE}${path}`, { signal: ctx.signal }), params.region, ctx.now());
    if (params.days !== undefined && validateFuel(data) === undefined) data.history = await recentDays(ctx, data, params.days);
    return data;
  },
  validate: validateFuel,
  migrate,
  count: (d) => d.items.length,
  view: {
    title,
    text: (d) => {
      const h = historyTable(d);
      return `${title(d)}\n\n${d.items.map((i) => `${i.name}：${i.price_desc}`).join('\n')}${d.trend ? `\n\n${trendLine(d.trend)}` : ''}${
        h ? `\n\n近 ${h.rows.length} 天：\n${h.rows.map((r) => r.map((c, i) => (i === 0 ? c : `${h.head[i]} ${c}`)).join('  ')).join('\n')}` : ''
      }\n\n更新于 ${d.updated}\n`;
    },
    markdown: (d) => {
      const h = historyTable(d);
      return `# ${title(d)}\n\n${mdTable(['油品', '价格'], d.items.map((i) => [i.name, i.price_desc]))}\n${d.trend ? `\n> ${trendLine(d.trend)}\n` : ''}${h ? `\n## 近 ${h.rows.length} 天\n\n${mdTable(h.head, h.rows)}\n` : ''}\n_更新于 ${d.updated}_\n`;
    },
    htmlBody: (d) => {
      const h = historyTable(d);
      return [htmlTable(['油品', '价格'], d.items.map((i) => [i.name, i.price_desc])), ...(d.trend ? [`<p>${escapeHtml(trendLine(d.trend))}</p>`] : []), ...(h ? ['<h2>历史价格</h2>', htmlTable(h.head, h.rows)] : [])].join('\n');
    },
    encodings: ['json', 'text', 'markdown', 'html'],
  },
  example: '/v2/apis/fuel-price?region=%E5%B9%BF%E4%B8%9C&days=7&encoding=text',
});
