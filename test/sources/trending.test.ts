/**
 * Cross-platform trending: the title similarity on real-looking pairs (same event phrased
 * differently must merge; merely similar topics must not), the merge into events, and the route
 * over the stored hot lists of the project's fixtures in every encoding.
 */
import Parser from 'rss-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveNamedFixtures } from '../../scripts/demo.ts';
import { mergeEvents, overlap, placeScore, profile, sameEvent, DICE_THRESHOLD, type PlatformList } from '../../sources/_shared/trending.ts';
import type { Trending } from '../../sources/trending.ts';
import { paramsKey, parseParams } from '../../src/kernel/params.ts';
import type { FetchedSource } from '../../src/kernel/source.ts';
import type { ListItem } from '../../src/kernel/list-items.ts';
import { TestClock } from '../support/clock.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';

/** The same event as titled on two platforms (weibo, douyin, baidu, zhihu, toutiao, quark…). */
const SAME_EVENT: [string, string][] = [
  ['新能源车冬季续航实测', '新能源车冬季续航'],
  ['#国产大飞机新航线开通#', '国产大飞机开通新国际航线'],
  ['如何看待新能源车冬季续航缩水？', '新能源车冬季续航实测'],
  ['春运火车票今起开售', '2027年春运火车票今日开售'],
  ['中国女排3比0战胜日本', '女排3:0横扫日本'],
  ['年度汉字评选揭晓', '2026年度汉字揭晓'],
  ['博物馆夜游火爆', '博物馆夜场预约火爆'],
  ['神舟二十号发射成功', '神舟二十号载人飞船发射'],
  ['台风"海葵"登陆福建', '台风海葵已在福建登陆'],
  ['王一博新剧官宣', '#王一博 新剧#'],
  ['航天员完成出舱任务', '神舟航天员圆满完成出舱任务'],
  ['如何评价新上映的国产科幻片《星海》？', '国产科幻片星海上映'],
  ['初雪来了', '北京初雪来了'],
  ['iPhone 18 发布', '苹果发布iPhone18'],
  ['国际空间站完成补给对接', '国际空间站补给飞船对接成功'],
  ['#跨年演出门票开售#', '跨年演出门票今日开售'],
  ['为什么年轻人开始喜欢逛博物馆？', '年轻人爱上逛博物馆'],
  ['新型储能电站并网发电', '新型储能电站　并网发电'],
  ['冬至饺子馅大比拼', '冬至饺子馅大比拼'],
  ['围棋世界赛决赛今日开战', '围棋世界赛决赛'],
  ['ＡＩ大模型价格战', 'AI 大模型为什么开始打价格战？'],
  ['多地迎来今冬首场降雪', '今冬首场降雪'],
];

/** Merely similar topics: one template with another team, company, city, player or number. */
const DIFFERENT_EVENTS: [string, string][] = [
  ['中国女排3比0战胜日本', '中国女排3比1战胜美国'],
  ['中国女排战胜日本', '中国女排不敌美国'],
  ['湖人vs勇士', '湖人vs掘金'],
  ['国足0比3不敌日本', '国足2比0战胜印尼'],
  ['詹姆斯得到30分', '库里得到30分'],
  ['梅西进球', 'C罗进球'],
  ['王者荣耀世界赛决赛', '英雄联盟世界赛决赛'],
  ['小米新品发布会', '华为新品发布会'],
  ['苹果秋季发布会', '华为秋季发布会'],
  ['比亚迪新车发布会', '小鹏新车发布会'],
  ['北京初雪来了', '上海初雪来了'],
  ['上海迪士尼新园区开园', '北京环球影城新园区开园'],
  ['国产动画电影定档', '国产科幻电影定档'],
  ['新一批国产游戏版号公布', '新一批进口游戏版号公布'],
  ['2026年高考成绩公布', '2025年高考成绩公布'],
  ['冬季流感防护指南', '冬季用电高峰保供应'],
  ['城市夜跑路线推荐', '城市骑行周末路线'],
  ['第一次养猫需要准备什么？', '猫咪冬季护理'],
  ['高铁新线今日开通', '地铁新线路试运营'],
];

