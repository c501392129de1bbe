/**
 * GET /metrics: Prometheus text with requests by route, status and encoding, latency histograms,
 * cache results, fetch outcomes and durations per source (through the engine's onRun hook),
 * gateway tokens and limit rejections (from the gateway's usage log), and event-loop delay.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';
import { AiUpstream, eventually, parseMetrics, sample } from './support.ts';

const HOST = 'm.weibo.cn';
const PATH = '/api/container/getIndex';

describe('/metrics', () => {
  const upstream = new Upstream();
  const ai = new AiUpstream();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    await ai.start();
    svc = await startService({
      upstream,
      env: {
        SOURCE_HOT_MICROBLOG_COOKIE: 'SUB=metrics-test',
        FORCE_UPDATE_INTERVAL_SEC: '0',
        AI_UPSTREAM_BASE_URL: ai.url,
        AI_UPSTREAM_API_KEY: 'upstream-secret',
        AI_LEVELS: '{"tiny":{"rpm":1,"rpd":0,"tpm":0}}',
      },
    });
  });
  afterAll(async () => {
    await svc.close();
    await ai.stop();
    await upstream.stop();
  });

  const scrape = async () => {
    const res = await svc.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseMetrics(await res.text());
  };

  it('counts /v2/apis requests by route, status and encoding, cache results and fetch runs', async () => {
    expect((await svc.get('/v2/apis/hot-microblog')).headers.get('x-cache')).toBe('MISS');
    expect((await svc.get('/v2/apis/hot-microblog?encoding=text')).headers.get('x-cache')).toBe('HIT');
    upstream.serve(HOST, PATH, { status: 500, body: 'down' });
    const stale = await svc.get('/v2/apis/hot-microblog?force-update');
    expect(stale.headers.get('x-cache')).toBe('STALE');
    expect((await svc.get('/v2/apis/hot-microblog?encoding=nope')).status).toBe(400);

    await eventually(async () => {
      const m = await scrape();
      const route = '/v2/apis/hot-microblog';
      expect(sample(m, 'http_requests_total', { family: 'apis', route, method: 'GET', status: '200', encoding: 'json' })).toBe(2);
      expect(sample(m, 'http_requests_total', { family: 'apis', route, method: 'GET', status: '200', encoding: 'text' })).toBe(1);
      expect(sample(m, 'http_requests_total', { family: 'apis', route, method: 'GET', status: '400', encoding: '' })).toBe(1);
      expect(sample(m, 'http_request_duration_seconds_count', { family: 'apis', route, method: 'GET' })).toBe(4);
      expect(sample(m, 'http_request_duration_seconds_bucket', { family: 'apis', route, method: 'GET', le: '+Inf' })).toBe(4);
      for (const result of ['miss', 'hit', 'stale']) expect(sample(m, 'apis_cache_total', { route, result }), result).toBe(1);
      expect(sample(m, 'source_fetch_total', { source: 'hot-microblog', outcome: 'ok', kind: '' })).toBe(1);
      expect(sample(m, 'source_fetch_total', { source: 'hot-microblog', outcome: 'failed', kind: 'transient' })).toBe(1);
      expect(sample(m, 'source_fetch_duration_seconds_count', { source: 'hot-microblog', outcome: 'ok' })).toBe(1);
      expect(sample(m, 'source_fetch_duration_seconds_count', { source: 'hot-microblog', outcome: 'failed' })).toBe(1);
    });
  });

  it('labels unknown paths with a bounded route label', async () => {
    await svc.get('/no/such/path/123');
    await svc.get('/no/such/path/456');
    await eventually(async () => {
      const m = await scrape();
      expect(sample(m, 'http_requests_total', { family: 'service', route: 'unmatched', method: 'GET', status: '404', encoding: '' })).toBe(2);
      expect([...m.keys()].some((k) => k.includes('/no/such/path'))).toBe(false);
    });
  });

  it('reports gateway requests, tokens and limit rejections', async () => {
    const { key } = await svc.gateway.keys.create({ name: 'metrics', level: 'tiny', levelExplicit: true, quotaMicros: null, models: [], ips: [], expiresAt: null });
    const call = () =>
      svc.get('/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
      });
    const ok = await call();
    expect(ok.status).toBe(200);
    await ok.text();
    const limited = await call();
    expect(limited.status).toBe(429);
    await limited.text();
    await eventually(async () => {
      const m = await scrape();
      expect(sample(m, 'gateway_tokens_total', { model: 'gpt-test', kind: 'prompt' })).toBe(11);
      expect(sample(m, 'gateway_tokens_total', { model: 'gpt-test', kind: 'completion' })).toBe(7);
      expect(sample(m, 'gateway_limit_rejections_total', { code: 'rate_limit_exceeded' })).toBe(1);
      const route = '/v1/chat/completions';
      expect(sample(m, 'http_requests_total', { family: 'gateway', route, method: 'POST', status: '200', encoding: '' })).toBe(1);
      expect(sample(m, 'http_requests_total', { family: 'gateway', route, method: 'POST', status: '429', encoding: '' })).toBe(1);
    });
    // Scraping again does not count the same usage rows twice.
    const again = await scrape();
    expect(sample(again, 'gateway_tokens_total', { model: 'gpt-test', kind: 'prompt' })).toBe(11);
  });

  it('exports event-loop delay and process metrics', async () => {
    const m = await scrape();
    expect(sample(m, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(m, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(m, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('can be turned off', async () => {
    const off = await startService({ env: { METRICS_ENABLED: 'false' } });
    try {
      expect((await off.get('/metrics')).status).toBe(404);
      expect(await (await off.get('/status')).text()).toContain('Metrics are off');
    } finally {
      await off.close();
    }
  });
});
