import fs from 'node:fs';
import path from 'node:path';
import Parser from 'rss-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import freeGames, { parse, validateGames } from '../../sources/free-games.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { TestClock } from '../support/clock.ts';
import { describeConformance, readRecording } from '../support/conformance.ts';
import { describeFailureModes } from '../support/failure-modes.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const HOST = 'store-site-backend-static-ipv4.ak.epicgames.com';
const PATH = '/freeGamesPromotions';
const fixture = () => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, HOST, `${PATH}.json`), 'utf8')) as { data: { Catalog: { searchStore: { elements: Record<string, unknown>[] } } } };
const now = new Date('2026-11-21T02:00:00Z');

interface Game {
  rank: number;
  title: string;
  link: string;
  cover: string;
  is_free_now: boolean;
  free_start: string;
  free_start_at: number;
  free_end: string;
  free_end_at: number;
  original_price: number;
}
interface Body {
  code: number;
  data: Game[] | null;
}

describe('free-games parse', () => {
  it('keeps current and upcoming 100 %-off games with their free windows', () => {
    const d = parse(fixture(), now);
    expect(d.map((g) => g.title)).toEqual(['深海回响', '旧城快递', '神秘游戏']);
    expect(d[0]).toMatchObject({
      rank: 1,
      link: 'https://store.epicgames.com/zh-CN/p/deep-echo',
      cover: 'https://cdn1.epicgames.com/offer/deep-echo/wide_2560x1440.jpg',
      seller: 'Abyss Works',
      original_price: 90,
      original_price_desc: '¥90.00',
      currency: 'CNY',
      is_free_now: true,
      free_start: '2026/11/20 00:00:00',
      free_start_at: Date.parse('2026-11-19T16:00:00Z'),
      free_end: '2026/11/27 00:00:00',
      free_end_at: Date.parse('2026-11-26T16:00:00Z'),
    });
    expect(d[1]).toMatchObject({ link: 'https://store.epicgames.com/zh-CN/p/old-town-courier', is_free_now: false, free_start: '2026/11/27 00:00:00', original_price: 48 });
    // The next reveal is a placeholder: named in Chinese, linked to the free-games page.
    expect(d[2]).toMatchObject({ title: '神秘游戏', link: 'https://store.epicgames.com/zh-CN/free-games', cover: 'https://cdn1.epicgames.com/offer/vault/closed_1920x1080.png' });
    expect(d.length).toBe(3);
    expect(validateGames(d)).toBeUndefined();
  });

  it('drops games whose free week is over, and rejects broken copies', () => {
    const later = parse(fixture(), new Date('2026-11-27T00:00:00Z'));
    expect(later.map((g) => [g.title, g.is_free_now])).toEqual([
      ['旧城快递', true],
      ['神秘游戏', true],
    ]);
    const brokenWindow = parse(fixture(), now).map((g) => (g.rank === 2 ? { ...g, free_end_at: g.free_start_at } : g));
    expect(validateGames(brokenWindow)).toMatch(/game 2 has no title, no link or no valid free window/);
    const noElements = fixture();
    noElements.data.Catalog.searchStore.elements = [];
    expect(() => parse(noElements, now)).toThrow(expect.objectContaining({ kind: 'empty' }) as SourceError);
    expect(() => parse({ errors: [{ message: 'rate limited' }] }, now)).toThrow(/rate limited/);
    expect(() => parse([], now)).toThrow(SourceError);
  });
});

describe('free-games: a week without a free game is an answer, not an outage (as 60s)', () => {
  it('a feed with only a 50 %-off game and an ended free week is an empty list that validates', () => {
    const quiet = fixture();
    quiet.data.Catalog.searchStore.elements = quiet.data.Catalog.searchStore.elements.filter((e) => e.title === '钢铁花园' || e.title === '上周的馈赠');
    expect(parse(quiet, now)).toEqual([]);
    expect(validateGames(parse(quiet, now))).toBeUndefined();
    // Every free window of the fixture is over a week later.
    expect(parse(fixture(), new Date('2026-12-05T00:00:00Z'))).toEqual([]);
  });

  it('a game whose free week just ended but which is announced again counts as upcoming', () => {
    const again = fixture();
    const lastWeek = again.data.Catalog.searchStore.elements.find((e) => e.title === '上周的馈赠')!;
    lastWeek.promotions = {
      promotionalOffers: (lastWeek.promotions as { promotionalOffers: unknown[] }).promotionalOffers,
      upcomingPromotionalOffers: [{ promotionalOffers: [{ startDate: '2026-11-26T16:00:00.000Z', endDate: '2026-12-03T16:00:00.000Z', discountSetting: { discountType: 'PERCENTAGE', discountPercentage: 0 } }] }],
    };
    expect(parse(again, now).find((g) => g.title === '上周的馈赠')).toMatchObject({ is_free_now: false, free_start_at: Date.parse('2026-11-26T16:00:00Z') });
  });

  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: new TestClock(Date.parse('2026-12-05T00:00:00Z')).now, sources: [freeGames] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('answers 200 with an empty list, in json and text', async () => {
    const res = await svc.get('/v2/apis/free-games');
    expect(res.status).toBe(200);
    expect(((await res.json()) as Body).data).toEqual([]);
    expect(res.headers.get('x-total-count')).toBe('0');
    const text = await svc.get('/v2/apis/free-games?encoding=text');
    expect(text.status).toBe(200);
  });
});

