/**
 * The html pages people look at, in headless Chromium: the 60s digest, a hot list, charts and
 * pages of their own content (weather, a colour palette), then every route's html page once.
 * Each one has the shared page shell (same styling) and the footer, column headers that
 * say what the column holds (in Chinese, as the rest of the page), no empty column, no broken
 * year such as "-221 年", and no horizontal overflow on a desktop or a phone. Screenshots go to
 * test-artifacts/. Skipped with a message when /usr/bin/chromium is absent, unless REQUIRE_BROWSER=1.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../support/service.ts';
import { serveSharedEndpointUpstreams } from '../compat/upstreams.ts';
import { Upstream } from '../support/upstream.ts';
import { ARTIFACTS, BROWSER_MISSING_REQUIRED, BROWSER_REQUIRED, HAVE_BROWSER, launchBrowser, NO_BROWSER_MESSAGE } from './support.ts';

const skip = !HAVE_BROWSER && !BROWSER_REQUIRED;
if (skip) process.stderr.write(`${NO_BROWSER_MESSAGE}\n`);

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
/** Fetched data says when it was fetched; computed data that it was made for this request. */
const FOOTER = /^(?:更新于 \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}（北京时间）|即时生成，未经缓存$)/;

/** Requests with a recorded upstream answer, for routes whose catalogue example has none. */
const FIXTURE_EXAMPLES: Record<string, string> = { whois: '/v2/apis/whois?domain=lanting-books.com', '60s': '/v2/apis/60s?date=2026-11-20' };

interface Seen {
  title: string;
  headers: string[];
  footer: string | null;
  text: string;
  overflow: number;
  /** Cells of each column, to find empty ones. */
  columnsFilled: boolean[];
  style: { maxWidth: string; fontFamily: string; footerColor: string | null };
}

