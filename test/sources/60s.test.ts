import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import Parser from 'rss-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import sixty, { parse } from '../../sources/60s.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { TestClock } from '../support/clock.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream, type UpstreamRequest } from '../support/upstream.ts';

const HOST = '60s-static.viki.moe';
const fixture = (date: string) => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, HOST, '60s', `${date}.json`), 'utf8')) as Record<string, unknown>;
/** 10:00 Asia/Shanghai on 2026-11-21. */
const START = Date.parse('2026-11-21T02:00:00Z');

/** A digest for any date, as the static host writes it. */
function digest(date: string): Record<string, unknown> {
  return {
    ...fixture('2026-11-20'),
    date,
    news: Array.from({ length: 12 }, (_, i) => `${date} 要闻 ${i + 1}`),
    tip: `${date} 的微语`,
    link: `https://mp.weixin.qq.com/s/digest-${date}`,
    image: `https://cdn.jsdmirror.com/gh/vikiboss/60s-static-host@main/static/images/${date}.png`,
  };
}
const DATE_PATH = /^\/60s\/(\d{4}-\d{2}-\d{2})\.json$/;
const byDate = (published: Set<string>) => (req: UpstreamRequest) => {
  const date = DATE_PATH.exec(req.path)?.[1] ?? '';
  return published.has(date) ? { body: digest(date) } : { status: 404, body: 'Not Found' };
};

