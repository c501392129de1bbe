/**
 * The refresh engine through the real server: stale-while-revalidate, last good data kept,
 * backoff, single-flight, 304, 503 with Retry-After, parameter and encoding errors, restart.
 * Uses a small list source defined here, fetched through the mirror like any source.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { backoffMs } from '../../src/kernel/engine.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { defineSource, type AnySource } from '../../src/kernel/source.ts';
import { asArray, asRecord, asString, hotListRows, migrateHotList, validateHotList } from '../../sources/_shared/hot-list.ts';
import { TestClock } from '../support/clock.ts';
import { startService, tempDbPath, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';

const HOST = 'list.example.test';
const items = (n: number, tag = 'a') => ({ items: Array.from({ length: n }, (_, i) => ({ name: `${tag}-${i + 1}` })) });

const testList = defineSource({
  id: 'test-list',
  name: 'Test list',
  description: 'A list fetched from a local upstream.',
  routes: [{ path: '/test-list' }, { path: '/test-list/:kind' }],
  params: {
    kind: { type: 'string', in: 'path', doc: 'Which list.', default: 'main', enum: ['main', 'other'] },
    limit: { type: 'integer', doc: 'How many.', default: 10, min: 1, max: 50 },
  },
  mode: 'scheduled',
  schedule: '*/5 * * * *',
  freshness: { ttlSec: 300, timeoutMs: 1_000 },
  async fetch(ctx, p) {
    const raw = await ctx.http.json(`https://${HOST}/${p.kind}`, { signal: ctx.signal });
    const list = asArray(asRecord(raw)?.items);
    if (!list) throw new SourceError('parse', 'items missing');
    return list.slice(0, p.limit).map((x, i) => ({ rank: i + 1, title: asString(asRecord(x)?.name) ?? '', link: `https://${HOST}/item/${i + 1}` }));
  },
  validate: (d) => validateHotList(d, 3),
  migrate: migrateHotList({ renamed: { name: 'title' } }),
  view: { rows: hotListRows },
  example: '/v2/apis/test-list',
}) as AnySource;

describe('backoff', () => {
  it('doubles from max(60 s, ttl/4) up to the cap, with jitter in [0.5, 1]', () => {
    expect(backoffMs(1, 300, 3600, 'transient', 1)).toBe(75_000);
    expect(backoffMs(2, 300, 3600, 'transient', 1)).toBe(150_000);
    expect(backoffMs(1, 60, 3600, 'transient', 1)).toBe(60_000);
    expect(backoffMs(20, 300, 3600, 'transient', 1)).toBe(3_600_000);
    expect(backoffMs(1, 300, 3600, 'transient', 0)).toBe(37_500);
    expect(backoffMs(1, 300, 3600, 'blocked', 1)).toBe(900_000);
  });
});

