/**
 * Cross-platform trending: the title similarity on real-looking pairs (same event phrased
 * differently must merge; merely similar topics must not), the merge into events, and the route
 * over the stored hot lists of the project's fixtures in every encoding.
 */
import Parser from 'rss-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveNamedFixtures } from '../../scripts/demo.ts';
import { DEFAULT_CLUSTER } from '../../sources/_shared/events/cluster.ts';
import { normaliseTitle } from '../../sources/_shared/events/normalise.ts';
import { overlapScore } from '../../sources/_shared/events/similarity.ts';
import { FeatureFrequencies, itemFeatures, mergeEvents, placeScore, sameEvent, type PlatformEntry, type PlatformList } from '../../sources/_shared/trending.ts';
import type { Trending } from '../../sources/trending.ts';
import { paramsKey, parseParams } from '../../src/kernel/params.ts';
import type { ListItem } from '../../src/kernel/list-items.ts';
import trendingSource, { eventId } from '../../sources/trending.ts';
import { asArray, asRecord, asString, hotListRows, validateHotList } from '../../sources/_shared/hot-list.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { defineSource, type AnySource, type FetchedSource, type TrendingRole } from '../../src/kernel/source.ts';
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
  ['普京与金正恩在北京会谈', '金正恩与普京会谈'],
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
  ['伊朗宣布对以色列新一轮导弹袭击', '以色列对伊朗发动新一轮打击'],
  ['美国对中国加征关税', '中国对美国加征关税'],
];

describe('title similarity', () => {
  it.each(SAME_EVENT)('merges 「%s」 and 「%s」', (a, b) => {
    expect(sameEvent(a, b)).toBe(true);
    expect(sameEvent(b, a)).toBe(true);
  });

  it.each(DIFFERENT_EVENTS)('keeps 「%s」 and 「%s」 apart', (a, b) => {
    expect(sameEvent(a, b)).toBe(false);
    expect(sameEvent(b, a)).toBe(false);
  });

  it('the false friends are close by words alone: the number and slot guards are what keeps them apart', () => {
    const close = DIFFERENT_EVENTS.filter(([a, b]) => overlapScore(itemFeatures(a, undefined), itemFeatures(b, undefined)) >= DEFAULT_CLUSTER.threshold);
    expect(close.length).toBeGreaterThanOrEqual(5);
  });

  it('ignores width, case, hashtags, punctuation and spaces', () => {
    expect(normaliseTitle('#ＡＩ 大模型，价格战！#')).toBe(normaliseTitle('ai大模型价格战'));
    expect(normaliseTitle('女排3:0横扫日本')).toBe('女排3比0横扫日本');
    expect(sameEvent('！！', '？？')).toBe(false);
  });
});

/** Same-event pairs the bigram merger missed on the real lists of issue 22, one per cause. */
const MISSED_BEFORE: [string, string, string][] = [
  ['a short headline inside a longer one', '王星成功获救', '泰方通报称王星已成功获救'],
  ['traditional characters', '國產大飛機交付', '国产大飞机交付'],
  ['numerals written two ways', '国产大飞机交付第一百架', '国产大飞机交付第100架'],
  ['an abbreviation and a synonym', '王毅同俄罗斯外长拉夫罗夫通电话', '王毅同俄外长通话'],
  ['counts of different things', '贵州游船倾覆事故70人还在医院救治', '贵州游船倾覆事故致9死1失联'],
  ['a toll that grew', '西藏6.8级地震已致53人遇难', '西藏6.8级地震遇难人数升至95人'],
  ['a score against a word for the result', '中国男篮100比93中国台北男篮', '中国男篮险胜中国台北男篮'],
  ['抢七 = G7, a headline against a question', '勇士抢七战胜火箭', '24-25 赛季 NBA 季后赛首轮 G7 勇士 103：89 火箭晋级下一轮，如何评价这一场比赛？'],
];

