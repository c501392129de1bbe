import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import exchangeRate, { parse, validateRates } from '../../sources/exchange-rate.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { TestClock } from '../support/clock.ts';
import { describeConformance, readRecording } from '../support/conformance.ts';
import { describeFailureModes } from '../support/failure-modes.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const HOST = 'open.er-api.com';
const fixture = (code: string) => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, HOST, `v6/latest/${code}.json`), 'utf8')) as Record<string, unknown>;
const now = new Date('2026-11-21T02:00:00Z');

interface Body {
  code: number;
  message: string;
  data: { base_code: string; date: string; rates: { currency: string; rate: number }[]; total: number; rates_updated: string; next_update_at: number; updated_at: number } | null;
}

describe('exchange-rate parse', () => {
  it('reads the base, the rates and the update times', () => {
    const d = parse(fixture('CNY'), now);
    expect(d.base_code).toBe('CNY');
    expect(d.date).toBe('2026-11-21');
    expect(d.total).toBe(40);
    expect(d.rates[0]).toEqual({ currency: 'CNY', rate: 1 });
    expect(d.rates.find((r) => r.currency === 'USD')).toEqual({ currency: 'USD', rate: 0.140754 });
    expect(d.rates.find((r) => r.currency === 'JPY')?.rate).toBe(21.987163);
    expect(d.rates_updated).toBe('2026-11-21 08:02:31');
    expect(d.rates_updated_at).toBe(Date.parse('2026-11-21T00:02:31Z'));
    expect(d.next_update).toBe('2026-11-22 08:11:05');
    // 60s's fields: updated is the rates' publication, next_updated the next one.
    expect(d.updated).toBe('2026/11/21 08:02:31');
    expect(d.updated_at).toBe(d.rates_updated_at);
    expect(d.next_updated).toBe('2026/11/22 08:11:05');
    expect(d.next_updated_at).toBe(d.next_update_at);
    expect(d.fetched_at).toBe(now.getTime());
    expect(validateRates(d)).toBeUndefined();
  });

  it('rejects broken copies', () => {
    const empty = { ...fixture('CNY'), rates: {} };
    expect(validateRates(parse(empty, now))).toMatch(/only 0 rates/);
    const negative = fixture('USD');
    (negative.rates as Record<string, number>).EUR = -1;
    expect(validateRates(parse(negative, now))).toMatch(/EUR/);
    const { rates: _dropped, ...noRates } = fixture('CNY');
    expect(() => parse(noRates, now)).toThrow(/rates/);
    expect(() => parse('<html>', now)).toThrow(SourceError);
    try {
      parse({ result: 'error', 'error-type': 'unsupported-code' }, now);
      expect.unreachable();
    } catch (err) {
      expect((err as SourceError).kind).toBe('bad_input');
      expect((err as Error).message).toMatch(/"currency"/);
    }
    expect(() => parse({ result: 'error', 'error-type': 'quota-reached' }, now)).toThrow(/quota-reached/);
  });
});

