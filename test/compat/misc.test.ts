/**
 * Conformance with vikiboss/60s for the endpoints we share that are not lists (issue 13): each
 * answer's `data` must have 60s's container and every 60s field with its type. The layouts below
 * are written in our own words from the types of 60s's modules (src/modules/*.module.ts); our
 * richer fields are allowed beside them. Upstreams are the local fixtures of test/fixtures/upstream.
 */
import Parser from 'rss-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../sources/index.ts';
import { TestClock } from '../support/clock.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';
import { serveSharedEndpointUpstreams } from './upstreams.ts';
import { layoutMismatches, type Layout } from './layout.ts';
import { DIGEST, TODAY_IN_HISTORY, EXCHANGE_RATE, BING, WEATHER_NOW, WEATHER_FORECAST, LUNAR, IP, COLOR, PALETTE, SIDE, GOLD, FUEL, HEALTH, MOYU, OLYMPICS, PASSWORD, PASSWORD_CHECK, WHOIS, LYRIC, CHANGYA, BAIKE, OG } from './sixty-layouts.ts';

// ---- one case per shared endpoint ----------------------------------------------------------------

interface Case {
  /** 60s's path. */
  sixty: string;
  /** Our request. */
  path: string;
  layout: Layout;
  headers?: Record<string, string>;
}

const CASES: Case[] = [
  { sixty: '/v2/60s', path: '/v2/apis/60s?date=2026-11-20', layout: DIGEST },
  { sixty: '/v2/today-in-history', path: '/v2/apis/today-in-history?date=2026-11-21', layout: TODAY_IN_HISTORY },
  { sixty: '/v2/exchange-rate', path: '/v2/apis/exchange-rate', layout: EXCHANGE_RATE },
  { sixty: '/v2/bing', path: '/v2/apis/wallpaper-daily', layout: BING },
  { sixty: '/v2/hitokoto', path: '/v2/apis/one-liner?id=0', layout: { index: 'number', hitokoto: 'string' } },
  { sixty: '/v2/weather/realtime', path: '/v2/apis/weather?query=%E5%8C%97%E4%BA%AC', layout: WEATHER_NOW },
  { sixty: '/v2/weather/forecast', path: '/v2/apis/weather/forecast?query=%E5%8C%97%E4%BA%AC', layout: WEATHER_FORECAST },
  { sixty: '/v2/lunar', path: '/v2/apis/lunar', layout: LUNAR },
  { sixty: '/v2/ip', path: '/v2/apis/ip', layout: IP, headers: { 'x-forwarded-for': '114.114.114.114' } },
  { sixty: '/v2/answer', path: '/v2/apis/answer?id=0', layout: { id: 'string', answer: 'string', answer_en: 'string', index: 'number' } },
  { sixty: '/v2/baike', path: '/v2/apis/baike?word=%E9%95%BF%E5%9F%8E', layout: BAIKE },
  { sixty: '/v2/changya', path: '/v2/apis/changya?encoding=json', layout: CHANGYA },
  { sixty: '/v2/color/random', path: '/v2/apis/color/random?color=FF5733', layout: COLOR },
  { sixty: '/v2/color/palette', path: '/v2/apis/color/palette?color=FF5733', layout: PALETTE },
  { sixty: '/v2/dad-joke', path: '/v2/apis/dad-joke?id=0', layout: { index: 'number', content: 'string' } },
  { sixty: '/v2/duanzi', path: '/v2/apis/duanzi?id=0', layout: { index: 'number', duanzi: 'string' } },
  { sixty: '/v2/fabing', path: '/v2/apis/fabing?id=0', layout: { index: 'number', saying: 'string' } },
  { sixty: '/v2/fanyi', path: '/v2/apis/fanyi?text=%E4%BD%A0%E5%A5%BD', layout: { source: SIDE, target: SIDE } },
  { sixty: '/v2/fanyi/langs', path: '/v2/apis/fanyi/langs', layout: [{ label: 'string', code: 'string', alphabet: 'string' }] },
  { sixty: '/v2/fuel-price', path: '/v2/apis/fuel-price?region=%E5%B9%BF%E4%B8%9C', layout: FUEL },
  { sixty: '/v2/gold-price', path: '/v2/apis/gold-price', layout: GOLD },
  { sixty: '/v2/health', path: '/v2/apis/health?height=175&weight=70&age=30&gender=male', layout: HEALTH },
  { sixty: '/v2/luck', path: '/v2/apis/luck?id=0', layout: { luck_desc: 'string', luck_rank: 'number', luck_tip: 'string', luck_tip_index: 'number' } },
  { sixty: '/v2/lyric', path: `/v2/apis/lyric?query=${encodeURIComponent('晚风里的灯')}`, layout: LYRIC },
  { sixty: '/v2/moyu', path: '/v2/apis/moyu?date=2026-05-02', layout: MOYU },
  { sixty: '/v2/og', path: '/v2/apis/og?url=github.com', layout: OG },
  { sixty: '/v2/olympics', path: '/v2/apis/olympics', layout: OLYMPICS },
  { sixty: '/v2/olympics/events', path: '/v2/apis/olympics/events', layout: [{ season: 'string', url: 'string', imageurl: 'string', slug: 'string', title: 'string', year: 'string' }] },
  { sixty: '/v2/password', path: '/v2/apis/password', layout: PASSWORD },
  { sixty: '/v2/password/check', path: '/v2/apis/password/check?password=Tr0ub4dor%263', layout: PASSWORD_CHECK },
  { sixty: '/v2/whois', path: '/v2/apis/whois?domain=lanting-books.com', layout: WHOIS },
  {
    sixty: '/v2/awesome-js',
    path: '/v2/apis/awesome-js?id=1',
    layout: { id: 'number', question: 'string', 'code?': 'string', options: ['string'], answer: 'string', explanation: 'string' },
  },
  { sixty: '/v2/kfc', path: '/v2/apis/fast-food-copy?id=0', layout: { index: 'number', kfc: 'string' } },
];

