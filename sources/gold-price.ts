/**
 * Precious metal prices from huangjinjiage (黄金价格网). Two upstreams, read together:
 * - `panjia2.js`, the quote feed of the site's ticker: `panjia2 = "v0,v1,…"`, a bare list of
 *   numbers without labels. Each metal is four values (current, open, high, low) at a fixed
 *   position, so every metal is checked for plausibility (unit range, low ≤ high) and a shifted
 *   layout is refused instead of served (the reference project's issue #83).
 * - `jinrijinjia.html`, a GB2312 page with tables under the headings 各大金店今日金价,
 *   银行金条今日金价 and 黄金回收今日金价; columns are found by their header labels.
 */
import { load } from './_shared/html.ts';
import { SourceError } from '../src/kernel/errors.ts';
import { defineSource } from '../src/kernel/source.ts';
import { formatDate, formatDateTime, shanghaiMidnight } from '../src/kernel/time.ts';
import { htmlTable, mdTable, trimNumber } from './_shared/format.ts';

export const feedUrl = (ms: number) => `http://res.huangjinjiage.com.cn/panjia2.js?t=${ms}`;
export const PAGE_URL = 'http://www.huangjinjiage.cn/jinrijinjia.html';

/** 60s gives prices as text (as the upstream writes them); `sell`, `open`, `high`, `low` and `price_value` are the same as numbers. */
export interface MetalPrice {
  name: string;
  /** Latest price. */
  sell_price: string;
  /** Opening price of the day. */
  today_price: string;
  high_price: string;
  low_price: string;
  unit: string;
  sell: number;
  open: number;
  high: number;
  low: number;
  /** When the quote was read. */
  updated: string;
  updated_at: number;
}

export interface QuotedPrice {
  /** The price without its unit, as text. */
  price: string;
  price_value: number;
  unit: string;
  /** Price and unit, e.g. `1385元/克`. */
  formatted: string;
  /** The quote time as the page gives it, and as a timestamp when it can be read. */
  quoted: string;
  quoted_at: number | null;
  /** The quote time, or the day of the price when the page gives no time. */
  updated: string;
  updated_at: number;
}

export interface StorePrice extends QuotedPrice {
  brand: string;
  product: string;
}

export interface BankPrice extends QuotedPrice {
  bank: string;
  product: string;
  /** Same as `quoted` (60s's name). */
  time: string;
}

export interface RecyclePrice extends QuotedPrice {
  type: string;
  purity: string;
}

export interface GoldPrices {
  date: string;
  metals: MetalPrice[];
  stores: StorePrice[];
  banks: BankPrice[];
  recycle: RecyclePrice[];
  updated: string;
  updated_at: number;
}

/** Position of each metal's four values in the feed, its unit and the range a real price falls in. */
export const FEED_LAYOUT = [
  { name: '今日金价', at: 12, unit: '元/克', range: [100, 5000] },
  { name: '黄金9999', at: 28, unit: '元/克', range: [100, 5000] },
  { name: '黄金T+D', at: 32, unit: '元/克', range: [100, 5000] },
  { name: '伦敦金', at: 36, unit: '美元/盎司', range: [500, 20000] },
  { name: '纽约黄金', at: 61, unit: '美元/盎司', range: [500, 20000] },
  { name: '白银', at: 16, unit: '元/克', range: [1, 200] },
  { name: '铂金', at: 20, unit: '元/克', range: [20, 3000] },
  { name: '钯金', at: 24, unit: '元/克', range: [20, 3000] },
] as const;

/** The metals of the quote feed; implausible entries are dropped, a broken gold entry fails. */
export function parseFeed(js: string, now: Date): MetalPrice[] {
  const m = /panjia2\s*=\s*["']([^"']*)["']/.exec(js);
  if (!m) throw new SourceError('parse', 'quote feed has no `panjia2 = "…"`');
  const raw = m[1]!.split(',').map((v) => v.trim());
  const values = raw.map((v) => (/^\d+(\.\d+)?$/.test(v) ? Number(v) : Number.NaN));
  const metals: MetalPrice[] = [];
  const readAt = now.getTime();
  for (const { name, at, unit, range } of FEED_LAYOUT) {
    const [sell, open, high, low] = values.slice(at, at + 4) as (number | undefined)[];
    const ok = [sell, open, high, low].every((v) => v !== undefined && Number.isFinite(v) && v >= range[0] && v <= range[1]) && low! <= high!;
    const [sellText = '', openText = '', highText = '', lowText = ''] = raw.slice(at, at + 4);
    if (ok) {
      metals.push({
        name,
        sell_price: sellText,
        today_price: openText,
        high_price: highText,
        low_price: lowText,
        unit,
        sell: sell!,
        open: open!,
        high: high!,
        low: low!,
        updated: formatDateTime(readAt),
        updated_at: readAt,
      });
    }
    else if (name === '今日金价') throw new SourceError('parse', `quote feed layout changed: values ${values.slice(at, at + 4).join(', ')} at ${at} are not a plausible gold price`);
  }
  return metals;
}