describe('60s parse', () => {
  it('reads a day file, with weekday, lunar date and publication time', () => {
    const d = parse(fixture('2026-11-20'), '2026-11-20', new Date(START));
    expect(d.date).toBe('2026-11-20');
    expect(d.day_of_week).toBe('星期五');
    expect(d.lunar_date).toBe('十月十二');
    expect(d.news).toHaveLength(14);
    expect(d.tip).toBe('把今天过好，就是对明天最好的准备。');
    expect(d.published).toBe('2026-11-20 08:12:00');
    // 60s passes the file's own text of its times, and writes its fetch time as YYYY/MM/DD HH:mm:ss.
    expect(d.created).toBe('2026/11/20 08:10');
    expect(d.updated).toBe('2026/11/20 08:12');
    expect(d.api_updated).toMatch(/^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(d.is_today).toBe(false);
    expect(d.api_updated_at).toBe(START);
    expect(sixty.mode !== 'local' && sixty.validate(d)).toBeUndefined();
  });

  it('accepts the older {title, link} news items and rejects broken files', () => {
    const old = { ...fixture('2026-11-19'), news: [{ title: '旧格式一', link: 'https://x.test/1' }, { title: '旧格式二' }, '新格式'] };
    expect(parse(old, '2026-11-19', new Date(START)).news).toEqual(['旧格式一', '旧格式二', '新格式']);
    expect(() => parse({ news: [] }, '2026-11-19', new Date(START))).toThrow(SourceError);
    const empty = parse({ ...fixture('2026-11-19'), news: ['only one'] }, '2026-11-19', new Date(START));
    expect(sixty.mode !== 'local' && sixty.validate(empty)).toMatch(/only 1 news/);
  });
});

describe('60s through the server', () => {
  const upstream = new Upstream();
  const clock = new TestClock(START);
  const published = new Set(['2026-11-19', '2026-11-20']);
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    upstream.reset();
  });

  it('before today is published, serves the latest day and says so', async () => {
    upstream.serve(HOST, DATE_PATH, byDate(published));
    upstream.serve('cdn.jsdelivr.net', /.*/, { status: 404 });
    const r = await svc.get('/v2/apis/60s');
    expect(r.status).toBe(200);
    const body = (await r.json()) as { data: { date: string; is_today: boolean; requested_date: string } };
    expect(body.data).toMatchObject({ date: '2026-11-20', is_today: false, requested_date: '2026-11-21' });
    const text = await (await svc.get('/v2/apis/60s?encoding=text')).text();
    expect(text).toContain('今日（2026-11-21）简报尚未发布，以下为最近一期 2026-11-20 的内容。');
    expect(text).toContain('1. 2026-11-20 要闻 1');
    expect(text).toContain('【微语】2026-11-20 的微语');
  });

  it('serves today once published, after the TTL', async () => {
    published.add('2026-11-21');
    upstream.serve(HOST, DATE_PATH, byDate(published));
    clock.advance(16 * 60_000);
    expect((await svc.get('/v2/apis/60s')).headers.get('x-cache')).toBe('STALE');
    await new Promise((r) => setTimeout(r, 100));
    const body = (await (await svc.get('/v2/apis/60s')).json()) as { data: { date: string; is_today: boolean } };
    expect(body.data).toMatchObject({ date: '2026-11-21', is_today: true });
  });

  it('answers past dates from history without the upstream once seen, and fetches an unseen past date once', async () => {
    upstream.serve(HOST, DATE_PATH, { status: 500, body: 'down' });
    const seen = await svc.get('/v2/apis/60s?date=2026-11-20');
    expect(seen.status).toBe(200);
    expect(((await seen.json()) as { data: { date: string } }).data.date).toBe('2026-11-20');
    expect(upstream.hits(HOST)).toHaveLength(0);

    upstream.serve(HOST, DATE_PATH, byDate(published));
    const unseen = await svc.get('/v2/apis/60s?date=2026-11-19');
    expect(((await unseen.json()) as { data: { date: string } }).data.date).toBe('2026-11-19');
    expect(upstream.hits(HOST)).toHaveLength(1);
    upstream.serve(HOST, DATE_PATH, { status: 500, body: 'down' });
    expect((await svc.get('/v2/apis/60s?date=2026-11-19')).status).toBe(200);

    const missing = await svc.get('/v2/apis/60s?date=2020-01-01');
    expect(missing.status).toBe(503);
    upstream.serve(HOST, DATE_PATH, byDate(published));
    upstream.serve('cdn.jsdelivr.net', /.*/, { status: 404 });
    const never = await svc.get('/v2/apis/60s?date=2021-01-01');
    expect(never.status).toBe(404);
    expect(((await never.json()) as { message: string }).message).toMatch(/no digest has been published for 2021-01-01/);
    expect((await svc.get('/v2/apis/60s?date=2099-01-01')).status).toBe(400);
    expect((await svc.get('/v2/apis/60s?date=2026-02-30')).status).toBe(400);
  });

  it('publishes an RSS feed of the last days from history with stable guids', async () => {
    const days = ['2026-11-14', '2026-11-15', '2026-11-16', '2026-11-17', '2026-11-18'];
    for (const d of days) published.add(d);
    upstream.serve(HOST, DATE_PATH, byDate(published));
    for (const d of days) expect((await svc.get(`/v2/apis/60s?date=${d}`)).status).toBe(200);
    const res = await svc.get('/v2/apis/60s/rss');
    expect(res.headers.get('content-type')).toBe('application/rss+xml; charset=utf-8');
    const xml = await res.text();
    const feed = await new Parser().parseString(xml);
    // The channel is named the same every day, and described for readers (in Chinese, not the API's English).
    expect(feed.title).toBe('每天 60 秒读懂世界');
    expect(feed.description).toMatch(/^每日早间新闻简报/);
    // Each day's guid is the one 60s's feed gives it: its item link.
    expect(xml).toContain('<guid isPermaLink="false">https://60s-static.viki.moe?date=2026-11-14</guid>');
    expect(feed.items.length).toBeGreaterThanOrEqual(8);
    expect(feed.items.map((i) => i.guid)).toContain('https://60s-static.viki.moe?date=2026-11-14');
    expect(new Set(feed.items.map((i) => i.guid)).size).toBe(feed.items.length);
    const first = feed.items.find((i) => i.guid === 'https://60s-static.viki.moe?date=2026-11-20');
    expect(first?.title).toBe('📅 2026-11-20 星期五');
    expect(new Date(first?.pubDate ?? '').toISOString()).toBe('2026-11-19T16:00:00.000Z');
    expect(first?.content).toContain('2026-11-20 要闻 3');

    clock.advance(16 * 60_000);
    await svc.get('/v2/apis/60s?force-update=1');
    const again = await new Parser().parseString(await (await svc.get('/v2/apis/60s/rss')).text());
    expect(again.items.map((i) => i.guid)).toEqual(feed.items.map((i) => i.guid));
    expect((await svc.get('/v2/apis/60s/rss?encoding=json')).status).toBe(200);
  });

  it('keeps the rendered feed until its history changes, one rendering per feed URL', async () => {
    const first = await (await svc.get('/v2/apis/60s/rss')).text();
    expect(await (await svc.get('/v2/apis/60s/rss')).text()).toBe(first);
    expect(first).not.toContain('https://60s-static.viki.moe?date=2026-11-13');
    // A past day fetched now joins the history without changing today's snapshot: the feed shows it.
    published.add('2026-11-13');
    upstream.serve(HOST, DATE_PATH, byDate(published));
    expect((await svc.get('/v2/apis/60s?date=2026-11-13')).status).toBe(200);
    const after = await new Parser().parseString(await (await svc.get('/v2/apis/60s/rss')).text());
    expect(after.items.map((i) => i.guid)).toContain('https://60s-static.viki.moe?date=2026-11-13');
    // The feed names its own URL; another Host's rendering is its own, never served to others.
    const other = await new Promise<string>((resolve, reject) => {
      const req = http.get(`${svc.base}/v2/apis/60s/rss`, { headers: { host: 'feeds.example' } }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => resolve(body)).on('error', reject);
      });
      req.on('error', reject);
    });
    expect(other).toContain('http://feeds.example/v2/apis/60s/rss');
    expect(await (await svc.get('/v2/apis/60s/rss')).text()).not.toContain('feeds.example');
  });

  it('keeps a past day\'s answer until that day\'s history row changes', async () => {
    const first = await svc.get('/v2/apis/60s?date=2026-11-19');
    const etag = first.headers.get('etag');
    expect(((await first.json()) as { data: { tip: string } }).data.tip).toBe('2026-11-19 的微语');
    expect(await (await svc.get('/v2/apis/60s?date=2026-11-19')).text()).toContain('2026-11-19 的微语');
    // The day is published again with another quote: a refetch rewrites its history row, and the
    // next dated answer (within the same second) shows it.
    upstream.serve(HOST, DATE_PATH, (req) => ({ body: { ...digest(DATE_PATH.exec(req.path)?.[1] ?? ''), tip: '改过的微语' } }));
    expect((await svc.get('/v2/apis/60s?date=2026-11-19&force-update=1')).status).toBe(200);
    const after = await svc.get('/v2/apis/60s?date=2026-11-19');
    expect(((await after.json()) as { data: { tip: string } }).data.tip).toBe('改过的微语');
    expect(after.headers.get('etag')).not.toBe(etag);
  });

  it('redirects encoding=image to the digest image and streams it with image-proxy', async () => {
    const img = await svc.get('/v2/apis/60s?encoding=image');
    expect(img.status).toBe(302);
    expect(img.headers.get('location')).toBe('https://cdn.jsdmirror.com/gh/vikiboss/60s-static-host@main/static/images/2026-11-21.png');
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea73581e40000000049454e44ae426082', 'hex');
    upstream.serve('cdn.jsdmirror.com', '/gh/vikiboss/60s-static-host@main/static/images/2026-11-21.png', { headers: { 'content-type': 'image/png' }, body: png });
    const proxied = await svc.get('/v2/apis/60s?encoding=image-proxy');
    expect(proxied.status).toBe(200);
    expect(proxied.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await proxied.arrayBuffer()).equals(png)).toBe(true);
    upstream.serve('cdn.jsdmirror.com', /.*/, { status: 404 });
    expect((await svc.get('/v2/apis/60s?encoding=image-proxy')).status).toBe(502);
  });

  it('renders markdown and html', async () => {
    const md = await (await svc.get('/v2/apis/60s?encoding=markdown')).text();
    expect(md).toMatch(/^# 每天 60 秒读懂世界（2026-11-21 星期六）/);
    expect(md).toContain('![2026-11-21](https://cdn.jsdmirror.com/');
    const html = await (await svc.get('/v2/apis/60s?encoding=html')).text();
    expect(html).toContain('<p>1. 2026-11-21 要闻 1</p>');
  });
});