describe('title similarity: the causes of issue 22', () => {
  it.each(MISSED_BEFORE)('merges across %s: 「%s」 and 「%s」', (_, a, b) => {
    expect(sameEvent(a, b)).toBe(true);
    expect(sameEvent(b, a)).toBe(true);
  });

  it('still keeps two earthquakes of different magnitude apart', () => {
    expect(sameEvent('台湾花莲海域5.7级地震', '西藏日喀则6.8级地震')).toBe(false);
  });

  it('reads the description of an item whose title alone is too short', () => {
    const lists: PlatformList[] = [
      { sourceId: 'qa', name: '问答', items: [{ rank: 1, title: '星星回来了', link: undefined, hot: undefined, description: '失联演员王星已在泰国被找到，泰方警方护送其入境' }] },
      { sourceId: 'weibo', name: '微博', items: [{ rank: 1, title: '失联演员王星已在泰国被找到', link: undefined, hot: undefined }] },
    ];
    expect(mergeEvents(lists).map((e) => e.platforms.length)).toEqual([2]);
    const bare = lists.map((l) => ({ ...l, items: l.items.map(({ description: _, ...i }) => i) }));
    expect(mergeEvents(bare).map((e) => e.platforms.length)).toEqual([1, 1]);
  });
});

/** Different events the merger of issue 22 still joined (demo data and real lists), one per rule that now keeps them apart. */
const MERGED_WRONGLY: [string, string, string][] = [
  ['one template, another thing announced in its slot', '年度流行语揭晓', '年度科技十大进展揭晓'],
  ['reversed roles around a name the segmenter leaves as single characters (以/军)', '伊朗导弹击中以军总参谋部', '以军称已向伊朗投掷超1200枚导弹'],
];

describe('title similarity: false merges left after issue 22', () => {
  it.each(MERGED_WRONGLY)('keeps apart %s: 「%s」 and 「%s」', (_, a, b) => {
    expect(sameEvent(a, b)).toBe(false);
    expect(sameEvent(b, a)).toBe(false);
  });
});

describe('event ids', () => {
  const entry = (sourceId: string, title: string, rank: number, firstSeenAt?: number, role: PlatformEntry['role'] = 'general'): PlatformEntry => ({ sourceId, name: sourceId, rank, title, link: undefined, hot: undefined, listSize: 50, firstSeenAt, role });

  it('stay while the event trends: items joining later, ranks moving and later items leaving keep the id', () => {
    const first = [entry('weibo', '王星成功获救', 3, 1000), entry('douyin', '泰方通报称王星已成功获救', 9, 2000)];
    const id = eventId(first);
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect(eventId([entry('douyin', '泰方通报称王星已成功获救', 1, 2000), entry('weibo', '王星成功获救', 7, 1000), entry('baidu', '演员星星已成功获救', 2, 5000)])).toBe(id);
    expect(eventId([entry('weibo', '王星成功获救', 12, 1000)])).toBe(id);
    // Another event (its earliest item another title) has another id.
    expect(eventId([entry('weibo', '冬奥会开幕式彩排曝光', 3, 1000)])).not.toBe(id);
  });

  it('anchor on general items only: a coverage item seen earlier joining or leaving keeps the id', () => {
    const general = [entry('weibo', '王星成功获救', 3, 1000), entry('douyin', '泰方通报称王星已成功获救', 9, 2000)];
    const id = eventId(general);
    expect(eventId([...general, entry('hupu', '王星获救了，泰国这趟太吓人', 4, 500, 'coverage')])).toBe(id);
  });
});

describe('ranking', () => {
  const list = (sourceId: string, titles: string[]): PlatformList => ({ sourceId, name: sourceId, items: titles.map((title, i) => ({ rank: i + 1, title, link: undefined, hot: undefined })) });
  // Titles of unrelated characters, none sharing a word with another.
  let seed = 0;
  const filler = (_: string, n: number) =>
    Array.from({ length: n }, () => Array.from({ length: 5 }, () => String.fromCodePoint(0x4e00 + ((++seed * 7919) % 20000))).join(''));

  it('a story carried by several items on three platforms leads one-platform items at the top of one list', () => {
    const a = [...filler('甲', 3), ...filler('甲后', 9), '贵州游船倾覆事故致9死1失联', ...filler('甲末', 37)];
    const b = [...filler('乙', 12), '贵州游船倾覆事故70人还在医院救治', '游船倾覆事故70名落水人员均为轻伤', ...filler('乙末', 36)];
    const c = [...filler('丙', 11), '贵州游船倾覆致10死，为何悲剧仍发生？', ...filler('丙末', 18)];
    const events = mergeEvents([list('douyin', a), list('baidu', b), list('zhihu', c)]);
    expect(events[0]!.platforms.every((p) => p.title.includes('游船'))).toBe(true);
    expect(events[0]!.platformCount).toBeGreaterThanOrEqual(2);
    expect(events[0]!.platforms.length).toBeGreaterThanOrEqual(3);
  });

  it('one-platform items rank below cross-platform events of comparable rank, above those far down', () => {
    const a = ['羽毛球公开赛抽签结果', '冬奥会开幕式彩排曝光', ...filler('甲', 46), '新版医保目录今日公布'];
    const b = ['高铁票价调整方案听证', '冬奥会开幕式彩排现场', ...filler('乙', 46), '新版医保目录正式公布'];
    const events = mergeEvents([list('weibo', a), list('douyin', b)]);
    const at = (start: string) => events.findIndex((e) => e.title.startsWith(start));
    expect(events[at('冬奥会')]!.platformCount).toBe(2);
    expect(events[at('新版医保目录')]!.platformCount).toBe(2);
    expect(at('冬奥会')).toBeLessThan(at('羽毛球公开赛'));
    expect(at('羽毛球公开赛')).toBeLessThan(at('新版医保目录'));
  });
});