type Section = 'stores' | 'banks' | 'recycle';
const SECTIONS: [Section, RegExp][] = [
  ['stores', /各大金店.*金价/],
  ['banks', /银行金条.*金价/],
  ['recycle', /黄金回收.*金价/],
];

type Column = 'name' | 'product' | 'price' | 'purity' | 'time';
/** Header label → column; first match wins ("金条品种" is a product, "金条品牌" a name, "报价时间" a time). */
const HEADER_LABELS: [Column, RegExp][] = [
  ['product', /品种|产品/],
  ['purity', /纯度|成色/],
  ['time', /时间|日期/],
  ['price', /价格|金价|报价/],
  ['name', /品牌|银行|金店|种类|类型|名称/],
];
/** Columns in page order when a table has no header row. */
const DEFAULT_COLUMNS: Record<Section, Column[]> = {
  stores: ['name', 'product', 'price', 'time'],
  banks: ['name', 'product', 'price', 'time'],
  recycle: ['name', 'price', 'purity', 'time'],
};

function priceOf(text: string): { price: string; price_value: number; unit: string; formatted: string } | undefined {
  const m = /(\d+(?:\.\d+)?)\s*(元\s*\/\s*克|元\/g|元)?/.exec(text.replace(/,/g, ''));
  if (!m) return undefined;
  const unit = (m[2] ?? '元/克').replace(/\s/g, '').replace('元/g', '元/克').replace(/^元$/, '元/克');
  return { price: m[1]!, price_value: Number(m[1]), unit, formatted: `${m[1]}${unit}` };
}

function quoteTime(text: string, today: string): number | null {
  const hm = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(text);
  if (hm) return shanghaiMidnight(today) + ((Number(hm[1]) * 60 + Number(hm[2])) * 60 + Number(hm[3] ?? 0)) * 1000;
  const d = /^(\d{4})[-/年](\d{1,2})[-/月](\d{1,2})/.exec(text);
  if (d) return shanghaiMidnight(`${d[1]}-${d[2]!.padStart(2, '0')}-${d[3]!.padStart(2, '0')}`);
  return null;
}

/** The quote time, or the day of the price when the page gives no time. */
function quoteUpdated(quoted: string, quotedAt: number | null, today: string): { updated: string; updated_at: number } {
  return {
    updated: quotedAt === null ? today : /\d:\d/.test(quoted) ? formatDateTime(quotedAt) : formatDate(quotedAt),
    updated_at: quotedAt ?? shanghaiMidnight(today),
  };
}

