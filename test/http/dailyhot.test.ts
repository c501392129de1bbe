/**
 * `/dailyhot/*`, the DailyHotApi drop-in, checked against DailyHotApi's own types
 * (imsyy/DailyHotApi src/types.d.ts: `RouterData` around `ListItem`s, and its registry's `/all`)
 * and against the route names its front end imsyy/DailyHot requests by default
 * (src/store/index.js, the lists with `show: true`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveNamedFixtures } from '../../scripts/demo.ts';
import { DAILYHOT_ROUTES } from '../../src/http/dailyhot-routes.ts';
import { serveDeclaredLists } from '../support/declared-list-fixtures.ts';
import { readFeed } from '../support/hot-list-endpoint.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';

/** The DailyHot front end's default lists, in its order. */
const FRONT_END_DEFAULTS = [
  'bilibili', 'weibo', 'douyin', 'zhihu', '36kr', 'baidu', 'sspai', 'ithome', 'thepaper', 'toutiao', 'tieba', 'juejin',
  'qq-news', 'douban-movie', 'genshin', 'starrail', 'lol', 'netease-news', 'weread', 'douban-group', 'ngabbs', 'hellogithub', 'jianshu', 'zhihu-daily',
];

/** The keys of DailyHotApi's `RouterData` (with `code`) and of its `ListItem`. */
const ROUTER_KEYS = ['code', 'name', 'title', 'type', 'description', 'params', 'link', 'total', 'updateTime', 'fromCache', 'data', 'message'];
const ITEM_KEYS = ['id', 'title', 'cover', 'author', 'desc', 'hot', 'timestamp', 'url', 'mobileUrl'];

type Json = Record<string, unknown>;

/** The query a route's conformance check sends where its default depends on the day (the fixture holds November and December). */
const SAMPLE_QUERY: Readonly<Record<string, string>> = { history: '?month=11&day=21' };