// ---- the service, on local upstreams --------------------------------------------------------------

describe('60s shapes of the shared non-list endpoints', () => {
  const upstream = new Upstream();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    serveSharedEndpointUpstreams(upstream);
    svc = await startService({
      upstream,
      sources,
      now: new TestClock().now,
      env: { TRUST_PROXY: 'true', AI_UPSTREAM_BASE_URL: 'https://ai-gateway.test/', AI_UPSTREAM_API_KEY: 'sk-test' },
    });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  for (const c of CASES) {
    it(`${c.sixty} ← ${c.path.split('?')[0]}`, async () => {
      const res = await svc.get(c.path, c.headers ? { headers: c.headers } : undefined);
      const body = (await res.json()) as { code: number; message: string; data: unknown };
      expect(res.status, body.message).toBe(200);
      expect(layoutMismatches(body.data, c.layout)).toEqual([]);
    });
  }

  it('every case is an endpoint we serve, listed once', () => {
    expect(new Set(CASES.map((c) => c.sixty)).size).toBe(CASES.length);
  });

  it('/v2/60s/rss: an RSS feed of the digest, one item per day', async () => {
    const res = await svc.get('/v2/apis/60s/rss');
    expect(res.status).toBe(200);
    const feed = await new Parser().parseString(await res.text());
    expect(feed.items.length).toBeGreaterThan(0);
    expect(feed.items[0]?.title).toMatch(/\d{4}-\d{2}-\d{2}/);
  });

  it('the checker fails on a missing 60s field or another type', async () => {
    const body = (await (await svc.get('/v2/apis/exchange-rate')).json()) as { data: Record<string, unknown> };
    const { next_updated: _dropped, ...without } = body.data;
    expect(layoutMismatches(without, EXCHANGE_RATE)).toEqual(['data.next_updated: missing']);
    expect(layoutMismatches({ ...body.data, updated_at: String(body.data.updated_at) }, EXCHANGE_RATE)).toEqual(['data.updated_at: expected number, got string']);
  });
});
