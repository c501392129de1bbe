import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import og, { normalizeUrl, parse, type OgData } from '../../sources/og.ts';
import { TestClock } from '../support/clock.ts';
import { expectError, expectUnavailable, getEncodings, readData, settle, sourceStatus } from '../support/envelope-assertions.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const page = (name: string) => fs.readFileSync(path.join(FIXTURE_DIR, 'blog.test/posts', `${name}.html`), 'utf8');
const now = new Date('2026-11-21T02:00:00Z');
const HTML = { 'content-type': 'text/html; charset=utf-8' };

describe('og parse', () => {
  it('prefers Open Graph, then Twitter, then plain HTML, and makes every URL absolute', () => {
    const d = parse(page('spring-tea'), 'https://blog.test/posts/spring-tea', now);
    expect(d).toEqual({
      url: 'https://blog.test/posts/spring-tea',
      fetched_url: 'https://blog.test/posts/spring-tea',
      title: '明前龙井怎么泡：水温、器具与投茶量',
      description: '80 ℃ 左右的水、玻璃杯 & 上投法：三个细节泡好一杯明前茶。',
      image: 'https://blog.test/static/covers/longjing.jpg?w=1200',
      image_alt: '玻璃杯中舒展的茶叶',
      site_name: '山间茶话',
      favicon: 'https://blog.test/static/favicon-32.png',
      type: 'article',
      locale: 'zh_CN',
      twitter_card: 'summary_large_image',
      twitter_site: '@shanjian_tea',
      updated: '2026-11-21 10:00:00',
      updated_at: now.getTime(),
    });
    expect(og.mode !== 'local' && og.validate(d)).toBeUndefined();
  });

  it('falls back to <title>, meta description, twitter:image against <base>, /favicon.ico and the host', () => {
    const d = parse(page('plain-notes'), 'https://blog.test/posts/plain-notes', now);
    expect(d).toMatchObject({
      url: 'https://blog.test/posts/plain-notes',
      title: 'Plain notes on tea storage',
      description: 'Keep leaves dry, dark and away from strong smells.',
      image: 'https://static.blog.test/assets/img/storage.png',
      site_name: 'blog.test',
      favicon: 'https://blog.test/favicon.ico',
      type: null,
    });
    const bare = parse('<html><head></head><body></body></html>', 'https://bare.test/x', now);
    expect(bare).toMatchObject({ title: 'bare.test', description: '', image: '' });
    // javascript: and data: images are not URLs we hand out.
    expect(parse('<meta property="og:image" content="javascript:alert(1)"><title>t</title>', 'https://a.test/', now).image).toBe('');
  });

  it('normalises the caller URL: https:// when no scheme, other schemes kept to be refused', () => {
    expect(normalizeUrl(' example.com/a?b=1 ')).toBe('https://example.com/a?b=1');
    expect(normalizeUrl('example.com:8080/x')).toBe('https://example.com:8080/x');
    expect(normalizeUrl('//cdn.example.com/x')).toBe('https://cdn.example.com/x');
    expect(normalizeUrl('http://example.com')).toBe('http://example.com');
    expect(normalizeUrl('file:///etc/passwd')).toBe('file:///etc/passwd');
    expect(normalizeUrl('javascript:alert(1)')).toBe('javascript:alert(1)');
    expect(normalizeUrl('data:text/html,hi')).toBe('data:text/html,hi');
  });
});