describe('free-games through the server', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, sources: [freeGames] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('serves json, text, markdown, html and rss', async () => {
    const json = await svc.get('/v2/apis/free-games');
    expect(json.status).toBe(200);
    const body = (await json.json()) as Body;
    expect(body.data?.[0]?.title).toBe('深海回响');
    expect(upstream.hits(HOST)[0]?.query.get('locale')).toBe('zh-CN');
    expect(upstream.hits(HOST)[0]?.query.get('country')).toBe('CN');

    const text = await (await svc.get('/v2/apis/free-games?encoding=text')).text();
    expect(text).toContain('1. 《深海回响》 🔥\n   现在免费，截至 2026/11/27 00:00:00（原价 ¥90.00）\n   https://store.epicgames.com/zh-CN/p/deep-echo');
    expect(text).toContain('2. 《旧城快递》\n   2026/11/27 00:00:00 至 2026/12/04 00:00:00 免费');

    const md = await (await svc.get('/v2/apis/free-games?encoding=markdown')).text();
    expect(md).toContain('1. [深海回响](https://store.epicgames.com/zh-CN/p/deep-echo) (免费中)');
    expect(md).toContain('3. [神秘游戏](https://store.epicgames.com/zh-CN/free-games) (即将免费)');

    const html = await (await svc.get('/v2/apis/free-games?encoding=html')).text();
    expect(html).toContain('<a href="https://store.epicgames.com/zh-CN/p/deep-echo" rel="noopener noreferrer">深海回响</a>');

    const feed = await new Parser().parseString(await (await svc.get('/v2/apis/free-games?encoding=rss')).text());
    expect(feed.items.map((i) => i.title)).toEqual(['深海回响', '旧城快递', '神秘游戏']);
    expect(new Set(feed.items.map((i) => i.guid)).size).toBe(3);
    expect(Date.parse(feed.items[0]?.pubDate ?? '')).toBe(Date.parse('2026-11-19T16:00:00Z'));

    clock.advance(3601_000);
    const again = await new Parser().parseString(await (await svc.get('/v2/apis/free-games?encoding=rss&force-update=1')).text());
    expect(again.items.map((i) => i.guid)).toEqual(feed.items.map((i) => i.guid));
    expect(upstream.hits(HOST)).toHaveLength(2);
  });
});

describeFailureModes({
  sources: [freeGames],
  sourceId: 'free-games',
  path: '/v2/apis/free-games',
  host: HOST,
  upstreamPath: PATH,
  ttlSec: 3600,
  loginPage: { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>' },
  changedShape: { body: { data: { Catalog: { offers: [] } } } },
  empty: { body: { data: { Catalog: { searchStore: { elements: [], paging: { count: 0, total: 0 } } } } } },
});

describeConformance('epic', 'free-games on the real recording', (dir) => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    upstream.serve(HOST, PATH, { headers: { 'content-type': 'application/json;charset=UTF-8' }, body: readRecording(dir, 'freeGamesPromotions-en-US-2021-07-22-trimmed.json') });
    svc = await startService({ upstream, now: new TestClock(Date.parse('2021-07-23T00:00:00Z')).now, sources: [freeGames] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('finds the free game of the week and the next one', async () => {
    const body = (await (await svc.get('/v2/apis/free-games')).json()) as Body;
    expect(body.data?.map((g) => g.title)).toEqual(['Defense Grid: The Awakening', 'Mothergunship']);
    expect(body.data?.[0]).toMatchObject({
      link: 'https://store.epicgames.com/zh-CN/p/defense-grid',
      is_free_now: true,
      original_price: 9.99,
      free_start_at: Date.parse('2021-07-22T15:00:00Z'),
      free_end_at: Date.parse('2021-07-29T15:00:00Z'),
      free_end: '2021/07/29 23:00:00',
    });
    expect(body.data?.[1]).toMatchObject({ link: 'https://store.epicgames.com/zh-CN/p/mothergunship', is_free_now: false, free_start_at: Date.parse('2021-07-29T15:00:00Z') });
    expect(body.data?.[0]?.cover).toMatch(/^https:\/\/cdn1\.epicgames\.com\/.*1920x1080/);
    expect(upstream.unmatched).toEqual([]);
  });
});
