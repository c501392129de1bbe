import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpBase, createHttpClient, decodeBody, mirrorUrl, type HttpSettings } from '../../src/kernel/http.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { Upstream } from '../support/upstream.ts';

const upstream = new Upstream();
let settings: HttpSettings;
const client = (extra: Partial<HttpSettings> = {}, defaults: Parameters<typeof createHttpClient>[2] = {}) => {
  const s = { ...settings, ...extra };
  return createHttpClient(createHttpBase(s), s, defaults);
};

beforeAll(async () => {
  await upstream.start();
  settings = { userAgent: 'test-agent/1.0', timeoutMs: 2_000, retry: 2, maxBytes: 64 * 1024, mirror: upstream.url };
});
afterAll(() => upstream.stop());
afterEach(() => upstream.reset());

describe('mirrorUrl', () => {
  it('maps http(s)://HOST/PATH?QUERY to <mirror>/HOST/PATH?QUERY', () => {
    expect(mirrorUrl('https://a.example.com/x/y?q=1&r=%E4%B8%AD', 'http://127.0.0.1:9000/')).toBe('http://127.0.0.1:9000/a.example.com/x/y?q=1&r=%E4%B8%AD');
    expect(mirrorUrl('http://b.example.com:8080/', 'http://m')).toBe('http://m/b.example.com:8080/');
    expect(mirrorUrl('https://c.example.com/p', undefined)).toBe('https://c.example.com/p');
  });
});

describe('http client', () => {
  it('sends method, headers and body through the mirror, with the default user agent and per-source headers', async () => {
    upstream.serve('api.example.test', '/echo', (req) => ({ body: { method: req.method, ua: req.headers['user-agent'], ref: req.headers.referer, body: req.body.toString(), q: req.query.get('a') } }));
    const http = client({}, { headers: { referer: 'https://example.test/' } });
    const out = await http.json('https://api.example.test/echo', { method: 'POST', json: { x: 1 }, searchParams: { a: '中' } });
    expect(out).toEqual({ method: 'POST', ua: 'test-agent/1.0', ref: 'https://example.test/', body: '{"x":1}', q: '中' });
  });

  it('decodes GBK pages from the header or the meta tag', async () => {
    const gbk = Buffer.from([0xbd, 0xf1, 0xc8, 0xd5, 0xbd, 0xf0, 0xbc, 0xdb]); // 今日金价
    upstream.serve('gbk.example.test', '/header', { headers: { 'content-type': 'text/html; charset=gb2312' }, body: Buffer.concat([Buffer.from('<p>'), gbk, Buffer.from('</p>')]) });
    upstream.serve('gbk.example.test', '/meta', { headers: { 'content-type': 'text/html' }, body: Buffer.concat([Buffer.from('<meta charset="gbk"><p>'), gbk]) });
    expect(await client().text('http://gbk.example.test/header')).toBe('<p>今日金价</p>');
    expect(await client().text('http://gbk.example.test/meta')).toContain('今日金价');
    expect(decodeBody(gbk, undefined, 'gb2312')).toBe('今日金价');
  });

  it("decodes a feed in the encoding its XML declaration names, unless the header names one", () => {
    const gbk = Buffer.from([0xbd, 0xf1, 0xc8, 0xd5, 0xbd, 0xf0, 0xbc, 0xdb]); // 今日金价
    const feed = Buffer.concat([Buffer.from('<?xml version="1.0" encoding="gbk"?>\n<rss><title>'), gbk, Buffer.from('</title></rss>')]);
    expect(decodeBody(feed, 'application/xml')).toContain('<title>今日金价</title>');
    expect(decodeBody(feed, 'application/octet-stream')).toContain('<title>今日金价</title>');
    expect(decodeBody(feed, undefined)).toContain('<title>今日金价</title>');
    expect(decodeBody(feed, 'application/xml; charset=utf-8')).not.toContain('今日金价');
    expect(decodeBody(Buffer.from('<?xml version="1.0"?><rss><title>今日</title></rss>'), 'application/xml')).toContain('今日');
  });

  it('retries idempotent requests on 5xx but not POST, and never retries 403/404', async () => {
    let n = 0;
    upstream.serve('flaky.example.test', '/get', () => (++n < 3 ? { status: 503, headers: { 'retry-after': '0' } } : { body: { ok: true } }));
    expect(await client().json('https://flaky.example.test/get')).toEqual({ ok: true });
    expect(n).toBe(3);
    upstream.serve('flaky.example.test', '/post', { status: 503 });
    await expect(client().json('https://flaky.example.test/post', { method: 'POST', json: {} })).rejects.toMatchObject({ kind: 'transient', httpStatus: 503 });
    expect(upstream.hits('flaky.example.test', '/post')).toHaveLength(1);
    upstream.serve('flaky.example.test', '/forbidden', { status: 403 });
    await expect(client().text('https://flaky.example.test/forbidden')).rejects.toMatchObject({ kind: 'blocked', httpStatus: 403 });
    expect(upstream.hits('flaky.example.test', '/forbidden')).toHaveLength(1);
    upstream.serve('flaky.example.test', '/missing', { status: 404 });
    const res = await client().request('https://flaky.example.test/missing', { allowStatus: [404] });
    expect(res.status).toBe(404);
    expect(upstream.hits('flaky.example.test', '/missing')).toHaveLength(1);
  });

  it('caps the response size and times out slow upstreams', async () => {
    upstream.serve('big.example.test', '/huge', { body: 'x'.repeat(200 * 1024) });
    await expect(client().text('https://big.example.test/huge')).rejects.toThrow(/exceeds 65536 bytes/);
    upstream.serve('slow.example.test', '/slow', { body: 'late', delayMs: 1_000 });
    const err = await client({ retry: 0 }).text('https://slow.example.test/slow', { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect((err as SourceError).message).toMatch(/timed out/);
  });

  it('limits concurrent requests per source', async () => {
    let active = 0;
    let peak = 0;
    upstream.serve('busy.example.test', /.*/, async () => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 40));
      active--;
      return { body: { ok: 1 } };
    });
    const http = client({}, { concurrency: 2 });
    await Promise.all(Array.from({ length: 6 }, (_, i) => http.json(`https://busy.example.test/${i}`)));
    expect(peak).toBe(2);
  });

  it('reports a non-JSON answer as a parse error', async () => {
    upstream.serve('html.example.test', '/', { headers: { 'content-type': 'text/html' }, body: '<html>login</html>' });
    await expect(client().json('https://html.example.test/')).rejects.toMatchObject({ kind: 'parse' });
  });
});