describe.skipIf(skip)(skip ? NO_BROWSER_MESSAGE : 'html pages in headless Chromium', () => {
  const upstream = new Upstream();
  let svc: TestService;
  let browser: Browser;

  beforeAll(async () => {
    if (!HAVE_BROWSER) throw new Error(BROWSER_MISSING_REQUIRED);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await upstream.start();
    serveSharedEndpointUpstreams(upstream);
    svc = await startService({ upstream, env: { SOURCE_HOT_MICROBLOG_COOKIE: 'SUB=browser', AI_UPSTREAM_BASE_URL: 'https://ai-gateway.test/', AI_UPSTREAM_API_KEY: 'sk-test' } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
    await upstream.stop();
  });

  /** Opens a page of the service; requests elsewhere (the upstream's images) are refused, as offline. */
  async function open(url: string, viewport = DESKTOP): Promise<{ page: Page; seen: Seen }> {
    const page = await browser.newPage({ viewport });
    await page.route('**/*', (route) => (route.request().url().startsWith(svc.base) ? route.continue() : route.abort()));
    const res = await page.goto(`${svc.base}${url}`);
    expect(res?.status(), url).toBe(200);
    const seen = await page.evaluate(() => {
      const headers = Array.from(document.querySelectorAll('thead th')).map((th) => th.textContent ?? '');
      const rows = Array.from(document.querySelectorAll('tbody tr'));
      const columnsFilled = headers.map((_, i) => rows.some((tr) => (tr.children[i]?.textContent ?? '').trim() !== ''));
      const footer = document.querySelector('footer');
      return {
        title: document.querySelector('h1')?.textContent ?? '',
        headers,
        footer: footer?.textContent ?? null,
        text: document.body.innerText,
        overflow: document.documentElement.scrollWidth - window.innerWidth,
        columnsFilled,
        style: { maxWidth: getComputedStyle(document.body).maxWidth, fontFamily: getComputedStyle(document.body).fontFamily, footerColor: footer ? getComputedStyle(footer).color : null },
      };
    });
    return { page, seen };
  }

  async function check(name: string, url: string, expected: { title: RegExp; headers?: string[] }): Promise<Seen> {
    const { page, seen } = await open(url);
    expect(seen.title, url).toMatch(expected.title);
    if (expected.headers) {
      expect(seen.headers, url).toEqual(expected.headers);
      expect(seen.columnsFilled.every(Boolean), `${url}: every column holds something`).toBe(true);
      // One language per page: the labels are Chinese, as the titles are.
      for (const h of seen.headers) expect(h, url).not.toMatch(/[A-Za-z]/);
    }
    expect(seen.footer, url).toMatch(FOOTER);
    expect(seen.text, url).not.toMatch(/-\d+\s*年/);
    expect(seen.text, url).not.toMatch(/\bUpdated\b|\bHeat\b/);
    expect(seen.overflow, `${url}: no horizontal overflow on a desktop`).toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(ARTIFACTS, `page-${name}.png`), fullPage: true });
    await page.close();

    const phone = await open(url, PHONE);
    expect(phone.seen.overflow, `${url}: no horizontal overflow on a phone`).toBeLessThanOrEqual(0);
    await phone.page.screenshot({ path: path.join(ARTIFACTS, `page-${name}-phone.png`) });
    await phone.page.close();
    return seen;
  }

  it('renders the digest, a hot list and charts with the same shell, labelled columns and the footer', async () => {
    // The digest at 60s's own path (an alias of /v2/apis/60s).
    const digest = await check('60s', '/v2/60s?date=2026-11-20&encoding=html', { title: /^每天 60 秒读懂世界（2026-11-20 星期五）$/ });
    expect(digest.text).toContain('【微语】');
    expect(digest.text).toMatch(/农历/);

    const hot = await check('hot-microblog', '/v2/apis/hot-microblog?encoding=html', { title: /^微博热搜$/, headers: ['#', '标题', '热度'] });
    const review = await check('review-a', '/v2/apis/review-a/weekly/movie?encoding=html', { title: /./, headers: ['#', '电影', '评分'] });
    const sourced = await check('hot-search-b', '/v2/apis/hot-search-b?encoding=html', { title: /^夸克热点$/, headers: ['#', '热点', '来源'] });
    const charts = await check('music-rank', '/v2/apis/music-rank/list?encoding=html', { title: /^网易云音乐排行榜$/, headers: ['#', '榜单', '更新频率'] });

    // One page shell: the digest looks like the others.
    for (const other of [hot, review, sourced, charts]) expect(other.style).toEqual(digest.style);
    expect(digest.style.maxWidth).toBe('960px');
  });

  it('gives pages of their own content (weather, a colour palette) the same shell, heading and footer', async () => {
    const weather = await check('weather', `/v2/apis/weather?query=${encodeURIComponent('北京')}&encoding=html`, { title: /^北京 实时天气$/ });
    expect(weather.text).toContain('生活指数');
    const palette = await check('color-palette', '/v2/apis/color/palette?color=3366CC&encoding=html', { title: /^配色方案 #3366CC（蓝色系）$/ });
    expect(palette.text).toContain('互补');
    const digest = (await open('/v2/apis/60s?date=2026-11-20&encoding=html')).seen;
    for (const page of [weather, palette]) expect(page.style).toEqual(digest.style);
  });

  it("every route's html page has one heading and the shared footer", async () => {
    const catalogue = (await (await svc.get('/v2/apis')).json()) as { data: { endpoints: { path: string; id: string; encodings: string[]; example: string }[] } };
    const answered = new Set<string>();
    const page = await browser.newPage();
    await page.route('**/*', (route) => (route.request().url().startsWith(svc.base) ? route.continue() : route.abort()));
    for (const e of catalogue.data.endpoints.filter((x) => x.encodings.includes('html'))) {
      const base = (FIXTURE_EXAMPLES[e.id] ?? e.example).replace(/([?&])encoding=[^&]*&?/, '$1').replace(/[?&]$/, '');
      const url = `${base}${base.includes('?') ? '&' : '?'}encoding=html`;
      const res = await page.goto(`${svc.base}${url}`);
      // An upstream with no fixture at this example answers 503; that is no page.
      if (res?.status() !== 200) {
        expect(res?.status(), url).toBe(503);
        continue;
      }
      const seen = await page.evaluate(() => ({ h1: document.querySelectorAll('h1').length, footers: Array.from(document.querySelectorAll('footer')).map((f) => f.textContent ?? ''), last: document.body.lastElementChild?.tagName }));
      expect(seen.h1, url).toBe(1);
      expect(seen.footers, url).toHaveLength(1);
      expect(seen.footers[0], url).toMatch(FOOTER);
      expect(seen.last, `${url}: the footer closes the page`).toBe('FOOTER');
      answered.add(e.id);
    }
    await page.close();
    // Every page that writes its own content was seen.
    for (const id of ['exchange-rate', 'wallpaper-daily', 'fanyi', 'fanyi-langs', 'baike', 'whois', 'ip', 'og', 'weather', 'lyric', 'gold-price', 'fuel-price', 'olympics', 'color', '60s'])
      expect(answered, id).toContain(id);
  }, 180_000);

  it('leaves out a column no row fills', async () => {
    const { page, seen } = await open('/v2/apis/today-in-history?date=2026-11-21&encoding=html');
    expect(seen.headers).toEqual(['#', '标题']);
    expect(await page.locator('tbody tr').first().locator('td').count()).toBe(2);
    await page.close();
  });
});
