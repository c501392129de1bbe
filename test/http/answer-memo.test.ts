/**
 * Remembered answers (src/http/answer-memo.ts) through the real server: a repeated request answers
 * exactly what a new answer would, so the headers follow the clock, a refetch shows at once, an
 * instance sharing the database sees another's refresh within a second, and nothing that depends
 * on the caller (its address, the feed's Host) is shared between callers.
 */
import { request } from 'node:http';
import Parser from 'rss-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paramsKey, parseParams } from '../../src/kernel/params.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { defineSource, type AnySource, type FetchedSource } from '../../src/kernel/source.ts';
import { AnswerMemo } from '../../src/http/answer-memo.ts';
import type { ReadResult, SnapshotLease } from '../../src/kernel/engine.ts';
import { asArray, asRecord, asString, hotListRows, validateHotList } from '../../sources/_shared/hot-list.ts';
import { createTestDatabase, requireServices } from '../multi/services.ts';
import { TestClock } from '../support/clock.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';

const HOST = 'list.memo.test';
const TTL_SEC = 300;

const memoList = defineSource({
  id: 'memo-list',
  name: 'Memo list',
  description: 'A list fetched from a local upstream.',
  routes: [{ path: '/memo-list' }],
  params: {},
  mode: 'scheduled',
  schedule: '*/5 * * * *',
  freshness: { ttlSec: TTL_SEC, timeoutMs: 1_000 },
  async fetch(ctx) {
    const list = asArray(asRecord(await ctx.http.json(`https://${HOST}/list`, { signal: ctx.signal }))?.items);
    if (!list) throw new SourceError('parse', 'items missing');
    return list.map((x, i) => ({ rank: i + 1, title: asString(x) ?? '', link: `https://${HOST}/item/${i}` }));
  },
  validate: (d) => validateHotList(d, 1),
  view: { rows: hotListRows },
  example: '/v2/apis/memo-list',
}) as AnySource;

const T0 = Date.parse('2026-11-21T02:00:00Z');
const firstTitle = async (r: Response) => ((await r.json()) as { data: { title: string }[] }).data[0]?.title;