describe('title similarity', () => {
  it.each(SAME_EVENT)('merges 「%s」 and 「%s」', (a, b) => {
    expect(sameEvent(profile(a), profile(b))).toBe(true);
    expect(sameEvent(profile(b), profile(a))).toBe(true);
  });

  it.each(DIFFERENT_EVENTS)('keeps 「%s」 and 「%s」 apart', (a, b) => {
    expect(sameEvent(profile(a), profile(b))).toBe(false);
    expect(sameEvent(profile(b), profile(a))).toBe(false);
  });

  it('the false friends are close by bigrams alone: the number and slot guards are what keeps them apart', () => {
    const close = DIFFERENT_EVENTS.filter(([a, b]) => overlap(profile(a), profile(b)).dice >= DICE_THRESHOLD);
    expect(close.length).toBeGreaterThanOrEqual(5);
  });

  it('ignores width, case, hashtags, punctuation and spaces', () => {
    expect(profile('#ＡＩ 大模型，价格战！#').key).toBe(profile('ai大模型价格战').key);
    expect(profile('女排3:0横扫日本').key).toBe('女排3比0横扫日本');
    expect(sameEvent(profile('！！'), profile('？？'))).toBe(false);
  });
});

const items = (...titles: string[]): ListItem[] => titles.map((title, i) => ({ rank: i + 1, title, link: `https://example.com/${i}`, hot: 1000 - i }));

describe('mergeEvents', () => {
  it('merges across platforms, ranks by platform count then placement, and keeps single items after', () => {
    const lists: PlatformList[] = [
      { sourceId: 'weibo', name: '微博', items: items('城市夜跑路线推荐', '新能源车冬季续航实测', '国产大飞机新航线开通') },
      { sourceId: 'douyin', name: '抖音', items: items('新能源车冬季续航', '初雪来了', '国产大飞机开通新国际航线') },
      { sourceId: 'zhihu', name: '知乎', items: items('如何看待新能源车冬季续航缩水？', '第一次养猫需要准备什么？') },
    ];
    const events = mergeEvents(lists);
    expect(events[0]).toMatchObject({ title: '新能源车冬季续航', platforms: [{ sourceId: 'douyin', rank: 1 }, { sourceId: 'zhihu', rank: 1 }, { sourceId: 'weibo', rank: 2 }] });
    expect(events[1]?.platforms.map((p) => p.sourceId).sort()).toEqual(['douyin', 'weibo']);
    // Tied placements (third of three on both): the title of the first platform in id order.
    expect(events[1]?.title).toBe('国产大飞机开通新国际航线');
    expect(events.slice(2).every((e) => e.platforms.length === 1)).toBe(true);
    expect(events.slice(2).map((e) => e.title)).toEqual(['城市夜跑路线推荐', '初雪来了', '第一次养猫需要准备什么？']);
    expect(events[0]!.score).toBeCloseTo(placeScore(1, 3) + placeScore(1, 2) + placeScore(2, 3), 3);
  });

  it('never takes two entries of one platform into an event, and does not chain two events through a third', () => {
    const lists: PlatformList[] = [
      { sourceId: 'weibo', name: '微博', items: items('北京初雪来了', '上海初雪来了') },
      { sourceId: 'douyin', name: '抖音', items: items('初雪来了') },
    ];
    const events = mergeEvents(lists);
    expect(events.map((e) => e.platforms.map((p) => `${p.sourceId}:${p.title}`).sort())).toEqual([['douyin:初雪来了', 'weibo:北京初雪来了'], ['weibo:上海初雪来了']]);
  });

  it('answers nothing for no lists', () => {
    expect(mergeEvents([])).toEqual([]);
  });
});

interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

const PLATFORM_SOURCES: [string, Record<string, string>][] = [
  ['hot-microblog', {}],
  ['hot-short-video-a', {}],
  ['search-a', { board: 'hot' }],
  ['hot-qa-site', {}],
  ['hot-news-feed', {}],
  ['hot-search-b', {}],
  ['hot-video-site', {}],
  ['hot-lifestyle-a', {}],
];

async function fetchList(svc: TestService, id: string, raw: Record<string, string>): Promise<void> {
  const source = svc.registry.byId.get(id) as FetchedSource;
  const params = parseParams(source.params, raw);
  await svc.engine.run(source, params, paramsKey(params));
}

