import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import goldPrice, { parse, parseFeed, parsePage, validateGold } from '../../sources/gold-price.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { TestClock } from '../support/clock.ts';
import { describeFailureModes } from '../support/failure-modes.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const FEED_HOST = 'res.huangjinjiage.com.cn';
const PAGE_HOST = 'www.huangjinjiage.cn';
const PAGE_PATH = '/jinrijinjia.html';
const feed = () => fs.readFileSync(path.join(FIXTURE_DIR, FEED_HOST, 'panjia2.js'), 'utf8');
const pageBytes = () => fs.readFileSync(path.join(FIXTURE_DIR, PAGE_HOST, PAGE_PATH));
const page = () => new TextDecoder('gbk').decode(pageBytes());
const gbk = (html: string) => Buffer.from(new TextEncoder().encode(html)); // ASCII-only pages are the same in GBK and UTF-8
const now = new Date('2026-11-21T02:00:00Z');

interface Body {
  code: number;
  data: { date: string; metals: { name: string; sell_price: string; sell: number }[]; stores: { brand: string; price: string; price_value: number }[]; banks: unknown[]; recycle: unknown[] };
}

describe('gold-price parse', () => {
  it('reads every metal of the feed with its unit', () => {
    const metals = parseFeed(feed(), now);
    expect(metals.map((m) => m.name)).toEqual(['今日金价', '黄金9999', '黄金T+D', '伦敦金', '纽约黄金', '白银', '铂金', '钯金']);
    const read = { updated: '2026-11-21 10:00:00', updated_at: now.getTime() };
    // 60s's prices are the feed's text; ours are the same as numbers.
    expect(metals[0]).toEqual({ name: '今日金价', sell_price: '968.5', today_price: '962.3', high_price: '971.2', low_price: '960.1', unit: '元/克', sell: 968.5, open: 962.3, high: 971.2, low: 960.1, ...read });
    expect(metals.find((m) => m.name === '伦敦金')).toEqual({ name: '伦敦金', sell_price: '4120.35', today_price: '4098.1', high_price: '4135.6', low_price: '4090.2', unit: '美元/盎司', sell: 4120.35, open: 4098.1, high: 4135.6, low: 4090.2, ...read });
    expect(metals.find((m) => m.name === '白银')?.sell).toBe(12.35);
  });

  it('refuses a shifted feed instead of serving wrong numbers', () => {
    const shifted = feed().replace('panjia2 = "', 'panjia2 = "0,');
    expect(() => parseFeed(shifted, now)).toThrow(/layout changed/);
    // One implausible metal is dropped, not served.
    const silverOff = feed().replace('12.35,12.1,12.48,12.02', '12.35,12.1,1.48,12.02');
    expect(parseFeed(silverOff, now).map((m) => m.name)).not.toContain('白银');
    expect(() => parseFeed('var other = 1;', now)).toThrow(SourceError);
  });

  it('reads the GB2312 page tables by their header labels', () => {
    const t = parsePage(page(), now);
    expect(t.stores).toHaveLength(4);
    expect(t.stores[0]).toEqual({
      brand: '周大福',
      product: '黄金',
      price: '1388',
      price_value: 1388,
      unit: '元/克',
      formatted: '1388元/克',
      quoted: '2026-11-21',
      quoted_at: Date.parse('2026-11-21T00:00:00+08:00'),
      updated: '2026-11-21',
      updated_at: Date.parse('2026-11-21T00:00:00+08:00'),
    });
    expect(t.banks[0]).toEqual({
      bank: '工商银行',
      product: '如意金条',
      price: '982.60',
      price_value: 982.6,
      unit: '元/克',
      formatted: '982.60元/克',
      quoted: '09:45:02',
      quoted_at: Date.parse('2026-11-21T09:45:02+08:00'),
      time: '09:45:02',
      updated: '2026-11-21 09:45:02',
      updated_at: Date.parse('2026-11-21T09:45:02+08:00'),
    });
    expect(t.recycle.map((r) => [r.type, r.price_value, r.purity])).toEqual([
      ['黄金回收', 958, '99.99%'],
      ['18K金回收', 716, '75%'],
      ['铂金回收', 296, '99.5%'],
    ]);
    // Columns follow the labels, not the positions.
    const swapped = page().replace('<th>黄金品牌</th><th>黄金品种</th>', '<th>黄金品种</th><th>黄金品牌</th>').replace('<td>周大福</td><td>黄金价格</td>', '<td>黄金价格</td><td>周大福</td>');
    expect(parsePage(swapped, now).stores[0]).toMatchObject({ brand: '周大福', product: '黄金' });
  });

  it('validates plausibility and rejects broken copies', () => {
    const d = parse(feed(), page(), now);
    expect(d.date).toBe('2026-11-21');
    expect(validateGold(d)).toBeUndefined();
    expect(validateGold({ ...d, metals: d.metals.slice(0, 2) })).toMatch(/only 2/);
    expect(validateGold({ ...d, stores: [], banks: [], recycle: [] })).toMatch(/no store/);
    expect(validateGold({ ...d, stores: [{ ...d.stores[0]!, price: '0', price_value: 0 }] })).toMatch(/implausible price 0/);
    expect(() => parsePage('<html><body><h2>网站改版</h2></body></html>', now)).toThrow(/none of the headings/);
  });
});