/** The store, bank and recycling tables of the page. */
export function parsePage(html: string, now: Date): Pick<GoldPrices, 'stores' | 'banks' | 'recycle'> {
  const $ = load(html);
  const today = formatDate(now.getTime());
  const out: Pick<GoldPrices, 'stores' | 'banks' | 'recycle'> = { stores: [], banks: [], recycle: [] };
  let current: Section | undefined;
  let found = 0;
  $('h1, h2, h3, table').each((_, el) => {
    if (el.tagName !== 'table') {
      const text = $(el).text();
      current = SECTIONS.find(([, re]) => re.test(text))?.[0];
      if (current) found++;
      return;
    }
    if (!current) return;
    const section = current;
    current = undefined;
    const rows = $(el).find('tr').toArray();
    const headerRow = rows.find((r) => $(r).find('th').length > 0);
    let columns: (Column | undefined)[] = DEFAULT_COLUMNS[section];
    if (headerRow) columns = $(headerRow).find('th').toArray().map((th) => HEADER_LABELS.find(([, re]) => re.test($(th).text()))?.[0]);
    for (const row of rows) {
      const cells = $(row).find('td').toArray().map((td) => $(td).text().replace(/\s+/g, ' ').trim());
      if (!cells.length) continue;
      const cell = (c: Column) => {
        const i = columns.indexOf(c);
        return i >= 0 ? (cells[i] ?? '') : '';
      };
      const name = cell('name').replace(/价格$/, '');
      const price = priceOf(cell('price'));
      if (!name || !price) continue;
      const quoted = cell('time');
      const quotedAt = quoteTime(quoted, today);
      const base = { ...price, quoted, quoted_at: quotedAt, ...quoteUpdated(quoted, quotedAt, today) };
      if (section === 'stores') out.stores.push({ brand: name, product: cell('product').replace(/价格$/, ''), ...base });
      else if (section === 'banks') out.banks.push({ bank: name, product: cell('product').replace(/价格$/, ''), ...base, time: quoted });
      else out.recycle.push({ type: name, purity: cell('purity'), ...base });
    }
  });
  if (!found) throw new SourceError('parse', 'the page has none of the headings 各大金店今日金价, 银行金条今日金价, 黄金回收今日金价');
  return out;
}

export function parse(feedJs: string, pageHtml: string, now: Date): GoldPrices {
  const metals = parseFeed(feedJs, now);
  const tables = parsePage(pageHtml, now);
  const at = now.getTime();
  return { date: formatDate(at), metals, ...tables, updated: formatDateTime(at), updated_at: at };
}

/**
 * Prices stored before 60s's shape (release 271b638) were numbers only: metals `{name, sell_price,
 * today_price, high_price, low_price, unit}`, quotes `{price, unit, quoted, quoted_at}`. The
 * numbers become the text fields (written as numbers, the upstream's own spelling is gone) and
 * keep their value under today's numeric names; a metal's read time is the fetch time, a
 * quote's `updated` comes from its quote time as `parsePage` derives it. Today's data passes unchanged.
 */
export function migrate(stored: unknown): GoldPrices | undefined {
  const d = stored as GoldPrices | null;
  if (!d || typeof d !== 'object' || !Array.isArray(d.metals) || !Array.isArray(d.stores) || !Array.isArray(d.banks) || !Array.isArray(d.recycle)) return undefined;
  const quotes: QuotedPrice[] = [...d.stores, ...d.banks, ...d.recycle];
  if (d.metals.every((m) => typeof m.sell_price === 'string') && quotes.every((q) => typeof q.price === 'string')) return d;
  const text = (v: unknown) => (typeof v === 'number' ? String(v) : typeof v === 'string' ? v : '');
  const num = (v: unknown) => (typeof v === 'number' ? v : Number(v));
  const metals = d.metals.map((m): MetalPrice => {
    if (typeof m.sell_price === 'string') return m;
    return {
      name: m.name,
      sell_price: text(m.sell_price),
      today_price: text(m.today_price),
      high_price: text(m.high_price),
      low_price: text(m.low_price),
      unit: m.unit,
      sell: num(m.sell_price),
      open: num(m.today_price),
      high: num(m.high_price),
      low: num(m.low_price),
      updated: d.updated,
      updated_at: d.updated_at,
    };
  });
  const quote = <Q extends QuotedPrice>(q: Q): Q => {
    if (typeof q.price === 'string') return q;
    const price = text(q.price);
    return { ...q, price, price_value: num(q.price), formatted: `${price}${q.unit}`, ...quoteUpdated(q.quoted, q.quoted_at, d.date) };
  };
  return {
    ...d,
    metals,
    stores: d.stores.map(quote),
    banks: d.banks.map((b) => ({ ...quote(b), time: b.time ?? b.quoted })),
    recycle: d.recycle.map(quote),
  };
}

export function validateGold(d: GoldPrices): string | undefined {
  if (d.metals.length < 3) return `only ${d.metals.length} plausible metal quotes`;
  if (!d.stores.length && !d.banks.length && !d.recycle.length) return 'no store, bank or recycling price';
  const bad = [...d.stores, ...d.banks, ...d.recycle].find((p) => !(p.price_value > 0) || p.price_value > 100_000);
  return bad ? `implausible price ${bad.price}` : undefined;
}

