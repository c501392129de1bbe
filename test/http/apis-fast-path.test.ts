/**
 * The /v2/apis fast path answers exactly as Koa's middleware chain does: two services with the
 * same configuration and clock get the same requests, one through the app's callback (fast path
 * first) and one through Koa's own callback (the chain alone); status, headers, bodies and the
 * request metrics must match.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';
import { eventually, parseMetrics } from '../ops/support.ts';

const NOW = Date.parse('2026-11-21T04:00:00Z');

interface Pair {
  fast: TestService;
  chain: TestService;
  chainUrl: string;
  chainServer: http.Server;
}

async function startPair(upstream: Upstream, env: Record<string, string>): Promise<Pair> {
  const opts = { upstream, env: { SOURCE_HOT_MICROBLOG_COOKIE: 'SUB=fast-path', ...env }, now: () => NOW };
  const fast = await startService(opts);
  const chain = await startService(opts);
  // The same app served by Koa's own callback: the middleware chain alone.
  const chainServer = http.createServer(Koa.prototype.callback.call(chain.app));
  chainServer.keepAliveTimeout = fast.server.keepAliveTimeout;
  await new Promise<void>((resolve) => chainServer.listen(0, '127.0.0.1', resolve));
  return { fast, chain, chainServer, chainUrl: `http://127.0.0.1:${(chainServer.address() as AddressInfo).port}` };
}

async function stopPair(p: Pair): Promise<void> {
  p.chainServer.closeAllConnections();
  await new Promise((resolve) => p.chainServer.close(resolve));
  await p.fast.close();
  await p.chain.close();
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function call(base: string, path: string, init: RequestInit = {}): Promise<Answer> {
  // fetch() adds "cache-control: no-cache" to conditional requests unless told otherwise.
  const headers0 = { 'x-request-id': 'parity-1', 'cache-control': 'max-age=0', ...(init.headers as Record<string, string>) };
  const res = await fetch(`${base}${path}`, { redirect: 'manual', ...init, headers: headers0 });
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (k !== 'date') headers[k] = v;
  });
  // A generated request id differs per answer; its form must not.
  if (headers['x-request-id'] && /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(headers['x-request-id'])) headers['x-request-id'] = '(generated)';
  // A feed names its own URL, which holds each server's port: compared without it.
  let body = Buffer.from(await res.arrayBuffer());
  const host = base.replace(/^http:\/\//, '');
  if (body.includes(host)) {
    body = Buffer.from(body.toString('utf8').replaceAll(host, '(host)'));
    if (headers['content-length']) headers['content-length'] = String(body.length);
  }
  return { status: res.status, headers, body: body.toString('base64') };
}

/** Sends each request to both services in turn and expects the same answer. */
async function expectSameAnswers(p: Pair, requests: [string, RequestInit?][]): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const [path, init] of requests) {
    const fast = await call(p.fast.base, path, init);
    const chain = await call(p.chainUrl, path, init);
    expect(fast, `${init?.method ?? 'GET'} ${path}`).toEqual(chain);
    answers.push(fast);
  }
  return answers;
}

const REQUEST_METRICS = ['http_requests_total', 'apis_cache_total', 'http_request_duration_seconds_count', 'apis_rejections_total'];

async function requestMetrics(svc: TestService): Promise<Record<string, number>> {
  const text = await (await svc.get('/metrics')).text();
  return Object.fromEntries([...parseMetrics(text)].filter(([k]) => REQUEST_METRICS.some((m) => k.startsWith(`${m}{`))));
}

describe('the /v2/apis fast path', () => {
  const upstream = new Upstream();
  let pair: Pair;

  beforeAll(async () => {
    await upstream.start();
    pair = await startPair(upstream, {});
  });
  afterAll(async () => {
    await stopPair(pair);
    await upstream.stop();
  });

  it('answers cached, conditional, HEAD, error, local and non-text requests as the chain does', async () => {
    const [first] = await expectSameAnswers(pair, [['/v2/apis/hot-microblog']]);
    expect(first?.headers['x-cache']).toBe('MISS');
    const etag = first?.headers.etag as string;
    const lastModified = first?.headers['last-modified'] as string;
    const answers = await expectSameAnswers(pair, [
      ['/v2/apis/hot-microblog'],
      ['/v2/apis/hot-microblog', { method: 'HEAD' }],
      ['/v2/apis/hot-microblog?encoding=text'],
      ['/v2/apis/hot-microblog?encoding=markdown'],
      ['/v2/apis/hot-microblog?encoding=html'],
      ['/v2/apis/hot-microblog?encoding=rss'],
      ['/v2/apis/hot-microblog', { headers: { 'if-none-match': etag } }],
      ['/v2/apis/hot-microblog', { method: 'HEAD', headers: { 'if-none-match': etag } }],
      ['/v2/apis/hot-microblog', { headers: { 'if-none-match': '"other"' } }],
      ['/v2/apis/hot-microblog', { headers: { 'if-modified-since': lastModified } }],
      ['/v2/apis/hot-microblog', { headers: { 'if-none-match': etag, 'cache-control': 'no-cache' } }],
      ['/v2/apis/hot-microblog?encoding=nope'],
      ['/v2/apis/hot-microblog?encoding=html', { headers: { 'if-none-match': etag } }],
      ['/v2/apis/hot-microblog?force-update=maybe'],
      ['/v2/apis/hot-microblog?force-update'],
      ['/v2/apis/hot-microblog', { headers: { 'x-request-id': 'not a valid id!' } }],
      ['/v2/apis/hash?content=abc&encoding=text'],
      ['/v2/apis/hash'],
      ['/v2/apis/qrcode?text=hi&encoding=image'],
      ['/v2/apis/wallpaper-daily?encoding=image'],
      ['/v2/apis/hot-microblog/'],
      ['/v2/apis/no-such-endpoint'],
      ['/v2/apis/hot-microblog', { method: 'OPTIONS' }],
      ['/v2/apis/hot-microblog', { method: 'DELETE' }],
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200, 304, 304, 200, 304, 200, 400, 200, 400, 200, 200, 200, 400, 200, 302, 200, 404, 204, 405]);
    expect(answers[0]?.headers['x-request-id']).toBe('parity-1');
    expect(answers[15]?.headers['x-request-id']).toBe('(generated)');

    await eventually(async () => expect(await requestMetrics(pair.fast)).toEqual(await requestMetrics(pair.chain)));
    const m = await requestMetrics(pair.fast);
    expect(m['apis_cache_total{route="/v2/apis/hot-microblog",result="hit"}']).toBeGreaterThan(5);
  });

  it('applies the per-IP limit the same way', async () => {
    const limited = await startPair(upstream, { APIS_RATE_LIMIT: '3' });
    try {
      const answers = await expectSameAnswers(limited, [['/v2/apis/hot-microblog'], ['/v2/apis/hot-microblog?encoding=text'], ['/v2/apis/hot-microblog'], ['/v2/apis/hot-microblog'], ['/v2/apis/hot-microblog', { method: 'HEAD' }]]);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429, 429]);
      expect(answers[3]?.headers['retry-after']).toBeDefined();
      await eventually(async () => expect(await requestMetrics(limited.fast)).toEqual(await requestMetrics(limited.chain)));
    } finally {
      await stopPair(limited);
    }
  });
});
