/**
 * Exchange rates of one base currency from open.er-api.com, the keyless endpoint of
 * ExchangeRate-API (https://www.exchangerate-api.com/docs/free). The upstream publishes new rates
 * once a day (shortly after 00:00 UTC) and says when the next update is due. Unknown codes come
 * back as `{"result":"error","error-type":"unsupported-code"}` (HTTP 404).
 */
import { SourceError } from '../src/kernel/errors.ts';
import { need } from '../src/kernel/json-path.ts';
import { defineSource } from '../src/kernel/source.ts';
import { escapeHtml } from '../src/encoding/escape.ts';
import { formatDate, formatDateTime, formatSixtyDateTime, withSixtyDateTimes } from '../src/kernel/time.ts';
import { htmlTable, mdTable } from './_shared/format.ts';
import { asNumber, asRecord, asString } from './_shared/hot-list.ts';

export const upstreamUrl = (code: string) => `https://open.er-api.com/v6/latest/${code}`;

export interface Rate {
  currency: string;
  rate: number;
}

export interface ExchangeRates {
  base_code: string;
  /** Day of the rates (Asia/Shanghai date of the upstream update). */
  date: string;
  rates: Rate[];
  total: number;
  /** When the upstream last published rates (60s's meaning of `updated`); `rates_updated` is the same. */
  updated: string;
  updated_at: number;
  /** When the upstream publishes the next rates. */
  next_updated: string;
  next_updated_at: number;
  rates_updated: string;
  rates_updated_at: number;
  next_update: string;
  next_update_at: number;
  provider: string;
  /** When we fetched them. */
  fetched: string;
  fetched_at: number;
}

export function parse(raw: unknown, now: Date): ExchangeRates {
  const r = need(raw, '', asRecord, 'a JSON object');
  if (r.result === 'error') {
    const type = asString(r['error-type']) ?? 'unknown';
    if (type === 'unsupported-code' || type === 'malformed-request') throw new SourceError('bad_input', `Invalid parameter "currency": the upstream does not know this currency (${type}). Use an ISO 4217 code such as CNY, USD or EUR.`);
    throw new SourceError(type === 'quota-reached' || type === 'invalid-key' ? 'blocked' : 'transient', `upstream answered error "${type}"`);
  }
  if (r.result !== 'success') throw new SourceError('parse', `unexpected result ${JSON.stringify(r.result)}`);
  const base = need(r, 'base_code', asString, 'a currency code');
  const rates = need(r, 'rates', asRecord, 'an object');
  const last = need(r, 'time_last_update_unix', asNumber, 'a Unix time');
  const list: Rate[] = [];
  for (const [currency, v] of Object.entries(rates)) {
    if (typeof v === 'number' && Number.isFinite(v) && /^[A-Z]{3}$/.test(currency)) list.push({ currency, rate: v });
  }
  const lastMs = last * 1000;
  const nextMs = (asNumber(r.time_next_update_unix) ?? last + 86_400) * 1000;
  const at = now.getTime();
  return {
    base_code: base,
    date: formatDate(lastMs),
    rates: list,
    total: list.length,
    updated: formatSixtyDateTime(lastMs),
    updated_at: lastMs,
    next_updated: formatSixtyDateTime(nextMs),
    next_updated_at: nextMs,
    rates_updated: formatDateTime(lastMs),
    rates_updated_at: lastMs,
    next_update: formatDateTime(nextMs),
    next_update_at: nextMs,
    provider: asString(r.provider) ?? 'https://www.exchangerate-api.com',
    fetched: formatDateTime(at),
    fetched_at: at,
  };
}

/**
 * Rates stored before 60s's shape (release 271b638): `updated` was our fetch time. It becomes
 * `fetched`; `updated` and `next_updated` take the upstream's times, which were stored as
 * `rates_updated` and `next_update`. Today's data passes unchanged.
 */
/** The fields 60s writes as `YYYY/MM/DD HH:mm:ss`. */
const SIXTY_TIMES = ['updated', 'next_updated'];