const n = (v: number) => trimNumber(v, 2);
const METAL_HEAD = ['品种', '最新价', '开盘价', '最高价', '最低价', '单位'];
const metalRow = (m: MetalPrice) => [m.name, n(m.sell), n(m.open), n(m.high), n(m.low), m.unit];
const STORE_HEAD = ['品牌', '品种', '价格', '单位', '报价时间'];
const storeRow = (s: StorePrice) => [s.brand, s.product, n(s.price_value), s.unit, s.quoted];
const BANK_HEAD = ['银行', '金条', '价格', '单位', '报价时间'];
const bankRow = (b: BankPrice) => [b.bank, b.product, n(b.price_value), b.unit, b.quoted];
const RECYCLE_HEAD = ['种类', '回收价', '单位', '纯度', '报价时间'];
const recycleRow = (r: RecyclePrice) => [r.type, n(r.price_value), r.unit, r.purity, r.quoted];

export default defineSource({
  id: 'gold-price',
  name: '今日金价',
  description: 'Gold, silver, platinum and palladium quotes (domestic, London, New York) plus gold prices of jewellery stores, bank bars and recycling, as text (60s) and as numbers.',
  homepage: 'http://www.huangjinjiage.cn/jinrijinjia.html',
  routes: [{ path: '/gold-price' }],
  mode: 'scheduled',
  schedule: '*/10 * * * *',
  freshness: { ttlSec: 600, backoffCapSec: 3600 },
  // One row per day: the day's last quotes.
  history: { key: (d) => d.date },
  headers: { referer: 'http://www.huangjinjiage.cn/' },
  async fetch(ctx) {
    const [feed, page] = await Promise.all([
      ctx.http.text(feedUrl(ctx.now().getTime()), { signal: ctx.signal }),
      ctx.http.text(PAGE_URL, { signal: ctx.signal, charset: 'gb2312' }),
    ]);
    return parse(feed, page, ctx.now());
  },
  validate: validateGold,
  migrate,
  count: (d) => d.metals.length + d.stores.length + d.banks.length + d.recycle.length,
  view: {
    title: () => '今日金价',
    text: (d) => {
      const section = (title: string, lines: string[]) => (lines.length ? `〓 ${title} 〓\n${lines.join('\n')}\n\n` : '');
      return `今日金价（${d.updated}）\n\n${section(
        '实时行情',
        d.metals.map((m) => `${m.name}：${n(m.sell)} ${m.unit}（开 ${n(m.open)} 高 ${n(m.high)} 低 ${n(m.low)}）`),
      )}${section(
        '金店金价',
        d.stores.map((s) => `${s.brand} ${s.product}：${n(s.price_value)} ${s.unit}`),
      )}${section(
        '银行金条',
        d.banks.map((b) => `${b.bank} ${b.product}：${n(b.price_value)} ${b.unit}`),
      )}${section(
        '黄金回收',
        d.recycle.map((r) => `${r.type}：${n(r.price_value)} ${r.unit}${r.purity ? `（${r.purity}）` : ''}`),
      )}`.trimEnd() + '\n';
    },
    markdown: (d) =>
      `# 今日金价\n\n> 更新于 ${d.updated}\n\n## 实时行情\n\n${mdTable(METAL_HEAD, d.metals.map(metalRow))}\n\n## 金店金价\n\n${mdTable(STORE_HEAD, d.stores.map(storeRow))}\n\n## 银行金条\n\n${mdTable(BANK_HEAD, d.banks.map(bankRow))}\n\n## 黄金回收\n\n${mdTable(RECYCLE_HEAD, d.recycle.map(recycleRow))}\n`,
    htmlBody: (d) =>
      [
        '<h2>实时行情</h2>',
        htmlTable(METAL_HEAD, d.metals.map(metalRow)),
        '<h2>金店金价</h2>',
        htmlTable(STORE_HEAD, d.stores.map(storeRow)),
        '<h2>银行金条</h2>',
        htmlTable(BANK_HEAD, d.banks.map(bankRow)),
        '<h2>黄金回收</h2>',
        htmlTable(RECYCLE_HEAD, d.recycle.map(recycleRow)),
      ].join('\n'),
    encodings: ['json', 'text', 'markdown', 'html'],
  },
  example: '/v2/apis/gold-price?encoding=text',
});
