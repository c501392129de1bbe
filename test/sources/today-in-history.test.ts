import fs from 'node:fs';
import path from 'node:path';
import Parser from 'rss-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import todayInHistory, { parse, validateDay } from '../../sources/today-in-history.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { TestClock } from '../support/clock.ts';
import { describeConformance, readRecording } from '../support/conformance.ts';
import { describeFailureModes } from '../support/failure-modes.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const HOST = 'baike.baidu.com';
const NOV = '/cms/home/eventsOnHistory/11.json';
const fixture = () => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, HOST, NOV), 'utf8')) as { '11': Record<string, unknown[]> };
const now = new Date('2026-11-21T02:00:00Z');

interface Body {
  code: number;
  message: string;
  data: { date: string; requested_date: string; month: number; day: number; total: number; items: { rank: number; title: string; year: string; year_text: string; event_type: string; link: string; description: string }[] } | null;
}

describe('today-in-history parse', () => {
  it('strips the HTML, decodes entities, sorts by year (BC first) and keeps absolute links', () => {
    const d = parse(fixture(), '2026-11-21', now);
    expect(d.date).toBe('11-21');
    expect(d.requested_date).toBe('2026-11-21');
    expect(d.month).toBe(11);
    expect(d.day).toBe(21);
    expect(d.total).toBe(7);
    expect(d.items.map((e) => e.year)).toEqual(['-221', '1694', '1783', '1811', '1877', '1920', '1995']);
    expect(d.items.map((e) => e.year_text).slice(0, 2)).toEqual(['公元前221年', '1694年']);
    const edison = d.items.find((e) => e.year === '1877');
    expect(edison).toMatchObject({
      rank: 5,
      title: '爱迪生宣布发明留声机',
      event_type: 'event',
      link: 'https://baike.baidu.com/item/%E7%95%99%E5%A3%B0%E6%9C%BA',
    });
    // Baidu cuts descriptions short: an ellipsis marks it.
    expect(edison?.description).toMatch(/^1877年11月21日，爱迪生宣布.*保存下来…$/);
    expect(d.items.find((e) => e.year === '1811')?.description).toContain('《破瓮记》&《O侯爵夫人》…');
    expect(d.items.find((e) => e.year === '1694')).toMatchObject({ event_type: 'birth', cover: 'https://bkimg.cdn.bcebos.com/pic/voltaire-example.jpg' });
    expect(d.items.find((e) => e.year === '1920')?.description).toMatch(/事件。$/);
    expect(d.updated_at).toBe(now.getTime());
    expect(validateDay(d)).toBeUndefined();
  });

  it('rejects broken copies', () => {
    const untitled = fixture();
    untitled['11']['1121'] = [{ year: '1900', title: '', link: 'https://baike.baidu.com/item/x' }];
    expect(() => parse(untitled, '2026-11-21', now)).toThrow('11.1121[0].title is not a non-empty title: it is the string ""');
    expect(() => parse({ '11': {} }, '2026-11-21', now)).toThrow(expect.objectContaining({ kind: 'empty' }) as SourceError);
    expect(() => parse({ data: [] }, '2026-11-21', now)).toThrow(SourceError);
    expect(() => parse(fixture(), '2026-12-01', now)).toThrow(/^missing 12 \(the month object\): the answer is an object with keys 11$/);
  });
});