export function migrate(stored: unknown): ExchangeRates | undefined {
  const d = asRecord(stored);
  if (!d) return undefined;
  if ('fetched' in d) return withSixtyDateTimes(d, SIXTY_TIMES) as unknown as ExchangeRates;
  const { updated, updated_at, ...rest } = d;
  return withSixtyDateTimes({
    ...rest,
    updated: d.rates_updated,
    updated_at: d.rates_updated_at,
    next_updated: d.next_update,
    next_updated_at: d.next_update_at,
    fetched: updated,
    fetched_at: updated_at,
  }, SIXTY_TIMES) as unknown as ExchangeRates;
}

export function validateRates(d: ExchangeRates): string | undefined {
  if (d.rates.length < 20) return `only ${d.rates.length} rates`;
  const bad = d.rates.find((x) => !(x.rate > 0));
  if (bad) return `rate of ${bad.currency} is not a positive number`;
  const self = d.rates.find((x) => x.currency === d.base_code);
  if (self && Math.abs(self.rate - 1) > 1e-9) return `the base currency ${d.base_code} is not quoted at 1`;
  return undefined;
}

function title(d: ExchangeRates): string {
  return `${d.base_code} 汇率（${d.date}）`;
}

function rateText(n: number): string {
  return String(Number(n.toPrecision(8)));
}

const footer = (d: ExchangeRates) => `数据更新于 ${d.rates_updated}，下次更新 ${d.next_update}（Asia/Shanghai）`;

export default defineSource({
  id: 'exchange-rate',
  name: '汇率',
  description: 'Daily exchange rates of one base currency against about 160 others (open.er-api.com). `date` reads a past day from our stored history.',
  homepage: 'https://www.exchangerate-api.com',
  routes: [{ path: '/exchange-rate' }],
  params: {
    currency: {
      type: 'string',
      default: 'CNY',
      pattern: /^[A-Za-z]{3}$/,
      patternDoc: 'a three-letter ISO 4217 currency code such as CNY, USD or EUR (case-insensitive)',
      normalize: (v: string) => v.toUpperCase(),
      doc: 'Base currency; the rates say how much of each currency one unit of it buys.',
      example: 'USD',
    },
    date: { type: 'date', doc: 'A past day (YYYY-MM-DD) answered from our stored history; the latest rates by default.', example: '2026-11-20' },
  },
  mode: 'scheduled',
  // CNY is kept warm; other currencies are fetched on demand and cached per currency.
  schedule: '7 * * * *',
  freshness: { ttlSec: 3600, backoffCapSec: 6 * 3600 },
  history: { key: (d) => d.date, param: 'date' },
  async fetch(ctx, params) {
    const code = params.currency;
    const today = formatDate(ctx.now().getTime());
    if (params.date && params.date > today) throw new SourceError('bad_input', `Invalid parameter "date": ${params.date} is in the future.`);
    const res = await ctx.http.request(upstreamUrl(code), { signal: ctx.signal, allowStatus: [400, 404] });
    const data = parse(res.json(), ctx.now());
    if (params.date && params.date !== data.date) {
      throw new SourceError('not_found', `No ${code} exchange rates are stored for ${params.date}; the latest published rates are of ${data.date}.`);
    }
    return data;
  },
  validate: validateRates,
  migrate,
  count: (d) => d.rates.length,
  view: {
    title,
    text: (d) => `${title(d)}\n1 ${d.base_code} =\n\n${d.rates.map((x) => `${x.currency} ${rateText(x.rate)}`).join('\n')}\n\n${footer(d)}\n`,
    markdown: (d) => `# ${title(d)}\n\n> 1 ${d.base_code} 可兑换以下货币\n\n${mdTable(['货币', '汇率'], d.rates.map((x) => [x.currency, rateText(x.rate)]))}\n\n_${footer(d)}_\n`,
    htmlBody: (d) => [`<p>1 ${escapeHtml(d.base_code)} =</p>`, htmlTable(['货币', '汇率'], d.rates.map((x) => [x.currency, rateText(x.rate)])), `<p class="s">${escapeHtml(footer(d))}</p>`].join('\n'),
    encodings: ['json', 'text', 'markdown', 'html'],
  },
  example: '/v2/apis/exchange-rate?currency=USD&encoding=text',
});
