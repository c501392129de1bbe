/**
 * Abuse limits of /v2/apis: the per-IP limit (429 envelope + Retry-After), the deny list (403
 * envelope), the separate force-update limit, the optional gateway key, TRUST_PROXY deciding
 * the address, and the limiter factory as the swap point for another backend.
 */
import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.ts';
import type { LimiterFactory } from '../../src/http/abuse.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';
import { eventually, parseMetrics, sample } from './support.ts';

type Envelope = { code: number; message: string; data: unknown };

async function envelope(res: Response): Promise<Envelope> {
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  return (await res.json()) as Envelope;
}

const QR = '/v2/apis/qrcode?text=abuse';

describe('per-IP request limit', () => {
  let svc: TestService;
  afterEach(async () => {
    await svc.close();
  });

  it('answers 429 envelopes with Retry-After past the limit, per client address', async () => {
    svc = await startService({ env: { APIS_RATE_LIMIT: '3', APIS_RATE_WINDOW_SEC: '120' } });
    for (let i = 0; i < 3; i++) expect((await svc.get(QR)).status).toBe(200);
    const res = await svc.get(QR);
    expect(res.status).toBe(429);
    const retry = Number(res.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(60);
    expect(retry).toBeLessThanOrEqual(120);
    const body = await envelope(res);
    expect(body).toMatchObject({ code: 429, data: null });
    expect(body.message).toMatch(/Too many requests from 127\.0\.0\.1: at most 3 per 120 s.*Try again in \d+ s/);
    // The catalogue counts too; the service routes do not.
    expect((await svc.get('/v2/apis')).status).toBe(429);
    expect((await svc.get('/healthz')).status).toBe(200);
    // Without TRUST_PROXY, X-Forwarded-For does not buy a new budget.
    expect((await svc.get(QR, { headers: { 'x-forwarded-for': '198.51.100.7' } })).status).toBe(429);
    await eventually(async () => {
      const m = parseMetrics(await (await svc.get('/metrics')).text());
      expect(sample(m, 'apis_rejections_total', { reason: 'rate' })).toBe(3);
    });
  });

  it('with TRUST_PROXY, counts the forwarded client address', async () => {
    svc = await startService({ env: { APIS_RATE_LIMIT: '2', TRUST_PROXY: 'true' } });
    const from = (ip: string) => svc.get(QR, { headers: { 'x-forwarded-for': ip } });
    expect((await from('203.0.113.1')).status).toBe(200);
    expect((await from('203.0.113.1')).status).toBe(200);
    expect((await from('203.0.113.1')).status).toBe(429);
    expect((await from('203.0.113.2')).status).toBe(200);
  });

  it('is off with APIS_RATE_LIMIT=0', async () => {
    svc = await startService({ env: { APIS_RATE_LIMIT: '0' } });
    for (let i = 0; i < 30; i++) expect((await svc.get(QR)).status).toBe(200);
  });

  it('is on by default with a generous figure', async () => {
    svc = await startService();
    expect(svc.config.values.APIS_RATE_LIMIT).toBe(600);
    expect(svc.config.values.APIS_FORCE_UPDATE_LIMIT).toBe(10);
    expect((await svc.get(QR)).status).toBe(200);
  });

  it('takes its limiters from the factory (the swap point for a shared backend)', async () => {
    const made: { name: string; points: number; durationSec: number }[] = [];
    const seen: string[] = [];
    const limiters: LimiterFactory = (opts) => {
      made.push(opts);
      return {
        consume: async (key) => {
          seen.push(`${opts.name}:${key}`);
          return { allowed: opts.name !== 'apis-ip' || seen.length < 2, msBeforeNext: 5000, remaining: 0 };
        },
      };
    };
    const { createService } = await import('../../src/service.ts');
    const s = createService({ env: { DB_PATH: ':memory:', SCHEDULER_ENABLED: 'false', LOG_LEVEL: 'silent', APIS_RATE_LIMIT: '50' }, limiters });
    const port = await s.listen(0, '127.0.0.1');
    svc = Object.assign(s, { base: `http://127.0.0.1:${port}`, get: (p: string, init?: RequestInit) => fetch(`http://127.0.0.1:${port}${p}`, init) });
    expect(made).toEqual([
      { name: 'apis-ip', points: 50, durationSec: 60 },
      { name: 'apis-force', points: 10, durationSec: 60 },
    ]);
    expect((await svc.get(QR)).status).toBe(200);
    const res = await svc.get(QR);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(seen).toEqual(['apis-ip:127.0.0.1', 'apis-ip:127.0.0.1']);
  });
});

describe('deny list', () => {
  let svc: TestService;
  afterEach(async () => {
    await svc.close();
  });

  it('refuses listed addresses and CIDRs with a 403 envelope', async () => {
    svc = await startService({ env: { APIS_DENY_IPS: '10.0.0.1, 127.0.0.0/8' } });
    const res = await svc.get(QR);
    expect(res.status).toBe(403);
    const body = await envelope(res);
    expect(body).toMatchObject({ code: 403, data: null });
    expect(body.message).toContain('127.0.0.1');
    expect((await svc.get('/healthz')).status).toBe(200);
  });

  it('matches the forwarded address behind a trusted proxy (IPv4 and IPv6)', async () => {
    svc = await startService({ env: { APIS_DENY_IPS: '203.0.113.0/24,2001:db8::/32', TRUST_PROXY: 'true' } });
    const from = (ip: string) => svc.get(QR, { headers: { 'x-forwarded-for': ip } });
    expect((await from('203.0.113.99')).status).toBe(403);
    expect((await from('2001:db8::5')).status).toBe(403);
    expect((await from('198.51.100.1')).status).toBe(200);
    expect((await svc.get(QR)).status).toBe(200);
  });

  it('fails at boot on an entry that is not an address or CIDR', async () => {
    await expect(startService({ env: { APIS_DENY_IPS: '10.0.0.0/8,not-an-ip' } })).rejects.toThrow(ConfigError);
    svc = await startService();
  });
});

describe('force-update limit', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, env: { APIS_FORCE_UPDATE_LIMIT: '2', FORCE_UPDATE_INTERVAL_SEC: '0', SOURCE_HOT_MICROBLOG_COOKIE: 'SUB=x' } });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('limits force-update requests separately; plain reads go on', async () => {
    expect((await svc.get('/v2/apis/hot-microblog?force-update')).status).toBe(200);
    expect((await svc.get('/v2/apis/hot-microblog?force-update=true')).status).toBe(200);
    const res = await svc.get('/v2/apis/hot-microblog?force-update=1');
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await envelope(res)).message).toMatch(/force-update.*at most 2 per minute/);
    // However the name is written: after another parameter, or percent-encoded.
    expect((await svc.get('/v2/apis/hot-microblog?encoding=json&force-update')).status).toBe(429);
    expect((await svc.get('/v2/apis/hot-microblog?force%2Dupdate=1')).status).toBe(429);
    expect((await svc.get('/v2/apis/hot-microblog?%66orce-update')).status).toBe(429);
    expect((await svc.get('/v2/apis/hot-microblog')).status).toBe(200);
    expect((await svc.get('/v2/apis/hot-microblog?force-update=false')).status).toBe(200);
    expect(upstream.hits('m.weibo.cn')).toHaveLength(2);
  });
});

