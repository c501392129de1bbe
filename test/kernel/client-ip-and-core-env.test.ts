/**
 * Two small source-contract facilities: a parameter filled from the caller's address
 * (`in: 'client-ip'`), and core settings read by a source (`env` entries with `core: true`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistry, sourceSettings } from '../../src/kernel/registry.ts';
import { defineSource, type AnySource } from '../../src/kernel/source.ts';
import { readData } from '../support/envelope-assertions.ts';
import { startService, type TestService } from '../support/service.ts';

interface Echo {
  addr: string;
  q: string;
  base: string | null;
  calls: number;
}

let calls = 0;
const echo = defineSource({
  id: 'echo-addr',
  name: 'echo',
  description: 'Echoes the caller address and a core setting.',
  routes: [{ path: '/echo-addr' }],
  params: {
    addr: { type: 'string', in: 'client-ip', doc: 'caller address' },
    q: { type: 'string', default: '', doc: 'anything' },
  },
  env: [{ name: 'AI_UPSTREAM_BASE_URL', core: true, doc: 'gateway root' }],
  mode: 'on-demand',
  freshness: { ttlSec: 60 },
  async fetch(ctx, p) {
    calls += 1;
    return { addr: p.addr ?? '', q: p.q, base: ctx.env('AI_UPSTREAM_BASE_URL') ?? null, calls };
  },
  validate: (d: Echo) => (d.addr ? undefined : 'no address'),
  view: { title: (d: Echo) => d.addr },
  example: '/v2/apis/echo-addr',
});

const base = { name: 'x', description: 'x', example: '/v2/apis/x', view: {} } as const;

describe('registry checks', () => {
  it('accepts core settings declared in src/config.ts and keeps them out of the source settings', () => {
    const reg = createRegistry([echo as AnySource]);
    expect(sourceSettings(reg).map((s) => s.name)).not.toContain('AI_UPSTREAM_BASE_URL');
    const bad = defineSource({ ...base, id: 'bad-core', routes: [{ path: '/bad-core' }], mode: 'local', env: [{ name: 'AI_NOT_A_SETTING', core: true, doc: 'x' }], compute: () => ({}) });
    expect(() => createRegistry([bad as AnySource])).toThrow(/AI_NOT_A_SETTING is marked core but src\/config.ts declares no such setting/);
    const plain = defineSource({ ...base, id: 'bad-env', routes: [{ path: '/bad-env' }], mode: 'local', env: [{ name: 'AI_UPSTREAM_BASE_URL', doc: 'x' }], compute: () => ({}) });
    expect(() => createRegistry([plain as AnySource])).toThrow(/must start with SOURCE_/);
  });

  it('refuses client-ip parameters on scheduled sources', () => {
    const scheduled = defineSource({
      ...base,
      id: 'sched-ip',
      routes: [{ path: '/sched-ip' }],
      params: { addr: { type: 'string', in: 'client-ip', doc: 'x' } },
      mode: 'scheduled',
      schedule: '* * * * *',
      freshness: { ttlSec: 60 },
      fetch: async () => ({}),
      validate: () => undefined,
    });
    expect(() => createRegistry([scheduled as AnySource])).toThrow(/client-ip parameter addr/);
  });
});

describe('client-ip parameters through the server', () => {
  let direct: TestService;
  let proxied: TestService;
  beforeAll(async () => {
    direct = await startService({ sources: [echo as AnySource], env: { AI_UPSTREAM_BASE_URL: 'https://gw.test' } });
    proxied = await startService({ sources: [echo as AnySource], env: { TRUST_PROXY: 'true' } });
  });
  afterAll(async () => {
    await direct.close();
    await proxied.close();
  });

  it('fills the value from the socket, never from the query, and reads the core setting', async () => {
    const d = await readData<Echo>(await direct.get('/v2/apis/echo-addr?addr=8.8.8.8&q=hi', { headers: { 'x-forwarded-for': '8.8.4.4' } }));
    expect(d).toMatchObject({ addr: '127.0.0.1', q: 'hi', base: 'https://gw.test' });
    const cat = (await (await direct.get('/v2/apis')).json()) as { data: { endpoints: { path: string; params: { name: string }[] }[] } };
    expect(cat.data.endpoints[0]?.params.map((p) => p.name)).toEqual(['q']);
  });

  it('honours X-Forwarded-For with TRUST_PROXY and caches per address', async () => {
    const a = await readData<Echo>(await proxied.get('/v2/apis/echo-addr', { headers: { 'x-forwarded-for': '203.0.113.9' } }));
    const b = await readData<Echo>(await proxied.get('/v2/apis/echo-addr', { headers: { 'x-forwarded-for': '198.51.100.20, 10.0.0.1' } }));
    const again = await proxied.get('/v2/apis/echo-addr', { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(again.headers.get('x-cache')).toBe('HIT');
    expect((await readData<Echo>(again)).calls).toBe(a.calls);
    expect([a.addr, b.addr]).toEqual(['203.0.113.9', '198.51.100.20']);
    expect(b.base).toBeNull();
  });
});