describe('exchange-rate through the server', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, sources: [exchangeRate] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('serves CNY by default in json, text, markdown and html from one fetch', async () => {
    const json = await svc.get('/v2/apis/exchange-rate');
    expect(json.status).toBe(200);
    expect(json.headers.get('x-cache')).toBe('MISS');
    const body = (await json.json()) as Body;
    expect(body.code).toBe(200);
    expect(body.message).toBe('success');
    expect(body.data?.base_code).toBe('CNY');
    expect(body.data?.rates.find((r) => r.currency === 'EUR')?.rate).toBe(0.121499);

    const text = await svc.get('/v2/apis/exchange-rate?encoding=text');
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(text.headers.get('x-cache')).toBe('HIT');
    const t = await text.text();
    expect(t).toMatch(/^CNY 汇率（2026-11-21）\n1 CNY =/);
    expect(t).toContain('\nUSD 0.140754\n');
    expect(t).toContain('下次更新 2026-11-22 08:11:05');

    const md = await svc.get('/v2/apis/exchange-rate?encoding=markdown');
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const m = await md.text();
    expect(m).toMatch(/^# CNY 汇率（2026-11-21）/);
    expect(m).toContain('| 货币 | 汇率 |');
    expect(m).toContain('| USD | 0.140754 |');

    const html = await svc.get('/v2/apis/exchange-rate?encoding=html');
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await html.text()).toContain('<tr><td>USD</td><td>0.140754</td></tr>');

    const rss = await svc.get('/v2/apis/exchange-rate?encoding=rss');
    expect(rss.status).toBe(400);
    expect(((await rss.json()) as Body).message).toMatch(/json, text, markdown, html/);
    expect(upstream.hits(HOST)).toHaveLength(1);
  });

  it('upper-cases the currency and validates it', async () => {
    const res = await svc.get('/v2/apis/exchange-rate?currency=usd');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Body;
    expect(body.data?.base_code).toBe('USD');
    expect(body.data?.rates.find((r) => r.currency === 'CNY')?.rate).toBe(7.1046);
    expect(upstream.hits(HOST, '/v6/latest/USD')).toHaveLength(1);
    // Upper-cased by the parameter declaration: one cache key for both spellings.
    const again = await svc.get('/v2/apis/exchange-rate?currency=USD');
    expect(again.headers.get('x-cache')).toBe('HIT');
    expect(upstream.hits(HOST, '/v6/latest/USD')).toHaveLength(1);

    for (const bad of ['US', 'US1', 'DOLLAR']) {
      const r = await svc.get(`/v2/apis/exchange-rate?currency=${bad}`);
      expect(r.status).toBe(400);
      expect(((await r.json()) as Body).message).toMatch(/"currency".*three-letter ISO 4217/);
    }
  });

  it('answers 400 naming the currency when the upstream does not know it', async () => {
    upstream.serve(HOST, '/v6/latest/XYZ', { status: 404, body: { result: 'error', 'error-type': 'unsupported-code' } });
    const res = await svc.get('/v2/apis/exchange-rate?currency=xyz');
    expect(res.status).toBe(400);
    const body = (await res.json()) as Body;
    expect(body.code).toBe(400);
    expect(body.message).toMatch(/"currency"/);
    expect(body.data).toBeNull();
  });

  it('answers past days from the stored history, 404 for days it does not have', async () => {
    await svc.get('/v2/apis/exchange-rate');
    upstream.reset();
    const hit = await svc.get('/v2/apis/exchange-rate?date=2026-11-21');
    expect(hit.status).toBe(200);
    expect(((await hit.json()) as Body).data?.date).toBe('2026-11-21');
    expect(upstream.requests).toHaveLength(0);

    const missing = await svc.get('/v2/apis/exchange-rate?date=2026-10-01');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as Body).message).toMatch(/No CNY exchange rates are stored for 2026-10-01.*2026-11-21/);

    const future = await svc.get('/v2/apis/exchange-rate?date=2026-12-01');
    expect(future.status).toBe(400);
    const bad = await svc.get('/v2/apis/exchange-rate?date=2026-13-01');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Body).message).toMatch(/"date"/);
  });
});

describe('exchange-rate declaration', () => {
  it('keeps CNY warm and has a sensible TTL', () => {
    expect(exchangeRate.mode).toBe('scheduled');
    expect(exchangeRate.mode !== 'local' && exchangeRate.freshness.ttlSec).toBe(3600);
  });
});

describeFailureModes({
  sources: [exchangeRate],
  sourceId: 'exchange-rate',
  path: '/v2/apis/exchange-rate',
  host: HOST,
  upstreamPath: '/v6/latest/CNY',
  ttlSec: 3600,
  loginPage: { status: 403, headers: { 'content-type': 'text/html' }, body: '<html><body>Access denied</body></html>' },
  changedShape: { body: { result: 'success', base: 'CNY', conversion_rates: { USD: 0.14 } } },
  empty: { body: { ...fixture('CNY'), rates: {} } },
});

describeConformance('exchange-rate', 'exchange-rate on real recordings', (dir) => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    upstream.serve(HOST, '/v6/latest/CNY', { headers: { 'content-type': 'application/json' }, body: readRecording(dir, 'er-api-v6-latest-CNY-2023-05-30.json') });
    upstream.serve(HOST, '/v6/latest/USD', { headers: { 'content-type': 'application/json' }, body: readRecording(dir, 'er-api-v6-latest-USD-2024-08-19.json') });
    svc = await startService({ upstream, now: new TestClock(Date.parse('2024-08-19T04:00:00Z')).now, sources: [exchangeRate] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('reads the CNY recording', async () => {
    const body = (await (await svc.get('/v2/apis/exchange-rate')).json()) as Body;
    expect(body.data?.base_code).toBe('CNY');
    expect(body.data?.date).toBe('2023-05-30');
    expect(body.data?.rates.find((r) => r.currency === 'USD')?.rate).toBe(0.141273);
    expect(body.data!.total).toBeGreaterThan(150);
  });

  it('reads the USD recording', async () => {
    const body = (await (await svc.get('/v2/apis/exchange-rate?currency=USD')).json()) as Body;
    expect(body.data?.base_code).toBe('USD');
    expect(body.data?.date).toBe('2024-08-19');
    expect(body.data?.rates.find((r) => r.currency === 'CNY')?.rate).toBe(7.165629);
    expect(upstream.unmatched).toEqual([]);
  });
});