describe('og through the server (loopback allowed for the local page server)', () => {
  const pages = new Upstream();
  const clock = new TestClock();
  let svc: TestService;
  let base = '';
  const q = (url: string) => `/v2/apis/og?url=${encodeURIComponent(url)}`;

  beforeAll(async () => {
    await pages.start();
    base = pages.url;
    svc = await startService({ sources: [og], now: clock.now, env: { SOURCE_OG_ALLOW_LOOPBACK: 'true', HTTP_TIMEOUT_MS: '800' } });
  });
  afterAll(async () => {
    await svc.close();
    await pages.stop();
  });
  afterEach(() => {
    expect(pages.unmatched).toEqual([]);
    pages.reset();
  });

  it('previews a page in json, text, markdown and html, following a redirect', async () => {
    pages.serve('blog.test', '/go/tea', { status: 301, headers: { location: '/blog.test/posts/spring-tea' } });
    const url = `${base}/blog.test/go/tea`;
    const d = await readData<OgData>(await svc.get(q(url)));
    expect(d).toMatchObject({
      url: 'https://blog.test/posts/spring-tea',
      fetched_url: `${base}/blog.test/posts/spring-tea`,
      title: '明前龙井怎么泡：水温、器具与投茶量',
      image: `${base}/blog.test/static/covers/longjing.jpg?w=1200`,
      favicon: `${base}/static/favicon-32.png`,
      site_name: '山间茶话',
    });
    expect(pages.hits('blog.test').map((r) => r.path)).toEqual(['/go/tea', '/posts/spring-tea']);
    expect(pages.hits('blog.test')[0]!.headers.accept).toMatch(/^text\/html/);

    const out = await getEncodings(svc, q(url));
    expect(out.text).toBe(`标题：明前龙井怎么泡：水温、器具与投茶量\n描述：80 ℃ 左右的水、玻璃杯 & 上投法：三个细节泡好一杯明前茶。\n图片：${base}/blog.test/static/covers/longjing.jpg?w=1200\n链接：https://blog.test/posts/spring-tea\n`);
    expect(out.markdown).toContain('# [明前龙井怎么泡：水温、器具与投茶量](https://blog.test/posts/spring-tea)');
    expect(out.markdown).toContain('![玻璃杯中舒展的茶叶](');
    expect(out.html).toContain('<a href="https://blog.test/posts/spring-tea" rel="noopener noreferrer nofollow">');
    expect(pages.hits('blog.test')).toHaveLength(2);
  });

  it('accepts a POSTed url and stops reading after </head> of a huge page', async () => {
    const huge = `<html><head><title>Huge</title><meta property="og:description" content="big body"></head><body>${'<p>filler</p>'.repeat(180_000)}</body></html>`;
    pages.serve('blog.test', '/huge', { headers: HTML, body: huge });
    const res = await svc.get('/v2/apis/og', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: `${base}/blog.test/huge` }) });
    expect(await readData<OgData>(res)).toMatchObject({ title: 'Huge', description: 'big body' });
  });

  it('refuses private, link-local, metadata, CGNAT and unique-local targets, also behind a redirect', async () => {
    for (const [url, why] of [
      ['http://10.0.0.8/admin', /10\.0\.0\.8 is a private \(RFC 1918\) address/],
      ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a link-local address \(this range holds cloud metadata services\)/],
      ['http://100.100.100.200/latest/meta-data/', /carrier-grade NAT/],
      ['http://[fd00:ec2::254]/', /unique-local/],
      ['http://0.0.0.0:80/', /unspecified/],
    ] as const) {
      await expectError(await svc.get(q(url)), 400, why);
    }
    pages.serve('blog.test', '/to-metadata', { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/iam/' } });
    await expectError(await svc.get(q(`${base}/blog.test/to-metadata`)), 400, /169\.254\.169\.254 is a link-local address/);
    pages.serve('blog.test', '/to-lan', { status: 307, headers: { location: 'http://192.168.1.1/' } });
    await expectError(await svc.get(q(`${base}/blog.test/to-lan`)), 400, /192\.168\.1\.1 is a private/);
    pages.serve('blog.test', /^\/loop/, (req) => ({ status: 302, headers: { location: `/blog.test/loop${Number(req.path.slice(5) || 0) + 1}` } }));
    await expectError(await svc.get(q(`${base}/blog.test/loop0`)), 400, /more than 5 redirects/);
    expect((await sourceStatus(svc, 'og')).fail_count).toBe(0);
  });

  it('refuses other schemes, credentials, non-HTML answers and oversize heads with 400', async () => {
    for (const [url, why] of [
      ['file:///etc/passwd', /only http and https URLs can be fetched, not file:/],
      ['ftp://ftp.example.com/pub/', /not ftp:/],
      ['javascript:alert(document.cookie)', /not javascript:/],
      ['gopher://127.0.0.1:70/', /not gopher:/],
      ['data:text/html,<title>x</title>', /not data:/],
      ['https://user:secret@example.com/', /user name or password/],
      ['http://exa mple.com/', /not a valid URL/],
    ] as const) {
      await expectError(await svc.get(q(url)), 400, why);
    }
    await expectError(await svc.get('/v2/apis/og'), 400, /"url"/);
    // Every refusal names the parameter and says what is accepted (issue 13: og?url=0 did not).
    for (const url of ['0', 'ftp://ftp.example.com/pub/', '10.0.0.1', 'http://[::1', 'https://user:secret@example.com/']) {
      await expectError(await svc.get(q(url)), 400, /^Invalid parameter "url": .*public http or https web page, such as https:\/\/github\.com\//);
    }
    await expectError(await svc.get(q('0')), 400, /0\.0\.0\.0 is the unspecified address/);

    pages.serve('blog.test', '/api.json', { body: { title: 'json' } });
    await expectError(await svc.get(q(`${base}/blog.test/api.json`)), 400, /answered application\/json; only text\/html or application\/xhtml\+xml is accepted/);
    pages.serve('blog.test', '/logo.png', { headers: { 'content-type': 'image/png' }, body: Buffer.alloc(64) });
    await expectError(await svc.get(q(`${base}/blog.test/logo.png`)), 400, /answered image\/png/);
    pages.serve('blog.test', '/no-head-end', { headers: HTML, body: `<html><head><title>x</title>${'<meta name="x" content="y">'.repeat(120_000)}` });
    await expectError(await svc.get(q(`${base}/blog.test/no-head-end`)), 400, /sent more than 2097152 bytes before <\/head>/);
    pages.serve('blog.test', '/gone', { status: 404, headers: HTML, body: '<html><head><title>Not found</title></head></html>' });
    await expectError(await svc.get(q(`${base}/blog.test/gone`)), 404, /does not exist \(HTTP 404\)/);
  });

  it('answers 503 with Retry-After for failing or slow pages while nothing is cached', async () => {
    pages.serve('blog.test', '/broken', { status: 500, headers: HTML, body: '<html>oops</html>' });
    await expectUnavailable(await svc.get(q(`${base}/blog.test/broken`)), /HTTP 500/);
    clock.advance(1000);
    pages.serve('blog.test', '/walled', { status: 403, headers: HTML, body: '<html><head><title>Just a moment...</title></head></html>' });
    await expectUnavailable(await svc.get(q(`${base}/blog.test/walled`)), /HTTP 403/);
    expect((await sourceStatus(svc, 'og')).last_error).toMatch(/^blocked: /);
    pages.serve('blog.test', '/slow', { headers: HTML, body: page('spring-tea'), delayMs: 1500 });
    await expectUnavailable(await svc.get(q(`${base}/blog.test/slow`)), /timed out/);
  });

  it('keeps the last good preview, served as STALE, when the page starts failing', async () => {
    pages.serve('blog.test', '/kept', { headers: HTML, body: page('spring-tea') });
    await readData<OgData>(await svc.get(q(`${base}/blog.test/kept`)));
    clock.advance(3600_000 + 1000);
    pages.serve('blog.test', '/kept', { status: 502, body: 'bad gateway' });
    const stale = await svc.get(q(`${base}/blog.test/kept`));
    expect(stale.headers.get('x-cache')).toBe('STALE');
    expect((await readData<OgData>(stale)).site_name).toBe('山间茶话');
    await settle();
    expect((await sourceStatus(svc, 'og')).last_error).toMatch(/^transient: .*HTTP 502/);
  });
});

