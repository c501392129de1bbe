/**
 * Issue 20 item 5: a PostgreSQL outage never turns a stored-data route into a 500. The service
 * reaches PostgreSQL through a TCP proxy that the test cuts and restores. While it is cut:
 * - data this instance read before is served from memory, `X-Cache: STALE` with a note saying
 *   the store is unreachable (hot lists in every encoding, a dated history row, the RSS feed
 *   built from history, trending and timeline computed over the stored lists);
 * - data it never read, and archive reads (`?at=`, `?date=` of a list), answer 503 with
 *   Retry-After, naming PostgreSQL;
 * - `/v2/status` and `/status` show the last source states read, saying the store is down;
 * - `/healthz` (readiness) answers 503 while `/livez` (liveness) stays 200.
 * After the restore everything reads the store again. A stalled connection (a network partition:
 * nothing answers, nothing is refused) is the same outage once a read has waited
 * STORE_READ_TIMEOUT_MS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SEEDS } from '../../sources/changya.ts';
import { TestClock } from '../support/clock.ts';
import { createTestDatabase, requireServices, TEST_DATABASE_URL, waitFor } from '../multi/services.ts';
import { startService, type TestService } from '../support/service.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';
import { Upstream } from '../support/upstream.ts';

/** 10:00 Asia/Shanghai on 2026-11-20, the day of the recorded 60s digest. */
const START = Date.parse('2026-11-20T02:00:00Z');
const LIST = '/v2/apis/hot-microblog';
const ENCODINGS = ['json', 'text', 'markdown', 'html', 'rss'];
/** Past the engine's one-second memo of a snapshot, so that a read asks the store. */
const pastMemo = () => new Promise((r) => setTimeout(r, 1_100));
const READ_TIMEOUT_MS = 1_000;

const avail = await requireServices({ postgres: true });

