/**
 * `date` and `at` through the real server, on SQLite and on PostgreSQL: snapshots written by the
 * engine's real fetches from a local upstream, then answered from the archive in every encoding,
 * with day boundaries in Asia/Shanghai, the edges (before the first snapshot, future, malformed,
 * combined) and never an upstream request.
 */
import Parser from 'rss-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHash } from '../../src/kernel/archive.ts';
import { paramsKey, parseParams } from '../../src/kernel/params.ts';
import { parseInstant } from '../../src/kernel/archive-params.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { defineSource, type AnySource, type FetchedSource } from '../../src/kernel/source.ts';
import sixty from '../../sources/60s.ts';
import { asArray, asRecord, asString, hotListRows, validateHotList } from '../../sources/_shared/hot-list.ts';
import { createTestDatabase, requireServices } from '../multi/services.ts';
import { TestClock } from '../support/clock.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';

const HOST = 'list.archive.test';

const archList = defineSource({
  id: 'arch-list',
  name: 'Archived list',
  description: 'A list fetched from a local upstream.',
  routes: [{ path: '/arch-list' }, { path: '/arch-list/:kind' }],
  params: { kind: { type: 'string', in: 'path', doc: 'Which list.', default: 'main', enum: ['main', 'other'] } },
  mode: 'scheduled',
  schedule: '*/5 * * * *',
  freshness: { ttlSec: 300, timeoutMs: 1_000 },
  async fetch(ctx, p) {
    const list = asArray(asRecord(await ctx.http.json(`https://${HOST}/${p.kind}`, { signal: ctx.signal }))?.items);
    if (!list) throw new SourceError('parse', 'items missing');
    return list.map((x, i) => ({ rank: i + 1, title: asString(asRecord(x)?.name) ?? '', link: `https://${HOST}/item/${encodeURIComponent(asString(asRecord(x)?.name) ?? '')}` }));
  },
  validate: (d) => validateHotList(d, 3),
  view: { rows: hotListRows },
  example: '/v2/apis/arch-list',
}) as AnySource;

/** Shanghai is UTC+8: 2026-11-21 00:00 there is 2026-11-20T16:00Z. */
const MIDNIGHT = Date.parse('2026-11-20T16:00:00Z');
const MIN = 60_000;
const T_A = MIDNIGHT - 10 * MIN; // 23:50 on 11-20
const T_A2 = MIDNIGHT - 5 * MIN; // same content again
const T_B = MIDNIGHT; // 00:00 on 11-21
const T_C = Date.parse('2026-11-21T02:00:00Z'); // 10:00 on 11-21
const NOW = Date.parse('2026-11-21T03:00:00Z');

const titles = (tag: string) => ({ items: ['一', '二', '三', '四'].map((n) => ({ name: `${tag}${n}` })) });

interface Envelope {
  code: number;
  message: string;
  data: { title: string }[] | null;
}

const pg = await requireServices({ postgres: true });

