/**
 * The pages people browse, in headless Chromium on the demo's data (`npm run demo`: lists of the
 * evening before and of the demo day): the home page, a list at a past moment, an item's timeline
 * chart, the box office bars and trending's spread charts, each at 1280×900 and 390×844 (screenshots under test-artifacts/),
 * with no horizontal overflow, Chinese at a readable size, headings and labels, basic
 * accessibility (lang, landmarks, contrast of text, alt text, named charts), previous / next
 * snapshot links that are followed, and the search form working with JavaScript off.
 * Skipped with a message when /usr/bin/chromium is absent, unless REQUIRE_BROWSER=1.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type Demo } from '../../scripts/demo.ts';
import { addDays } from '../../src/kernel/time.ts';
import { ARTIFACTS, BROWSER_MISSING_REQUIRED, BROWSER_REQUIRED, HAVE_BROWSER, launchBrowser, NO_BROWSER_MESSAGE } from '../ops/support.ts';

const skip = !HAVE_BROWSER && !BROWSER_REQUIRED;
if (skip) process.stderr.write(`${NO_BROWSER_MESSAGE}\n`);

const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;
type ViewportName = keyof typeof VIEWPORTS;

interface Audit {
  lang: string;
  h1: string[];
  landmarks: { header: number; main: number; footer: number; nav: number };
  overflow: number;
  /** Text elements whose contrast against their background is under 4.5:1. */
  lowContrast: string[];
  /** The smallest font size (px) of Chinese text shown. */
  smallestChinese: number;
  imagesWithoutAlt: number;
  unnamedCharts: number;
  unlabelledInputs: number;
  snapshotAt: number | null;
}

/** Checks run inside the page. */
function audit(): Audit {
  const rgb = (c: string): [number, number, number, number] => {
    const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/.exec(c);
    return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])] : [0, 0, 0, 1];
  };
  const lum = ([r, g, b]: number[]) => {
    const f = (v: number) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * f(r as number) + 0.7152 * f(g as number) + 0.0722 * f(b as number);
  };
  const background = (el: Element | null): [number, number, number, number] => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c[3] > 0.5) return c;
    }
    return [255, 255, 255, 1];
  };
  const lowContrast: string[] = [];
  let smallestChinese = Infinity;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = (n.textContent ?? '').trim();
    const el = n.parentElement;
    if (!text || !el || el.closest('svg') || el.closest('style')) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none' || el.getClientRects().length === 0) continue;
    const fg = lum(rgb(style.color));
    const bg = lum(background(el));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    if (ratio < 4.5) lowContrast.push(`${text.slice(0, 20)} (${ratio.toFixed(2)})`);
    if (/[\u4e00-\u9fff]/.test(text)) smallestChinese = Math.min(smallestChinese, parseFloat(style.fontSize));
  }
  // Chart labels: their size on screen (the SVG scales with the page).
  for (const t of Array.from(document.querySelectorAll('svg text'))) {
    if (/[\u4e00-\u9fff]/.test(t.textContent ?? '')) smallestChinese = Math.min(smallestChinese, t.getBoundingClientRect().height * 0.8);
  }
  const at = document.querySelector('.tm .at')?.getAttribute('data-at');
  return {
    lang: document.documentElement.lang,
    h1: Array.from(document.querySelectorAll('h1')).map((h) => h.textContent ?? ''),
    landmarks: {
      header: document.querySelectorAll('body > header').length,
      main: document.querySelectorAll('main').length,
      footer: document.querySelectorAll('body > footer').length,
      nav: document.querySelectorAll('nav').length,
    },
    overflow: document.documentElement.scrollWidth - window.innerWidth,
    lowContrast,
    smallestChinese,
    imagesWithoutAlt: Array.from(document.images).filter((i) => !i.hasAttribute('alt')).length,
    unnamedCharts: Array.from(document.querySelectorAll('svg')).filter((s) => s.getAttribute('role') !== 'img' || !s.getAttribute('aria-label')).length,
    unlabelledInputs: Array.from(document.querySelectorAll('input:not([type=hidden])')).filter((i) => !i.id || !document.querySelector(`label[for="${i.id}"]`)).length,
    snapshotAt: at ? Number(at) : null,
  };
}