describe('/v2/apis/trending through the server', () => {
  const upstream = new Upstream();
  let svc: TestService;
  const clock = new TestClock();

  beforeAll(async () => {
    await upstream.start();
    serveNamedFixtures(upstream);
    svc = await startService({ upstream, now: clock.now });
  });
  afterAll(async () => {
    await svc?.close();
    await upstream.stop();
  });

  it('answers 503 with Retry-After while no hot list was fetched', async () => {
    const res = await svc.get('/v2/apis/trending');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('60');
    expect(((await res.json()) as Envelope<null>).message).toMatch(/No hot list has been fetched yet/);
  });

  it('merges the stored lists into events with their platforms, rank, heat and link; marks lists not fetched', async () => {
    for (const [id, raw] of PLATFORM_SOURCES.filter(([id]) => id !== 'hot-lifestyle-a')) await fetchList(svc, id, raw);
    const res = await svc.get('/v2/apis/trending');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-cache')).toBe('MISS');
    const { data } = (await res.json()) as Envelope<Trending>;
    expect(data.total).toBe(30);
    expect(data.events.map((e) => e.rank)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    const counts = data.events.map((e) => e.platform_count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    const car = data.events.find((e) => e.platforms.some((p) => p.title === '新能源车冬季续航实测'));
    expect(car?.platforms.map((p) => [p.source, p.title]).sort()).toEqual([
      ['hot-microblog', '新能源车冬季续航实测'],
      ['hot-short-video-a', '新能源车冬季续航'],
    ]);
    const weibo = car!.platforms.find((p) => p.source === 'hot-microblog')!;
    expect(weibo).toEqual({ source: 'hot-microblog', name: '微博热搜', rank: 2, title: '新能源车冬季续航实测', hot_value: 1893420, link: expect.stringMatching(/^https:\/\/s\.weibo\.com\//) });
    for (const e of data.events) expect(new Set(e.platforms.map((p) => p.source)).size).toBe(e.platforms.length);
    expect(data.events.filter((e) => e.platform_count >= 2).length).toBeGreaterThanOrEqual(2);
    expect(data.lists.find((l) => l.source === 'hot-lifestyle-a')).toMatchObject({ missing: true, items: 0, updated_at: null });
    expect(data.lists.find((l) => l.source === 'hot-microblog')).toMatchObject({ missing: false, stale: false, items: 12, updated_at: clock.t });
    expect(data.updated_at).toBe(clock.t);
  });

  it('limit chooses how many events; out of range or not a number is a 400 naming limit', async () => {
    const { data } = (await (await svc.get('/v2/apis/trending?limit=3')).json()) as Envelope<Trending>;
    expect(data.events).toHaveLength(3);
    for (const bad of ['0', '101', 'ten', '2.5']) {
      const res = await svc.get(`/v2/apis/trending?limit=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(((await res.json()) as Envelope<null>).message).toMatch(/"limit".*from 1 to 100/);
    }
  });

  it('renders text, markdown, html and an RSS feed that a real parser reads', async () => {
    const text = await (await svc.get('/v2/apis/trending?encoding=text&limit=5')).text();
    // The heat after the title is heat (the highest on any platform), the platforms are on the next line.
    expect(text).toMatch(/^全网热点\n\n1\. .+\([\d.]+万?\)\n {3}\d 个平台：.+#\d+/);
    const md = await (await svc.get('/v2/apis/trending?encoding=markdown&limit=5')).text();
    expect(md).toMatch(/^# 全网热点/);
    expect(md).toMatch(/^1\. \[.+\]\(https:\/\/.+\)/m);
    const html = await (await svc.get('/v2/apis/trending?encoding=html&limit=5')).text();
    expect(html).toContain('<h1>全网热点</h1>');
    expect(html).toContain('微博热搜 #2');
    // The 热度 column shows heat, never the platform count.
    const heatCells = [...html.matchAll(/<td class="h">([^<]*)<\/td>/g)].map((m) => m[1]);
    expect(heatCells.length).toBeGreaterThan(0);
    for (const cell of heatCells) expect(cell).toMatch(/^(?:[\d.]+[万亿]?)?$/);
    const res = await svc.get('/v2/apis/trending?encoding=rss');
    expect(res.headers.get('content-type')).toBe('application/rss+xml; charset=utf-8');
    const feed = await new Parser().parseString(await res.text());
    expect(feed.title).toBe('全网热点');
    expect(feed.items).toHaveLength(30);
    const car = feed.items.find((i) => i.title === '新能源车冬季续航实测' || i.title === '新能源车冬季续航');
    expect(car?.link).toMatch(/^https:\/\//);
    expect(car?.contentSnippet).toMatch(/微博热搜 #2/);
    expect(new Set(feed.items.map((i) => i.guid)).size).toBe(30);
    expect(upstream.unmatched).toEqual([]);
  });
});