const items = (...titles: string[]): ListItem[] => titles.map((title, i) => ({ rank: i + 1, title, link: `https://example.com/${i}`, hot: 1000 - i }));

describe('mergeEvents', () => {
  it('merges across platforms, ranks the events carried by most platforms and highest first, and keeps single items after', () => {
    const lists: PlatformList[] = [
      { sourceId: 'weibo', name: '微博', items: items('城市夜跑路线推荐', '新能源车冬季续航实测', '国产大飞机新航线开通') },
      { sourceId: 'douyin', name: '抖音', items: items('新能源车冬季续航', '初雪来了', '国产大飞机开通新国际航线') },
      { sourceId: 'zhihu', name: '知乎', items: items('如何看待新能源车冬季续航缩水？', '第一次养猫需要准备什么？') },
    ];
    const events = mergeEvents(lists);
    expect(events[0]).toMatchObject({ title: '新能源车冬季续航', platformCount: 3, platforms: [{ sourceId: 'douyin', rank: 1 }, { sourceId: 'zhihu', rank: 1 }, { sourceId: 'weibo', rank: 2 }] });
    expect(events[1]?.platforms.map((p) => p.sourceId).sort()).toEqual(['douyin', 'weibo']);
    // Tied strengths (third of three on both, the same share of the top heat): the first platform in id order.
    expect(events[1]?.title).toBe('国产大飞机开通新国际航线');
    expect(events.slice(2).every((e) => e.platforms.length === 1)).toBe(true);
    expect(events.slice(2).map((e) => e.title)).toEqual(['城市夜跑路线推荐', '初雪来了', '第一次养猫需要准备什么？']);
    // Place and heat (as a share of the list's top heat) weigh half each.
    const strength = (rank: number, size: number) => (placeScore(rank, size) + (1000 - rank + 1) / 1000) / 2;
    expect(events[0]!.score).toBeCloseTo(strength(1, 3) + strength(1, 2) + strength(2, 3), 3);
  });

  it('takes several items of one platform into an event, and does not chain two events through a third', () => {
    const lists: PlatformList[] = [
      { sourceId: 'weibo', name: '微博', items: items('北京初雪来了', '上海初雪来了', '北京初雪') },
      { sourceId: 'douyin', name: '抖音', items: items('初雪来了') },
    ];
    const events = mergeEvents(lists);
    const groups = events.map((e) => e.platforms.map((p) => `${p.sourceId}:${p.title}`).sort());
    expect(groups.find((g) => g.includes('weibo:北京初雪来了'))).toEqual(expect.arrayContaining(['weibo:北京初雪', 'weibo:北京初雪来了']));
    // 初雪来了 is close to both cities' snow, and joins at most one of them: never both in one event.
    expect(groups.find((g) => g.includes('weibo:北京初雪来了'))).not.toContain('weibo:上海初雪来了');
    expect(groups.flat().sort()).toEqual(['douyin:初雪来了', 'weibo:上海初雪来了', 'weibo:北京初雪', 'weibo:北京初雪来了']);
  });

  it('merges the same bare name on two lists, however common its word is in stored titles', () => {
    let seed = 0;
    const word = () => Array.from({ length: 4 }, () => String.fromCodePoint(0x4e00 + ((++seed * 7919) % 20000))).join('');
    const frequencies = FeatureFrequencies.of([...Array.from({ length: 1200 }, word), ...Array.from({ length: 40 }, () => `吴京${word()}`)]);
    const events = mergeEvents([{ sourceId: 'weibo', name: '微博', items: items('吴京') }, { sourceId: 'douyin', name: '抖音', items: items('吴京') }], { frequencies });
    expect(events.map((e) => e.platformCount)).toEqual([2]);
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
    const scores = data.events.map((e) => e.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const car = data.events.find((e) => e.platforms.some((p) => p.title === '新能源车冬季续航实测'));
    expect(car?.platforms.map((p) => [p.source, p.title]).sort()).toEqual([
      ['hot-microblog', '新能源车冬季续航实测'],
      ['hot-short-video-a', '新能源车冬季续航'],
    ]);
    const weibo = car!.platforms.find((p) => p.source === 'hot-microblog')!;
    expect(weibo).toEqual({ source: 'hot-microblog', name: '微博热搜', rank: 2, title: '新能源车冬季续航实测', hot_value: 1893420, link: expect.stringMatching(/^https:\/\/s\.weibo\.com\//), first_seen: expect.any(String), first_seen_at: clock.t });
    expect(car!.items).toHaveLength(car!.item_count);
    expect(car!.id).toMatch(/^[0-9a-f]{12}$/);
    for (const e of data.events) expect(new Set(e.platforms.map((p) => p.source)).size).toBe(e.platform_count);
    expect(data.events.filter((e) => e.platform_count >= 2).length).toBeGreaterThanOrEqual(2);
    // Two announcements of one template (年度…揭晓) on two lists stay two events.
    const announcements = ['年度流行语揭晓', '年度科技十大进展揭晓'];
    const announcing = data.events.filter((e) => e.items.some((i) => announcements.includes(i.title)));
    expect(announcing.map((e) => e.items.filter((i) => announcements.includes(i.title)).length)).toEqual([1, 1]);
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
  it('date and at answer from the archived lists (ids and first-seen times as they were); 404 before any list; 400 for a bad or future moment', async () => {
    const fetchedAt = clock.t;
    const then = ((await (await svc.get('/v2/apis/trending')).json()) as Envelope<Trending>).data;
    clock.advance(3 * 60 * 60_000);
    const res = await svc.get(`/v2/apis/trending?at=${fetchedAt + 60_000}`);
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as Envelope<Trending>;
    expect(data.snapshot_at).toBe(fetchedAt + 60_000);
    expect(data.events.map((e) => [e.id, e.title, e.first_seen_at])).toEqual(then.events.map((e) => [e.id, e.title, e.first_seen_at]));
    const day = ((await (await svc.get('/v2/apis/trending?date=2026-11-21')).json()) as Envelope<Trending>).data;
    expect(day.events.map((e) => e.id)).toEqual(then.events.map((e) => e.id));
    const early = await svc.get(`/v2/apis/trending?at=${fetchedAt - 60 * 60_000}`);
    expect(early.status).toBe(404);
    expect(((await early.json()) as Envelope<null>).message).toMatch(/No hot list was stored by .* at=/);
    for (const [query, name] of [['at=2099-01-01T00:00:00Z', 'at'], ['date=2099-01-01', 'date'], ['at=yesterday', 'at'], [`date=2026-11-21&at=${fetchedAt}`, 'at']] as const) {
      const bad = await svc.get(`/v2/apis/trending?${query}`);
      expect(bad.status, query).toBe(400);
      expect(((await bad.json()) as Envelope<null>).message, query).toContain(`"${name}"`);
    }
  });
});

describe('trending reads every list marked `trending`, whatever lists the service has', () => {
  const HOST = 'lists.example.test';
  const upstream = new Upstream();
  let svc: TestService;

  /** A scheduled hot list of a local upstream: items with a title and a description. */
  const listSource = (id: string, trending: TrendingRole | undefined): AnySource =>
    defineSource({
      id,
      name: `list ${id}`,
      description: 'A hot list fetched from a local upstream.',
      routes: [{ path: `/${id}` }],
      freshness: { ttlSec: 300, timeoutMs: 1_000 },
      mode: 'scheduled',
      schedule: '*/5 * * * *',
      ...(trending ? { trending } : {}),
      async fetch(ctx) {
        const list = asArray(asRecord(await ctx.http.json(`https://${HOST}/${id}`, { signal: ctx.signal }))?.items);
        if (!list) throw new SourceError('parse', 'items missing');
        return list.map((x, i) => ({ rank: i + 1, title: asString(asRecord(x)?.title) ?? '', desc: asString(asRecord(x)?.desc) ?? '', link: `https://${HOST}/${id}/${i + 1}`, hot_value: 100 - i }));
      },
      validate: (d) => validateHotList(d, 2),
      view: { rows: hotListRows },
      example: `/v2/apis/${id}`,
    }) as AnySource;

  beforeAll(async () => {
    await upstream.start();
    upstream.serve(HOST, '/news-a', { body: { items: [{ title: '星星回来了', desc: '失联演员王星已在泰国被找到，泰方警方护送其入境' }, { title: '冬奥会开幕式彩排曝光' }] } });
    upstream.serve(HOST, '/news-b', { body: { items: [{ title: '失联演员王星已在泰国被找到' }, { title: '羽毛球公开赛抽签结果' }] } });
    upstream.serve(HOST, '/other', { body: { items: [{ title: '冬奥会开幕式彩排现场' }, { title: '高铁票价调整方案听证' }] } });
    upstream.serve(HOST, '/forum', { body: { items: [{ title: '步行街的兄弟们，你们年终奖发了吗' }, { title: '失联演员王星在泰国被找到后首度发声' }, { title: '年终奖发了吗？晒晒' }] } });
    const sources = [listSource('news-a', {}), listSource('news-b', {}), listSource('other', undefined), listSource('forum', { role: 'coverage' }), trendingSource as AnySource];
    svc = await startService({ upstream, sources });
    for (const id of ['news-a', 'news-b', 'other', 'forum']) expect((await svc.get(`/v2/apis/${id}`)).status).toBe(200);
  });
  afterAll(async () => {
    await svc?.close();
    await upstream.stop();
  });

  it('merges the marked lists only (descriptions included), lists them, and leaves the others out', async () => {
    const { data } = (await (await svc.get('/v2/apis/trending')).json()) as Envelope<Trending>;
    expect(data.lists.map((l) => [l.source, l.role])).toEqual([
      ['news-a', 'general'],
      ['news-b', 'general'],
      ['forum', 'coverage'],
    ]);
    expect(data.events[0]!.items.map((i) => [i.source, i.title]).sort()).toEqual([
      ['forum', '失联演员王星在泰国被找到后首度发声'],
      ['news-a', '星星回来了'],
      ['news-b', '失联演员王星已在泰国被找到'],
    ]);
    expect(data.events.flatMap((e) => e.items.map((i) => i.source))).not.toContain('other');
  });

  it('shows a coverage list among the platforms of the event it joins, never as an event of its own', async () => {
    const { data } = (await (await svc.get('/v2/apis/trending')).json()) as Envelope<Trending>;
    const found = data.events[0]!;
    expect(found).toMatchObject({ platform_count: 3, item_count: 3 });
    expect(found.platforms.map((p) => p.source)).toEqual(['news-a', 'news-b', 'forum']);
    // Two forum posts on one subject make no event: only general lists form them.
    expect(data.events.flatMap((e) => e.items).filter((i) => i.source === 'forum')).toHaveLength(1);
    expect(data.events.every((e) => e.items.some((i) => i.source !== 'forum'))).toBe(true);
    const html = await (await svc.get('/v2/apis/trending?encoding=html')).text();
    expect(html).toContain('list forum #2');
  });

  it('html and rss show every item of an event with its platform', async () => {
    const html = await (await svc.get('/v2/apis/trending?encoding=html')).text();
    expect(html).toContain('list news-a #1');
    expect(html).toContain('list news-b #1');
    const feed = await new Parser().parseString(await (await svc.get('/v2/apis/trending?encoding=rss')).text());
    const first = feed.items.find((i) => i.contentSnippet?.includes('list news-a #1'));
    expect(first?.contentSnippet).toContain('list news-b #1');
    expect(first?.guid).toMatch(/^trending:[0-9a-f]{12}$/);
  });

  it('follows a list that changed: the new content is merged, not a kept parse or merge of the old', async () => {
    upstream.serve(HOST, '/news-b', { body: { items: [{ title: '冬奥会开幕式彩排现场' }, { title: '失联演员王星已在泰国被找到' }] } });
    expect((await svc.get('/v2/apis/news-b?force-update')).status).toBe(200);
    const { data } = (await (await svc.get('/v2/apis/trending')).json()) as Envelope<Trending>;
    const games = data.events.find((e) => e.items.some((i) => i.title === '冬奥会开幕式彩排曝光'));
    expect(games?.items.map((i) => [i.source, i.rank, i.title]).sort()).toEqual([
      ['news-a', 2, '冬奥会开幕式彩排曝光'],
      ['news-b', 1, '冬奥会开幕式彩排现场'],
    ]);
  });
});
