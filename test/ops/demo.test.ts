/**
 * `npm run demo` (scripts/demo.ts): the service on the project's own fixtures fills the
 * endpoints, the status page and the gateway without any upstream site; its clock runs on the
 * recordings' day, so today's 60s, its feed, timelines and trending show real content.
 */
import Parser from 'rss-parser';
import { describe, expect, it } from 'vitest';
import { DEMO_NOTICE, demoPath, recordingsDay } from '../../scripts/demo.ts';
import type { Timeline } from '../../sources/timeline.ts';
import type { Trending } from '../../sources/trending.ts';
import { addDays, formatDate } from '../../src/kernel/time.ts';
import { DECLARED_LIST_FIXTURES } from '../support/declared-list-fixtures.ts';
import { demoForSuite } from '../support/demo-suite.ts';

interface Envelope<T> {
  code: number;
  data: T;
}

describe('npm run demo', () => {
  const demo = demoForSuite(60_000);

  it('asks every endpoint once, and most answer from the fixtures', () => {
    const routes = demo().service.registry.sources.flatMap((s) => s.routes.map((r) => demoPath(s, r)));
    expect(demo().results.map((r) => r.path)).toEqual(routes);
    const ok = demo().results.filter((r) => r.status < 400);
    expect(ok.length / demo().results.length).toBeGreaterThan(0.8);
    for (const s of demo().service.registry.sources.filter((x) => x.mode === 'local')) {
      for (const r of s.routes) expect(demo().results.find((x) => x.path === demoPath(s, r))?.status, `${s.id} ${r.path}`).toBeLessThan(400);
    }
    expect(demo().results.find((r) => r.path.startsWith('/v2/apis/hot-microblog'))?.status).toBe(200);
    // The declared lists answer from the demo data written in their upstreams' formats.
    for (const f of DECLARED_LIST_FIXTURES) expect(demo().results.find((r) => r.path.split('?')[0] === f.path)?.status, f.path).toBe(200);
  });

  it('shows filled sources on /status, and the demo key works on /v1', async () => {
    const html = await (await fetch(`${demo().base}/status`)).text();
    expect((html.match(/data-state="fresh"/g) ?? []).length).toBeGreaterThan(10);
    const models = await fetch(`${demo().base}/v1/models`, { headers: { authorization: `Bearer ${demo().demoKey}` } });
    expect(models.status).toBe(200);
    const login = await fetch(`${demo().base}/console`, { headers: { authorization: `Bearer ${demo().adminToken}` } });
    expect(await login.text()).toContain('<form class="box" method="post" action="/console/keys" id="create">');
  });

  it('runs its clock on the recordings\' day: today\'s 60s is that day\'s digest, and its feed has two days', async () => {
    expect(demo().day).toBe(recordingsDay());
    expect(formatDate(demo().clock.now())).toBe(demo().day);
    const res = await fetch(`${demo().base}/v2/apis/60s`);
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as Envelope<{ date: string; is_today: boolean; news: string[] }>;
    expect(data).toMatchObject({ date: demo().day, is_today: true });
    expect(data.news.length).toBeGreaterThan(5);
    const feed = await new Parser().parseString(await (await fetch(`${demo().base}/v2/apis/60s/rss`)).text());
    expect(feed.items.length).toBeGreaterThanOrEqual(2);
    expect(feed.items[0]?.title).toContain(demo().day);
  });

  it('keeps several snapshots of the lists: history, timelines with rank samples, cross-platform trending', async () => {
    // Two days before at 21:00, the day before at 21:00 (the 08:00 edition, unchanged at 08:00), 10:00, 12:00.
    expect((await demo().service.store.archive.bounds('hot-microblog', ''))?.count).toBe(4);
    const morning = await (await fetch(`${demo().base}/v2/apis/hot-microblog?at=${encodeURIComponent(`${demo().day}T08:30:00+08:00`)}`)).json() as Envelope<{ title: string }[]>;
    expect(morning.data.length).toBeGreaterThan(0);
    const timeline = (await (await fetch(`${demo().base}/v2/apis/timeline?q=${encodeURIComponent('新能源车')}`)).json()) as Envelope<Timeline>;
    const weibo = timeline.data.items.find((i) => i.source === 'hot-microblog');
    // Two evenings before, the evening before (the 08:00 edition), 08:00, 10:00, 12:00.
    expect(weibo?.samples.map((x) => x.rank)).toEqual([6, 5, 5, 3, 2]);
    expect(timeline.data.items.map((i) => i.source)).toContain('hot-short-video-a');
    const plane = (await (await fetch(`${demo().base}/v2/apis/timeline?q=${encodeURIComponent('大飞机')}&source=hot-microblog`)).json()) as Envelope<Timeline>;
    expect(plane.data.items[0]?.first_seen_at).toBe(Date.parse(`${demo().day}T10:00:00+08:00`));
    const trending = (await (await fetch(`${demo().base}/v2/apis/trending`)).json()) as Envelope<Trending>;
    expect(trending.data.events[0]!.platform_count).toBeGreaterThanOrEqual(2);
    expect(trending.data.lists.filter((l) => !l.missing).length).toBeGreaterThanOrEqual(6);
  });

  it('runs one clock: uptime, the status page and the console\'s key dates are on the demo day', async () => {
    const health = (await (await fetch(`${demo().base}/healthz`)).json()) as { uptime_sec: number };
    expect(health.uptime_sec).toBeGreaterThanOrEqual(0);
    expect(health.uptime_sec).toBeLessThan(600);
    const status = await (await fetch(`${demo().base}/status`)).text();
    expect(status).toContain(`Updated ${demo().day} `);
    expect(status).toMatch(/ · up \d+ s · /);
    const keys = await demo().service.gateway.keys.list();
    expect(formatDate(keys.find((k) => k.name === 'demo')!.createdAt)).toBe(demo().day);
    const console = await (await fetch(`${demo().base}/console`, { headers: { authorization: `Bearer ${demo().adminToken}` } })).text();
    expect(console).toContain(demo().day);
  });

  it('labels every page as demo data, and serves translation and pictures without the internet', async () => {
    for (const page of ['/', '/v2/apis/hot-microblog?encoding=html', '/status', '/docs', '/console']) {
      const res = await fetch(`${demo().base}${page}`, { headers: { accept: 'text/html', authorization: `Bearer ${demo().adminToken}` } });
      expect(await res.text(), page).toContain(DEMO_NOTICE);
    }
    const fanyi = (await (await fetch(`${demo().base}/v2/apis/fanyi?text=${encodeURIComponent('你好，世界')}&to=ja`)).json()) as Envelope<{ target: { text: string } }>;
    expect(fanyi.data.target.text).toBe('こんにちは、世界');
    for (const path of ['/v2/apis/wallpaper-daily?encoding=image-proxy', '/v2/apis/60s?encoding=image-proxy']) {
      const res = await fetch(`${demo().base}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toBe('image/svg+xml');
      expect(await res.text(), path).toContain('demo');
    }
  });

  it('has the board of the evening before: yesterday 21:30 shows archived lists', async () => {
    const at = `${addDays(demo().day, -1)}T21:30`;
    const res = await fetch(`${demo().base}/v2/apis/hot-microblog?at=${at}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-cache')).toBe('HISTORY');
    const board = await (await fetch(`${demo().base}/?at=${at}`, { headers: { accept: 'text/html' } })).text();
    expect(board).toContain(`data-at="${Date.parse(`${at}:00+08:00`)}"`);
    expect(board).not.toContain('这一时刻之前没有存档');
  });

  it('builds a request for routes with path parameters from their examples', () => {
    const s = demo().service.registry.sources.find((x) => x.routes.some((r) => r.path.includes(':')));
    if (!s) return;
    for (const r of s.routes.filter((x) => x.path.includes(':'))) expect(demoPath(s, r)).not.toMatch(/:\w/);
  });
});
