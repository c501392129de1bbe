import fs from 'node:fs';
import path from 'node:path';
import Parser from 'rss-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import olympics, { EVENTS, latestEvent, parseAwards, parseLive, validateTable } from '../../sources/olympics.ts';
import { TestClock } from '../support/clock.ts';
import { describeFailureModes } from '../support/failure-modes.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const BFF = 'bff-api.olympics.com';
const LIVE = 'www.olympics.com';
const read = (host: string, p: string) => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, host, p), 'utf8')) as Record<string, unknown>;
const parisAwards = () => read(BFF, 'bff/api/usdm/v1/competitions/c1a2b3c4-paris/awards/noc.json') as { data: Record<string, unknown>[] };
const milanoAwards = () => read(BFF, 'bff/api/usdm/v1/competitions/d5e6f7a8-milano/awards/noc.json');
const liveTable = () => read(LIVE, 'wmr-owg2026/competition/api/CHI/medals.json');
const now = new Date('2026-11-21T02:00:00Z');
const paris = EVENTS.find((e) => e.id === 'paris-2024')!;
const milano = EVENTS.find((e) => e.id === 'milano-cortina-2026')!;

interface Body {
  code: number;
  message: string;
  data: { event_id: string; event_name: string; is_live: boolean; total: number; list: { rank: number; code: string; country: string; gold: number; silver: number; bronze: number; total: number; flag: string; link: string }[] } | null;
}

describe('olympics parse', () => {
  it('knows the recent Summer and Winter Games and picks the latest that has started', () => {
    expect(EVENTS.map((e) => e.id)).toEqual(expect.arrayContaining(['milano-cortina-2026', 'paris-2024', 'beijing-2022', 'tokyo-2020', 'pyeongchang-2018', 'rio-2016']));
    expect(EVENTS.every((e) => /^\d{4}-\d{2}-\d{2}$/.test(e.start_date) && e.start_date < e.end_date && ['summer', 'winter'].includes(e.season))).toBe(true);
    expect(latestEvent('2026-11-21').id).toBe('milano-cortina-2026');
    expect(latestEvent('2026-02-10').id).toBe('milano-cortina-2026');
    expect(latestEvent('2025-06-01').id).toBe('paris-2024');
  });

  it('reads the back-end medal table, ordered gold, silver, bronze', () => {
    const d = parseAwards(parisAwards(), paris, now);
    expect(d).toMatchObject({ event_id: 'paris-2024', event_name: '2024年巴黎奥运会', season: 'summer', is_live: false, total: 10 });
    expect(d.list.slice(0, 2)).toEqual([
      expect.objectContaining({ rank: 1, code: 'USA', country: '美国', title: '美国', gold: 40, silver: 44, bronze: 42, total: 126 }),
      expect.objectContaining({ rank: 2, code: 'CHN', country: '中国', gold: 40, silver: 27, bronze: 24, total: 91 }),
    ]);
    expect(d.list[0]).toMatchObject({ flag: 'https://gstatic.olympics.com/s3/noc/oly/3x2/USA.png', cover: 'https://gstatic.olympics.com/s3/noc/oly/3x2/USA.png', link: 'https://www.olympics.com/zh/olympic-games/paris-2024/medals' });
    expect(d.list.map((r) => r.code).slice(-2)).toEqual(['ITA', 'GER']);
    expect(validateTable(d)).toBeUndefined();
  });

  it('gives equal medal counts the same rank', () => {
    const d = parseAwards(milanoAwards(), milano, now);
    expect(d.list.map((r) => [r.rank, r.code])).toEqual([
      [1, 'NOR'],
      [2, 'ITA'],
      [3, 'USA'],
      [4, 'GER'],
      [5, 'SUI'],
      [5, 'CHN'],
      [7, 'CAN'],
    ]);
  });

  it('reads the live medal API of a running Games', () => {
    const d = parseLive(liveTable(), milano, now);
    expect(d.is_live).toBe(true);
    expect(d.list.map((r) => [r.rank, r.code, r.gold, r.silver, r.bronze, r.total])).toEqual([
      [1, 'NOR', 4, 1, 2, 7],
      [2, 'ITA', 3, 2, 4, 9],
      [3, 'GER', 2, 2, 1, 5],
      [3, 'USA', 2, 2, 1, 5],
      [5, 'CHN', 1, 2, 0, 3],
    ]);
  });

  it('rejects broken copies', () => {
    const d = parseAwards(parisAwards(), paris, now);
    expect(validateTable({ ...d, list: [] })).toMatch(/empty/);
    const wrong = parisAwards();
    wrong.data[0]!.total = 1;
    expect(validateTable(parseAwards(wrong, paris, now))).toMatch(/do not add up/);
    expect(() => parseAwards({ items: [] }, paris, now)).toThrow(/^missing data \(an array\): the answer is an object with keys items$/);
    expect(() => parseLive({ medals: [] }, milano, now)).toThrow(/medalsTable/);
  });
});