/** Whether an answer is a `RouterData` of DailyHotApi's types, item by item. */
function expectRouterData(body: Json, name: string): void {
  for (const k of Object.keys(body)) expect(ROUTER_KEYS, `${name}: key ${k}`).toContain(k);
  expect(body.code).toBe(200);
  expect(body.name).toBe(name);
  expect(typeof body.title).toBe('string');
  expect(typeof body.type).toBe('string');
  if ('description' in body) expect(typeof body.description).toBe('string');
  expect(body.link).toMatch(/^https?:\/\//);
  expect(typeof body.updateTime === 'string' || typeof body.updateTime === 'number').toBe(true);
  expect(Number.isNaN(Date.parse(String(body.updateTime)))).toBe(false);
  expect(typeof body.fromCache).toBe('boolean');
  const data = body.data as Json[];
  expect(Array.isArray(data)).toBe(true);
  expect(body.total).toBe(data.length);
  expect(data.length, name).toBeGreaterThan(0);
  for (const item of data) {
    for (const k of Object.keys(item)) expect(ITEM_KEYS, `${name}: item key ${k}`).toContain(k);
    expect(['string', 'number']).toContain(typeof item.id);
    expect(typeof item.title).toBe('string');
    for (const k of ['cover', 'author', 'desc']) if (k in item) expect(typeof item[k]).toBe('string');
    if ('hot' in item) expect(typeof item.hot).toBe('number');
    if ('timestamp' in item) expect(typeof item.timestamp).toBe('number');
    expect(item.url).toMatch(/^https?:\/\//);
    expect(item.mobileUrl).toMatch(/^https?:\/\//);
  }
}

describe('/dailyhot, the DailyHotApi drop-in', () => {
  const upstream = new Upstream();
  let svc: TestService;
  const get = async (path: string) => {
    const res = await svc.get(path);
    return { res, body: (await res.json()) as Json };
  };

  beforeAll(async () => {
    await upstream.start();
    serveNamedFixtures(upstream);
    serveDeclaredLists(upstream);
    upstream.serve('bbs-api-static.miyoushe.com', '/painter/wapi/getNewsList', (req) =>
      req.query.get('gids') === '8' && req.query.get('type') === '3' ? upstream.fileReply('bbs-api-static.miyoushe.com/painter/wapi/getNewsList-gids-8-type-3.json') : upstream.fileReply('bbs-api-static.miyoushe.com/painter/wapi/getNewsList-gids-1.json'),
    );
    svc = await startService({ upstream });
  });
  afterAll(async () => {
    await svc?.close();
    await upstream.stop();
  });

  it("serves every list the DailyHot front end shows by default", async () => {
    for (const name of FRONT_END_DEFAULTS) {
      const { res, body } = await get(`/dailyhot/${name}`);
      expect(res.status, `${name}: ${JSON.stringify(body)}`).toBe(200);
      expectRouterData(body, name);
    }
  });

  for (const route of DAILYHOT_ROUTES) {
    it(`${route.name} answers DailyHotApi's RouterData`, async () => {
      const { res, body } = await get(`/dailyhot/${route.name}${SAMPLE_QUERY[route.name] ?? ''}`);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expectRouterData(body, route.name);
      expect(body).toMatchObject({ title: route.title, link: route.link });
    });
  }

  it('maps our items to its ListItem: ids, heat, times and the phone link', async () => {
    const { body } = await get('/dailyhot/thepaper');
    expect((body.data as Json[])[0]).toEqual({
      id: '31234001',
      title: '多地发布寒潮预警，这些地方将迎大风降温',
      cover: 'https://imagecloud.thepaper.cn/thepaper/image/2026/11/21/31234001.jpg',
      hot: 2836,
      timestamp: 1795226400000,
      url: 'https://www.thepaper.cn/newsDetail_forward_31234001',
      mobileUrl: 'https://m.thepaper.cn/newsDetail_forward_31234001',
    });
  });

  it('answers hackernews from our stored front page: score as heat, the author, the post time', async () => {
    const { body } = await get('/dailyhot/hackernews');
    expect(body).toMatchObject({ name: 'hackernews', title: 'Hacker News', type: 'Popular' });
    const first = (body.data as Json[])[0]!;
    expect(first).toMatchObject({ id: expect.any(Number), author: expect.any(String), hot: expect.any(Number), timestamp: expect.any(Number) });
    const own = (await get('/v2/apis/tech-forum/top')).body.data as Json[];
    expect(body.data).toHaveLength(own.length);
    expect(first).toMatchObject({ id: own[0]!.id, title: own[0]!.title, url: own[0]!.link, hot: own[0]!.score });
  });

  it("answers history for its month and day, with its params, and names a bad one", async () => {
    const { body } = await get('/dailyhot/history?month=11&day=21');
    expect(body).toMatchObject({ name: 'history', type: '11-21', params: { month: '月份', day: '日期' } });
    const own = (await get('/v2/apis/today-in-history?date=11-21')).body.data as { items: Json[] };
    expect((body.data as Json[]).map((i) => i.title)).toEqual(own.items.map((i) => i.title));
    expect((body.data as Json[])[0]).toMatchObject({ title: own.items[0]!.title, desc: own.items[0]!.description, url: own.items[0]!.link });
    const feed = await svc.get('/dailyhot/history?month=11&day=21&rss=true&limit=2');
    expect(feed.status).toBe(200);
    expect((await readFeed(await feed.text())).items).toHaveLength(2);
    const badMonth = await get('/dailyhot/history?month=13&day=1');
    expect(badMonth.res.status).toBe(400);
    expect(badMonth.body.message).toMatch(/"month"/);
    const badDay = await get('/dailyhot/history?month=11&day=31');
    expect(badDay.res.status).toBe(400);
    expect(badDay.body.message).toMatch(/"day"/);
    expect((await get('/dailyhot/history?month=2&day=29')).res.status).not.toBe(400);
  });

  it('answers miyoushe for its game and type, naming them in title and type, with its params', async () => {
    const first = await get('/dailyhot/miyoushe');
    expect(first.body).toMatchObject({ title: '米游社 · 崩坏3', type: '最新公告', params: { game: { name: '游戏分类' }, type: { name: '榜单分类', type: { '1': '公告', '2': '活动', '3': '资讯' } } } });
    const zzz = await get('/dailyhot/miyoushe?game=8&type=3');
    expect(zzz.body).toMatchObject({ title: '米游社 · 绝区零', type: '最新资讯' });
    expect((zzz.body.data as Json[])[0]).toMatchObject({ url: 'https://www.miyoushe.com/zzz/article/64000001', mobileUrl: 'https://m.miyoushe.com/zzz/#/article/64000001' });
    const asked = upstream.hits('bbs-api-static.miyoushe.com').at(-1)?.query;
    expect([asked?.get('gids'), asked?.get('type')]).toEqual(['8', '3']);
    const bad = await get('/dailyhot/miyoushe?game=7');
    expect(bad.res.status).toBe(400);
    expect(bad.body.message).toMatch(/"game".*"1".*"8"/);
    expect((await get('/dailyhot/miyoushe?type=9')).body.message).toMatch(/"type"/);
  });

  it('lists its routes at /all in its registry shape', async () => {
    const { res, body } = await get('/dailyhot/all');
    expect(res.status).toBe(200);
    expect(body.code).toBe(200);
    const routes = body.routes as { name: string; path: string }[];
    expect(body.count).toBe(routes.length);
    for (const name of FRONT_END_DEFAULTS) expect(routes).toContainEqual({ name, path: `/${name}` });
  });

  it('cuts the list at limit, and names limit when it is not a number', async () => {
    const { body } = await get('/dailyhot/zhihu-daily?limit=3');
    expect(body.total).toBe(3);
    expect(body.data).toHaveLength(3);
    const bad = await get('/dailyhot/zhihu-daily?limit=many');
    expect(bad.res.status).toBe(400);
    expect(bad.body.message).toMatch(/"limit"/);
  });

  it('refetches on cache=false (once a minute at most) and says whether it answered from the cache', async () => {
    const first = await get('/dailyhot/v2ex');
    const second = await get('/dailyhot/v2ex');
    expect(second.body.fromCache).toBe(true);
    const before = upstream.hits('www.v2ex.com').length;
    const forced = await get('/dailyhot/v2ex?cache=false');
    expect(forced.body.fromCache).toBe(false);
    expect(upstream.hits('www.v2ex.com').length).toBe(before + 1);
    expect(first.body.data).toEqual(forced.body.data);
    expect((await get('/dailyhot/v2ex?cache=maybe')).res.status).toBe(400);
  });

  it('answers RSS on rss=true, cut at limit', async () => {
    const res = await svc.get('/dailyhot/juejin?rss=true&limit=2');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/rss\+xml/);
    const feed = await readFeed(await res.text());
    expect(feed.items).toHaveLength(2);
    expect(feed.items[0]?.title).toBe('2026 年前端框架性能横评');
    const full = await readFeed(await (await svc.get('/dailyhot/juejin?rss=true')).text());
    expect(full.items).toHaveLength(8);
  });

  it("takes a route's type options and names the ones served", async () => {
    const tv = await get('/dailyhot/baidu?type=teleplay');
    expect(tv.res.status).toBe(200);
    expect(tv.body.type).toBe('电视剧');
    expect((await get('/dailyhot/baidu')).body.type).toBe('热搜');
    const tech = await get('/dailyhot/bilibili?type=36');
    expect(tech.body.type).toBe('热榜 · 科技');
    expect(upstream.hits('api.bilibili.com').at(-1)?.query.get('tid')).toBe('36');
    expect((await get('/dailyhot/bilibili?type=188')).body.type).toBe('热榜 · 数码');
    const other = await get('/dailyhot/bilibili?type=999');
    expect(other.res.status).toBe(400);
    expect(other.body.message).toMatch(/"type".*"0".*"188"/);
    const week = await get('/dailyhot/smzdm?type=7');
    expect(week.body.type).toBe('周热门');
    expect(upstream.hits('post.smzdm.com').at(-1)?.query.get('unit')).toBe('7');
    expect((await get('/dailyhot/weread?type=bogus')).body.message).toMatch(/"type".*"rising".*"newbook"/);
    // A list without variants ignores type, as DailyHotApi does.
    expect((await get('/dailyhot/weibo?type=x')).res.status).toBe(200);
  });

  it('answers its route names under /v2/apis as aliases of our neutral paths', async () => {
    const alias = await get('/v2/apis/thepaper');
    const own = await get('/v2/apis/hot-news-paper');
    expect(alias.res.status).toBe(200);
    expect(alias.body).toEqual(own.body);
    expect((await get('/v2/apis/tieba?encoding=json')).body).toEqual((await get('/v2/apis/search-a/forum')).body);
    // A route with a path parameter: the alias is its default variant's path.
    expect((await get('/v2/apis/hackernews')).body).toEqual((await get('/v2/apis/tech-forum/top')).body);
    const catalogue = (await get('/v2/apis')).body.data as { endpoints: { path: string; id: string; aliases: string[] }[] };
    for (const route of DAILYHOT_ROUTES) {
      const entry = catalogue.endpoints.find((e) => e.path === `/v2/apis${route.path}`);
      expect(entry, route.name).toBeDefined();
      expect(entry?.id, route.name).toBe(route.source);
      expect(entry?.aliases, route.name).toContain(`/v2/apis/${route.name}`);
    }
  });

  it('answers an unknown route with a 404 pointing at /dailyhot/all', async () => {
    const { res, body } = await get('/dailyhot/no-such-list');
    expect(res.status).toBe(404);
    expect(body.message).toMatch(/\/dailyhot\/all/);
  });
});

describe('/dailyhot under the /v2/apis abuse limits', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    serveDeclaredLists(upstream);
    svc = await startService({ upstream, env: { APIS_RATE_LIMIT: '4', APIS_FORCE_UPDATE_LIMIT: '1' } });
  });
  afterAll(async () => {
    await svc?.close();
    await upstream.stop();
  });

  it('counts its requests per client, and cache=false as a force-update', async () => {
    expect((await svc.get('/dailyhot/thepaper')).status).toBe(200);
    expect((await svc.get('/dailyhot/thepaper?cache=false')).status).toBe(200);
    const forced = await svc.get('/dailyhot/thepaper?cache=false');
    expect(forced.status).toBe(429);
    expect(((await forced.json()) as Json).message).toMatch(/force-update/);
    expect((await svc.get('/dailyhot/all')).status).toBe(200);
    const over = await svc.get('/dailyhot/thepaper');
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
