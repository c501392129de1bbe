/**
 * Coverage lists in trending (sources/_shared/events/coverage.ts): their items join the events the
 * general lists formed, the closest one only, and never form, bridge or reorder an event.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CLUSTER } from '../../sources/_shared/events/cluster.ts';
import { attachCoverage } from '../../sources/_shared/events/coverage.ts';
import { overlapScore } from '../../sources/_shared/events/similarity.ts';
import { itemFeatures, mergeEvents, type PlatformList } from '../../sources/_shared/trending.ts';
import { eventId } from '../../sources/trending.ts';

const features = (titles: string[]) => titles.map((t) => itemFeatures(t, undefined));

const list = (sourceId: string, titles: string[], role: PlatformList['role'] = 'general'): PlatformList => ({
  sourceId,
  name: sourceId,
  role,
  items: titles.map((title, i) => ({ rank: i + 1, title, link: undefined, hot: undefined })),
});

const GENERAL: PlatformList[] = [
  list('weibo', ['国产大飞机新航线开通', '北京初雪来了', '中国女排3比0战胜日本', '城市夜跑路线推荐']),
  list('douyin', ['国产大飞机开通新国际航线', '上海初雪来了', '初雪来了', '第一次养猫需要准备什么？']),
  list('baidu', ['北京初雪', '中国女排3比1战胜巴西', '新版医保目录今日公布']),
];

describe('attachCoverage', () => {
  it('joins a coverage title to the event it tells of, and a title of another matter to none', () => {
    const events = [features(['国产大飞机新航线开通', '国产大飞机开通新国际航线']), features(['城市夜跑路线推荐'])];
    const joined = attachCoverage(events, features(['国产大飞机C919新国际航线开通，首航今日起飞', '小米发布新款路由器', '如何看待今年的年终奖？']));
    expect(joined).toEqual([0, undefined, undefined]);
  });

  it('joins a title close to two events only the closer one, whichever ranks first', () => {
    const title = '北京初雪来了 故宫雪景刷屏';
    const shanghai = features(['上海初雪来了']);
    const beijing = features(['北京初雪来了', '北京初雪']);
    const [c] = features([title]);
    // Close enough to either alone: it must choose.
    expect(overlapScore(c!, shanghai[0]!)).toBeGreaterThanOrEqual(DEFAULT_CLUSTER.threshold);
    expect(overlapScore(c!, beijing[0]!)).toBeGreaterThan(overlapScore(c!, shanghai[0]!));
    expect(attachCoverage([shanghai, beijing], [c!])).toEqual([1]);
  });

  it('keeps a title out of an event one of whose items the guards keep apart from it (another score)', () => {
    const events = [features(['中国女排3比1战胜巴西']), features(['中国女排3比0战胜日本'])];
    expect(attachCoverage(events, features(['女排3比0横扫日本，朱婷赛后发声']))).toEqual([1]);
    expect(attachCoverage(events.slice(0, 1), features(['女排3比0横扫日本，朱婷赛后发声']))).toEqual([undefined]);
  });

  it('joins nothing without events, however many coverage titles agree', () => {
    expect(attachCoverage([], features(['iPhone 18 发布：A20 芯片、起售价不变', 'iPhone 18 发布：A20 芯片、起售价不变']))).toEqual([undefined, undefined]);
  });
});

describe('mergeEvents with coverage lists', () => {
  const shape = (lists: PlatformList[]) =>
    mergeEvents(lists).map((e) => ({ title: e.title, score: e.score, general: e.platforms.filter((p) => p.role === 'general').map((p) => `${p.sourceId}:${p.title}`), id: eventId(e.platforms) }));

  it('shows coverage items in the event they join, after its general items, counted among its platforms', () => {
    const events = mergeEvents([...GENERAL, list('ithome', ['小米发布新款路由器', '国产大飞机C919新国际航线开通，首航今日起飞'], 'coverage')]);
    const plane = events.find((e) => e.title.includes('大飞机'))!;
    expect(plane.platforms.map((p) => p.sourceId)).toEqual(['douyin', 'weibo', 'ithome']);
    expect(plane.platforms[2]).toMatchObject({ role: 'coverage', rank: 2, title: '国产大飞机C919新国际航线开通，首航今日起飞' });
    expect(plane.platformCount).toBe(3);
    expect(events.flatMap((e) => e.platforms).some((p) => p.title === '小米发布新款路由器')).toBe(false);
  });

  it('forms no event from coverage items alone, even when several coverage lists agree', () => {
    const gadget = ['iPhone 18 发布：A20 芯片、起售价不变', 'iPhone 18 发布会汇总'];
    expect(mergeEvents([list('ithome', gadget, 'coverage'), list('sspai', gadget, 'coverage'), list('geekpark', gadget, 'coverage')])).toEqual([]);
  });

  it('leaves the events, their order, scores, titles and ids exactly as the general lists give them', () => {
    const tech = (id: string) => list(id, ['iPhone 18 发布会汇总', '初雪来了，北京上海同日下雪', '国产大飞机C919新国际航线开通', '中国女排3比0战胜日本，朱婷发声', '北京初雪来了 故宫雪景刷屏'], 'coverage');
    const lists = [...GENERAL, tech('ithome'), tech('sspai'), tech('geekpark'), tech('hupu'), tech('nga')];
    expect(shape(lists)).toEqual(shape(GENERAL));
    // Not for want of joining: the plane, the snow and the match are each carried by five more lists.
    expect(mergeEvents(lists).filter((e) => e.platformCount === e.platforms.filter((p) => p.role === 'general').length + 5)).toHaveLength(3);
  });

  it('never bridges two general events: a coverage title close to both joins one and they stay apart', () => {
    const events = mergeEvents([...GENERAL, list('hupu', ['北京初雪来了 故宫雪景刷屏'], 'coverage')]);
    const withIt = events.filter((e) => e.platforms.some((p) => p.sourceId === 'hupu'));
    expect(withIt).toHaveLength(1);
    expect(withIt[0]!.platforms.map((p) => p.title)).not.toContain('上海初雪来了');
    expect(events.some((e) => e.platforms.some((p) => p.title === '上海初雪来了'))).toBe(true);
  });
});