describe('olympics through the server', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, sources: [olympics] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('serves the latest Games by default in json, text, markdown, html and rss, with the session cookie', async () => {
    upstream.serve(BFF, '/bff/api/session/exchange', { status: 200, headers: { 'content-type': 'application/json', 'set-cookie': '__sdw-bff=s3ss10n; Path=/; HttpOnly; Secure' }, body: '{}' });
    const json = await svc.get('/v2/apis/olympics');
    expect(json.status).toBe(200);
    const body = (await json.json()) as Body;
    expect(body.data).toMatchObject({ event_id: 'milano-cortina-2026', is_live: false, total: 7 });
    const [exchange] = upstream.hits(BFF, '/bff/api/session/exchange');
    expect(exchange?.method).toBe('POST');
    expect(JSON.parse(exchange!.body.toString('utf8'))).toEqual({ tid: 'sed' });
    const [competition] = upstream.hits(BFF, '/bff/api/usdm/v1/competitions/milano-cortina-2026');
    expect(competition?.headers.cookie).toBe('__sdw-bff=s3ss10n');
    expect(competition?.query.get('languageCode')).toBe('ZH');
    expect(upstream.hits(BFF, '/bff/api/usdm/v1/competitions/d5e6f7a8-milano/awards/noc')[0]?.headers.cookie).toBe('__sdw-bff=s3ss10n');
    expect(upstream.hits(LIVE)).toHaveLength(0);

    const text = await (await svc.get('/v2/apis/olympics?encoding=text')).text();
    expect(text).toMatch(/^2026年米兰-科尔蒂纳丹佩佐冬奥会 奖牌榜\n更新于 2026-11-21 10:00:00\n\n1\. 挪威 🥇14 🥈10 🥉9 共 33\n/);
    expect(text).toContain('5. 瑞士 🥇7 🥈6 🥉5 共 18\n5. 中国 🥇7 🥈6 🥉5 共 18');
    const md = await (await svc.get('/v2/apis/olympics?encoding=markdown')).text();
    expect(md).toContain('| 排名 | 国家/地区 | 金牌 | 银牌 | 铜牌 | 总数 |');
    expect(md).toContain('| 1 | 挪威 | 14 | 10 | 9 | 33 |');
    const html = await (await svc.get('/v2/apis/olympics?encoding=html')).text();
    expect(html).toContain('<tr><td>2</td><td>意大利</td><td>11</td><td>9</td><td>12</td><td>32</td></tr>');
    const feed = await new Parser().parseString(await (await svc.get('/v2/apis/olympics?encoding=rss')).text());
    expect(feed.items).toHaveLength(7);
    expect(new Set(feed.items.map((i) => i.guid)).size).toBe(7);
    clock.advance(31 * 60_000);
    const again = await new Parser().parseString(await (await svc.get('/v2/apis/olympics?encoding=rss&force-update=1')).text());
    expect(again.items.map((i) => i.guid)).toEqual(feed.items.map((i) => i.guid));
  });

  it('reads another Games by id, 404 for an unknown one, 400 for a malformed one', async () => {
    const body = (await (await svc.get('/v2/apis/olympics?id=paris-2024')).json()) as Body;
    expect(body.data?.list[0]).toMatchObject({ rank: 1, code: 'USA' });
    upstream.serve(BFF, '/bff/api/usdm/v1/competitions/atlantis-2099', { status: 204 });
    const unknown = await svc.get('/v2/apis/olympics?id=atlantis-2099');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as Body).message).toMatch(/no event "atlantis-2099".*paris-2024/);
    // Games missing from the bundled list are still looked up on olympics.com.
    upstream.serve(BFF, '/bff/api/usdm/v1/competitions/gangwon-2024', { body: { data: { id: 'yog-gangwon', slug: 'gangwon-2024', title: '2024年江原冬青奥会', startDate: '2024-01-19T00:00:00Z', finishDate: '2024-02-01T00:00:00Z' } } });
    upstream.serve(BFF, '/bff/api/usdm/v1/competitions/yog-gangwon/awards/noc', { body: { data: parisAwards().data.slice(0, 3) } });
    const yog = (await (await svc.get('/v2/apis/olympics?id=gangwon-2024')).json()) as Body & { data: { start_date: string } };
    expect(yog.data).toMatchObject({ event_id: 'gangwon-2024', event_name: '2024年江原冬青奥会', start_date: '2024-01-19', total: 3 });
    for (const bad of ['Paris 2024', '../etc', 'paris_2024']) {
      const res = await svc.get(`/v2/apis/olympics?id=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as Body).message).toMatch(/"id"/);
    }
  });

  it('reads the live medal API while the Games are running', async () => {
    const liveClock = new TestClock(Date.parse('2026-02-10T12:00:00Z'));
    const live = await startService({ upstream, now: liveClock.now, sources: [olympics] });
    try {
      const body = (await (await live.get('/v2/apis/olympics')).json()) as Body;
      expect(body.data).toMatchObject({ event_id: 'milano-cortina-2026', is_live: true, total: 5 });
      expect(upstream.hits(LIVE, '/wmr-owg2026/competition/api/CHI/medals')).toHaveLength(1);
      expect(upstream.hits(BFF)).toHaveLength(0);
      expect(await (await live.get('/v2/apis/olympics?encoding=text')).text()).toMatch(/奖牌榜（进行中）/);
    } finally {
      await live.close();
    }
  });
});

describeFailureModes({
  sources: [olympics],
  sourceId: 'olympics',
  path: '/v2/apis/olympics',
  host: BFF,
  upstreamPath: /\/awards\/noc$/,
  ttlSec: 1800,
  loginPage: { status: 401, headers: { 'content-type': 'application/json' }, body: '{"error":"session expired"}' },
  changedShape: { body: { results: [{ noc: 'CHN', medals: 3 }] } },
  empty: { body: { data: [], this: '/usdm/v1/competitions/d5e6f7a8-milano/awards/noc', links: [] } },
});