for (const backend of ['sqlite', 'postgres'] as const) {
  const skip = backend === 'postgres' ? pg.missing : undefined;
  describe.skipIf(!!skip)(`date and at on ${backend}${backend === 'postgres' ? pg.label : ''}`, () => {
    const upstream = new Upstream();
    const clock = new TestClock(T_A);
    let tag = 'a';
    let svc: TestService;
    let dropDb: (() => Promise<void>) | undefined;

    const fetchAt = async (t: number, next: string) => {
      clock.t = t;
      tag = next;
      const params = parseParams(archList.params, {});
      await svc.engine.run(archList as FetchedSource, params, paramsKey(params));
    };
    const get = async (q: string) => {
      const r = await svc.get(`/v2/apis/arch-list${q}`);
      return { r, body: r.headers.get('content-type')?.includes('json') ? ((await r.json()) as Envelope) : undefined };
    };
    const firstTitle = (e: Envelope | undefined) => e?.data?.[0]?.title;

    beforeAll(async () => {
      await upstream.start();
      upstream.serve(HOST, '/main', () => ({ body: titles(tag) }));
      const env: Record<string, string> = {};
      if (backend === 'postgres') {
        const db = await createTestDatabase();
        env.DATABASE_URL = db.url;
        dropDb = db.drop;
      }
      svc = await startService({ upstream, now: clock.now, sources: [archList, sixty], env });
      await fetchAt(T_A, 'a');
      await fetchAt(T_A2, 'a');
      await fetchAt(T_B, 'b');
      await fetchAt(T_C, 'c');
      clock.t = NOW;
    });
    afterAll(async () => {
      await svc?.close();
      await upstream.stop();
      await dropDb?.();
    });

    it('an unchanged fetch extends the snapshot instead of adding one', async () => {
      expect(await svc.store.archive.bounds('arch-list', 'kind=main')).toEqual({ first: T_A, last: T_C, lastSeen: T_C, count: 3 });
      const first = await svc.store.archive.at('arch-list', 'kind=main', T_A2);
      expect(first).toMatchObject({ fetchedAt: T_A, seenUntil: T_A2 });
    });

    it('date answers the last snapshot of that Shanghai day, marked as history, without asking the upstream', async () => {
      const before = upstream.requests.length;
      const { r, body } = await get('?date=2026-11-20');
      expect(r.status).toBe(200);
      expect(r.headers.get('x-cache')).toBe('HISTORY');
      expect(r.headers.get('last-modified')).toBe(new Date(T_A).toUTCString());
      expect(firstTitle(body)).toBe('a一');
      expect(r.headers.get('x-total-count')).toBe('4');
      // Today: the snapshot in force now.
      const today = await get('?date=2026-11-21');
      expect(firstTitle(today.body)).toBe('c一');
      expect(today.r.headers.get('last-modified')).toBe(new Date(T_C).toUTCString());
      expect(upstream.requests.length).toBe(before);
    });

    it('at answers the snapshot in force then: exact times inclusive, across midnight, in every accepted form', async () => {
      const at = async (v: string) => firstTitle((await get(`?at=${v}`)).body);
      expect(await at(encodeURIComponent('2026-11-20T23:59:59.999+08:00'))).toBe('a一');
      expect(await at(encodeURIComponent('2026-11-21T00:00:00+08:00'))).toBe('b一');
      expect(await at('2026-11-20T16:00:00Z')).toBe('b一');
      expect(await at(String(T_C - 1))).toBe('b一');
      expect(await at(String(T_C))).toBe('c一');
      // No offset means Asia/Shanghai; an unescaped `+` arrives as a space.
      expect(await at('2026-11-20T23:55')).toBe('a一');
      expect(await at('2026-11-21T00:00:00+08:00')).toBe('b一');
      expect(await at('2026-11-21')).toBe('b一');
    });

    it('every encoding of the route answers from the snapshot (rss too)', async () => {
      for (const enc of ['text', 'markdown', 'html']) {
        const r = await svc.get(`/v2/apis/arch-list?date=2026-11-20&encoding=${enc}`);
        expect(r.status).toBe(200);
        expect(r.headers.get('x-cache')).toBe('HISTORY');
        const text = await r.text();
        expect(text).toContain('a一');
        expect(text).not.toContain('c一');
        expect(text).toContain('2026-11-20 23:50:00');
      }
      const r = await svc.get(`/v2/apis/arch-list?at=${T_B}&encoding=rss`);
      expect(r.headers.get('x-cache')).toBe('HISTORY');
      expect(r.headers.get('last-modified')).toBe(new Date(T_B).toUTCString());
      const feed = await new Parser().parseString(await r.text());
      expect(feed.items.map((i) => i.title)).toEqual(['b一', 'b二', 'b三', 'b四']);
    });

    it('before the first snapshot: 404 naming the earliest available; a key never fetched: 404', async () => {
      const { r, body } = await get('?date=2026-11-19');
      expect(r.status).toBe(404);
      expect(body?.message).toContain('2026-11-20 23:50:00');
      expect(body?.message).toContain(`at=${T_A}`);
      expect((await get(`?at=${T_A - 1}`)).r.status).toBe(404);
      const other = await get('/other?at=2026-11-21T09:00:00%2B08:00');
      expect(other.r.status).toBe(404);
      // Only the parameter sets the schedule refreshes are archived.
      expect(other.body?.message).toMatch(/keeps dated snapshots only of the parameters its schedule refreshes \(kind=main\)/);
      const never = await svc.get('/v2/apis/60s?at=2026-11-21T01:00:00Z');
      expect(((await never.json()) as Envelope).message).toMatch(/no snapshot of .* is stored for these parameters yet/i);
    });

    it('future, malformed or combined values: 400 naming the parameter', async () => {
      const cases: [string, string][] = [
        ['?date=2026-11-22', '"date"'],
        ['?date=2026-02-30', '"date"'],
        ['?date=yesterday', '"date"'],
        [`?at=${NOW + 1000}`, '"at"'],
        ['?at=2026-11-21T12:00:00%2B08:00', '"at"'],
        ['?at=noon', '"at"'],
        ['?at=2026-11-21T25:00', '"at"'],
        ['?at=123456789', '"at"'],
        [`?at=${T_C}&date=2026-11-21`, '"at"'],
        [`?at=${T_C}&force-update`, '"force-update"'],
      ];
      for (const [q, name] of cases) {
        const { r, body } = await get(q);
        expect([q, r.status]).toEqual([q, 400]);
        expect(body?.message).toContain(name);
      }
    });

    it('a source with its own date keeps it; the kernel adds at; the catalogue lists both', async () => {
      const cat = (await (await svc.get('/v2/apis')).json()) as { data: { endpoints: { path: string; params: { name: string; doc: string }[] }[] } };
      const names = (path: string) => cat.data.endpoints.find((e) => e.path === path)?.params.map((p) => p.name);
      expect(names('/v2/apis/arch-list')).toEqual(['kind', 'date', 'at']);
      expect(names('/v2/apis/60s')).toEqual(['date', 'at']);
      expect(cat.data.endpoints.find((e) => e.path === '/v2/apis/60s')?.params[0]?.doc).toMatch(/digest/);
      // 60s's `date` is its own (a day of the digest), so a bad one is its own 400; `at` is the archive's.
      expect((await svc.get('/v2/apis/60s?at=2026-11-21T01:00:00Z')).status).toBe(404);
    });

    it('a feed at a past moment holds every day stored by then, by the day a row is for (not when it was last rewritten)', async () => {
      const digest = (date: string, fetchedAt: number) => {
        const at = Date.parse(`${date}T00:30:00+08:00`);
        const time = (ms: number) => new Date(ms + 8 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
        return {
          date,
          day_of_week: '星期五',
          lunar_date: '十月初二',
          news: [`${date} 要闻一`, `${date} 要闻二`, `${date} 要闻三`],
          tip: `${date} 的微语`,
          cover: '',
          image: '',
          link: '',
          is_today: false,
          requested_date: date,
          created: time(at),
          created_at: at,
          updated: time(at),
          updated_at: at,
          published: time(at),
          published_at: at,
          api_updated: time(fetchedAt),
          api_updated_at: fetchedAt,
        };
      };
      const commit = async (date: string, fetchedAt: number) => {
        const payload = JSON.stringify(digest(date, fetchedAt));
        await svc.store.commitSuccess({ sourceId: '60s', paramsKey: '', params: '{}', payload, payloadHash: `h-${date}-${fetchedAt}`, itemCount: 3, fetchedAt, expiresAt: fetchedAt + 900_000, historyKey: date, historyParamsKey: '', guids: [] });
        const data = digest(date, fetchedAt);
        await svc.store.archive.record({ sourceId: '60s', paramsKey: '', fetchedAt, contentHash: contentHash(data), payload });
      };
      await commit('2026-11-19', T_A - 86_400_000);
      await commit('2026-11-20', T_A);
      // The day's row is rewritten by a later fetch (a new fetch time in the data): its fetched_at moves past T_B.
      await commit('2026-11-20', T_C);
      const feed = await new Parser().parseString(await (await svc.get(`/v2/apis/60s/rss?at=${T_B}`)).text());
      expect(feed.items.map((i) => i.title?.match(/\d{4}-\d{2}-\d{2}/)?.[0])).toEqual(['2026-11-20', '2026-11-19']);
      // Before the 20th (Shanghai), its row is left out.
      const earlier = await new Parser().parseString(await (await svc.get(`/v2/apis/60s/rss?at=${T_A - 86_400_000 + 60_000}`)).text());
      expect(earlier.items.map((i) => i.title?.match(/\d{4}-\d{2}-\d{2}/)?.[0])).toEqual(['2026-11-19']);
    });
  });
}

describe('parseInstant', () => {
  it('reads ISO 8601 with and without offsets, and 13-digit ms; rejects the rest', () => {
    expect(parseInstant('2026-11-21T10:00:00+08:00')).toBe(Date.parse('2026-11-21T02:00:00Z'));
    expect(parseInstant('2026-11-21T10:00:00 08:00')).toBe(Date.parse('2026-11-21T02:00:00Z'));
    expect(parseInstant('2026-11-21T02:00:00.5Z')).toBe(Date.parse('2026-11-21T02:00:00.500Z'));
    expect(parseInstant('2026-11-21 10:00')).toBe(Date.parse('2026-11-21T02:00:00Z'));
    expect(parseInstant('2026-11-21T10:00:00-0130')).toBe(Date.parse('2026-11-21T11:30:00Z'));
    expect(parseInstant('1795000000000')).toBe(1795000000000);
    for (const bad of ['2026-13-01', '2026-11-21T24:00', '2026-11-21T10:00+15:00', '17950000000', 'now', '']) expect(parseInstant(bad)).toBeUndefined();
  });
});