describe.skipIf(skip)(skip ? NO_BROWSER_MESSAGE : 'browsing the board, the time machine and the charts in headless Chromium', () => {
  let demo: Demo;
  let browser: Browser;

  beforeAll(async () => {
    if (!HAVE_BROWSER) throw new Error(BROWSER_MISSING_REQUIRED);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    demo = await startDemo({ port: 0, host: '127.0.0.1', env: { SCHEDULER_ENABLED: 'false' } });
    browser = await launchBrowser();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
  });

  /** Opens a page of the demo (nothing elsewhere is reachable), audits it and saves a screenshot. */
  async function visit(url: string, viewport: ViewportName, shot: string, opts: { javaScript?: boolean; dark?: boolean } = {}): Promise<{ page: Page; seen: Audit }> {
    const context = await browser.newContext({ viewport: VIEWPORTS[viewport], javaScriptEnabled: opts.javaScript ?? true, colorScheme: opts.dark ? 'dark' : 'light' });
    const page = await context.newPage();
    await page.route('**/*', (route) => (route.request().url().startsWith(demo.base) ? route.continue() : route.abort()));
    const res = await page.goto(`${demo.base}${url}`);
    expect(res?.status(), url).toBe(200);
    const seen = await page.evaluate(audit);
    await page.screenshot({ path: path.join(ARTIFACTS, `browse-${shot}-${viewport}.png`), fullPage: true });
    return { page, seen };
  }

  function expectAccessible(seen: Audit, url: string): void {
    expect(seen.lang, url).toBe('zh-CN');
    expect(seen.h1, url).toHaveLength(1);
    expect(seen.landmarks, url).toMatchObject({ header: 1, main: 1, footer: 1 });
    expect(seen.landmarks.nav, url).toBeGreaterThanOrEqual(1);
    expect(seen.overflow, `${url}: no horizontal overflow`).toBeLessThanOrEqual(0);
    expect(seen.lowContrast, `${url}: text contrast at least 4.5:1`).toEqual([]);
    expect(seen.smallestChinese, `${url}: Chinese at a readable size`).toBeGreaterThanOrEqual(11);
    expect(seen.imagesWithoutAlt, url).toBe(0);
    expect(seen.unnamedCharts, `${url}: every chart has a name`).toBe(0);
    expect(seen.unlabelledInputs, `${url}: every input has a label`).toBe(0);
  }

  for (const viewport of ['desktop', 'phone'] as const) {
    it(`shows the board: trending, every list by category, search and the time machine (${viewport})`, async () => {
      const { page, seen } = await visit('/', viewport, 'home');
      expectAccessible(seen, '/');
      expect(seen.h1).toEqual(['全部榜单一览']);
      expect(await page.locator('.notice').textContent()).toContain('演示数据');
      expect(await page.locator('#trending').textContent()).toBe('全网热点');
      expect(await page.locator('.events li').count()).toBeGreaterThan(3);
      // Every archived list has its card: the board is the catalogue's, not a fixed set.
      const lists = demo.service.registry.sources.filter((s) => s.mode === 'scheduled' && s.view.rows).reduce((n, s) => n + (s.mode === 'scheduled' && s.prefetch?.length ? s.prefetch.length : 1), 0);
      expect(await page.locator('article.card').count()).toBe(lists);
      expect(await page.locator('section h2', { hasText: '热榜与排行' }).count()).toBe(1);
      const weibo = page.locator('article.card', { has: page.locator('h3', { hasText: '微博热搜' }) });
      expect(await weibo.locator('li').count()).toBe(10);
      expect(await weibo.locator('.more').textContent()).toMatch(/更新于 \d{2}-\d{2} \d{2}:\d{2}.*完整榜单/);
      expect(await weibo.locator('.up, .down, .new').count()).toBeGreaterThan(0);
      expect(await page.locator('form[role=search] input[name=q]').count()).toBe(1);
      expect(seen.snapshotAt).not.toBeNull();
      await page.context().close();
    });
  }

  it('keeps its contrast in the dark colour scheme', async () => {
    for (const url of ['/', `/v2/apis/hot-microblog?encoding=html&at=${demo.day}T10:30`, `/v2/apis/timeline?q=${encodeURIComponent('新能源车')}&encoding=html`]) {
      const { page, seen } = await visit(url, 'phone', `dark-${url === '/' ? 'home' : url.includes('timeline') ? 'timeline' : 'list'}`, { dark: true });
      expect(seen.lowContrast, `${url} (dark): text contrast at least 4.5:1`).toEqual([]);
      await page.context().close();
    }
  });

  it('steps the board back and forth through its snapshots', async () => {
    const { page, seen } = await visit('/', 'desktop', 'home-steps');
    await page.locator('.tm a[rel=prev]').click();
    const before = await page.evaluate(audit);
    expect(before.snapshotAt).toBeLessThan(seen.snapshotAt as number);
    expect(await page.locator('.tm').textContent()).toContain('存档快照');
    await page.locator('.tm a[rel=next]').click();
    const after = await page.evaluate(audit);
    expect(after.snapshotAt).toBeGreaterThan(before.snapshotAt as number);
    await page.context().close();
  });

  it('shows the board as it was yesterday 21:30, picked with the form', async () => {
    const { page } = await visit('/', 'desktop', 'home-pick');
    await page.locator('#tm-at').fill(`${addDays(demo.day, -1)}T21:30`);
    await page.locator('.tm button[type=submit]').click();
    await page.waitForURL(/at=/);
    const seen = await page.evaluate(audit);
    expect(seen.snapshotAt).toBe(Date.parse(`${addDays(demo.day, -1)}T21:30:00+08:00`));
    expect(await page.locator('article.card .more', { hasText: '快照' }).count()).toBeGreaterThan(5);
    await page.screenshot({ path: path.join(ARTIFACTS, 'browse-home-yesterday-desktop.png'), fullPage: true });
    await page.context().close();
  });

  for (const viewport of ['desktop', 'phone'] as const) {
    it(`shows a list at a past moment with marks, and follows previous / next (${viewport})`, async () => {
      const at = `${demo.day}T10:30`;
      const url = `/v2/apis/hot-microblog?encoding=html&at=${at}`;
      const { page, seen } = await visit(url, viewport, 'list-past');
      expectAccessible(seen, url);
      expect(seen.h1).toEqual(['微博热搜']);
      expect(seen.snapshotAt).toBe(Date.parse(`${demo.day}T10:00:00+08:00`));
      expect(await page.locator('thead th').allTextContents()).toEqual(['#', '标题', '热度']);
      expect(await page.locator('td.n .up, td.n .down, td.n .new').count()).toBeGreaterThan(0);
      expect(await page.locator('footer').textContent()).toMatch(/存档快照$/);
      await page.locator('.tm a[rel=prev]').click();
      const previous = await page.evaluate(audit);
      expect(previous.snapshotAt).toBeLessThan(seen.snapshotAt as number);
      expect(page.url()).toContain('encoding=html');
      await page.locator('.tm a[rel=next]').click();
      expect((await page.evaluate(audit)).snapshotAt).toBe(seen.snapshotAt);
      await page.locator('.tm a[rel=next]').click();
      expect((await page.evaluate(audit)).snapshotAt).toBeGreaterThan(seen.snapshotAt as number);
      // An item's chart is one link away.
      const chart = page.locator('a.tl').first();
      expect(await chart.getAttribute('href')).toMatch(/^\/v2\/apis\/timeline\?q=.+&source=hot-microblog&encoding=html$/);
      await page.context().close();
    });
  }

  for (const viewport of ['desktop', 'phone'] as const) {
    it(`draws an item's timeline with axes, points and one line per list (${viewport})`, async () => {
      const url = `/v2/apis/timeline?q=${encodeURIComponent('新能源车')}&encoding=html`;
      const { page, seen } = await visit(url, viewport, 'timeline');
      expectAccessible(seen, url);
      const svg = page.locator('figure.chart svg');
      expect(await svg.getAttribute('aria-label')).toMatch(/名次走势/);
      expect(await svg.locator('text.label').allTextContents()).toEqual([expect.stringMatching(/^时间（北京时间/), '名次']);
      expect(await svg.locator('text.tick').first().textContent()).toBe('1');
      expect(await svg.locator('polyline').count()).toBeGreaterThanOrEqual(2);
      expect(await svg.locator('circle').count()).toBeGreaterThanOrEqual(4);
      expect(await page.locator('.legend li').count()).toBeGreaterThanOrEqual(2);
      const box = await svg.boundingBox();
      expect(box!.width).toBeLessThanOrEqual(VIEWPORTS[viewport].width);
      // Tick labels stay readable on a phone: at least 11 px tall glyphs.
      const tick = await svg.locator('text.tick').first().boundingBox();
      expect(tick!.height).toBeGreaterThanOrEqual(11);
      await page.context().close();
    });
  }

  for (const viewport of ['desktop', 'phone'] as const) {
    it(`draws the box office as bars (${viewport})`, async () => {
      const url = '/v2/apis/boxoffice-a/realtime/movie?encoding=html';
      const { page, seen } = await visit(url, viewport, 'boxoffice');
      expectAccessible(seen, url);
      const bars = page.locator('figure.chart rect.bar');
      expect(await bars.count()).toBeGreaterThanOrEqual(3);
      const widths = await bars.evaluateAll((rects) => rects.map((r) => r.getBoundingClientRect().width));
      expect(widths).toEqual([...widths].sort((a, b) => b - a));
      await page.context().close();
    });
  }

  for (const viewport of ['desktop', 'phone'] as const) {
    it(`charts how each trending event spread across platforms (${viewport})`, async () => {
      const url = '/v2/apis/trending?encoding=html';
      const { page, seen } = await visit(url, viewport, 'trending');
      expectAccessible(seen, url);
      const charts = page.locator('tr.spread-row figure.chart.spread svg');
      expect(await charts.count()).toBeGreaterThan(1);
      const first = charts.first();
      expect(await first.getAttribute('aria-label')).toMatch(/个平台的扩散/);
      expect(await first.locator('text.label').textContent()).toMatch(/^首次上榜时间（北京时间/);
      const box = await first.boundingBox();
      expect(box!.width).toBeLessThanOrEqual(VIEWPORTS[viewport].width);
      // Platform names stay readable on a phone: at least 11 px tall glyphs.
      const label = await first.locator('text.tick').first().boundingBox();
      expect(label!.height).toBeGreaterThanOrEqual(11);
      await page.context().close();
    });
  }

  it('searches titles with JavaScript off: the form leads to the timeline', async () => {
    const { page } = await visit('/', 'phone', 'search', { javaScript: false });
    await page.locator('#q').fill('新能源车');
    await page.locator('form[role=search] button').click();
    await page.waitForURL(/\/v2\/apis\/timeline\?/);
    expect(await page.locator('h1').textContent()).toContain('新能源车');
    expect(await page.locator('figure.chart svg').count()).toBe(1);
    await page.context().close();
  });
});
