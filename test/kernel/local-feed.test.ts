/**
 * The feed of a local source (LocalFeed in src/kernel/source.ts): upstream data fetched like a
 * scheduled source's default key and handed to `compute` as `ctx.feed`. Checked through the real
 * server: bundled answer before the first fetch, background fill, last good data kept on failure,
 * `awaitFirst` (waits once, not while backing off), the scheduled view, status, and the registry.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError, SourceError } from '../../src/kernel/errors.ts';
import { createRegistry } from '../../src/kernel/registry.ts';
import { defineSource, type AnySource } from '../../src/kernel/source.ts';
import { asArray } from '../../sources/_shared/hot-list.ts';
import { TestClock } from '../support/clock.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';

const HOST = 'feed.example.test';
const BUNDLED = ['bundled-1', 'bundled-2'];

interface WordFeed {
  items: string[];
}

function wordsSource(id: string, awaitFirst: boolean) {
  return defineSource({
    id,
    name: `Words ${id}`,
    description: 'Words from a feed, or bundled words before the first fetch.',
    routes: [{ path: `/${id}` }],
    params: { id: { type: 'integer', min: 0, doc: 'Index of the word.' } },
    mode: 'local',
    feed: {
      schedule: '0 * * * *',
      freshness: { ttlSec: 600, timeoutMs: 2_000 },
      headers: { 'x-feed': id },
      awaitFirst,
      async fetch(ctx): Promise<WordFeed> {
        const list = asArray(await ctx.http.json(`https://${HOST}/${id}.json`, { signal: ctx.signal }));
        if (!list) throw new SourceError('parse', 'not an array');
        return { items: list.map(String) };
      },
      validate: (d) => (d.items.length < 2 ? 'too few words' : undefined),
      count: (d) => d.items.length,
    },
    compute(ctx, p) {
      const words = ctx.feed?.data.items;
      if (!words && awaitFirst) throw new AppError(503, 'no words fetched yet', { headers: { 'Retry-After': '60' } });
      const list = words ?? BUNDLED;
      return { word: list[p.id ?? 0] ?? null, total: list.length, source: words ? 'feed' : 'bundled', fetched_at: ctx.feed?.fetchedAt ?? null };
    },
    view: {},
    example: `/v2/apis/${id}`,
  }) as AnySource;
}

const lazy = wordsSource('words-lazy', false);
const eager = wordsSource('words-eager', true);

async function json(svc: TestService, path: string) {
  const r = await svc.get(path);
  return { status: r.status, body: (await r.json()) as { code: number; message: string; data: Record<string, unknown> | null }, headers: r.headers };
}

async function until(cond: () => Promise<boolean>, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('condition not met in time');
}

describe('local source with a feed', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, sources: [lazy, eager], now: clock.now, random: () => 0.5 });
  });
  afterEach(() => upstream.reset());
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('answers from bundled data first, fills the feed in the background, then answers from it', async () => {
    upstream.serve(HOST, '/words-lazy.json', { body: ['one', 'two', 'three'] });
    const first = await json(svc, '/v2/apis/words-lazy');
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ word: 'bundled-1', source: 'bundled' });
    await until(async () => (await json(svc, '/v2/apis/words-lazy')).body.data?.source === 'feed');
    const later = await json(svc, '/v2/apis/words-lazy?id=2');
    expect(later.body.data).toMatchObject({ word: 'three', total: 3, source: 'feed', fetched_at: clock.now() });
    expect(upstream.hits(HOST, '/words-lazy.json')).toHaveLength(1);
    expect(upstream.hits(HOST)[0]?.headers['x-feed']).toBe('words-lazy');
  });

  it('keeps the last good feed when a refresh fails or is rejected', async () => {
    const fs = svc.engine.feedSource(lazy);
    expect(fs).toBeDefined();
    upstream.serve(HOST, '/words-lazy.json', { status: 500, body: 'down' });
    await expect(svc.engine.run(fs!, {}, '')).rejects.toBeInstanceOf(SourceError);
    upstream.serve(HOST, '/words-lazy.json', { body: ['only-one'] });
    await expect(svc.engine.run(fs!, {}, '')).rejects.toThrow(/too few words/);
    const r = await json(svc, '/v2/apis/words-lazy?id=0');
    expect(r.body.data).toMatchObject({ word: 'one', source: 'feed' });
  });

  it('refreshes in the background once the feed expires', async () => {
    upstream.serve(HOST, '/words-lazy.json', { body: ['new-1', 'new-2'] });
    clock.advance(3 * 3600_000); // past the TTL and any backoff of the failures above
    const stale = await json(svc, '/v2/apis/words-lazy?id=0');
    expect(stale.body.data).toMatchObject({ word: 'one' });
    await until(async () => (await json(svc, '/v2/apis/words-lazy?id=0')).body.data?.word === 'new-1');
  });

  it('awaitFirst: the first request waits for the first fetch', async () => {
    upstream.serve(HOST, '/words-eager.json', { body: ['e1', 'e2'], delayMs: 100 });
    const r = await json(svc, '/v2/apis/words-eager?id=1');
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ word: 'e2', source: 'feed' });
  });

  it('awaitFirst does not wait again while the feed is backing off', async () => {
    const other = wordsSource('words-down', true);
    const svc2 = await startService({ upstream, sources: [other], now: clock.now });
    try {
      upstream.serve(HOST, '/words-down.json', { status: 503, body: 'no' });
      const first = await json(svc2, '/v2/apis/words-down');
      expect(first.status).toBe(503);
      expect(first.headers.get('retry-after')).toBe('60');
      expect(upstream.hits(HOST, '/words-down.json')).toHaveLength(1);
      const second = await json(svc2, '/v2/apis/words-down');
      expect(second.status).toBe(503);
      expect(upstream.hits(HOST, '/words-down.json')).toHaveLength(1);
    } finally {
      await svc2.close();
    }
  });

  it('is scheduled like a scheduled source and shows on /v2/status', async () => {
    const view = svc.engine.scheduledView(lazy);
    expect(view).toMatchObject({ id: 'words-lazy', mode: 'scheduled', schedule: '0 * * * *' });
    expect(svc.engine.scheduledView(eager)).toBe(svc.engine.feedSource(eager));
    const status = (await (await svc.get('/v2/status')).json()) as { data: { sources: { id: string; state: string; keys: number; last_success_at: number | null }[] } };
    const row = status.data.sources.find((s) => s.id === 'words-lazy');
    expect(row).toMatchObject({ state: 'local', keys: 1 });
    expect(row?.last_success_at).toBeTypeOf('number');
  });

  it('the registry refuses a feed without a schedule', () => {
    const bad = { ...lazy, feed: { ...(lazy as { feed: object }).feed, schedule: '' } } as AnySource;
    expect(() => createRegistry([bad])).toThrow(/feed needs a schedule/);
  });
});
