/**
 * IT之家's rankings: the day list from the mobile ranking page (as /v2/apis/it-news/rank and
 * /hot-it-news, which were two sources of one list), the week and month lists from the home
 * page. Fixtures and where their layouts are documented: test/fixtures/upstream/m.ithome.com/rankm/SOURCE.md
 * and test/fixtures/upstream/www.ithome.com/README.md.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import itNewsRank, { articleId, list } from '../../sources/it-news-rank.ts';
import { parseDeclared } from '../../sources/_shared/declared-list.ts';
import { contentHash } from '../../src/kernel/archive.ts';
import { describeDeclaredList, readFixture } from '../support/declared-list-suite.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';

interface Body<T> {
  code: number;
  message: string;
  data: T;
}

it('reads the article id of mobile and live links', () => {
  expect(articleId('https://m.ithome.com/html/812345.htm')).toBe('812345');
  expect(articleId('https://live.ithome.com/live/812346.htm')).toBe('812346');
  expect(articleId('https://m.ithome.com/')).toBeUndefined();
});

describeDeclaredList(list);

it('reads only the day box of the mobile page, which shows the week and month lists after it', () => {
  const day = parseDeclared(list, readFixture('m.ithome.com/rankm/index.html'), 'day');
  expect(day).toHaveLength(8);
  expect(day.map((i) => i.title)).not.toContain('本周最受关注的新机汇总');
});

describe('it-news-rank parse of the home page', () => {
  const home = () => readFixture('www.ithome.com/index.html');
  it('reads the week and month lists of the home page; a javascript: link is skipped', () => {
    const week = parseDeclared(list, home(), 'week');
    expect(week).toHaveLength(12);
    expect(week[11]).toEqual({ rank: 12, id: 'https://www.ithome.com/0/820/011.htm', title: '测试周榜第12条：热门文章标题', link: 'https://www.ithome.com/0/820/011.htm' });
    expect(parseDeclared(list, home(), 'month')).toHaveLength(12);
    expect(() => parseDeclared(list, '<html><body></body></html>', 'week')).toThrow('selector "#rank #d-2 li" matched nothing');
  });
});

describe('it-news-rank through the server, at our paths and 60s’s', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, sources: [itNewsRank] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
  });

  it('/v2/it-news/rank answers the day list by default and the week or month one by type', async () => {
    const day = (await (await svc.get('/v2/it-news/rank')).json()) as Body<{ title: string; link: string; hot_value: number }[]>;
    expect(day.data[0]).toMatchObject({ title: '国产新款旗舰手机今日开售，首销一分钟破纪录', link: 'https://www.ithome.com/0/812/345.htm', hot_value: 1285 });
    const week = (await (await svc.get('/v2/apis/it-news/rank?type=week')).json()) as Body<{ title: string }[]>;
    expect(week.data[0]!.title).toBe('测试周榜第1条：热门文章标题');
    const bad = await svc.get('/v2/apis/it-news/rank?type=year');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Body<null>).message).toMatch(/"type".*day, week, month/);
    expect(await (await svc.get('/v2/apis/it-news/rank?type=month&encoding=markdown')).text()).toMatch(/^# IT之家月榜/);
  });

  it('/hot-it-news is the day list: the same answer, one upstream request', async () => {
    const hot = (await (await svc.get('/v2/apis/hot-it-news')).json()) as Body<unknown[]>;
    const day = (await (await svc.get('/v2/apis/it-news/rank?type=day')).json()) as Body<unknown[]>;
    expect(hot.data).toEqual(day.data);
    expect(upstream.hits('m.ithome.com')).toHaveLength(1);
  });

  it('answers a past day of /hot-it-news from the snapshots stored under its former source', async () => {
    const at = Date.parse('2026-11-01T04:00:00Z');
    const old = [1, 2, 3, 4, 5].map((n) => ({ rank: n, title: `旧日榜第${n}条`, link: `https://www.ithome.com/0/700/00${n}.htm`, id: `70000${n}` }));
    await svc.store.archive.record({ sourceId: 'hot-it-news', paramsKey: '', fetchedAt: at, contentHash: contentHash(old), payload: JSON.stringify(old) });
    for (const path of ['/v2/apis/hot-it-news', '/v2/apis/it-news/rank']) {
      const res = await svc.get(`${path}?date=2026-11-01`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('x-cache')).toBe('HISTORY');
      expect(((await res.json()) as Body<{ title: string }[]>).data[0]!.title).toBe('旧日榜第1条');
    }
    expect((await svc.get('/v2/apis/it-news/rank?type=week&date=2026-11-01')).status).toBe(404);
  });
});