describe('engine through the server', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;
  let dbPath: string;

  beforeAll(async () => {
    await upstream.start();
    dbPath = tempDbPath();
    svc = await startService({ upstream, now: clock.now, random: () => 1, sources: [testList], env: { DB_PATH: dbPath } });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    upstream.reset();
  });

  it('coalesces concurrent cold requests into one upstream fetch (single-flight)', async () => {
    upstream.serve(HOST, '/main', { body: items(5), delayMs: 150 });
    const responses = await Promise.all(Array.from({ length: 8 }, () => svc.get('/v2/apis/test-list')));
    expect(responses.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(upstream.hits(HOST)).toHaveLength(1);
    expect(responses.every((r) => r.headers.get('x-cache') === 'MISS')).toBe(true);
  });

  it('answers HIT while fresh, with Last-Modified, ETag, Cache-Control, and 304 for a matching If-None-Match', async () => {
    const r = await svc.get('/v2/apis/test-list');
    expect(r.headers.get('x-cache')).toBe('HIT');
    expect(r.headers.get('cache-control')).toMatch(/^public, max-age=\d+, stale-while-revalidate=300$/);
    expect(new Date(r.headers.get('last-modified') ?? '').getTime()).toBe(clock.t - (clock.t % 1000));
    const etag = r.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{20}-json"$/);
    // fetch() adds "cache-control: no-cache" to conditional requests unless told otherwise.
    const again = await svc.get('/v2/apis/test-list', { headers: { 'if-none-match': etag as string, 'cache-control': 'max-age=0' } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const other = await svc.get('/v2/apis/test-list?encoding=text', { headers: { 'if-none-match': etag as string, 'cache-control': 'max-age=0' } });
    expect(other.status).toBe(200);
    expect(upstream.hits(HOST)).toHaveLength(0);
  });

  it('serves stale data at once after the TTL and refreshes in the background', async () => {
    clock.advance(301_000);
    upstream.serve(HOST, '/main', { body: items(5, 'b'), delayMs: 100 });
    const stale = await svc.get('/v2/apis/test-list');
    expect(stale.headers.get('x-cache')).toBe('STALE');
    expect(((await stale.json()) as { data: { title: string }[] }).data[0]?.title).toBe('a-1');
    await new Promise((r) => setTimeout(r, 300));
    const fresh = await svc.get('/v2/apis/test-list');
    expect(fresh.headers.get('x-cache')).toBe('HIT');
    expect(((await fresh.json()) as { data: { title: string }[] }).data[0]?.title).toBe('b-1');
    expect(upstream.hits(HOST)).toHaveLength(1);
  });

  it('ends text and markdown with the html page\'s footer, in its language', async () => {
    const html = await (await svc.get('/v2/apis/test-list?encoding=html')).text();
    const footer = /<footer>([^<]+)<\/footer>/.exec(html)?.[1];
    expect(footer).toMatch(/^更新于 \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}（北京时间）/);
    const text = await (await svc.get('/v2/apis/test-list?encoding=text')).text();
    expect(text.trimEnd().split('\n').at(-1)).toBe(footer);
    const md = await (await svc.get('/v2/apis/test-list?encoding=markdown')).text();
    expect(md.trimEnd().split('\n').at(-1)).toBe(`_${footer}_`);
  });

  it('never overwrites the last good data with a failed, empty or malformed fetch', async () => {
    for (const reply of [{ status: 500, body: 'boom' }, { body: items(1) }, { body: { other: true } }, { body: 'not json', headers: { 'content-type': 'text/plain' } }]) {
      clock.advance(4 * 3_600_000); // past TTL and any backoff
      upstream.serve(HOST, '/main', reply);
      const r = await svc.get('/v2/apis/test-list?force-update');
      expect(r.status).toBe(200);
      expect(r.headers.get('x-cache')).toBe('STALE');
      // Readable as it is (not percent-encoded), and still decodable.
      expect(r.headers.get('x-cache-note')).toMatch(/^refresh failed: [ -~]+$/);
      expect(decodeURIComponent(r.headers.get('x-cache-note') ?? '')).toMatch(/refresh failed/);
      expect(((await r.json()) as { data: { title: string }[] }).data[0]?.title).toBe('b-1');
    }
    const snap = await svc.store.getSnapshot('test-list', 'kind=main&limit=10');
    expect(snap?.failCount).toBe(4);
    expect(snap?.status).toBe('failing');
    expect(snap?.lastError).toMatch(/^parse: .*did not answer JSON/);
    const runs = await svc.store.recentRuns('test-list', 10);
    expect(runs.slice(0, 4).map((r) => r.outcome)).toEqual(['failed', 'failed', 'failed', 'failed']);
  });

  it('limits force-update to once per interval per key', async () => {
    clock.advance(3_600_000 * 5);
    upstream.serve(HOST, '/main', { body: items(6, 'c') });
    expect((await svc.get('/v2/apis/test-list?force-update=true')).headers.get('x-cache')).toBe('MISS');
    const throttled = await svc.get('/v2/apis/test-list?force-update=true');
    expect(decodeURIComponent(throttled.headers.get('x-cache-note') ?? '')).toMatch(/limited to once per 60 s/);
    expect(upstream.hits(HOST)).toHaveLength(1);
    expect((await svc.get('/v2/apis/test-list?force-update=maybe')).status).toBe(400);
  });

  it('answers a cold key whose fetch fails with 503, Retry-After from the backoff, and no upstream call while backing off', async () => {
    upstream.serve(HOST, '/other', { status: 502, body: 'bad gateway' });
    const first = await svc.get('/v2/apis/test-list/other');
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('75');
    const body = (await first.json()) as { code: number; message: string; data: null };
    expect(body).toMatchObject({ code: 503, data: null });
    expect(body.message).toMatch(/Test list.*HTTP 502/);
    const second = await svc.get('/v2/apis/test-list/other');
    expect(second.status).toBe(503);
    expect(Number(second.headers.get('retry-after'))).toBeLessThanOrEqual(75);
    expect(upstream.hits(HOST, '/other')).toHaveLength(1);
    clock.advance(76_000);
    upstream.serve(HOST, '/other', { body: items(4, 'o') });
    const recovered = await svc.get('/v2/apis/test-list/other');
    expect(recovered.status).toBe(200);
    expect(recovered.headers.get('x-cache')).toBe('MISS');
  });

  it('gives 503 when a cold fetch times out', async () => {
    upstream.serve(HOST, '/main', { body: items(5), delayMs: 2_500 });
    const r = await svc.get('/v2/apis/test-list?limit=7');
    expect(r.status).toBe(503);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('keys the cache by declared parameters only', async () => {
    upstream.serve(HOST, '/main', { body: items(9, 'k') });
    await svc.get('/v2/apis/test-list?limit=5&utm=1');
    await svc.get('/v2/apis/test-list?utm=2&limit=5');
    expect(upstream.hits(HOST)).toHaveLength(1);
  });

  it('rejects bad parameters and encodings with a 400 that names them', async () => {
    const cases: [string, RegExp][] = [
      ['/v2/apis/test-list?limit=0', /"limit".*from 1 to 50/],
      ['/v2/apis/test-list?limit=abc', /"limit".*whole number/],
      ['/v2/apis/test-list/nope', /"kind".*one of main, other/],
      ['/v2/apis/test-list?encoding=pdf', /Unsupported encoding "pdf".*json, text, markdown, html, rss/],
      ['/v2/apis/test-list?encoding=image', /Unsupported encoding "image"/],
    ];
    for (const [url, message] of cases) {
      const r = await svc.get(url);
      expect(r.status, url).toBe(400);
      const body = (await r.json()) as { code: number; message: string; data: null };
      expect(body.code).toBe(400);
      expect(body.data).toBeNull();
      expect(body.message).toMatch(message);
    }
  });

  it('renders errors in the requested encoding with the real status', async () => {
    const text = await svc.get('/v2/apis/test-list?limit=0&encoding=text');
    expect(text.status).toBe(400);
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await text.text()).toMatch(/^Error 400: Invalid parameter "limit"/);
    const md = await svc.get('/v2/apis/test-list?limit=0&encoding=markdown');
    expect(await md.text()).toMatch(/^# Error 400/);
  });

  it('answers unknown routes with a JSON 404 pointing to the catalogue, and opens CORS', async () => {
    const r = await svc.get('/v2/apis/no-such-thing');
    expect(r.status).toBe(404);
    expect(((await r.json()) as { message: string }).message).toMatch(/GET \/v2\/apis/);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    const pre = await svc.get('/v2/apis/test-list', { method: 'OPTIONS', headers: { 'access-control-request-method': 'GET' } });
    expect(pre.status).toBe(204);
  });

  it('lists every route in the catalogue with parameters, encodings and an example', async () => {
    const r = (await (await svc.get('/v2/apis')).json()) as { data: { endpoints: { path: string; params: { name: string; accepted: string }[]; encodings: string[]; example: string }[] } };
    const paths = r.data.endpoints.map((e) => e.path);
    expect(paths).toEqual(['/v2/apis/test-list', '/v2/apis/test-list/:kind']);
    expect(r.data.endpoints[0]?.params.find((p) => p.name === 'limit')?.accepted).toBe('a whole number from 1 to 50');
    expect(r.data.endpoints[0]?.encodings).toEqual(['json', 'text', 'markdown', 'html', 'rss']);
  });

  it('keeps the data across a restart (file-backed database)', async () => {
    await svc.close();
    upstream.serve(HOST, '/main', { status: 500, body: 'down' });
    svc = await startService({ upstream, now: clock.now, random: () => 1, sources: [testList], env: { DB_PATH: dbPath } });
    const r = await svc.get('/v2/apis/test-list?limit=5');
    expect(r.status).toBe(200);
    expect(((await r.json()) as { data: unknown[] }).data).toHaveLength(5);
  });

  it('upgrades stored data of an older shape: with the upstream down it is served STALE in the current shape', async () => {
    // A hot list as stored before lists became bare arrays, with a field renamed since.
    const oldItems = [1, 2, 3].map((n) => ({ rank: n, name: `old-${n}`, link: `https://${HOST}/item/${n}` }));
    const old = JSON.stringify({ list: oldItems, total: 3, updated: '2026-11-21 10:00:00', updated_at: clock.t });
    const write = { sourceId: 'test-list', params: '{}', payload: old, payloadHash: 'old-shape', itemCount: 3, fetchedAt: clock.t - 600_000, historyParamsKey: '', guids: [] };
    await svc.store.commitSuccess({ ...write, paramsKey: 'kind=other&limit=3', expiresAt: clock.t - 300_000 });
    upstream.serve(HOST, '/other', { status: 500, body: 'down' });
    const r = await svc.get('/v2/apis/test-list/other?limit=3');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-cache')).toBe('STALE');
    expect(r.headers.get('x-total-count')).toBe('3');
    const body = (await r.json()) as { data: { rank: number; title: string; link: string }[] };
    expect(body.data).toEqual(oldItems.map((i) => ({ rank: i.rank, title: i.name, link: i.link })));
    const text = await (await svc.get('/v2/apis/test-list/other?limit=3&encoding=text')).text();
    expect(text).toContain('old-2');
    // The row keeps what was stored until a fetch succeeds: nothing is lost or rewritten by reading.
    expect((await svc.store.getSnapshot('test-list', 'kind=other&limit=3'))?.payload).toBe(old);
  });

  it('never serves stored data the source cannot read at all: the key counts as cold', async () => {
    const junk = JSON.stringify({ something: 'else' });
    const write = { sourceId: 'test-list', params: '{}', payload: junk, payloadHash: 'junk', itemCount: 1, fetchedAt: clock.t, historyParamsKey: '', guids: [] };
    await svc.store.commitSuccess({ ...write, paramsKey: 'kind=other&limit=4', expiresAt: clock.t + 300_000 });
    upstream.serve(HOST, '/other', { body: items(4, 'new') });
    const r = await svc.get('/v2/apis/test-list/other?limit=4');
    expect(r.headers.get('x-cache')).toBe('MISS');
    expect(((await r.json()) as { data: { title: string }[] }).data.map((i) => i.title)).toEqual(['new-1', 'new-2', 'new-3', 'new-4']);
    await svc.store.commitSuccess({ ...write, paramsKey: 'kind=other&limit=5', expiresAt: clock.t + 300_000 });
    upstream.serve(HOST, '/other', { status: 500, body: 'down' });
    expect((await svc.get('/v2/apis/test-list/other?limit=5&encoding=text')).status).toBe(503);
  });

  it('finishes in-flight requests on shutdown', async () => {
    upstream.serve(HOST, '/main', { body: items(8, 's'), delayMs: 200 });
    const pending = svc.get('/v2/apis/test-list?limit=8');
    await new Promise((r) => setTimeout(r, 50));
    const closing = svc.close();
    const r = await pending;
    expect(r.status).toBe(200);
    await closing;
    svc = await startService({ upstream, now: clock.now, sources: [testList], env: { DB_PATH: dbPath } });
  });
});