describe('og with the default policy (no loopback)', () => {
  const pages = new Upstream();
  let svc: TestService;
  const q = (url: string) => `/v2/apis/og?url=${encodeURIComponent(url)}`;

  beforeAll(async () => {
    await pages.start();
    svc = await startService({ sources: [og] });
  });
  afterAll(async () => {
    await svc.close();
    await pages.stop();
  });

  it('refuses loopback by address, in every spelling, and by name after DNS resolution', async () => {
    const port = new URL(pages.url).port;
    for (const url of [`http://127.0.0.1:${port}/blog.test/posts/spring-tea`, `http://127.1:${port}/`, 'http://2130706433/', 'http://0x7f.0.0.1/', `http://[::1]:${port}/`, 'http://[::ffff:127.0.0.1]/']) {
      await expectError(await svc.get(q(url)), 400, /(127\.0\.0\.1\)?|::1) is a loopback address; only public addresses can be fetched/);
    }
    await expectError(await svc.get(q(`http://localhost:${port}/blog.test/posts/spring-tea`)), 400, /localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    // The machine's own name resolves to a loopback or private address (or not at all) here: never fetched.
    await expectError(await svc.get(q(`http://${os.hostname()}:${port}/blog.test/posts/spring-tea`)), 400, /resolves to .*address|could not be resolved/);
    expect(pages.requests).toEqual([]);
  });
});

describe('og behind SOURCES_UPSTREAM_MIRROR', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, sources: [og] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('fetches through the mirror (a trusted address) yet refuses the private URLs it stands for', async () => {
    const d = await readData<OgData>(await svc.get('/v2/apis/og?url=github.com'));
    expect(d).toMatchObject({ url: 'https://github.com/', fetched_url: 'https://github.com/', site_name: 'GitHub', favicon: 'https://github.githubassets.com/favicons/favicon.svg', twitter_site: '@github' });
    expect(upstream.hits('github.com').map((r) => r.path)).toEqual(['/']);
    upstream.serve('github.com', '/login', { status: 302, headers: { location: 'http://10.20.30.40/internal' } });
    await expectError(await svc.get('/v2/apis/og?url=https://github.com/login'), 400, /10\.20\.30\.40 is a private/);
    await expectError(await svc.get('/v2/apis/og?url=http://localhost/'), 400, /localhost is a loopback name/);
    expect(upstream.hits('10.20.30.40')).toEqual([]);
    expect(upstream.unmatched).toEqual([]);
  });
});