describe('gold-price through the server', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, sources: [goldPrice] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('decodes the GB2312 page and serves json, text, markdown and html', async () => {
    // The site sends no charset in its header; the page is GB2312.
    upstream.serve(PAGE_HOST, PAGE_PATH, { headers: { 'content-type': 'text/html' }, body: pageBytes() });
    const json = await svc.get('/v2/apis/gold-price');
    expect(json.status).toBe(200);
    const body = (await json.json()) as Body;
    expect(body.data.metals[0]).toMatchObject({ name: '今日金价', sell_price: '968.5', sell: 968.5 });
    expect(body.data.stores[0]).toMatchObject({ brand: '周大福', price: '1388', price_value: 1388 });
    expect(upstream.hits(FEED_HOST)[0]?.query.get('t')).toBe(String(clock.t));

    const text = await (await svc.get('/v2/apis/gold-price?encoding=text')).text();
    expect(text).toMatch(/^今日金价（2026-11-21 10:00:00）\n\n〓 实时行情 〓\n今日金价：968\.5 元\/克（开 962\.3 高 971\.2 低 960\.1）/);
    expect(text).toContain('〓 金店金价 〓\n周大福 黄金：1388 元/克');
    expect(text).toContain('工商银行 如意金条：982.6 元/克');
    expect(text).toContain('〓 黄金回收 〓\n黄金回收：958 元/克（99.99%）\n18K金回收：716 元/克（75%）');
    expect(text.endsWith('铂金回收：296 元/克（99.5%）\n')).toBe(true);

    const md = await (await svc.get('/v2/apis/gold-price?encoding=markdown')).text();
    expect(md).toContain('| 伦敦金 | 4120.35 | 4098.1 | 4135.6 | 4090.2 | 美元/盎司 |');
    expect(md).toContain('| 老凤祥 | 黄金 | 1392 | 元/克 | 2026-11-21 |');
    const html = await (await svc.get('/v2/apis/gold-price?encoding=html')).text();
    expect(html).toContain('<tr><td>建设银行</td><td>龙鼎金</td><td>979.3</td><td>元/克</td><td>09:46:10</td></tr>');
  });

  it('keeps one history row per day', async () => {
    clock.advance(601_000);
    await svc.get('/v2/apis/gold-price?force-update=1');
    clock.advance(86_400_000);
    await svc.get('/v2/apis/gold-price?force-update=1');
    const rows = await svc.store.listHistory('gold-price', '', 10);
    expect(rows.map((r) => r.historyKey)).toEqual(['2026-11-22', '2026-11-21']);
  });
});

describeFailureModes({
  sources: [goldPrice],
  sourceId: 'gold-price',
  path: '/v2/apis/gold-price',
  host: PAGE_HOST,
  upstreamPath: PAGE_PATH,
  ttlSec: 600,
  loginPage: { status: 403, headers: { 'content-type': 'text/html' }, body: gbk('<html><body>403 Forbidden</body></html>') },
  changedShape: { headers: { 'content-type': 'text/html' }, body: gbk('<html><body><h2>new layout</h2><div id="app"></div></body></html>') },
  empty: {
    headers: { 'content-type': 'text/html; charset=gb2312' },
    body: emptyTablesPage(),
  },
});

/** The fixture page with every price table emptied, kept in GB2312 bytes (the cut is made on the latin1 view of the bytes). */
function emptyTablesPage(): Buffer {
  const bytes = pageBytes().toString('latin1');
  return Buffer.from(bytes.replace(/<tbody>[\s\S]*?<\/tbody>/g, '<tbody></tbody>'), 'latin1');
}
