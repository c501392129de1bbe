/**
 * Backfill through the real server and store, on SQLite and PostgreSQL: 60s fills its last 10
 * days from a local upstream where one day in the middle fails (the gap shows on /v2/status, the
 * other days are stored, the gap is retried once its backoff passed), and everything stays
 * answerable after the upstream is gone. Also the scheduler's pass at start (RSS with 10 items
 * shortly after the first start), and wallpaper-daily / ai-news, whose upstreams offer a window.
 */
import fs from 'node:fs';
import path from 'node:path';
import Parser from 'rss-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sixty from '../../sources/60s.ts';
import aiNews from '../../sources/ai-news.ts';
import wallpaper from '../../sources/wallpaper-daily.ts';
import { addDays } from '../../src/kernel/time.ts';
import type { BackfillStatus } from '../../src/kernel/backfill.ts';
import { createTestDatabase, requireServices } from '../multi/services.ts';
import { TestClock } from '../support/clock.ts';
import { startService, tempDbPath, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream, type UpstreamRequest } from '../support/upstream.ts';

const HOST = '60s-static.viki.moe';
const MIRROR = 'cdn.jsdelivr.net';
/** 10:00 Asia/Shanghai on 2026-11-21. */
const START = Date.parse('2026-11-21T02:00:00Z');
const TODAY = '2026-11-21';
const DAYS = Array.from({ length: 10 }, (_, i) => addDays(TODAY, -(i + 1)));
const FAILING = DAYS[4] as string; // 2026-11-16, in the middle

const template = JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, HOST, '60s', '2026-11-20.json'), 'utf8')) as Record<string, unknown>;
const digest = (date: string) => ({ ...template, date, news: Array.from({ length: 12 }, (_, i) => `${date} 要闻 ${i + 1}`), tip: `${date} 的微语` });
const DATE_PATH = /\/(\d{4}-\d{2}-\d{2})\.json$/;

/** The digest host and its mirror serve the ten days before today; FAILING answers 502 while `failing()`. */
function serveDays(upstream: Upstream, failing: () => boolean): void {
  const answer = (req: UpstreamRequest) => {
    const date = DATE_PATH.exec(req.path)?.[1] ?? '';
    if (date === FAILING && failing()) return { status: 502, body: 'Bad Gateway' };
    return date < TODAY && date >= (DAYS[9] as string) ? { body: digest(date) } : { status: 404, body: 'Not Found' };
  };
  upstream.serve(HOST, DATE_PATH, answer);
  upstream.serve(MIRROR, DATE_PATH, answer);
}

interface Status {
  data: { sources: { id: string; state: string; fail_count: number; last_error: string | null; backfill: BackfillStatus | null }[] };
}

const pg = await requireServices({ postgres: true });