describe('APIS_REQUIRE_KEY', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startService({ env: { APIS_REQUIRE_KEY: 'true' } });
  });
  afterAll(async () => {
    await svc.close();
  });
  const newKey = (ips: string[] = []) => svc.gateway.keys.create({ name: 'apis', level: 'default', levelExplicit: false, quotaMicros: null, models: [], ips, expiresAt: null });

  it('asks for a gateway key, in the envelope', async () => {
    const res = await svc.get(QR);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    const body = await envelope(res);
    expect(body).toMatchObject({ code: 401, data: null });
    expect(body.message).toMatch(/Authorization: Bearer/);
    expect((await svc.get(QR, { headers: { authorization: 'bearer sk-whatever' } })).status).toBe(401);
    expect((await svc.get(QR, { headers: { authorization: `Bearer sk-${'a'.repeat(43)}` } })).status).toBe(401);
  });

  it('accepts a valid key, refuses it once revoked or from an address outside its allowlist', async () => {
    const { key, record } = await newKey();
    const auth = { authorization: `Bearer ${key}` };
    expect((await svc.get(QR, { headers: auth })).status).toBe(200);
    await svc.gateway.keys.revoke(record.id);
    const revoked = await svc.get(QR, { headers: auth });
    expect(revoked.status).toBe(401);
    expect((await envelope(revoked)).message).toMatch(/revoked/);

    const limited = await newKey(['192.0.2.0/24']);
    const res = await svc.get(QR, { headers: { authorization: `Bearer ${limited.key}` } });
    expect(res.status).toBe(403);
    expect((await envelope(res)).message).toContain('127.0.0.1');
  });

  it('refuses a request carrying two Authorization headers (401), as /v1 does, even when the first holds a valid key', async () => {
    const { key } = await newKey();
    const other = await newKey();
    const send = (authorization: string[]) =>
      new Promise<{ status: number; body: string; wwwAuthenticate: string | undefined }>((resolve, reject) => {
        const req = http.get(`${svc.base}${QR}`, { headers: ['Host', new URL(svc.base).host, ...authorization.flatMap((v) => ['Authorization', v])] }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body, wwwAuthenticate: res.headers['www-authenticate'] }));
        });
        req.on('error', reject);
      });
    expect((await send([`Bearer ${key}`])).status).toBe(200);
    for (const pair of [[`Bearer ${key}`, `Bearer ${other.key}`], [`Bearer ${key}`, `Bearer ${key}`], [`Bearer ${key}`, 'junk']]) {
      const res = await send(pair);
      expect(res.status, pair[1]).toBe(401);
      expect(res.wwwAuthenticate).toBe('Bearer');
      expect((JSON.parse(res.body) as Envelope).message).toMatch(/exactly one Authorization header/);
    }
  });

  // Last: it closes this service's database.
  it('answers 503 with Retry-After, not a 500, when the key store does not answer', async () => {
    const { key } = await newKey();
    svc.db.close();
    const res = await svc.get(QR, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect((await envelope(res)).message).toMatch(/cannot be checked/);
  });
});
