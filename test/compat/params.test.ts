/**
 * 60s's query parameters (issue 13): a request written for 60s, with its parameter names and the
 * value forms its modules accept (src/modules/*.module.ts: days as YYYY/M/D or YYYYMMDD, Unix
 * timestamps for lunar, month-day for today-in-history, `?ip=`, `?all`, booleans as true/false
 * or 1/0), sent to 60s's path, gives the same `data` as our request with our names and forms.
 * Where 60s answers another encoding by default (qrcode: an image; changya: JSON), its path does
 * too. Upstreams are the local fixtures of test/fixtures/upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../sources/index.ts';
import { formatDate } from '../../src/kernel/time.ts';
import { TestClock } from '../support/clock.ts';
import { startService, type TestService } from '../support/service.ts';
import { serveSharedEndpointUpstreams } from './upstreams.ts';
import { Upstream } from '../support/upstream.ts';

const clock = new TestClock();
const q = encodeURIComponent;

interface Case {
  /** The request as a 60s client writes it (60s's path, names and value forms). */
  sixty: string;
  /** Ours, with our names and canonical values. */
  ours: string;
  headers?: Record<string, string>;
  /** For answers that differ on every call (random picks): the part of `data` that must agree. */
  pick?: (data: Record<string, unknown>) => unknown;
}

const CASES: Case[] = [
  { sixty: '/v2/60s?date=2026/11/20', ours: '/v2/apis/60s?date=2026-11-20' },
  { sixty: '/v2/60s?date=20261120', ours: '/v2/apis/60s?date=2026-11-20' },
  { sixty: '/v2/today-in-history?date=11-21', ours: `/v2/apis/today-in-history?date=${formatDate(clock.now()).slice(0, 4)}-11-21` },
  { sixty: '/v2/today_in_history?date=2026/11/21', ours: '/v2/apis/today-in-history?date=2026-11-21' },
  { sixty: '/v2/ai-news?all', ours: '/v2/apis/ai-news?all=1' },
  { sixty: '/v2/exchange-rate?currency=USD', ours: '/v2/apis/exchange-rate?currency=USD' },
  { sixty: '/v2/hacker-news/top?limit=5', ours: '/v2/apis/tech-forum/top?limit=5' },
  // 60s's `size` only cuts its text and markdown renderings: the JSON is the whole chart either way.
  { sixty: '/v2/ncm-rank/3778678?size=10', ours: '/v2/apis/music-rank/3778678' },
  { sixty: `/v2/weather/realtime?query=${q('北京')}`, ours: `/v2/apis/weather?query=${q('北京')}` },
  { sixty: `/v2/weather/forecast?query=${q('北京')}&days=3`, ours: `/v2/apis/weather/forecast?query=${q('北京')}&days=3` },
  { sixty: `/v2/fanyi?text=${q('你好')}&from=auto&to=en`, ours: `/v2/apis/fanyi?text=${q('你好')}&to=en` },
  { sixty: `/v2/baike?word=${q('长城')}`, ours: `/v2/apis/baike?word=${q('长城')}` },
  { sixty: '/v2/whois?domain=lanting-books.com', ours: '/v2/apis/whois?domain=lanting-books.com' },
  { sixty: '/v2/og?url=github.com', ours: '/v2/apis/og?url=github.com' },
  { sixty: '/v2/ip?ip=114.114.114.114', ours: '/v2/apis/ip', headers: { 'x-forwarded-for': '114.114.114.114' } },
  { sixty: `/v2/lyric?query=${q('晚风里的灯')}&clean=false`, ours: `/v2/apis/lyric?query=${q('晚风里的灯')}&clean=0` },
  { sixty: `/v2/fuel-price?region=${q('广东')}`, ours: `/v2/apis/fuel-price?region=${q('广东')}` },
  { sixty: '/v2/olympics?id=paris-2024', ours: '/v2/apis/olympics?id=paris-2024' },
  { sixty: `/v2/hash?content=${q('你好')}`, ours: `/v2/apis/hash?content=${q('你好')}` },
  { sixty: '/v2/health?height=172.5&weight=63.4&gender=female&age=30', ours: '/v2/apis/health?age=30&gender=female&height=172.50&weight=63.4' },
  {
    sixty: '/v2/password?length=20&numbers=false&symbols=true&lowercase=1&uppercase=0&exclude_similar=false&exclude_ambiguous=true',
    ours: '/v2/apis/password?length=20&numbers=0&symbols=1&lowercase=true&uppercase=false&exclude_similar=0&exclude_ambiguous=1',
    pick: (d) => ({ length: d.length, config: d.config, used_sets: (d.character_sets as Record<string, unknown>).used_sets }),
  },
  { sixty: '/v2/password/check?password=Tr0ub4dor%263', ours: '/v2/apis/password/check?password=Tr0ub4dor%263' },
  { sixty: '/v2/color?color=%23FF5733', ours: '/v2/apis/color/random?color=FF5733' },
  { sixty: '/v2/color/palette?color=3366cc', ours: '/v2/apis/color/palette?color=3366CC' },
  { sixty: '/v2/moyu?date=2026/5/2', ours: '/v2/apis/moyu?date=2026-05-02' },
  // 60s's lunar takes Unix timestamps in seconds and ms: 2026-05-02 12:00 Asia/Shanghai.
  { sixty: '/v2/lunar?date=1777694400', ours: '/v2/apis/lunar?date=2026-05-02' },
  { sixty: '/v2/lunar?date=1777694400000', ours: '/v2/apis/lunar?date=2026-05-02' },
  { sixty: '/v2/hitokoto?id=3', ours: '/v2/apis/one-liner?id=3' },
  { sixty: '/v2/luck?id=3', ours: '/v2/apis/luck?id=3' },
  { sixty: '/v2/duanzi?id=3', ours: '/v2/apis/duanzi?id=3' },
  { sixty: '/v2/dad-joke?id=3', ours: '/v2/apis/dad-joke?id=3' },
  { sixty: `/v2/fabing?name=${q('小明')}&id=3`, ours: `/v2/apis/fabing?id=3&name=${q('小明')}` },
  { sixty: '/v2/answer?id=3', ours: '/v2/apis/answer?id=3' },
  { sixty: '/v2/awesome-js?id=3', ours: '/v2/apis/awesome-js?id=3' },
  // No encoding named: 60s answers JSON here, where our own path answers the audio.
  { sixty: '/v2/changya', ours: '/v2/apis/changya?encoding=json', pick: (d) => Object.keys(d).sort() },
];

