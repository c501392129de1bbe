/** Scheduled refresh: warm-up at boot, per-source isolation, backoff respected by ticks. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceError } from '../../src/kernel/errors.ts';
import { defineSource, type AnySource } from '../../src/kernel/source.ts';
import { asArray, asRecord, asString, hotListRows, validateHotList } from '../../sources/_shared/hot-list.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';

const list = (id: string, host: string) =>
  defineSource({
    id,
    name: id,
    description: `A scheduled list from ${host}.`,
    routes: [{ path: `/${id}` }],
    mode: 'scheduled',
    schedule: '0 0 1 1 *',
    freshness: { ttlSec: 600, timeoutMs: 1_000 },
    async fetch(ctx) {
      const items = asArray(asRecord(await ctx.http.json(`https://${host}/list`, { signal: ctx.signal }))?.items);
      if (!items) throw new SourceError('parse', 'no items');
      return items.map((x, i) => ({ rank: i + 1, title: asString(x) ?? '', link: `https://${host}/${i}` }));
    },
    validate: (d) => validateHotList(d, 2),
    view: { rows: hotListRows },
    example: `/v2/apis/${id}`,
  }) as AnySource;

const good = list('good-list', 'good.example.test');
const bad = list('bad-list', 'bad.example.test');

async function until(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('scheduler', () => {
  const upstream = new Upstream();
  let svc: TestService;
  let hitsWhenListening = -1;
  beforeAll(async () => {
    await upstream.start();
    upstream.serve('good.example.test', '/list', { body: { items: ['a', 'b', 'c'] } });
    upstream.serve('bad.example.test', '/list', { status: 500, body: 'down' });
    svc = await startService({ upstream, sources: [good, bad], env: { SCHEDULER_ENABLED: 'true', WARMUP_SPREAD_MS: '0' } });
    hitsWhenListening = upstream.hits('good.example.test').length + upstream.hits('bad.example.test').length;
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('starts its boot work only after the port is open, so the first requests do not wait for it', () => {
    expect(hitsWhenListening).toBe(0);
  });

  it('warms every scheduled key at boot; a failing source does not stop the others', async () => {
    await until(async () => (await svc.store.getSnapshot('good-list', ''))?.status === 'ok' && (await svc.store.getSnapshot('bad-list', ''))?.failCount === 1);
    const r = await svc.get('/v2/apis/good-list');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-cache')).toBe('HIT');
    expect((await svc.get('/v2/apis/bad-list')).status).toBe(503);
  });

  it('shows each source on /v2/status with its next run', async () => {
    const body = (await (await svc.get('/v2/status')).json()) as { data: { scheduler: string; sources: { id: string; state: string; next_run_at: number | null; fail_count: number }[] } };
    expect(body.data.scheduler).toBe('running');
    const byId = Object.fromEntries(body.data.sources.map((s) => [s.id, s]));
    expect(byId['good-list']?.state).toBe('fresh');
    expect(byId['bad-list']?.state).toBe('down');
    expect(byId['bad-list']?.fail_count).toBe(1);
    expect(byId['good-list']?.next_run_at).toBeGreaterThan(Date.now());
  });

  it('skips keys that are backing off on a tick, and refreshes the others', async () => {
    const before = upstream.hits('bad.example.test').length;
    await svc.engine.tick(bad as Parameters<typeof svc.engine.tick>[0]);
    expect(upstream.hits('bad.example.test')).toHaveLength(before);
    upstream.serve('good.example.test', '/list', { body: { items: ['x', 'y'] } });
    await svc.engine.tick(good as Parameters<typeof svc.engine.tick>[0]);
    const body = (await (await svc.get('/v2/apis/good-list')).json()) as { data: { title: string }[] };
    expect(body.data.map((i) => i.title)).toEqual(['x', 'y']);
  });
});
