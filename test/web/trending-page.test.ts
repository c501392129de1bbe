/**
 * The trending page's spread charts, on the demo's data: every cross-platform event has a chart
 * with one row per platform, starting where the json's `platforms[].first_seen_at` says it
 * arrived there and ending at the moment shown (now, or `at`), with its rank there; events on
 * one platform have none. And the chart itself on rows whose arrival is not known.
 */
import * as cheerio from 'cheerio';
import { describe, expect, it } from 'vitest';
import { formatDateTime } from '../../src/kernel/time.ts';
import { spreadChart } from '../../src/web/charts.ts';
import type { Trending } from '../../sources/trending.ts';
import { demoForSuite } from '../support/demo-suite.ts';

describe('trending html: how each event spread', () => {
  const demo = demoForSuite();
  const get = (path: string) => fetch(`${demo().base}${path}`);

  async function both(query: string): Promise<{ data: Trending; $: cheerio.CheerioAPI }> {
    const json = (await (await get(`/v2/apis/trending?${query}`)).json()) as { data: Trending };
    const html = await (await get(`/v2/apis/trending?${query}&encoding=html`)).text();
    return { data: json.data, $: cheerio.load(html) };
  }

  for (const moment of ['now', 'a past moment'] as const) {
    it(`charts each cross-platform event from the json's first sightings (${moment})`, async () => {
      const query = moment === 'now' ? 'limit=30' : `limit=30&at=${demo().day}T08:30`;
      const { data, $ } = await both(query);
      const end = data.snapshot_at ?? data.updated_at;
      expect($('main > p.s').first().text()).toContain(formatDateTime(end).slice(0, 16));
      const spread = data.events.filter((e) => e.platforms.length > 1);
      expect(spread.length).toBeGreaterThan(1);
      for (const e of data.events) {
        const row = $(`tr#event-${e.id}`);
        expect(row.length, e.title).toBe(1);
        const chart = row.next('tr.spread-row').find('figure.chart.spread svg');
        if (e.platforms.length < 2) {
          expect(chart.length, e.title).toBe(0);
          continue;
        }
        expect(chart.attr('aria-label'), e.title).toContain(`在 ${e.platforms.length} 个平台的扩散`);
        const tips = chart.find('g > title').map((_, t) => $(t).text()).get();
        expect(tips, e.title).toEqual(e.platforms.map((p) => `${p.name} · ${p.first_seen_at === null ? '首次上榜时间不明' : `${formatDateTime(p.first_seen_at)} 首次上榜`} · 现第 ${p.rank} 名`));
        // Each platform's point sits at its arrival: later arrivals further right, the earliest at the axis start.
        const xs = chart.find('g circle').map((_, c) => Number($(c).attr('cx'))).get();
        const known = e.platforms.filter((p) => p.first_seen_at !== null).map((p) => p.first_seen_at as number);
        expect(xs.length).toBe(known.length);
        const order = (v: number[]) => v.map((_, i) => i).sort((a, b) => (v[a] as number) - (v[b] as number) || a - b);
        if (new Set(known).size === known.length) expect(order(xs)).toEqual(order(known));
        expect(Math.min(...xs)).toBe(96);
      }
      // Somewhere in the demo an event reached a second platform later than the first.
      if (moment === 'now') expect(spread.some((e) => new Set(e.platforms.map((p) => p.first_seen_at)).size > 1)).toBe(true);
    });
  }
});

describe('spreadChart', () => {
  const end = Date.parse('2026-11-20T12:00:00+08:00');
  it('draws a row per platform; an arrival not known gets its rank and no bar', () => {
    const svg = spreadChart(
      [
        { label: '微博热搜', since: end - 3 * 3_600_000, rank: 2 },
        { label: '抖音热搜', since: undefined, rank: 7 },
      ],
      end,
      'spread',
    );
    const $ = cheerio.load(svg);
    expect($('g').length).toBe(2);
    expect($('g rect').length).toBe(1);
    expect($('g').eq(1).find('title').text()).toBe('抖音热搜 · 首次上榜时间不明 · 现第 7 名');
    expect($('text.tick').map((_, t) => $(t).text()).get()).toEqual(['微博热搜', '第 2 名', '抖音热搜', '第 7 名', '09:00', '12:00']);
  });
  it('is nothing when no arrival is known', () => {
    expect(spreadChart([{ label: '微博热搜', since: undefined, rank: 1 }], end, 'spread')).toBe('');
  });
});
