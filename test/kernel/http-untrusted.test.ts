/** The `untrusted` option of the upstream client, and the address classification behind it. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkUntrustedUrl, createHttpBase, createHttpClient, type HttpClient, type HttpSettings } from '../../src/kernel/http.ts';
import { classifyAddress } from '../../src/kernel/net-address.ts';
import { Upstream } from '../support/upstream.ts';

const HTML = { 'content-type': 'text/html; charset=utf-8' };

function client(mirror?: string): HttpClient {
  const settings: HttpSettings = { userAgent: 'test', timeoutMs: 700, retry: 0, maxBytes: 1024 * 1024, mirror };
  return createHttpClient(createHttpBase(settings), settings);
}

describe('classifyAddress', () => {
  it('tells public addresses from every special range', () => {
    const cases: [string, string, boolean, (4 | 6)?][] = [
      ['8.8.8.8', 'unicast', true, 4],
      ['114.114.114.114', 'unicast', true],
      ['10.1.2.3', 'private', false],
      ['172.16.0.1', 'private', false],
      ['192.168.0.1', 'private', false],
      ['127.0.0.1', 'loopback', false],
      ['169.254.169.254', 'linkLocal', false],
      ['100.64.0.1', 'carrierGradeNat', false],
      ['0.0.0.0', 'unspecified', false],
      ['224.0.0.1', 'multicast', false],
      ['198.51.100.7', 'reserved', false],
      ['::1', 'loopback', false, 6],
      ['fe80::1%eth0', 'linkLocal', false],
      ['fd00:ec2::254', 'uniqueLocal', false],
      ['2606:4700:4700::1111', 'unicast', true, 6],
      ['[2606:4700:4700::1111]', 'unicast', true],
      ['::ffff:10.0.0.1', 'private', false, 4],
      ['::ffff:8.8.8.8', 'unicast', true, 4],
      ['64:ff9b::a00:1', 'private', false, 6],
      ['2002:0a00:0001::1', 'private', false, 6],
      ['2001:0:4136:e378::1', 'teredo', false, 6],
    ];
    for (const [addr, range, isPublic, version] of cases) {
      const info = classifyAddress(addr);
      expect(info, addr).toMatchObject({ range, isPublic, ...(version ? { version } : {}) });
    }
    expect(classifyAddress('::ffff:8.8.8.8')?.address).toBe('8.8.8.8');
    expect(classifyAddress('example.com')).toBeUndefined();
  });
});

describe('checkUntrustedUrl', () => {
  it('accepts public http(s) URLs and refuses everything else before connecting', () => {
    expect(checkUntrustedUrl('https://example.com/a?b').href).toBe('https://example.com/a?b');
    expect(checkUntrustedUrl('http://8.8.8.8:8080/').host).toBe('8.8.8.8:8080');
    const refusals: [string, RegExp][] = [
      ['file:///etc/passwd', /not file:/],
      ['ftp://example.com/', /not ftp:/],
      ['ws://example.com/', /not ws:/],
      ['https://a:b@example.com/', /user name or password/],
      ['not a url', /not a valid URL/],
      ['http://127.0.0.1/', /127\.0\.0\.1 is a loopback address/],
      ['http://2130706433/', /127\.0\.0\.1 is a loopback/],
      ['http://[::ffff:7f00:1]/', /\(127\.0\.0\.1\) is a loopback/],
      ['http://10.0.0.1/', /private \(RFC 1918\)/],
      ['http://169.254.169.254/', /link-local/],
      ['http://[fe80::1]/', /link-local/],
      ['http://[::]/', /unspecified/],
    ];
    for (const [url, why] of refusals) expect(() => checkUntrustedUrl(url), url).toThrow(expect.objectContaining({ kind: 'bad_input', message: expect.stringMatching(why) }));
    expect(checkUntrustedUrl('http://127.0.0.1:9/', { allowLoopback: true }).port).toBe('9');
    expect(() => checkUntrustedUrl('http://10.0.0.1/', { allowLoopback: true })).toThrow(/private/);
  });
});

describe('untrusted requests without a mirror', () => {
  const pages = new Upstream();
  beforeAll(async () => {
    await pages.start();
  });
  afterAll(async () => {
    await pages.stop();
  });
  afterEach(() => pages.reset());

  it('refuses loopback unless allowed, and resolves names through the guard', async () => {
    pages.serve('site.test', '/', { headers: HTML, body: '<title>ok</title>' });
    const http = client();
    await expect(http.request(`${pages.url}/site.test/`, { untrusted: true })).rejects.toMatchObject({ kind: 'bad_input', message: expect.stringMatching(/loopback/) });
    const port = new URL(pages.url).port;
    await expect(http.request(`http://localhost:${port}/site.test/`, { untrusted: true })).rejects.toMatchObject({ kind: 'bad_input', message: expect.stringMatching(/^localhost resolves to .*loopback address/) });
    await expect(http.request('http://no-such-host.invalid/', { untrusted: true })).rejects.toMatchObject({ kind: 'bad_input', message: expect.stringMatching(/could not be resolved/) });
    const ok = await http.request(`http://localhost:${port}/site.test/`, { untrusted: { allowLoopback: true } });
    expect(ok.text()).toBe('<title>ok</title>');
    expect(pages.requests).toHaveLength(1);
  });

  it('checks every redirect, reads within the limits and keeps the final URL', async () => {
    const http = client();
    const policy = { allowLoopback: true, acceptTypes: ['text/html'], stopAfter: '</head>' };
    pages.serve('site.test', '/a', { status: 302, headers: { location: '/site.test/b' } });
    pages.serve('site.test', '/b', { headers: HTML, body: `<html><head><title>b</title></head><body>${'x'.repeat(4096)}</body></html>` });
    const res = await http.request(`${pages.url}/site.test/a`, { untrusted: policy });
    expect(res.url).toBe(`${pages.url}/site.test/b`);
    expect(res.text()).toMatch(/^<html><head><title>b<\/title><\/head>/);
    expect(res.body.length).toBeLessThan(4096);

    pages.serve('site.test', '/to-private', { status: 301, headers: { location: 'http://10.9.8.7/' } });
    await expect(http.request(`${pages.url}/site.test/to-private`, { untrusted: policy })).rejects.toMatchObject({ kind: 'bad_input', message: expect.stringMatching(/10\.9\.8\.7 is a private/) });
    pages.serve('site.test', '/to-file', { status: 302, headers: { location: 'file:///etc/passwd' } });
    await expect(http.request(`${pages.url}/site.test/to-file`, { untrusted: policy })).rejects.toMatchObject({ message: expect.stringMatching(/not file:/) });

    pages.serve('site.test', '/big', { headers: HTML, body: 'y'.repeat(5000) });
    await expect(http.request(`${pages.url}/site.test/big`, { untrusted: policy, maxBytes: 2048 })).rejects.toMatchObject({ kind: 'bad_input', message: expect.stringMatching(/more than 2048 bytes before <\/head>/) });
    pages.serve('site.test', '/json', { body: { a: 1 } });
    await expect(http.request(`${pages.url}/site.test/json`, { untrusted: policy })).rejects.toMatchObject({ kind: 'bad_input', message: expect.stringMatching(/answered application\/json/) });
    pages.serve('site.test', '/slow', { headers: HTML, body: '<title>late</title>', delayMs: 1500 });
    await expect(http.request(`${pages.url}/site.test/slow`, { untrusted: policy })).rejects.toMatchObject({ kind: 'transient', message: expect.stringMatching(/timed out/) });
    pages.serve('site.test', '/missing', { status: 404, headers: HTML, body: 'no' });
    expect((await http.request(`${pages.url}/site.test/missing`, { untrusted: policy, allowStatus: [404] })).status).toBe(404);
    await expect(http.request(`${pages.url}/site.test/missing`, { untrusted: policy })).rejects.toMatchObject({ kind: 'transient', httpStatus: 404 });

    // Streamed (the image-proxy and audio-proxy encodings): the same checks, the body as it arrives.
    const streamPolicy = { allowLoopback: true };
    const streamed = await http.stream(`${pages.url}/site.test/a`, { untrusted: streamPolicy });
    expect(streamed.status).toBe(200);
    expect(Buffer.concat(await streamed.body.toArray()).toString()).toContain('<title>b</title>');
    await expect(http.stream(`${pages.url}/site.test/to-private`, { untrusted: streamPolicy })).rejects.toMatchObject({ kind: 'bad_input', message: expect.stringMatching(/10\.9\.8\.7 is a private/) });
    await expect(http.stream(`${pages.url}/site.test/missing`, { untrusted: streamPolicy })).rejects.toMatchObject({ httpStatus: 404 });
    const cut = await http.stream(`${pages.url}/site.test/big`, { untrusted: streamPolicy, maxBytes: 2048 });
    await expect(cut.body.toArray()).rejects.toThrow(/exceeds 2048 bytes/);
  });

  it('leaves ordinary requests as they were (loopback and redirects allowed, no type check)', async () => {
    pages.serve('site.test', '/json', { body: { a: 1 } });
    expect(await client().json(`${pages.url}/site.test/json`)).toEqual({ a: 1 });
  });
});

describe('untrusted requests through SOURCES_UPSTREAM_MIRROR', () => {
  const mirror = new Upstream();
  beforeAll(async () => {
    await mirror.start();
  });
  afterAll(async () => {
    await mirror.stop();
  });
  afterEach(() => mirror.reset());

  it('connects to the mirror but checks the URLs it stands for, redirects included', async () => {
    const http = client(mirror.url);
    mirror.serve('news.test', '/story', { headers: HTML, body: '<title>story</title>' });
    const res = await http.request('https://news.test/story', { untrusted: { acceptTypes: ['text/html'] } });
    expect(res.url).toBe('https://news.test/story');
    expect(res.text()).toBe('<title>story</title>');

    mirror.serve('news.test', '/hop', { status: 302, headers: { location: 'https://cdn.news.test/final' } });
    mirror.serve('cdn.news.test', '/final', { headers: HTML, body: '<title>final</title>' });
    expect((await http.request('https://news.test/hop', { untrusted: true })).url).toBe('https://cdn.news.test/final');

    mirror.serve('news.test', '/evil', { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } });
    await expect(http.request('https://news.test/evil', { untrusted: true })).rejects.toMatchObject({ kind: 'bad_input', message: expect.stringMatching(/169\.254\.169\.254 is a link-local/) });
    await expect(http.request('http://localhost/admin', { untrusted: true })).rejects.toMatchObject({ kind: 'bad_input', message: expect.stringMatching(/localhost is a loopback name/) });
    await expect(http.request('http://127.0.0.1/admin', { untrusted: true })).rejects.toMatchObject({ kind: 'bad_input' });
    expect(mirror.hits('169.254.169.254')).toEqual([]);
    expect(mirror.unmatched).toEqual([]);
  });
});