describe.skipIf(!!avail.missing)(`stored-data routes during a PostgreSQL outage${avail.label}`, () => {
  const upstream = new Upstream();
  const clock = new TestClock(START);
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let proxy: TcpProxy;
  let svc: TestService;
  let query = '';
  const before = new Map<string, string>();

  beforeAll(async () => {
    db = await createTestDatabase();
    const target = new URL(TEST_DATABASE_URL);
    proxy = await new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) }).start();
    const viaProxy = new URL(db.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, env: { SOURCE_CHANGYA_SEEDS: DEFAULT_SEEDS[0]!, DATABASE_URL: viaProxy.toString(), DATABASE_POOL_MAX: '4', STORE_READ_TIMEOUT_MS: String(READ_TIMEOUT_MS) } });

    for (const encoding of ENCODINGS) {
      const res = await svc.get(`${LIST}?encoding=${encoding}`);
      expect(res.status, encoding).toBe(200);
      before.set(encoding, await res.text());
    }
    const list = JSON.parse(before.get('json') as string) as { data: { title: string }[] };
    query = list.data[0]!.title.slice(0, 4);
    for (const path of ['/v2/apis/60s', '/v2/apis/60s?date=2026-11-20', '/v2/apis/60s/rss', '/v2/apis/changya?encoding=json', '/v2/apis/trending', `/v2/apis/timeline?q=${encodeURIComponent(query)}`, '/v2/status', '/status']) {
      const res = await svc.get(path);
      expect(res.status, path).toBe(200);
      before.set(path, await res.text());
    }
    expect((await svc.get(`${LIST}?at=${START}`)).status).toBe(200);
    expect((await svc.get('/healthz')).status).toBe(200);

    await proxy.cut();
    await pastMemo();
  }, 60_000);

  afterAll(async () => {
    await svc?.close();
    await proxy?.stop();
    await upstream.stop();
    await db?.drop();
  });

  it.each(ENCODINGS)('a hot list in %s: the last good data from memory, STALE with a note', async (encoding) => {
    const res = await svc.get(`${LIST}?encoding=${encoding}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-cache')).toBe('STALE');
    expect(decodeURIComponent(res.headers.get('x-cache-note') ?? '')).toMatch(/data store \(PostgreSQL\) is unreachable/);
    const body = await res.text();
    if (encoding === 'json') expect(body).toBe(before.get('json'));
    else expect(body.length).toBeGreaterThan(100);
  });

  it.each(['/v2/apis/60s?date=2026-11-20', '/v2/apis/60s/rss', '/v2/apis/trending', 'timeline'])('%s: from memory, STALE', async (path) => {
    const url = path === 'timeline' ? `/v2/apis/timeline?q=${encodeURIComponent(query)}` : path;
    const res = await svc.get(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-cache')).toBe('STALE');
    const body = await res.text();
    if (path === '/v2/apis/60s/rss') expect(body).toContain('<item>');
    else expect(JSON.parse(body)).toEqual(JSON.parse(before.get(url) as string));
  });

  it('a local source over its stored feed (changya) still answers from the feed read last', async () => {
    const res = await svc.get('/v2/apis/changya?encoding=json');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { audio: { url: string } } }).data.audio.url).toMatch(/^https:\/\//);
  });

  it.each([`${LIST}?at=${START}`, `${LIST}?date=2026-11-20`, '/v2/apis/hot-qa-site', '/v2/apis/timeline?q=never-asked'])('%s: 503 with Retry-After naming PostgreSQL', async (path) => {
    const res = await svc.get(path);
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await res.json()) as { code: number; message: string };
    expect(body.code).toBe(503);
    expect(body.message).toMatch(/data store \(PostgreSQL\) is unreachable/);
    expect(body.message).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
  });

  it('/v2/status and /status: the last source states, saying the store is unreachable', async () => {
    const status = await svc.get('/v2/status');
    expect(status.status).toBe(200);
    const data = ((await status.json()) as { data: { store: string; note: string; sources: { id: string; state: string }[] } }).data;
    expect(data.store).toBe('unreachable');
    expect(data.note).toMatch(/PostgreSQL/);
    const was = (JSON.parse(before.get('/v2/status') as string) as { data: { sources: { id: string; state: string }[] } }).data.sources;
    expect(data.sources.map((s) => [s.id, s.state])).toEqual(was.map((s) => [s.id, s.state]));
    const page = await svc.get('/status');
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/id="store-note">The data store \(PostgreSQL\) is unreachable/);
  });

  it('/healthz reports the store down (readiness); /livez stays ok (liveness)', async () => {
    const ready = await svc.get('/healthz');
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBeTruthy();
    expect(await ready.json()).toMatchObject({ status: 'unavailable', store: 'unreachable' });
    const live = await svc.get('/livez');
    expect(live.status).toBe(200);
    expect(await live.json()).toMatchObject({ status: 'ok' });
  });

  it('after the restore, reads go to the store again', async () => {
    await proxy.restore();
    await waitFor('readiness after the restore', async () => (await svc.get('/healthz')).status === 200, 20_000, 200);
    await pastMemo();
    const res = await svc.get(LIST);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-cache-note')).toBeNull();
    expect(((await (await svc.get('/v2/status')).json()) as { data: { store: string } }).data.store).toBe('ok');
    expect((await svc.get(`${LIST}?at=${START}`)).status).toBe(200);
  }, 30_000);

  it('a stalled PostgreSQL (partition) is an outage after the read timeout, not a hang', async () => {
    proxy.stall();
    await pastMemo();
    try {
      const started = Date.now();
      const res = await svc.get(LIST);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-cache')).toBe('STALE');
      expect(decodeURIComponent(res.headers.get('x-cache-note') ?? '')).toMatch(/PostgreSQL\) is unreachable/);
      expect(Date.now() - started).toBeLessThan(READ_TIMEOUT_MS * 4);
      expect((await svc.get('/v2/apis/hot-qa-site')).status).toBe(503);
      expect((await svc.get('/healthz')).status).toBe(503);
    } finally {
      await proxy.restore();
    }
    await waitFor('readiness after the stall', async () => (await svc.get('/healthz')).status === 200, 20_000, 200);
  }, 30_000);
});
