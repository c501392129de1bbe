/**
 * GET / on the demo's data, without a browser: API clients keep the JSON index and browsers get
 * the board (negotiated on Accept, `Vary: Accept`); the board is rendered once per state of the
 * lists (same ETag, 304 on a match); `at` is checked like every list route's (a 400 naming it);
 * a moment before any snapshot shows empty cards rather than failing; every archived list of the
 * catalogue has its card; list pages carry the time machine and their marks.
 */
import * as cheerio from 'cheerio';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/kernel/time.ts';
import type { Timeline } from '../../sources/timeline.ts';
import { boardLists } from '../../src/web/board.ts';
import { spreadQuery } from '../../src/web/home.ts';
import { demoForSuite } from '../support/demo-suite.ts';

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

describe('GET / (the board)', () => {
  const demo = demoForSuite();
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${demo().base}${path}`, { headers });

  it('answers API clients with the JSON index and browsers with the page', async () => {
    for (const accept of [undefined, '*/*', 'application/json']) {
      const res = await get('/', accept ? { accept } : {});
      expect(res.headers.get('content-type'), String(accept)).toMatch(/^application\/json/);
      expect(((await res.json()) as { data: { catalogue: string } }).data.catalogue).toBe('/v2/apis');
      expect(res.headers.get('vary')).toMatch(/Accept/);
    }
    const page = await get('/', HTML);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('vary')).toMatch(/Accept/);
    expect(await page.text()).toContain('<h1>全部榜单一览</h1>');
  });

  it('keeps the rendering while the lists are unchanged: the same ETag, 304 on a match', async () => {
    const first = await get('/', HTML);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"home-[0-9a-f]{20}"$/);
    await first.arrayBuffer();
    await new Promise((r) => setTimeout(r, 1100)); // past the second the current board is kept
    const again = await get('/', { ...HTML, 'if-none-match': etag as string, 'cache-control': 'max-age=0' });
    expect(again.status).toBe(304);
  });

  it('has a card for every archived list of the catalogue, grouped by category', async () => {
    const $ = cheerio.load(await (await get('/', HTML)).text());
    const lists = boardLists(demo().service.registry, demo().service.engine);
    expect($('article.card').length).toBe(lists.length);
    for (const l of lists) {
      expect($(`article.card h3 a[href="${l.href}"]`).length, l.href).toBe(1);
      expect((await get(l.href)).status, l.href).toBe(200);
    }
    expect($('section > h2').map((_, h) => $(h).text()).get()).toEqual(expect.arrayContaining(['全网热点', expect.stringMatching(/^热榜与排行（\d+）$/)]));
  });

  it('checks at: malformed or future is a 400 naming it; before any snapshot the cards say so', async () => {
    for (const bad of ['yesterday', '2026-13-01T10:00', `${addDays(demo().day, 2)}T10:00`]) {
      const res = await get(`/?at=${encodeURIComponent(bad)}`, HTML);
      expect(res.status, bad).toBe(400);
      expect(await res.text(), bad).toMatch(/Invalid parameter &quot;at&quot;/);
    }
    const early = await get(`/?at=${addDays(demo().day, -5)}T10:00`, HTML);
    expect(early.status).toBe(200);
    const $ = cheerio.load(await early.text());
    expect($('article.card p.s').first().text()).toBe('这一时刻之前没有存档');
    expect($('#trending').parent().text()).toContain('这一时刻之前还没有存档的榜单');
  });

  it('shows trending as it stood at a past moment: the events trending?at= answers, not the current ones', async () => {
    const at = Date.parse(`${demo().day}T08:30:00+08:00`);
    const titles = (html: string) => cheerio.load(html)('.events li > a:first-child').map((_, a) => cheerio.load(a).text()).get();
    const past = cheerio.load(await (await get(`/?at=${at}`, HTML)).text());
    const shown = past('.events li > a:first-child').map((_, a) => past(a).text()).get();
    const then = (await (await get(`/v2/apis/trending?limit=10&at=${at}`)).json()) as { data: { events: { title: string }[]; snapshot_at: number } };
    expect(then.data.snapshot_at).toBe(at);
    expect(shown).toEqual(then.data.events.map((e) => e.title));
    const current = titles(await (await get('/', HTML)).text());
    expect(current.length).toBeGreaterThan(0);
    expect(shown).not.toEqual(current);
    expect(past('#trending').parent().find('p.s a[href*="/v2/apis/trending"]').attr('href')).toBe(`/v2/apis/trending?encoding=html&at=${at}`);
    // Each cross-platform event links to its spread chart on the trending page of that moment.
    const spread = past('.events li a.tl').first().attr('href') as string;
    expect(spread).toMatch(new RegExp(`^/v2/apis/trending\\?encoding=html&at=${at}#event-[0-9a-f]{12}$`));
    const [pagePath, anchor] = spread.split('#') as [string, string];
    expect(cheerio.load(await (await get(pagePath)).text())(`tr#${anchor} + tr.spread-row svg`).length).toBe(1);
  });

  it("links each trending event to the chart of its spread: a timeline that finds it on every platform", async () => {
    const $ = cheerio.load(await (await get('/', HTML)).text());
    const first = $('.events li').first();
    const trending = (await (await get('/v2/apis/trending')).json()) as { data: { events: { platform_count: number }[] } };
    expect(first.find('.p').text()).toMatch(new RegExp(`^${trending.data.events[0]!.platform_count} 个平台`));
    expect(trending.data.events[0]!.platform_count).toBeGreaterThanOrEqual(2); // a cross-platform event leads
    const href = first.find('a').attr('href') as string;
    expect(href).toMatch(/^\/v2\/apis\/timeline\?q=.+&encoding=html$/);
    const json = (await (await get(href.replace('&encoding=html', ''))).json()) as { data: Timeline };
    expect(new Set(json.data.items.map((i) => i.source)).size).toBeGreaterThanOrEqual(2);
  });

  it('gives list pages the time machine: the snapshot shown, previous / next, marks and the entries that left', async () => {
    const at = Date.parse(`${demo().day}T10:30:00+08:00`);
    const $ = cheerio.load(await (await get(`/v2/apis/hot-microblog?encoding=html&at=${at}`)).text());
    expect($('.tm .at').attr('data-at')).toBe(String(Date.parse(`${demo().day}T10:00:00+08:00`)));
    const prev = $('.tm a[rel=prev]').attr('href');
    const next = $('.tm a[rel=next]').attr('href');
    expect(prev).toBe(`/v2/apis/hot-microblog?encoding=html&at=${Date.parse(`${addDays(demo().day, -1)}T21:00:00+08:00`)}`);
    expect(next).toBe(`/v2/apis/hot-microblog?encoding=html&at=${Date.parse(`${demo().day}T12:00:00+08:00`)}`);
    expect($('form[action="/v2/apis/hot-microblog"] input[type=hidden][name=encoding]').val()).toBe('html');
    expect($('td.n .new, td.n .up, td.n .down').length).toBeGreaterThan(0);
    // The current page: no next snapshot, and the link back to now is not needed.
    const now = cheerio.load(await (await get('/v2/apis/hot-microblog?encoding=html')).text());
    expect(now('.tm a[rel=next]').length).toBe(0);
    expect(now('.tm').text()).toContain('最新');
    expect(now('a.tl').length).toBeGreaterThan(0);
  });

  it('links titles to a timeline only where the item index keeps the list (not the lines of a digest)', async () => {
    const days = cheerio.load(await (await get('/v2/apis/today-in-history?encoding=html')).text());
    expect(days('.tm .at').length).toBe(1);
    expect(days('tbody tr').length).toBeGreaterThan(0);
    expect(days('a.tl').length).toBe(0);
  });
});

describe('spreadQuery', () => {
  it('is the longest text every platform title contains, by the item index\'s comparison', () => {
    expect(spreadQuery('国产大飞机开通新国际航线', ['国产大飞机开通新国际航线', '#国产大飞机新航线开通#'])).toBe('国产大飞机');
    expect(spreadQuery('A', ['Apple Vision Pro 发售', 'apple vision pro 首发评测'])).toBe('applevisionpro');
  });
  it('prefers the text most platforms share when no text is on all of them', () => {
    expect(spreadQuery('黔西游船侧翻事故最新', ['贵州游船倾覆事故致9死1失联', '黔西游船侧翻事故最新', '贵州游船倾覆 70人在院'])).toBe('贵州游船倾覆');
  });
  it("falls back to the event's title when the common part is too short or there is one title", () => {
    expect(spreadQuery('冬日穿搭灵感合集', ['冬日穿搭灵感合集'])).toBe('冬日穿搭灵感合集');
    expect(spreadQuery('新能源车冬季续航实测', ['新能源车冬季续航实测', '电池低温表现'])).toBe('新能源车冬季续航实测');
  });
});
