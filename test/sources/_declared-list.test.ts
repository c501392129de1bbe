/**
 * The helper of declared hot lists (sources/_shared/declared-list.ts): path-naming parse errors,
 * the variants of the documented formats, refusals, and schedules spread over their interval.
 * Each declared list has its own test file (test/sources/<id>.test.ts, see declared-list-suite.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { arrayAt, defineHotList, parseDeclared, scheduleOf, type DeclaredItem, type ListDeclaration } from '../../sources/_shared/declared-list.ts';
import type { ParamSpecs, ScheduledSource } from '../../src/kernel/source.ts';
import { bookPageId } from '../../sources/book-rank-a.ts';
import { DECLARED_LIST_FIXTURES } from '../support/declared-list-fixtures.ts';
import { readFixture } from '../support/declared-list-suite.ts';

const declarations = new Map<string, ListDeclaration>();
beforeAll(async () => {
  for (const f of DECLARED_LIST_FIXTURES) {
    const mod = (await import(`../../sources/${f.sourceId}.ts`)) as { list: ListDeclaration };
    declarations.set(f.sourceId, mod.list);
  }
});

describe('defineHotList', () => {
  it('names the first missing step of a JSON path', () => {
    expect(() => arrayAt({ data: {} }, ['data', 'list'])).toThrow('missing data.list (an array): data is an empty object');
    expect(() => arrayAt({ idlist: [] }, ['idlist', 0, 'newslist'])).toThrow('missing idlist[0].newslist (an array): idlist is an array of 0');
    expect(() => arrayAt({ data: { list: {} } }, ['data', 'list'])).toThrow('data.list is not an array: it is an empty object');
    expect(arrayAt({ result: [[1, 2]] }, ['result', 0])).toEqual([1, 2]);
  });

  it('tolerates the variants the documented formats show', () => {
    const rank = parseDeclared(declarations.get('video-site-rank')!, readFixture('api.bilibili.com/x/web-interface/ranking/v2.json'));
    // `owner.name`, or `author` (the older ranking API); "-" is no summary; http covers become https.
    expect(rank[5]?.author).toBe('数码拆解君');
    expect(rank[3]?.desc).toBeUndefined();
    expect(rank[0]?.cover).toMatch(/^https:\/\/i0\.hdslb\.com\//);
    // The header card of the news portal's list (no hotEvent) is not an item.
    const portal = parseDeclared(declarations.get('hot-news-portal-a')!, readFixture('r.inews.qq.com/gw/event/hot_ranking_list.json'));
    expect(portal.find((i) => i.title === '腾讯新闻热点榜')).toBeUndefined();
    // A post without a cover takes its first image.
    const game = parseDeclared(declarations.get('game-news-a')!, readFixture('bbs-api-static.miyoushe.com/painter/wapi/getNewsList-gids-2.json'));
    expect(game[2]?.cover).toMatch(/_1\.jpg$/);
    // A film not yet rated keeps a null score; ratings count as heat.
    const films = parseDeclared(declarations.get('review-a-chart')!, readFixture('movie.douban.com/chart.html')) as (DeclaredItem & { score: number | null })[];
    expect(films[0]?.score).toBe(8.9);
    expect(films[5]?.score).toBeNull();
  });

  it('refusals are blocked, not parse failures', () => {
    expect(() => parseDeclared(declarations.get('video-site-rank')!, { code: -352, message: '风控校验失败' })).toThrow(expect.objectContaining({ kind: 'blocked' }));
    expect(() => parseDeclared(declarations.get('hot-writing-community')!, '<html><title>安全验证</title><div id="captcha"></div></html>')).toThrow(expect.objectContaining({ kind: 'blocked' }));
  });

  it('names book pages by the reading app’s own id scheme', () => {
    // 三体 (bookId 695233) is at weread.qq.com/web/bookDetail/ce032b305a9bc1ce0b0dd2a.
    expect(bookPageId('695233')).toBe('ce032b305a9bc1ce0b0dd2a');
  });

  it('spreads each pace over its interval by list id', () => {
    expect(scheduleOf('hot-news-paper', 'hot')).toMatch(/^\d-59\/10 \* \* \* \*$/);
    expect(scheduleOf('hot-dev-forum', 'feed')).toMatch(/^\d{1,2}-59\/30 \* \* \* \*$/);
    expect(scheduleOf('book-rank-a', 'daily')).toMatch(/^\d{1,2} [0-2]-23\/3 \* \* \*$/);
    expect(scheduleOf('review-a', 'hourly')).toMatch(/^\d{1,2} 0-23\/1 \* \* \*$/);
    const minutes = new Set(DECLARED_LIST_FIXTURES.map((f) => scheduleOf(f.sourceId, 'hot').split('-')[0]));
    expect(minutes.size).toBeGreaterThan(4);
  });

  it('keeps every variant warm where asked, each fixed path on its variant, and a province-less key as before', () => {
    const source = (list: ListDeclaration) => defineHotList(list) as ScheduledSource<ParamSpecs, DeclaredItem[]>;
    expect(source(declarations.get('it-news-rank')!).prefetch).toEqual([{ type: 'day' }, { type: 'week' }, { type: 'month' }]);
    expect(source(declarations.get('it-news-rank')!).routes).toEqual([
      { path: '/it-news/rank' },
      expect.objectContaining({ path: '/hot-it-news', fixed: { type: 'day' } }),
    ]);
    expect(source(declarations.get('it-news-rank')!).formerly).toEqual([{ params: { type: 'day' }, sourceId: 'hot-it-news' }]);
    const weather = source(declarations.get('weather-alarm-feed')!);
    expect(weather.prefetch).toBeUndefined();
    expect(weather.params?.province).not.toHaveProperty('default');
  });
});