describe("60s's query parameters at 60s's paths", () => {
  const upstream = new Upstream();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    serveSharedEndpointUpstreams(upstream);
    svc = await startService({
      upstream,
      sources,
      now: clock.now,
      env: { TRUST_PROXY: 'true', AI_UPSTREAM_BASE_URL: 'https://ai-gateway.test/', AI_UPSTREAM_API_KEY: 'sk-test' },
    });
    // These answer from 60s's dataset once fetched: fetch it first, so both paths pick from the same corpus.
    for (const id of ['answer', 'duanzi', 'dad-joke', 'fabing', 'awesome-js']) {
      const feed = svc.engine.feedSource(svc.registry.byId.get(id)!);
      if (feed) await svc.engine.run(feed, {}, '');
    }
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  async function data(url: string, headers?: Record<string, string>): Promise<Record<string, unknown>> {
    const res = await svc.get(url, headers ? { headers } : undefined);
    const body = (await res.json()) as { message: string; data: Record<string, unknown> };
    expect(res.status, `${url}: ${body.message}`).toBe(200);
    return body.data;
  }

  for (const c of CASES) {
    it(`${c.sixty} = ${c.ours}`, async () => {
      const ours = await data(c.ours, c.headers);
      const theirs = await data(c.sixty);
      expect(c.pick ? c.pick(theirs) : theirs).toEqual(c.pick ? c.pick(ours) : ours);
    });
  }

  it('/v2/qrcode answers the image when no encoding is named, as 60s does; our own path keeps JSON', async () => {
    const image = await svc.get('/v2/qrcode?text=hello&size=200&level=h');
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toMatch(/^image\//);
    const ours = await svc.get('/v2/apis/qrcode?text=hello&size=200&level=H&encoding=image');
    expect(Buffer.from(await image.arrayBuffer()).equals(Buffer.from(await ours.arrayBuffer()))).toBe(true);
    expect((await svc.get('/v2/apis/qrcode?text=hello')).headers.get('content-type')).toMatch(/json/);
    const json = await svc.get('/v2/qrcode?text=hello&encoding=json');
    expect(json.headers.get('content-type')).toMatch(/json/);
  });

  it('a value 60s would also refuse is a 400 naming the parameter as written', async () => {
    for (const [url, name] of [
      ['/v2/60s?date=2026-02-30', 'date'],
      ['/v2/lunar?date=yesterday', 'date'],
      ['/v2/ip?ip=not-an-address', 'ip'],
      ['/v2/ip?ip=999.1.1.1', 'ip'],
      ['/v2/health?height=175&weight=70&gender=x&age=30', 'gender'],
      ['/v2/health?height=1.7m&weight=70&gender=male&age=30', 'height'],
    ] as const) {
      const res = await svc.get(url);
      const body = (await res.json()) as { message: string };
      expect(res.status, url).toBe(400);
      expect(body.message, url).toContain(`"${name}"`);
    }
  });
});
