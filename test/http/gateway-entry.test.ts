/**
 * The gateway's requests are taken ahead of Koa (src/http/gateway-entry.ts, on the light
 * exchange of src/gateway/exchange.ts): what Koa used to write for them is written the same way
 * (request id, CORS, preflight, JSON errors with their type and length, HEAD without a body),
 * and a failure that escapes the gateway is a logged 500 in JSON, never a hung request.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitTarget } from '../../src/gateway/exchange.ts';
import { gatewayEntry } from '../../src/http/gateway-entry.ts';
import { createLogger } from '../../src/kernel/log.ts';
import { startService, type TestService } from '../support/service.ts';

describe('gateway requests ahead of Koa', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startService();
  });
  afterAll(async () => {
    await svc.close();
  });

  it('answers an unknown key with a JSON 401 that carries the request id and CORS headers', async () => {
    const res = await svc.get('/v1/chat/completions', { method: 'POST', headers: { authorization: 'Bearer sk-nope', 'x-request-id': 'trace-42', 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-request-id')).toBe('trace-42');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const text = await res.text();
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'invalid_api_key' } });
  });

  it('answers a preflight with 204, the methods and the headers asked for, and no body', async () => {
    const res = await svc.get('/v1/messages?beta=true', { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key, anthropic-version' } });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE, OPTIONS');
    expect(res.headers.get('access-control-allow-headers')).toBe('x-api-key, anthropic-version');
    expect(res.headers.get('content-type')).toBeNull();
    expect(await res.text()).toBe('');
  });

  it('answers HEAD with the headers of the answer and no body', async () => {
    const res = await svc.get('/v1/models', { method: 'HEAD', headers: { authorization: 'Bearer sk-nope' } });
    expect(res.status).toBe(401);
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await res.text()).toBe('');
  });

  it('tells a client whose base URL lacks /v1 which base URL to use', async () => {
    const res = await svc.get('/chat/completions', { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(`${svc.base}/v1`);
  });

  it('leaves every other path to Koa', async () => {
    const res = await svc.get('/v2/apis/no-such-endpoint');
    expect(res.status).toBe(404);
    expect(res.headers.get('access-control-expose-headers')).toContain('X-Cache');
  });
});

describe('a failure that escapes the gateway', () => {
  const lines: string[] = [];
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    const log = createLogger('error', new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
    const take = gatewayEntry({
      gateway: {
        owns: (p) => p.startsWith('/v1/'),
        handle: async () => {
          throw new Error('a bug in a route');
        },
      },
      log,
      ipOf: (req) => req.socket.remoteAddress ?? '',
    });
    server = http.createServer((req, res) => {
      if (!take(req, res)) res.writeHead(418).end('not the gateway');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it('is logged and answered 500 in JSON', async () => {
    const res = await fetch(`${base}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toMatchObject({ error: { type: 'server_error', code: 'internal_error' } });
    expect(lines.some((l) => l.includes('a bug in a route'))).toBe(true);
    expect((await fetch(`${base}/v2/apis`)).status).toBe(418);
  });
});

describe('splitTarget', () => {
  it('splits a request target into its path and query string, dropping a fragment', () => {
    expect(splitTarget('/v1/models')).toEqual({ path: '/v1/models', querystring: '' });
    expect(splitTarget('/v1beta/models/x:generateContent?alt=sse&key=k')).toEqual({ path: '/v1beta/models/x:generateContent', querystring: 'alt=sse&key=k' });
    expect(splitTarget('/v1/models?a=1#frag')).toEqual({ path: '/v1/models', querystring: 'a=1' });
    expect(splitTarget('/v1/models#frag?a=1')).toEqual({ path: '/v1/models', querystring: '' });
  });
});