describe('today-in-history: a day without events is an answer, not an outage (as 60s)', () => {
  const quietFile = () => {
    const f = fixture();
    delete f['11']['1122'];
    f['11']['1123'] = [];
    return f;
  };

  it('parses a day missing from the month file, or listed empty, as no events, and validates it', () => {
    for (const date of ['2026-11-22', '2026-11-23']) {
      const d = parse(quietFile(), date, now);
      expect(d).toMatchObject({ items: [], total: 0, month: 11 });
      expect(validateDay(d)).toBeUndefined();
    }
  });

  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    upstream.serve(HOST, NOV, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(quietFile()) });
    svc = await startService({ upstream, now: new TestClock(now.getTime()).now, sources: [todayInHistory] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('answers 200 with what there is: no items', async () => {
    const res = await svc.get('/v2/apis/today-in-history?date=2026-11-22');
    expect(res.status).toBe(200);
    expect(((await res.json()) as Body).data).toMatchObject({ date: '11-22', items: [], total: 0 });
    const text = await (await svc.get('/v2/apis/today-in-history?date=2026-11-22&encoding=text')).text();
    expect(text).toContain('这一天没有记载的事件。');
  });
});

describe('today-in-history through the server', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, sources: [todayInHistory] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('serves today in json, text, markdown, html and rss', async () => {
    const json = await svc.get('/v2/apis/today-in-history');
    expect(json.status).toBe(200);
    expect(json.headers.get('x-cache')).toBe('MISS');
    const body = (await json.json()) as Body;
    expect(body.data?.date).toBe('11-21');
    expect(body.data?.requested_date).toBe('2026-11-21');
    expect(body.data?.items[0]?.title).toBe('示例：秦始皇统一六国前后的记载');

    const text = await (await svc.get('/v2/apis/today-in-history?encoding=text')).text();
    expect(text).toMatch(/^历史上的今天（11月21日）\n\n1\. 示例：秦始皇统一六国前后的记载（公元前221年，事件）\n2\. 法国启蒙思想家伏尔泰出生（1694年，出生）/);
    expect(text).toContain('4. 德国剧作家克莱斯特逝世（1811年，逝世）');
    expect(text).not.toMatch(/-221/);

    const md = await svc.get('/v2/apis/today-in-history?encoding=markdown');
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await md.text()).toContain('5. [1877年 爱迪生宣布发明留声机](https://baike.baidu.com/item/%E7%95%99%E5%A3%B0%E6%9C%BA)');

    const html = await (await svc.get('/v2/apis/today-in-history?encoding=html')).text();
    expect(html).toContain('<a href="https://baike.baidu.com/item/%E7%95%99%E5%A3%B0%E6%9C%BA" rel="noopener noreferrer">1877年 爱迪生宣布发明留声机</a>');

    const rss = await svc.get('/v2/apis/today-in-history?encoding=rss');
    expect(rss.headers.get('content-type')).toBe('application/rss+xml; charset=utf-8');
    const feed = await new Parser().parseString(await rss.text());
    expect(feed.items).toHaveLength(7);
    expect(new Set(feed.items.map((i) => i.guid)).size).toBe(7);
    expect(feed.items[4]?.link).toBe('https://baike.baidu.com/item/%E7%95%99%E5%A3%B0%E6%9C%BA');
    expect(upstream.hits(HOST)).toHaveLength(1);

    // A refresh keeps the guids.
    clock.advance(61_000);
    const again = await new Parser().parseString(await (await svc.get('/v2/apis/today-in-history?encoding=rss&force-update=1')).text());
    expect(again.items.map((i) => i.guid)).toEqual(feed.items.map((i) => i.guid));
  });

  it('fetches a month file once for all of its days', async () => {
    for (const date of ['2026-11-20', '2026-11-22', '2025-11-30', '2026-11-21']) {
      const res = await svc.get(`/v2/apis/today-in-history?date=${date}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Body;
      expect(body.data?.requested_date).toBe(date);
      expect(body.data?.date).toBe(`${Number(date.slice(5, 7))}-${Number(date.slice(8))}`);
      expect(body.data?.items.length).toBeGreaterThan(0);
    }
    const dec = (await (await svc.get('/v2/apis/today-in-history?date=2026-12-31')).json()) as Body;
    expect(dec.data?.items[0]?.title).toBe('示例事件（12月31日）');
    // November was fetched by the first test and is still fresh: only December went upstream.
    expect(upstream.hits(HOST).map((r) => r.path)).toEqual(['/cms/home/eventsOnHistory/12.json']);
    expect(upstream.hits(HOST)[0]?.headers.referer).toBe('https://baike.baidu.com/');

    // A month-day (60s's form) is that day of this year; a day no calendar has is refused.
    const md = await svc.get('/v2/apis/today-in-history?date=12-31');
    expect(((await md.json()) as Body).data?.requested_date).toBe('2026-12-31');
    const bad = await svc.get('/v2/apis/today-in-history?date=11-31');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Body).message).toMatch(/"date".*YYYY-MM-DD/);
  });

  it('switches to the new day after midnight (Asia/Shanghai)', async () => {
    const clock2 = new TestClock(Date.parse('2026-11-21T15:55:00Z')); // 23:55 in Shanghai
    const svc2 = await startService({ upstream, now: clock2.now, sources: [todayInHistory] });
    try {
      expect(((await (await svc2.get('/v2/apis/today-in-history')).json()) as Body).data?.requested_date).toBe('2026-11-21');
      clock2.advance(11 * 60_000); // 00:06 on the 22nd, past the 600 s TTL
      const refreshed = await svc2.get('/v2/apis/today-in-history?force-update=1');
      expect(((await refreshed.json()) as Body).data).toMatchObject({ date: '11-22', requested_date: '2026-11-22', day: 22 });
    } finally {
      await svc2.close();
    }
  });
});

describeFailureModes({
  sources: [todayInHistory],
  sourceId: 'today-in-history',
  path: '/v2/apis/today-in-history',
  host: HOST,
  upstreamPath: NOV,
  // The month file is kept for 6 hours, so the failing refresh happens after that.
  ttlSec: 6 * 3600,
  loginPage: { status: 403, headers: { 'content-type': 'text/html' }, body: '<html><body>百度安全验证</body></html>' },
  changedShape: { body: { data: { events: [] } } },
  empty: { body: { '11': { '1121': [] } } },
});

describeConformance('today-in-history', 'today-in-history on the real recording', (dir) => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    upstream.serve(HOST, NOV, { headers: { 'content-type': 'application/json' }, body: readRecording(dir, 'baike-eventsOnHistory-11-one-event.json') });
    svc = await startService({ upstream, now: new TestClock().now, sources: [todayInHistory] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('reads the one recorded event of November 30', async () => {
    const res = await svc.get('/v2/apis/today-in-history?date=2026-11-30');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Body;
    expect(body.data?.total).toBe(1);
    expect(body.data?.items[0]).toMatchObject({
      rank: 1,
      year: '1602',
      title: '日本战国女城主立花訚千代逝世',
      event_type: 'death',
      link: 'https://baike.baidu.com/item/%E7%AB%8B%E8%8A%B1%E8%A8%9A%E5%8D%83%E4%BB%A3',
    });
    expect(body.data?.items[0]?.description).toMatch(/^立花訚千代（たちばな ぎんちよ.*是日本战国时代的女…$/);
    expect(body.data?.items[0]?.description).not.toContain('<a');
    expect(upstream.unmatched).toEqual([]);
  });
});
