import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import fuelPrice, { parse, REGIONS, regionName, validateFuel } from '../../sources/fuel-price.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { defineSource } from '../../src/kernel/source.ts';
import { formatDate } from '../../src/kernel/time.ts';
import { TestClock } from '../support/clock.ts';
import { describeFailureModes } from '../support/failure-modes.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const HOST = 'www.qiyoujiage.com';
const html = (file: string) => fs.readFileSync(path.join(FIXTURE_DIR, HOST, file), 'utf8');
const now = new Date('2026-11-21T02:00:00Z');
const DAY = 86_400_000;

interface Body {
  code: number;
  message: string;
  data: { region: string; date: string; items: { name: string; price: number }[]; history?: { date: string; items: { name: string; price: number }[] }[]; link: string } | null;
}

describe('fuel-price parse', () => {
  it('reads prices and the forecast of the next adjustment', () => {
    const d = parse(html('beijing.shtml'), '北京', now);
    expect(d.items).toEqual([
      { name: '92#汽油', price: 7.83, price_desc: '7.83 元/升' },
      { name: '95#汽油', price: 8.33, price_desc: '8.33 元/升' },
      { name: '98#汽油', price: 9.83, price_desc: '9.83 元/升' },
      { name: '0#柴油', price: 7.52, price_desc: '7.52 元/升' },
    ]);
    expect(d.trend).toMatchObject({
      next_adjustment_date: '11月28日24时',
      next_adjustment: '2026-11-29 00:00:00',
      next_adjustment_at: Date.parse('2026-11-29T00:00:00+08:00'),
      direction: '上调',
      change_ton: 150,
      change_ton_desc: '上调150元/吨',
      change_liter_min: 0.12,
      change_liter_max: 0.14,
    });
    expect(d).toMatchObject({ region: '北京', date: '2026-11-21', link: 'http://www.qiyoujiage.com/beijing.shtml', updated_at: now.getTime() });
    expect(validateFuel(d)).toBeUndefined();

    const gd = parse(html('guangdong.shtml'), '广东', now);
    expect(gd.trend).toMatchObject({ direction: '下调', change_ton: 85, change_liter_min: 0.07, change_liter_max: 0.08, next_adjustment: '2026-12-06 00:00:00' });
  });

  it('places an adjustment early next year in the next year', () => {
    const d = parse(html('beijing.shtml').replace('11月28日24时', '1月3日24时'), '北京', new Date('2026-12-30T02:00:00Z'));
    expect(d.trend?.next_adjustment).toBe('2027-01-04 00:00:00');
  });

  it('knows every province with its page and accepts their suffixes', () => {
    expect(REGIONS.size).toBe(31);
    expect(REGIONS.get('陕西')).toBe('/shanxi-3.shtml');
    expect(REGIONS.get('山西')).toBe('/shanxi.shtml');
    expect([regionName('广西壮族自治区'), regionName('北京市'), regionName('广东省'), regionName('内蒙古自治区')]).toEqual(['广西', '北京', '广东', '内蒙古']);
  });

  it('rejects broken copies', () => {
    const d = parse(html('beijing.shtml'), '北京', now);
    expect(validateFuel({ ...d, items: d.items.slice(0, 1) })).toMatch(/only 1/);
    expect(validateFuel({ ...d, items: [...d.items, { name: '92#汽油', price: 78.3, price_desc: '' }] })).toMatch(/implausible price 78.3/);
    expect(() => parse('<html><body><div id="price-list"></div></body></html>', '北京', now)).toThrow(/#youjia/);
    expect(() => parse(html('beijing.shtml'), '火星', now)).toThrow(SourceError);
    expect(parse(html('beijing.shtml').replace(/<div style="margin[^]*?<\/div>/, ''), '北京', now).trend).toBeNull();
  });
});

describe('fuel-price through the server', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, sources: [fuelPrice] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('serves 北京 by default in json, text, markdown and html, cached for the TTL', async () => {
    const json = await svc.get('/v2/apis/fuel-price');
    expect(json.status).toBe(200);
    const body = (await json.json()) as Body;
    expect(body.data?.items[0]).toEqual({ name: '92#汽油', price: 7.83, price_desc: '7.83 元/升' });
    expect(body.data?.history).toBeUndefined();

    const text = await (await svc.get('/v2/apis/fuel-price?encoding=text')).text();
    expect(text).toBe('今日油价（北京）\n\n92#汽油：7.83 元/升\n95#汽油：8.33 元/升\n98#汽油：9.83 元/升\n0#柴油：7.52 元/升\n\n下次调价 2026-11-29 00:00:00 预计上调 上调150元/吨 （0.12元/升-0.14元/升）\n\n更新于 2026/11/21 10:00:00\n');
    const md = await (await svc.get('/v2/apis/fuel-price?encoding=markdown')).text();
    expect(md).toContain('| 95\\#汽油 | 8.33 元/升 |');
    expect(md).toContain('> 下次调价 2026-11-29 00:00:00 预计上调');
    const html = await (await svc.get('/v2/apis/fuel-price?encoding=html')).text();
    expect(html).toContain('<tr><td>0#柴油</td><td>7.52 元/升</td></tr>');

    // The TTL is the kernel's: fresh data is served without asking the upstream again.
    clock.advance(30 * 60_000);
    const hit = await svc.get('/v2/apis/fuel-price');
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(upstream.hits(HOST)).toHaveLength(1);
    clock.advance(31 * 60_000);
    expect((await svc.get('/v2/apis/fuel-price')).headers.get('x-cache')).toBe('STALE');
  });

  it('validates the region against the province list and accepts suffixes as the same region', async () => {
    const gd = (await (await svc.get(`/v2/apis/fuel-price?region=${encodeURIComponent('广东省')}`)).json()) as Body;
    expect(gd.data).toMatchObject({ region: '广东', link: 'http://www.qiyoujiage.com/guangdong.shtml' });
    const again = await svc.get(`/v2/apis/fuel-price?region=${encodeURIComponent('广东')}`);
    expect(again.headers.get('x-cache')).toBe('HIT');
    expect(upstream.hits(HOST, '/guangdong.shtml')).toHaveLength(1);

    upstream.serve(HOST, '/shanxi-3.shtml', { headers: { 'content-type': 'text/html; charset=utf-8' }, body: html('beijing.shtml').replaceAll('北京', '陕西') });
    const sx = (await (await svc.get(`/v2/apis/fuel-price?region=${encodeURIComponent('陕西')}`)).json()) as Body;
    expect(sx.data?.region).toBe('陕西');

    for (const bad of ['火星', 'beijing', '北京北京']) {
      const res = await svc.get(`/v2/apis/fuel-price?region=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as Body).message).toMatch(/"region".*北京, 天津, 河北/);
    }
  });

  it('accepts POST with a form body', async () => {
    const res = await svc.get('/v2/apis/fuel-price', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `region=${encodeURIComponent('广东')}` });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Body).data?.region).toBe('广东');
  });
});

describe('fuel-price history (days)', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;
  const withPrice = (p92: string) => ({ headers: { 'content-type': 'text/html; charset=utf-8' }, body: html('beijing.shtml').replace('<dd>7.83</dd>', `<dd>${p92}</dd>`) });

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, sources: [fuelPrice] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('returns one entry per stored day, newest first, shared by every days value', async () => {
    // Day 1: only today.
    const first = (await (await svc.get('/v2/apis/fuel-price?days=7')).json()) as Body;
    expect(first.data?.history).toEqual([{ date: '2026-11-21', items: [
      { name: '92#汽油', price: 7.83 },
      { name: '95#汽油', price: 8.33 },
      { name: '98#汽油', price: 9.83 },
      { name: '0#柴油', price: 7.52 },
    ] }]);
    // Day 2: the default key refreshes (as the scheduler would), then a days request.
    clock.advance(DAY);
    upstream.serve(HOST, '/beijing.shtml', withPrice('7.95'));
    await svc.get('/v2/apis/fuel-price?force-update=1');
    // Day 4 (nothing stored for day 3).
    clock.advance(2 * DAY);
    upstream.serve(HOST, '/beijing.shtml', withPrice('8.01'));
    const week = (await (await svc.get('/v2/apis/fuel-price?days=7&force-update=1')).json()) as Body;
    expect(week.data?.history?.map((h) => [h.date, h.items[0]?.price])).toEqual([
      ['2026-11-24', 8.01],
      ['2026-11-22', 7.95],
      ['2026-11-21', 7.83],
    ]);
    const two = (await (await svc.get('/v2/apis/fuel-price?days=2')).json()) as Body;
    expect(two.data?.history?.map((h) => h.date)).toEqual(['2026-11-24']);
    const month = (await (await svc.get('/v2/apis/fuel-price?days=30')).json()) as Body;
    expect(month.data?.history?.map((h) => h.date)).toEqual(['2026-11-24', '2026-11-22', '2026-11-21']);

    const text = await (await svc.get('/v2/apis/fuel-price?days=30&encoding=text')).text();
    expect(text).toContain('近 3 天：\n2026-11-24  92#汽油 8.01  95#汽油 8.33  98#汽油 9.83  0#柴油 7.52\n2026-11-22  92#汽油 7.95');
    const md = await (await svc.get('/v2/apis/fuel-price?days=30&encoding=markdown')).text();
    expect(md).toContain('| 日期 | 92\\#汽油 | 95\\#汽油 | 98\\#汽油 | 0\\#柴油 |');
    expect(md).toContain('| 2026-11-21 | 7.83 | 8.33 | 9.83 | 7.52 |');
    const page = await (await svc.get('/v2/apis/fuel-price?days=30&encoding=html')).text();
    expect(page).toContain('<h2>历史价格</h2>');

    // Another region has its own history.
    const gd = (await (await svc.get(`/v2/apis/fuel-price?region=${encodeURIComponent('广东')}&days=30`)).json()) as Body;
    expect(gd.data?.history?.map((h) => h.date)).toEqual(['2026-11-24']);

    for (const bad of ['0', '91', 'week']) {
      const res = await svc.get(`/v2/apis/fuel-price?days=${bad}`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as Body).message).toMatch(/"days".*from 1 to 90/);
    }
    expect(upstream.unmatched).toEqual([]);
  });
});

describeFailureModes({
  sources: [fuelPrice],
  sourceId: 'fuel-price',
  path: '/v2/apis/fuel-price',
  host: HOST,
  upstreamPath: '/beijing.shtml',
  ttlSec: 3600,
  loginPage: { status: 403, headers: { 'content-type': 'text/html' }, body: '<html><body>访问过于频繁，请稍后再试</body></html>' },
  changedShape: { headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<html><body><div id="prices"><span>92#</span><b>7.83</b></div></body></html>' },
  empty: { headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<html><body><div id="youjiaCont"><div id="youjia"></div></div></body></html>' },
});

// The kernel additions this source relies on, checked on a minimal source: FetchContext.history,
// history.omit (a view window shares its key's history) and StringParam.normalize.
interface Probe {
  day: string;
  key: string;
  seen: string[];
}

describe('kernel: stored history in fetch, history.omit and normalize', () => {
  const probe = defineSource({
    id: 'history-probe',
    name: 'probe',
    description: 'probe',
    routes: [{ path: '/history-probe' }],
    params: {
      key: { type: 'string', default: 'a', normalize: (v: string) => v.toLowerCase(), doc: 'key' },
      window: { type: 'integer', min: 1, max: 10, doc: 'window' },
    },
    mode: 'on-demand',
    freshness: { ttlSec: 60 },
    history: { key: (d: Probe) => d.day, omit: ['window'] },
    async fetch(ctx, p): Promise<Probe> {
      const day = formatDate(ctx.now().getTime());
      const seen = ((await ctx.history?.(p.window ?? 10)) ?? []).map((h) => h.data.day);
      return { day, key: p.key, seen };
    },
    validate: () => undefined,
    view: {},
    example: '/v2/apis/history-probe',
  });
  const clock = new TestClock();
  let svc: TestService;
  beforeAll(async () => {
    svc = await startService({ now: clock.now, sources: [probe] });
  });
  afterAll(async () => {
    await svc.close();
  });
  const get = async (q: string) => ((await (await svc.get(`/v2/apis/history-probe${q}`)).json()) as { data: { day: string; key: string; seen: string[] } }).data;

  it('passes the stored days of the key to fetch, whatever the window, and normalises the key', async () => {
    expect(await get('?key=A')).toEqual({ day: '2026-11-21', key: 'a', seen: [] });
    clock.advance(DAY);
    expect((await get('?key=a&window=5')).seen).toEqual(['2026-11-21']);
    clock.advance(DAY);
    expect((await get('?key=a&window=3')).seen).toEqual(['2026-11-22', '2026-11-21']);
    expect((await get('?key=a&window=1')).seen).toEqual(['2026-11-23']);
    expect((await get('?key=b&window=3')).seen).toEqual([]);
  });
});