for (const backend of ['sqlite', 'postgres'] as const) {
  const skip = backend === 'postgres' ? pg.missing : undefined;
  describe.skipIf(!!skip)(`60s backfill on ${backend}${backend === 'postgres' ? pg.label : ''}`, () => {
    const upstream = new Upstream();
    const clock = new TestClock(START);
    let failing = true;
    let svc: TestService;
    let dropDb: (() => Promise<void>) | undefined;
    const requestsFor = (date: string) => upstream.requests.filter((r) => r.path.endsWith(`/${date}.json`)).length;
    const status = async () => ((await (await svc.get('/v2/status')).json()) as Status).data.sources.find((s) => s.id === '60s')?.backfill;

    beforeAll(async () => {
      await upstream.start();
      serveDays(upstream, () => failing);
      const env: Record<string, string> = {};
      if (backend === 'postgres') {
        const db = await createTestDatabase();
        env.DATABASE_URL = db.url;
        dropDb = db.drop;
      }
      svc = await startService({ upstream, now: clock.now, sources: [sixty], env, backfillPauseMs: 0 });
    });
    afterAll(async () => {
      await svc?.close();
      await upstream.stop();
      await dropDb?.();
    });

    it('before any pass, status shows all ten days missing', async () => {
      expect(await status()).toMatchObject({ days: 10, wanted: 10, stored: 0, missing: DAYS, gaps: [], last_pass_at: null });
    });

    it('a pass stores every day but the failing one, which shows as a gap with its error and retry time', async () => {
      await svc.backfill.runPass();
      const s = await status();
      expect(s).toMatchObject({ wanted: 10, stored: 9, missing: [FAILING], running: false, last_pass_at: START });
      expect(s?.gaps).toHaveLength(1);
      expect(s?.gaps[0]).toMatchObject({ date: FAILING, attempts: 1 });
      expect(s?.gaps[0]?.error).toMatch(/502/);
      expect(s?.gaps[0]?.next_attempt_at).toBeGreaterThan(START);
      for (const d of DAYS.filter((x) => x !== FAILING)) expect(await svc.store.getHistory('60s', '', d)).toBeDefined();
      // One request at a time, each stored day asked for once (the failing one on both mirrors).
      expect(requestsFor(DAYS[0] as string)).toBe(1);
      expect(requestsFor(FAILING)).toBe(2);
    });

    it('a pass within the backoff leaves the gap alone; after it, the day is retried and filled', async () => {
      failing = false;
      const asked = requestsFor(FAILING);
      await svc.backfill.runPass();
      expect(requestsFor(FAILING)).toBe(asked);
      expect((await status())?.missing).toEqual([FAILING]);
      // Stored days are not asked again.
      expect(requestsFor(DAYS[0] as string)).toBe(1);
      clock.advance(2 * 3600_000);
      await svc.backfill.runPass();
      expect(await status()).toMatchObject({ stored: 10, missing: [], gaps: [] });
    });

    it('with the upstream gone, every day is answered from history and the feed has ten items', async () => {
      // The scheduled key was fetched once while the upstream was there (today is not published: the latest day).
      expect((await svc.get('/v2/apis/60s')).status).toBe(200);
      await upstream.stop();
      for (const d of DAYS) {
        const r = await svc.get(`/v2/apis/60s?date=${d}`);
        expect(r.status).toBe(200);
        expect(((await r.json()) as { data: { date: string } }).data.date).toBe(d);
      }
      const feed = await new Parser().parseString(await (await svc.get('/v2/apis/60s/rss')).text());
      expect(feed.items).toHaveLength(10);
      expect(feed.items[0]?.title).toContain(DAYS[0]);
      expect(feed.items[9]?.title).toContain(DAYS[9]);
    });
  });
}

for (const backend of ['sqlite', 'postgres'] as const) {
  const skip = backend === 'postgres' ? pg.missing : undefined;
  describe.skipIf(!!skip)(`60s backfill across restarts on ${backend}${backend === 'postgres' ? pg.label : ''}`, () => {
    const upstream = new Upstream();
    const clock = new TestClock(START);
    let failing = true;
    let svc: TestService | undefined;
    const env: Record<string, string> = {};
    let dropDb: (() => Promise<void>) | undefined;
    const requestsFor = (date: string) => upstream.requests.filter((r) => r.path.endsWith(`/${date}.json`)).length;
    const sixtyStatus = async () => ((await (await svc!.get('/v2/status')).json()) as Status).data.sources.find((s) => s.id === '60s');
    const restart = async () => {
      await svc?.close();
      svc = await startService({ upstream, now: clock.now, sources: [sixty], env, backfillPauseMs: 0 });
    };

    beforeAll(async () => {
      await upstream.start();
      serveDays(upstream, () => failing);
      if (backend === 'postgres') {
        const db = await createTestDatabase();
        env.DATABASE_URL = db.url;
        dropDb = db.drop;
      } else env.DB_PATH = tempDbPath();
      await restart();
    });
    afterAll(async () => {
      await svc?.close();
      await upstream.stop();
      await dropDb?.();
    });

    it('a failed day is a gap of the backfill, not a failure of the source', async () => {
      await svc!.backfill.runPass();
      const s = await sixtyStatus();
      expect(s?.backfill).toMatchObject({ stored: 9, missing: [FAILING] });
      expect(s?.backfill?.gaps[0]).toMatchObject({ date: FAILING, attempts: 1 });
      expect(s).toMatchObject({ fail_count: 0, last_error: null });
      expect(s?.state).not.toMatch(/failing|down/);
      expect((await svc!.store.listSnapshots('60s')).every((x) => x.failCount === 0)).toBe(true);
    });

    it('the gap survives a restart with its attempts, error and backoff, and is filled after it', async () => {
      const gapBefore = (await sixtyStatus())?.backfill?.gaps[0];
      await restart();
      const gap = (await sixtyStatus())?.backfill?.gaps[0];
      expect(gap).toMatchObject({ date: FAILING, attempts: 1 });
      expect(gap?.error).toMatch(/502/);
      expect(gap?.next_attempt_at).toBeGreaterThan(START);
      expect(gap?.next_attempt_at).toBeLessThanOrEqual((gapBefore?.next_attempt_at ?? 0) + 3_600_000);
      // A pass at start within the backoff does not ask again; after it, the day is filled.
      const asked = requestsFor(FAILING);
      await svc!.backfill.runPass();
      expect(requestsFor(FAILING)).toBe(asked);
      failing = false;
      clock.advance(2 * 3600_000);
      await svc!.backfill.runPass();
      expect((await sixtyStatus())?.backfill).toMatchObject({ stored: 10, missing: [], gaps: [] });
    });

    it('with the upstream gone, a restarted service answers the feed with ten items and 60s with the newest day, STALE', async () => {
      await upstream.stop();
      await restart();
      const r = await svc!.get('/v2/apis/60s');
      expect(r.status).toBe(200);
      expect(r.headers.get('x-cache')).toBe('STALE');
      expect(((await r.json()) as { data: { date: string } }).data.date).toBe(DAYS[0]);
      const text = await svc!.get('/v2/apis/60s?encoding=text');
      expect(await text.text()).toContain(`${DAYS[0]} 要闻 1`);
      const rss = await svc!.get('/v2/apis/60s/rss');
      expect(rss.status).toBe(200);
      const feed = await new Parser().parseString(await rss.text());
      expect(feed.items).toHaveLength(10);
      expect(feed.items.map((i) => i.title?.match(/\d{4}-\d{2}-\d{2}/)?.[0])).toEqual(DAYS);
    });
  });
}

