/**
 * GET /status as HTML: every source's state, data age, last error (escaped), next run, the bars
 * of recent fetches from store.recentRuns, and the gateway's request and error counts.
 * (The page in a real browser, phone-sized too: browser.test.ts.)
 */
import * as cheerio from 'cheerio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceError } from '../../src/kernel/errors.ts';
import { defineSource, type AnySource } from '../../src/kernel/source.ts';
import { formatAge, sparkline } from '../../src/web/status-page.ts';
import { TestClock } from '../support/clock.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';
import { eventually } from './support.ts';

const HOST = 'status.example.test';

function listSource(id: string, ttlSec: number): AnySource {
  return defineSource({
    id,
    name: `List ${id}`,
    description: 'A list fetched from a local upstream for the status page test.',
    routes: [{ path: `/${id}` }],
    mode: 'scheduled',
    schedule: '*/5 * * * *',
    freshness: { ttlSec, timeoutMs: 1_000 },
    async fetch(ctx) {
      const raw = (await ctx.http.json(`https://${HOST}/${id}`, { signal: ctx.signal })) as { items?: string[] };
      if (!Array.isArray(raw.items)) throw new SourceError('parse', `unexpected <script>alert("${id}")</script> instead of items`);
      return { items: raw.items };
    },
    validate: (d) => (d.items.length ? undefined : 'empty'),
    view: { rows: (d: { items: string[] }) => d.items.map((title: string) => ({ title })) },
    example: `/v2/apis/${id}`,
  }) as AnySource;
}

const local = defineSource({
  id: 'ops-local',
  name: 'Local <b>calc</b>',
  description: 'Computed in-process for the status page test.',
  routes: [{ path: '/ops-local' }],
  mode: 'local',
  compute: () => ({ ok: true }),
  view: {},
  example: '/v2/apis/ops-local',
}) as AnySource;

describe('/status', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;
  let $: cheerio.CheerioAPI;

  beforeAll(async () => {
    await upstream.start();
    upstream.serve(HOST, '/ops-good', { body: { items: ['a', 'b'] } });
    upstream.serve(HOST, '/ops-stale', { body: { items: ['c'] } });
    upstream.serve(HOST, '/ops-bad', { body: { nothing: true } });
    svc = await startService({ upstream, now: clock.now, sources: [listSource('ops-good', 3600), listSource('ops-stale', 60), listSource('ops-bad', 600), local], env: { FORCE_UPDATE_INTERVAL_SEC: '0' } });
    expect((await svc.get('/v2/apis/ops-good')).status).toBe(200);
    clock.advance(1_000);
    expect((await svc.get('/v2/apis/ops-good?force-update')).status).toBe(200);
    expect((await svc.get('/v2/apis/ops-stale')).status).toBe(200);
    expect((await svc.get('/v2/apis/ops-bad')).status).toBe(503);
    for (let i = 0; i < 3; i++) await (await svc.get('/v1/models')).text();
    clock.advance(150_000);
    await eventually(async () => {
      const html = await (await svc.get('/status')).text();
      $ = cheerio.load(html);
      expect($('#gateway-requests').text()).toBe('3');
    });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('is an HTML page made for phones too', async () => {
    const res = await svc.get('/status');
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect($('meta[name=viewport]').attr('content')).toContain('width=device-width');
    expect($('style').text()).toMatch(/@media \(max-width:\d+px\)/);
  });

  it('shows each source with its state, data age, next run and last error', () => {
    const card = (id: string) => $(`#source-${id}`);
    expect(card('ops-good').attr('data-state')).toBe('fresh');
    expect(card('ops-stale').attr('data-state')).toBe('stale');
    expect(card('ops-bad').attr('data-state')).toBe('down');
    expect(card('ops-local').attr('data-state')).toBe('local');
    expect(card('ops-local').closest('#local-sources')).toHaveLength(1);
    expect(card('ops-good').find('.badge').text()).toBe('fresh');
    expect(card('ops-good').find('dd').first().text()).toMatch(/^2 min \(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\)$/);
    expect(card('ops-bad').find('dt').map((_, el) => $(el).text()).get()).toEqual(['Data age', 'Next run', 'Failures']);
    expect(card('ops-bad').find('dd').eq(1).text()).toMatch(/^retry \d{4}-/);
    // Problems first.
    expect($('.card').first().attr('id')).toBe('source-ops-bad');
    expect($('.summary').text()).toMatch(/1\s*down.*1\s*stale.*1\s*fresh.*1\s*local/s);
  });

  it('escapes every value (the error text and the names come from outside)', async () => {
    const html = await (await svc.get('/status')).text();
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('parse: unexpected &lt;script&gt;alert(&quot;ops-bad&quot;)&lt;/script&gt; instead of items');
    expect(html).toContain('Local &lt;b&gt;calc&lt;/b&gt;');
    expect($('#source-ops-bad .error').text()).toBe('parse: unexpected <script>alert("ops-bad")</script> instead of items');
  });

  it('draws one bar per recent fetch, coloured by outcome, with the outcome and latency in its title', () => {
    const good = $('#source-ops-good svg.spark rect');
    expect(good).toHaveLength(2);
    expect(good.map((_, el) => $(el).attr('class')).get()).toEqual(['run-ok', 'run-unchanged']);
    expect(good.first().find('title').text()).toMatch(/ · ok · \d+ ms$/);
    expect($('#source-ops-bad svg.spark rect').attr('class')).toBe('run-failed');
    expect($('#source-ops-bad .runs').text()).toMatch(/1 recent fetch · 0 ok · 1 failed · median \d+ ms/);
    expect($('#source-ops-local svg')).toHaveLength(0);
  });

  it('shows the gateway request and error counts', () => {
    expect($('#gateway-requests').text()).toBe('3');
    expect($('#gateway-errors').text()).toBe('3');
  });
});

describe('status page helpers', () => {
  it('formats ages', () => {
    expect(formatAge(5)).toBe('5 s');
    expect(formatAge(125)).toBe('2 min');
    expect(formatAge(3 * 3600 + 600)).toBe('3 h 10 min');
    expect(formatAge(3 * 86_400)).toBe('3 d');
  });

  it('scales bars by latency on a log scale, oldest first', () => {
    const svg = sparkline([
      { sourceId: 's', paramsKey: '', startedAt: 2, ms: 10_000, outcome: 'failed', error: 'transient: <timeout>' },
      { sourceId: 's', paramsKey: '', startedAt: 1, ms: 10, outcome: 'ok' },
    ]);
    const $s = cheerio.load(svg);
    const heights = $s('rect').map((_, el) => Number($s(el).attr('height'))).get();
    expect(heights[0]).toBeLessThan(heights[1]!);
    expect($s('rect').last().attr('class')).toBe('run-failed');
    expect(svg).toContain('transient: &lt;timeout&gt;');
    expect(sparkline([])).toContain('No fetch recorded yet');
  });
});
