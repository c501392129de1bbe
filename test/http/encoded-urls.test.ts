/**
 * Issue 20 item 7: every URL an encoding writes (RSS item link and enclosure, html href/src,
 * markdown links, the image redirect) is an http(s) URL, by one rule (`safeUrl`), whatever the
 * upstream's data holds. The 60s digest carries a `link`, an `image` and a `cover` of its own
 * (format: test/fixtures/upstream/60s-static.viki.moe, as the static host writes it); here they
 * are hostile, and the feed is read with a real RSS parser.
 */
import fs from 'node:fs';
import path from 'node:path';
import Parser from 'rss-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { htmlUrl, markdownUrl, safeUrl } from '../../src/encoding/escape.ts';
import { TestClock } from '../support/clock.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const HOST = '60s-static.viki.moe';
/** 10:00 Asia/Shanghai on 2026-11-20, the day of the recorded digest. */
const START = Date.parse('2026-11-20T02:00:00Z');
const HOSTILE = {
  link: 'javascript:alert(document.cookie)',
  image: 'data:text/html,<script>alert(1)</script>',
  cover: 'JaVaScRiPt:alert(2)',
};
const UNSAFE = /javascript:|data:text|vbscript:|file:/i;

describe('safeUrl', () => {
  it.each([
    ['https://example.com/a?b=1&c=2', 'https://example.com/a?b=1&c=2'],
    ['HTTP://example.com/', 'HTTP://example.com/'],
    ['javascript:alert(1)', undefined],
    [' javascript:alert(1)', undefined],
    ['data:image/png;base64,AAAA', undefined],
    ['file:///etc/passwd', undefined],
    ['//example.com/x', undefined],
    ['http://', undefined],
    ['', undefined],
    [null, undefined],
  ])('%s → %s', (input, expected) => {
    expect(safeUrl(input)).toBe(expected);
  });

  it('markdown and html attribute forms are empty for unsafe URLs', () => {
    expect(markdownUrl('javascript:alert(1)')).toBe('');
    expect(markdownUrl('https://a.test/x (1)')).toBe('https://a.test/x%20%281%29');
    expect(htmlUrl('data:text/html,<b>')).toBe('');
    expect(htmlUrl('https://a.test/?a=1&b="2"')).toBe('https://a.test/?a=1&amp;b=&quot;2&quot;');
  });
});

describe('hostile URLs in upstream data, through every encoding', () => {
  const upstream = new Upstream();
  const clock = new TestClock(START);
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    const recorded = JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, HOST, '60s', '2026-11-20.json'), 'utf8')) as Record<string, unknown>;
    upstream.serve(HOST, '/60s/2026-11-20.json', { body: { ...recorded, ...HOSTILE } });
    svc = await startService({ upstream, now: clock.now });
  });
  afterAll(async () => {
    await svc?.close();
    await upstream.stop();
  });

  it('the json keeps the upstream values as data (nothing is rendered from them there)', async () => {
    const res = await svc.get('/v2/apis/60s');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { link: string; image: string } };
    expect(body.data.link).toBe(HOSTILE.link);
  });

  it('RSS: item links are http(s), no enclosure or description carries the hostile URLs', async () => {
    const res = await svc.get('/v2/apis/60s/rss');
    expect(res.status).toBe(200);
    const xml = await res.text();
    const feed = await new Parser().parseString(xml);
    expect(feed.items.length).toBeGreaterThan(0);
    for (const item of feed.items) {
      expect(item.link).toMatch(/^https?:\/\//);
      if (item.enclosure) expect(item.enclosure.url).toMatch(/^https?:\/\//);
      expect(item.content ?? '').not.toMatch(UNSAFE);
    }
    expect(xml).not.toMatch(UNSAFE);
  });

  it('html and markdown write no hostile URL', async () => {
    const html = await (await svc.get('/v2/apis/60s?encoding=html')).text();
    expect(html).toContain('<p>');
    expect(html).not.toMatch(UNSAFE);
    const markdown = await (await svc.get('/v2/apis/60s?encoding=markdown')).text();
    expect(markdown).not.toMatch(UNSAFE);
  });

  it('encoding=image does not redirect to a non-http URL', async () => {
    const res = await svc.get('/v2/apis/60s?encoding=image');
    expect(res.status).toBe(404);
    expect(res.headers.get('location')).toBeNull();
  });
});