describe('remembered answers', () => {
  const upstream = new Upstream();
  const clock = new TestClock(T0);
  let tag = 'a';
  let svc: TestService;

  const refetch = async () => {
    const params = parseParams(memoList.params, {});
    await svc.engine.run(memoList as FetchedSource, params, paramsKey(params));
  };

  beforeAll(async () => {
    await upstream.start();
    upstream.serve(HOST, '/list', () => ({ body: { items: [`${tag}-one`, `${tag}-two`] } }));
    svc = await startService({ upstream, now: clock.now, sources: [memoList], env: { APIS_RATE_LIMIT: '0' } });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('follow the clock: max-age counts down by the second, and expired data answers STALE', async () => {
    clock.t = T0;
    tag = 'a';
    await refetch();
    const ages: string[] = [];
    for (const step of [0, 0, 400, 700, 1_000, 57_300]) {
      clock.advance(step);
      const r = await svc.get('/v2/apis/memo-list');
      expect(r.headers.get('x-cache')).toBe('HIT');
      ages.push(/max-age=(\d+)/.exec(r.headers.get('cache-control') ?? '')![1]!);
      await r.arrayBuffer();
    }
    // 0 ms, 0 ms, 400 ms, 1.1 s, 2.1 s, 59.4 s after the fetch.
    expect(ages).toEqual(['300', '300', '299', '298', '297', '240']);
    clock.t = T0 + TTL_SEC * 1000 - 1;
    const last = await svc.get('/v2/apis/memo-list');
    expect([last.headers.get('x-cache'), last.headers.get('cache-control')]).toEqual(['HIT', 'public, max-age=0, stale-while-revalidate=300']);
    await last.arrayBuffer();
    clock.t = T0 + TTL_SEC * 1000;
    const expired = await svc.get('/v2/apis/memo-list');
    expect(expired.headers.get('x-cache')).toBe('STALE');
    await expired.arrayBuffer();
  });

  it('show a refetch or a force-update at once', async () => {
    clock.t = T0 + 3_600_000;
    tag = 'b';
    await refetch();
    expect(await firstTitle(await svc.get('/v2/apis/memo-list'))).toBe('b-one');
    expect(await firstTitle(await svc.get('/v2/apis/memo-list'))).toBe('b-one');
    tag = 'c';
    await refetch();
    expect(await firstTitle(await svc.get('/v2/apis/memo-list'))).toBe('c-one');
    tag = 'e';
    await svc.get('/v2/apis/memo-list?force-update').then((r) => r.arrayBuffer());
    expect(await firstTitle(await svc.get('/v2/apis/memo-list'))).toBe('e-one');
  });

  it('keep validators working: a remembered answer still answers 304 to its ETag', async () => {
    const first = await svc.get('/v2/apis/memo-list');
    await first.arrayBuffer();
    const again = await svc.get('/v2/apis/memo-list', { headers: { 'if-none-match': first.headers.get('etag')!, 'cache-control': 'max-age=0' } });
    expect(again.status).toBe(304);
  });

  it('never share a feed between Hosts', async () => {
    const parser = new Parser();
    const links: string[] = [];
    for (const host of ['one.example', 'two.example', 'one.example']) {
      // fetch() sets Host itself: node:http sends the one given.
      const body = await new Promise<string>((resolve, reject) => {
        const req = request(`${svc.base}/v2/apis/memo-list?encoding=rss`, { headers: { host } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve(text));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
      const feed = await parser.parseString(body);
      links.push(feed.feedUrl ?? '');
    }
    expect(links).toEqual(['http://one.example/v2/apis/memo-list?encoding=rss', 'http://two.example/v2/apis/memo-list?encoding=rss', 'http://one.example/v2/apis/memo-list?encoding=rss']);
  });
});

const DAY_HOST = 'day.memo.test';
const DAY = '2026-11-20';

/** One record per day, kept in history under its date (as the 60s digest is). */
const memoDay = defineSource({
  id: 'memo-day',
  name: 'Memo day',
  description: 'One record per day fetched from a local upstream.',
  routes: [{ path: '/memo-day' }],
  params: { date: { type: 'date', doc: 'The day.', example: DAY } },
  mode: 'scheduled',
  schedule: '0 * * * *',
  freshness: { ttlSec: TTL_SEC, timeoutMs: 1_000 },
  history: { key: (d) => d.date, param: 'date' },
  async fetch(ctx, params) {
    const r = asRecord(await ctx.http.json(`https://${DAY_HOST}/day/${params.date ?? DAY}`, { signal: ctx.signal }));
    const date = asString(r?.date);
    const title = asString(r?.title);
    if (!date || !title) throw new SourceError('parse', 'date or title missing');
    return { date, title };
  },
  validate: (d) => (d.title ? undefined : 'no title'),
  view: {},
  example: `/v2/apis/memo-day?date=${DAY}`,
}) as AnySource;

describe("remembered answers of a day's history row", () => {
  const upstream = new Upstream();
  let tag = 'a';
  let svc: TestService;
  const dayTitle = async () => {
    const r = await svc.get(`/v2/apis/memo-day?date=${DAY}`);
    expect(r.headers.get('x-cache')).toBe('HIT');
    return ((await r.json()) as { data: { title: string } }).data.title;
  };

  beforeAll(async () => {
    await upstream.start();
    upstream.serve(DAY_HOST, /^\/day\//, (req) => ({ body: { date: req.path.slice(5), title: `${tag}-${req.path.slice(5)}` } }));
    svc = await startService({ upstream, now: () => T0, sources: [memoDay], env: { APIS_RATE_LIMIT: '0' } });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('show a new history row for the day at once', async () => {
    const params = parseParams(memoDay.params, { date: DAY });
    await svc.engine.run(memoDay as FetchedSource, params, paramsKey(params));
    // Read from history, then remembered.
    expect(await dayTitle()).toBe(`a-${DAY}`);
    expect(await dayTitle()).toBe(`a-${DAY}`);
    tag = 'b';
    await svc.engine.run(memoDay as FetchedSource, params, paramsKey(params));
    // Within the same second as the remembered answer: the history write drops it.
    expect(await dayTitle()).toBe(`b-${DAY}`);
    expect(await dayTitle()).toBe(`b-${DAY}`);
  });

  it('lease the row to remembered answers until the next history write', async () => {
    const params = parseParams(memoDay.params, { date: DAY });
    const r = await svc.engine.read(memoDay as FetchedSource, params);
    expect(r.historyParamsKey).toBeDefined();
    expect(!!r.lease && svc.engine.holds(r.lease)).toBe(true);
    await svc.engine.run(memoDay as FetchedSource, params, paramsKey(params));
    expect(svc.engine.holds(r.lease!)).toBe(false);
  });
});

describe('remembered answers and the caller', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startService({ env: { TRUST_PROXY: 'true', APIS_RATE_LIMIT: '0' } });
  });
  afterAll(async () => {
    await svc.close();
  });

  it('are never shared between client addresses (a route reading the caller address)', async () => {
    const seen: string[] = [];
    for (const ip of ['10.1.1.1', '10.2.2.2', '10.1.1.1', '10.2.2.2']) {
      const r = await svc.get('/v2/apis/ip', { headers: { 'x-forwarded-for': ip } });
      seen.push(((await r.json()) as { data: { ip: string } }).data.ip);
    }
    expect(seen).toEqual(['10.1.1.1', '10.2.2.2', '10.1.1.1', '10.2.2.2']);
  });
});

const pg = await requireServices({ postgres: true });

describe.skipIf(!!pg.missing)(`remembered answers across instances${pg.label}`, () => {
  const upstream = new Upstream();
  let tag = 'x';
  let a: TestService;
  let b: TestService;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    await upstream.start();
    upstream.serve(HOST, '/list', () => ({ body: { items: [`${tag}-one`] } }));
    const db = await createTestDatabase();
    drop = db.drop;
    const opts = { upstream, sources: [memoList], env: { DATABASE_URL: db.url, APIS_RATE_LIMIT: '0' } };
    a = await startService(opts);
    b = await startService(opts);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await drop();
    await upstream.stop();
  });

  it("see another instance's refresh within a second", async () => {
    const params = parseParams(memoList.params, {});
    await a.engine.run(memoList as FetchedSource, params, paramsKey(params));
    expect(await firstTitle(await a.get('/v2/apis/memo-list'))).toBe('x-one');
    tag = 'y';
    await b.engine.run(memoList as FetchedSource, params, paramsKey(params));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await firstTitle(await a.get('/v2/apis/memo-list'))).toBe('y-one');
  });
});

describe('AnswerMemo', () => {
  // The engine side: leases held until dropped, on a settable clock.
  const held = new Set<SnapshotLease>();
  let now = 1_000_000;
  const engine = { holds: (l: SnapshotLease) => held.has(l), now: () => now };
  const lease = (): SnapshotLease => {
    const l = { key: 'k', snap: undefined, until: Number.MAX_SAFE_INTEGER };
    held.add(l);
    return l;
  };
  const read = (over: Partial<ReadResult> = {}): ReadResult =>
    ({ cache: 'HIT', expiresAt: now + 10_500, lease: lease(), ...over }) as ReadResult;
  const answer = { status: 200, type: 'application/json', body: Buffer.from('{}'), headers: {} };

  it('keeps only current, buffered, unannotated answers, and drops them with their lease', () => {
    const memo = new AnswerMemo(engine);
    memo.remember('/a', 'json', read(), answer, now);
    expect(memo.recall('/a')?.answer).toBe(answer);
    for (const [url, r, out] of [
      ['/stale', read({ cache: 'STALE' }), answer],
      ['/miss', read({ cache: 'MISS' }), answer],
      ['/noted', read({ note: 'refresh failing' }), answer],
      ['/nolease', read({ lease: undefined }), answer],
      ['/redirect', read(), { status: 302, body: null, headers: { Location: '/x' } }],
      [`/${'x'.repeat(600)}`, read(), answer],
    ] as const) {
      memo.remember(url, 'json', r, out, now);
      expect(memo.recall(url), url.slice(0, 20)).toBeUndefined();
    }
    // A feed's self link is the caller's Host: never kept.
    memo.remember('/feed', 'rss', read(), answer, now);
    expect(memo.recall('/feed')).toBeUndefined();
    const r = read();
    memo.remember('/b', 'json', r, answer, now);
    held.delete(r.lease!);
    expect(memo.recall('/b')).toBeUndefined();
  });

  it('lasts until max-age would change, and holds a bounded number of URLs', () => {
    const memo = new AnswerMemo(engine);
    // expiresAt 10.5 s ahead: max-age 10 until 0.5 s from now.
    memo.remember('/t', 'json', read(), answer, now);
    now += 500;
    expect(memo.recall('/t')).toBeDefined();
    now += 1;
    expect(memo.recall('/t')).toBeUndefined();
    for (let i = 0; i < 300; i++) memo.remember(`/u${i}`, 'json', read(), answer, now);
    expect(memo.recall('/u0')).toBeUndefined();
    expect(memo.recall('/u299')).toBeDefined();
    expect(memo.recall('/u44')).toBeDefined();
    expect(memo.recall('/u43')).toBeUndefined();
  });

  it("keeps a day's history answer (no expiry, a fixed max-age) until its lease is dropped", () => {
    const memo = new AnswerMemo(engine);
    const r = read({ expiresAt: null });
    memo.remember('/day', 'json', r, answer, now);
    now += 86_400_000;
    expect(memo.recall('/day')?.answer).toBe(answer);
    held.delete(r.lease!);
    expect(memo.recall('/day')).toBeUndefined();
  });
});