describe('the scheduler backfills at start', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    const answer = (req: UpstreamRequest) => ({ body: digest(DATE_PATH.exec(req.path)?.[1] ?? '') });
    upstream.serve(HOST, DATE_PATH, answer);
    upstream.serve(MIRROR, DATE_PATH, answer);
    svc = await startService({ upstream, sources: [sixty], env: { SCHEDULER_ENABLED: 'true', WARMUP_SPREAD_MS: '0' }, backfillPauseMs: 0 });
  });
  afterAll(async () => {
    await svc?.close();
    await upstream.stop();
  });

  it('the 60s feed has ten items shortly after the first start', async () => {
    let items = 0;
    for (let i = 0; i < 100 && items < 10; i++) {
      await new Promise((r) => setTimeout(r, 100));
      items = (await new Parser().parseString(await (await svc.get('/v2/apis/60s/rss')).text())).items.length;
    }
    expect(items).toBe(10);
  });
});

describe('sources whose upstream offers a window of days', () => {
  const upstream = new Upstream();
  const clock = new TestClock(START);
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, sources: [wallpaper, aiNews], backfillPauseMs: 0 });
  });
  afterAll(async () => {
    await svc?.close();
    await upstream.stop();
  });

  it('wallpaper-daily reads the days before today from Bing\'s archive (idx 1–7), one request each', async () => {
    const base = JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, 'global.bing.com', 'HPImageArchive.aspx.json'), 'utf8')) as { images: Record<string, unknown>[] };
    upstream.serve('global.bing.com', '/HPImageArchive.aspx', (req) => {
      const idx = Number(req.query.get('idx'));
      const day = addDays(TODAY, -idx).replace(/-/g, '');
      const prev = addDays(TODAY, -idx - 1).replace(/-/g, '');
      return { body: { images: [{ ...base.images[0], title: `壁纸 ${idx}`, startdate: day, fullstartdate: `${prev}1600`, enddate: day }] } };
    });
    await svc.backfill.runPass();
    const archive = upstream.requests.filter((r) => r.path === '/HPImageArchive.aspx').map((r) => Number(r.query.get('idx')));
    expect(archive.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const s = (await svc.backfill.status()).get('wallpaper-daily');
    expect(s).toMatchObject({ wanted: 7, stored: 7, missing: [], gaps: [] });
    const r = await svc.get(`/v2/apis/wallpaper-daily?date=${addDays(TODAY, -3)}`);
    expect(((await r.json()) as { data: { title: string } }).data.title).toBe('壁纸 3');
  });

  it('ai-news waits for the page, then keeps the past days it lists', async () => {
    // No snapshot of the page yet: the offered days are unknown, nothing is fetched.
    const before = upstream.requests.length;
    expect((await svc.backfill.status()).get('ai-news')).toMatchObject({ wanted: 0 });
    await svc.get('/v2/apis/ai-news');
    const pageDays = (((await (await svc.get('/v2/apis/ai-news')).json()) as { data: { dates: string[] } }).data.dates).filter((d) => d < TODAY);
    expect(pageDays.length).toBeGreaterThan(0);
    await svc.backfill.runPass();
    const s = (await svc.backfill.status()).get('ai-news');
    expect(s).toMatchObject({ wanted: pageDays.length, stored: pageDays.length, missing: [] });
    expect(upstream.requests.length).toBeGreaterThan(before);
  });
});
