import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import opentype from 'opentype.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import boxofficeA, {
  assignedObject,
  fontUrl,
  parseAllTime,
  parseRealtimeMovie,
  parseTv,
  parseWeb,
  validate,
  yuanDesc,
  type AllTimeData,
  type RealtimeMovieData,
  type TvData,
  type WebData,
} from '../../sources/boxoffice-a/index.ts';
import { decodeDigitFont, decodeDigits, entityCodePoints } from '../../sources/boxoffice-a/digit-font.ts';
import { DEFAULT_GUARD_SALT, DEFAULT_SIGN_KEY, signRequest } from '../../sources/boxoffice-a/sign.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { TestClock } from '../support/clock.ts';
import { buildDigitFont, encodeNumbers, seeded, shuffledCodePoints } from '../support/digit-font-builder.ts';
import { NO_CLIENT_LIMITS, expectKeptAfterFailure, expectStableGuids, expectUnavailable, forceRefresh, getFeed, getJson, getRenderings } from '../support/endpoint-checks.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream, type UpstreamRequest } from '../support/upstream.ts';

const HOST = 'piaofang.maoyan.com';
const FONT_HOST = 's3plus.meituan.net';
const MOVIE = '/i/api/dashboard-ajax/movie';
const TV = '/i/api/dashboard/getTVData';
const WEB = '/i/api/dashboard/webHeatData';
const ALL = '/i/globalBox/historyRank';
const file = (p: string) => fs.readFileSync(path.join(FIXTURE_DIR, HOST, p), 'utf8');
const json = (p: string) => JSON.parse(file(p)) as Record<string, unknown>;
const now = new Date('2026-11-21T02:00:00Z');
const md5 = (s: string) => createHash('md5').update(s).digest('hex');

/** Every digit glyph mapped as built (code point → digit). */
const expectedMap = (codePoints: readonly number[]) => new Map(codePoints.map((cp, d) => [cp, d]));

describe('boxoffice-a request signing', () => {
  it('signs the query with md5 over method, key and the fields, and the mygsig header over the sorted values', () => {
    const ts = 1763690400123;
    const s = signRequest('/i/api/dashboard-ajax/movie', ts, 0.4567, { signKey: DEFAULT_SIGN_KEY, salt: DEFAULT_GUARD_SALT });
    expect(s.query).toEqual({
      timeStamp: '1763690400123',
      'User-Agent': Buffer.from('Mozilla/5.0 Chrome/140.0.0.0 Safari/537.36').toString('base64'),
      index: '457',
      channelId: '40009',
      sVersion: '2',
      signKey: md5(
        `method=GET&key=${DEFAULT_SIGN_KEY}&timeStamp=1763690400123&User-Agent=${encodeURIComponent(Buffer.from('Mozilla/5.0 Chrome/140.0.0.0 Safari/537.36').toString('base64'))}&index=457&channelId=40009&sVersion=2`,
      ),
    });
    const guard = JSON.parse(s.mygsig) as { m1: string; m2: number; m3: string; ms1: string; ts: number; ts1: number };
    // Sorted case-insensitively: channelId, index, path, signKey, sVersion, timeStamp, User-Agent.
    const q = s.query;
    const joined = [q.channelId, q.index, '/i/api/dashboard-ajax/movie', q.signKey, q.sVersion, q.timeStamp, q['User-Agent']].join('_');
    expect(guard).toEqual({ m1: '0.0.3', m2: 0, m3: '0.0.67_tool', ms1: md5(`581409236#${joined}$${ts}`), ts, ts1: ts });
    expect(signRequest('/x', ts, 0, { signKey: 'K', salt: 'S' }).query.index).toBe('1');
    expect(signRequest('/x', ts, 0.9999, { signKey: 'K', salt: 'S' }).query.index).toBe('1000');
  });
});

describe('boxoffice-a digit font', () => {
  it('decodes generated fonts: shuffled private-use code points, jittered outlines, woff and otf', () => {
    for (let seed = 1; seed <= 24; seed += 1) {
      const random = seeded(seed);
      const codePoints = shuffledCodePoints(random);
      const font = buildDigitFont({ codePoints, random, format: seed % 3 === 0 ? 'otf' : 'woff' });
      expect(decodeDigitFont(font), `seed ${seed}`).toEqual(expectedMap(codePoints));
    }
  });

  const dejavu = '/usr/share/fonts/truetype/dejavu';
  const designs = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf', 'DejaVuSansCondensed.ttf', 'DejaVuSansMono.ttf', 'DejaVuSerif.ttf', 'DejaVuSans-ExtraLight.ttf'].map((f) => path.join(dejavu, f));
  const installed = designs.filter((f) => fs.existsSync(f));
  if (!installed.length) console.info(`boxoffice-a: the other-design font test is skipped, no DejaVu fonts under ${dejavu}.`);
  it.skipIf(!installed.length)('decodes fonts of other type designs (installed DejaVu digits under shuffled code points)', () => {
    installed.forEach((design, i) => {
      const random = seeded(100 + i);
      const codePoints = shuffledCodePoints(random);
      expect(decodeDigitFont(buildDigitFont({ codePoints, random, design: { file: design } })), design).toEqual(expectedMap(codePoints));
    });
  });

  it('refuses to guess: a glyph that is no digit, or no font at all, is a parse error', () => {
    const random = seeded(7);
    const codePoints = shuffledCodePoints(random);
    const upm = 1000;
    const box = new opentype.Path();
    box.moveTo(0, 0);
    box.lineTo(500, 0);
    box.lineTo(500, 700);
    box.lineTo(0, 700);
    box.close();
    const glyphs = [
      new opentype.Glyph({ name: '.notdef', unicode: 0, advanceWidth: 500, path: new opentype.Path() }),
      new opentype.Glyph({ name: 'uniE001', unicode: 0xe001, advanceWidth: 500, path: box }),
    ];
    const solid = Buffer.from(new opentype.Font({ familyName: 'x', styleName: 'Regular', unitsPerEm: upm, ascender: 800, descender: -200, glyphs }).toArrayBuffer());
    expect(() => decodeDigitFont(solid)).toThrow(/U\+E001 does not look like any digit/);
    expect(() => decodeDigitFont(Buffer.from('not a font'))).toThrow(expect.objectContaining({ kind: 'parse' }) as SourceError);
    const digits = decodeDigitFont(buildDigitFont({ codePoints, random }));
    expect(decodeDigits(`&#x${codePoints[4]!.toString(16)};&#x${codePoints[2]!.toString(16)};.&#${codePoints[9]!};`, digits)).toBe('42.9');
    expect(() => decodeDigits('&#xf8ff;', digits)).toThrow(/no digit for &#xf8ff;/);
    expect(entityCodePoints('a&#xe001;b&#57346;')).toEqual([0xe001, 0xe002]);
  });
});

describe('boxoffice-a parse', () => {
  it('reads the all-time chart from `var props`, sorted by box office, braces inside strings included', () => {
    const data = parseAllTime(file('i/globalBox/historyRank.html'), now);
    expect(data).toMatchObject({ chart: 'all-movie', chart_title: '全球电影票房总榜', total: 12, update_time_at: now.getTime(), updated_at: now.getTime() });
    expect(data.tip).toBe('注：数据来自猫眼专业版，统计口径为全球累计票房（含重映）；部分早期影片为估算值 {见说明};');
    expect(data.list[0]).toEqual({
      rank: 1,
      title: 'Avatar: The Final Frontier',
      link: 'https://piaofang.maoyan.com/movie/1001002',
      hot_value: 29237000000,
      movie_id: 1001002,
      maoyan_id: 1001002,
      movie_name: 'Avatar: The Final Frontier',
      release_year: '2009',
      box_office: 29237000000,
      box_office_desc: '292.37亿元',
    });
    expect(data.list.map((m) => m.box_office)).toEqual([...data.list.map((m) => m.box_office)].sort((a, b) => b - a));
    expect(data.list[11]?.title).toBe('星海远征');
    expect(validate(data)).toBeUndefined();
    expect(yuanDesc(9_999)).toBe('9999元');
    expect(yuanDesc(4_687_000_000)).toBe('46.87亿元');
    expect(assignedObject('<script>var props = {"a":"}\\"{","b":[1,{"c":2}]}; var x = 1;</script>', 'props')).toEqual({ a: '}"{', b: [1, { c: 2 }] });
  });

  it('tells a verification page from a changed page', () => {
    expect(() => parseAllTime('<html><title>猫眼验证中心</title><div id="yodaBox"></div></html>', now)).toThrow(expect.objectContaining({ kind: 'blocked' }) as SourceError);
    expect(() => parseAllTime('<html><body>new layout</body></html>', now)).toThrow(expect.objectContaining({ kind: 'parse' }) as SourceError);
    expect(() => parseAllTime('<script>var props = {"data":{}};</script>', now)).toThrow(/detail\.list/);
  });

  it('decodes the film dashboard numbers with the answer font', () => {
    const random = seeded(42);
    const codePoints = shuffledCodePoints(random);
    const plain = json('i/api/dashboard-ajax/movie.json');
    const encoded = encodeNumbers(plain, codePoints);
    expect(JSON.stringify(encoded)).not.toMatch(/"num":"\d/);
    expect(fontUrl(encoded)).toBe('https://s3plus.meituan.net/v1/mss_fixture/font/5c1e9a7b.woff');
    const data = parseRealtimeMovie(encoded, decodeDigitFont(buildDigitFont({ codePoints, random })), now);
    expect(data).toMatchObject({
      chart: 'realtime-movie',
      title: '今日实时',
      box_office: '15081.91',
      box_office_unit: '万',
      box_office_desc: '15081.91万',
      split_box_office: '13745.32',
      split_box_office_desc: '13745.32万',
      show_count_desc: '45.6万场',
      view_count_desc: '412.8万人次',
      update_gap_second: 3,
      source_updated_at: 1763690397000,
      source_updated: '2025-11-21 09:59:57',
      updated_at: 1763690397000,
      updated: '2025-11-21 09:59:57',
      total: 7,
    });
    expect(data.list[0]).toEqual({
      rank: 1,
      title: '雾港来信',
      link: 'https://piaofang.maoyan.com/movie/1500101',
      hot_value: 58213700,
      movie_id: 1500101,
      movie_name: '雾港来信',
      release_info: '上映3天',
      box_office: '5821.37',
      box_office_unit: '万',
      box_office_desc: '5821.37万',
      box_office_rate: '38.6%',
      split_box_office: '5301.20',
      split_box_office_unit: '万',
      split_box_office_desc: '5301.20万',
      split_box_office_rate: '38.9%',
      show_count: 142350,
      show_count_rate: '31.2%',
      avg_show_view: '21',
      avg_seat_view: '12.4%',
      sum_box_desc: '3.21亿',
      sum_split_box_desc: '2.93亿',
    });
    expect(data.list.map((m) => m.box_office)).toEqual(['5821.37', '2310.08', '1899.50', '1023.94', '876.45', '402.16', '96.03']);
    expect(data.list.map((m) => m.hot_value)).toEqual([58213700, 23100800, 18995000, 10239400, 8764500, 4021600, 960300]);
    expect(validate(data)).toBeUndefined();
    // The same answer with plain digits needs no font.
    expect(parseRealtimeMovie(plain, new Map(), now).list[6]?.box_office_desc).toBe('96.03万');
  });

  it('reads the TV and web series dashboards', () => {
    const tv = parseTv(json('i/api/dashboard/getTVData.json'), now);
    expect(tv.list[0]).toEqual({
      rank: 1,
      title: '新闻联播',
      link: 'https://piaofang.maoyan.com/dashboard',
      hot_value: 2.3412,
      programme_name: '新闻联播',
      channel_name: 'CCTV-1',
      market_rate: 2.3412,
      market_rate_desc: '2.34%',
      attention_rate: 1.2011,
      attention_rate_desc: '1.20%',
    });
    expect(tv).toMatchObject({ total: 6, update_gap_second: 120, source_updated_at: 1763690280000, updated_at: 1763690280000 });
    const web = parseWeb(json('i/api/dashboard/webHeatData.json'), now);
    expect(web.list[4]).toEqual({
      rank: 5,
      title: '南方有乔木',
      link: 'https://piaofang.maoyan.com/dashboard',
      hot_value: 5002.8,
      series_id: 1400205,
      series_name: '南方有乔木',
      release_info: '上线30天',
      platform_desc: '腾讯视频 爱奇艺',
      platform_txt: 1,
      curr_heat: 5002.8,
      curr_heat_desc: '5002.8',
      bar_value: 50.9,
    });
    expect(validate(tv)).toBeUndefined();
    expect(validate(web)).toBeUndefined();
  });

  it('reads the layout the dashboards answer since 60s v2.53.1 (movieList + nationBoxInfo, tvListAll.data, dataList) like the older one', () => {
    const movie = parseRealtimeMovie(json('i/api/dashboard-ajax/movie.v2.53.json'), new Map(), now);
    expect(movie).toEqual(parseRealtimeMovie(json('i/api/dashboard-ajax/movie.json'), new Map(), now));
    expect(movie).toMatchObject({ title: '今日实时', box_office_desc: '15081.91万', total: 7, source_updated_at: 1763690397000 });
    expect(fontUrl(json('i/api/dashboard-ajax/movie.v2.53.json'))).toBe(fontUrl(json('i/api/dashboard-ajax/movie.json')));
    const tv = parseTv(json('i/api/dashboard/getTVData.v2.53.json'), now);
    expect(tv).toEqual(parseTv(json('i/api/dashboard/getTVData.json'), now));
    expect(tv.total).toBe(6);
    const web = parseWeb(json('i/api/dashboard/webHeatData.v2.53.json'), now);
    expect(web).toEqual(parseWeb(json('i/api/dashboard/webHeatData.json'), now));
    expect(web.total).toBe(6);
    expect(validate(movie) ?? validate(tv) ?? validate(web)).toBeUndefined();
  });

  it('a changed answer is a parse error naming the JSON path it missed and what it found there', () => {
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e as SourceError;
      }
      throw new Error('no error');
    };
    const tv = err(() => parseTv({ tvListAll: { data: { rows: [] } } }, now));
    expect(tv).toMatchObject({ kind: 'parse', path: 'tvListAll.data.list' });
    expect(tv.message).toBe('missing tvListAll.data.list (the list; tvList.data.list and data.list are missing too): tvListAll.data is an object with keys rows');
    expect(err(() => parseRealtimeMovie({ movieList: 3 }, new Map(), now)).message).toMatch(/^missing movieList\.list .*: movieList is number 3$/);
    expect(err(() => parseWeb('<html>', now)).message).toBe('the answer is not a JSON object: it is the string "<html>"');
  });

  it('rejects broken copies and refusals', () => {
    const tv = parseTv(json('i/api/dashboard/getTVData.json'), now);
    expect(validate({ ...tv, list: [], total: 0 })).toMatch(/at least 3/);
    const movie = parseRealtimeMovie(json('i/api/dashboard-ajax/movie.json'), new Map(), now);
    expect(validate({ ...movie, list: movie.list.map((m, i) => (i === 1 ? { ...m, box_office_desc: '' } : m)) })).toMatch(/readable box office/);
    expect(() => parseTv({ status: false, errorMsg: '签名错误' }, now)).toThrow(expect.objectContaining({ kind: 'blocked' }) as SourceError);
    expect(() => parseWeb({ webList: { data: { rows: [] } } }, now)).toThrow(expect.objectContaining({ kind: 'parse' }) as SourceError);
    expect(() => parseRealtimeMovie(encodeNumbers(json('i/api/dashboard-ajax/movie.json'), shuffledCodePoints(seeded(1))), new Map(), now)).toThrow(/no digit for/);
  });
});

describe('boxoffice-a through the server', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;
  const fonts = new Map<string, Buffer>();
  const served: { codePoints: number[]; fontPath: string }[] = [];
  let fontSeed = 1000;

  /** Check a dashboard request's signature as the upstream would; undefined when it holds. */
  function signatureProblem(req: UpstreamRequest): string | undefined {
    const q = Object.fromEntries(req.query);
    const fields = new URLSearchParams({ method: 'GET', key: DEFAULT_SIGN_KEY, timeStamp: q.timeStamp ?? '', 'User-Agent': q['User-Agent'] ?? '', index: q.index ?? '', channelId: q.channelId ?? '', sVersion: q.sVersion ?? '' });
    if (q.signKey !== md5(fields.toString())) return 'signKey';
    const guard = JSON.parse(String(req.headers.mygsig ?? '{}')) as { ms1?: string; ts?: number };
    const values = Object.entries({ path: req.path, ...q })
      .sort(([a], [b]) => a.toLowerCase().localeCompare(b.toLowerCase()))
      .map(([, v]) => v)
      .join('_');
    if (guard.ms1 !== md5(`${DEFAULT_GUARD_SALT}#${values}$${guard.ts}`)) return 'mygsig';
    return undefined;
  }

  function signed(body: () => unknown) {
    return (req: UpstreamRequest) => {
      const problem = signatureProblem(req);
      return problem ? { status: 403, body: { status: false, errorMsg: `bad ${problem}` } } : { body: body() as object };
    };
  }

  /** The film dashboard as the upstream sends it: a fresh shuffle and font for every answer. */
  function obfuscatedMovie(): unknown {
    const random = seeded((fontSeed += 1));
    const codePoints = shuffledCodePoints(random);
    const fontPath = `/v1/mss_fixture/font/${fontSeed.toString(16)}.woff`;
    fonts.set(fontPath, buildDigitFont({ codePoints, random }));
    served.push({ codePoints, fontPath });
    const doc = encodeNumbers(json('i/api/dashboard-ajax/movie.json'), codePoints) as Record<string, unknown>;
    doc.fontStyle = `@font-face{font-family: "mtsi-font";src:url("//${FONT_HOST}${fontPath.replace('.woff', '.eot')}");src:url("//${FONT_HOST}${fontPath}");}`;
    return doc;
  }

  function serveDashboards(): void {
    upstream.serve(HOST, MOVIE, signed(obfuscatedMovie));
    upstream.serve(HOST, TV, signed(() => json('i/api/dashboard/getTVData.json')));
    upstream.serve(HOST, WEB, signed(() => json('i/api/dashboard/webHeatData.json')));
    upstream.serve(FONT_HOST, /^\/v1\/mss_fixture\/font\//, (req) => {
      const font = fonts.get(req.path);
      return font ? { headers: { 'content-type': 'font/woff' }, body: font } : { status: 404, body: 'no such font' };
    });
  }

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, sources: [boxofficeA], env: { ...NO_CLIENT_LIMITS, HTTP_TIMEOUT_MS: '1000' } });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('serves real-time film box office decoded from a per-answer font, in every encoding', async () => {
    serveDashboards();
    const { res, data } = await getJson<RealtimeMovieData>(svc, '/v2/apis/boxoffice-a/realtime/movie');
    expect(res.headers.get('x-cache')).toBe('MISS');
    expect(data.box_office_desc).toBe('15081.91万');
    expect(data.list.map((m) => m.box_office_desc)).toEqual(['5821.37万', '2310.08万', '1899.50万', '1023.94万', '876.45万', '402.16万', '96.03万']);
    expect(data.list.map((m) => Number(m.split_box_office))).toEqual([5301.2, 2105.66, 1730, 932.41, 798.12, 366.2, 87.45]);
    const [dashboardHit] = upstream.hits(HOST, MOVIE);
    expect(dashboardHit?.headers.referer).toBe('https://piaofang.maoyan.com/dashboard');
    expect(upstream.hits(FONT_HOST).map((h) => h.path)).toEqual([served[0]!.fontPath]);

    // A refresh gets another shuffle and another font, and still the same numbers.
    const again = await forceRefresh(svc, clock, '/v2/apis/boxoffice-a/realtime/movie');
    expect(again.headers.get('x-cache')).toBe('MISS');
    expect(((await again.json()) as { data: RealtimeMovieData }).data.list[0]?.box_office).toBe('5821.37');
    expect(served).toHaveLength(2);
    expect(served[1]!.codePoints).not.toEqual(served[0]!.codePoints);
    expect(upstream.hits(FONT_HOST)).toHaveLength(2);

    const { text, markdown, html } = await getRenderings(svc, '/v2/apis/boxoffice-a/realtime/movie');
    expect(text).toMatch(/^实时电影票房 · 今日大盘 15081\.91万\n/);
    expect(text).toContain('1. 雾港来信 (5821.37万)');
    expect(text).toContain('上映3天 · 票房占比 38.6% · 排片占比 31.2% · 累计 3.21亿');
    expect(markdown).toContain('1. [雾港来信](https://piaofang.maoyan.com/movie/1500101) (5821.37万)');
    expect(html).toContain('<a href="https://piaofang.maoyan.com/movie/1500102"');
    // Today's box office as bars above the table: one per film, longest first, labelled with name and amount.
    expect(html).toContain('<svg role="img" aria-label="实时电影票房 · 今日大盘 15081.91万：今日票房柱状图"');
    const bars = [...html.matchAll(/<g><title>([^<]+)<\/title>.*?<rect class="bar" x="\d+" y="[\d.]+" width="([\d.]+)"/g)];
    expect(bars.length).toBe(Math.min(10, data.list.length));
    expect(bars[0]?.[1]).toBe('雾港来信：5821.37万');
    const widths = bars.map((b) => Number(b[2]));
    expect(widths).toEqual([...widths].sort((a, b) => b - a));
    const feed = await getFeed(svc, '/v2/apis/boxoffice-a/realtime/movie');
    expect(feed.items.map((i) => i.guid)).toEqual(data.list.map((m) => m.link));
  });

  it('serves the all-time chart, TV ratings and web series heat', async () => {
    serveDashboards();
    const all = await getJson<AllTimeData>(svc, '/v2/apis/boxoffice-a/all/movie');
    expect(all.data.list[0]).toMatchObject({ title: 'Avatar: The Final Frontier', box_office_desc: '292.37亿元' });
    expect(upstream.hits(HOST, ALL)).toHaveLength(1);
    const tv = await getJson<TvData>(svc, '/v2/apis/boxoffice-a/realtime/tv');
    expect(tv.data.list[1]).toMatchObject({ programme_name: '长街', channel_name: '湖南卫视', market_rate_desc: '1.10%' });
    const web = await getJson<WebData>(svc, '/v2/apis/boxoffice-a/realtime/web');
    expect(web.data.list[0]).toMatchObject({ series_name: '长街', curr_heat: 9821.5, platform_desc: '腾讯视频' });
    expect(upstream.hits(FONT_HOST)).toHaveLength(0);

    const allText = (await getRenderings(svc, '/v2/apis/boxoffice-a/all/movie')).text;
    expect(allText).toMatch(/^全球电影票房总榜\n/);
    expect(allText).toContain('1. Avatar: The Final Frontier (292.37亿元)');
    const tvText = (await getRenderings(svc, '/v2/apis/boxoffice-a/realtime/tv')).markdown;
    expect(tvText).toContain('1. [新闻联播](https://piaofang.maoyan.com/dashboard) (2.34%)');
    const webHtml = (await getRenderings(svc, '/v2/apis/boxoffice-a/realtime/web')).html;
    expect(webHtml).toContain('腾讯视频 · 上线12天');

    const tvFeed = await getFeed(svc, '/v2/apis/boxoffice-a/realtime/tv');
    expect(tvFeed.items.map((i) => i.guid)).toContain('boxoffice-a:tv:CCTV-1:新闻联播');
    const webFeed = await getFeed(svc, '/v2/apis/boxoffice-a/realtime/web');
    expect(webFeed.items[0]?.guid).toBe('boxoffice-a:web:1400201');
    expect((await getFeed(svc, '/v2/apis/boxoffice-a/all/movie')).items).toHaveLength(12);
    // The route's chart cannot be switched from the query.
    expect((await getJson<TvData>(svc, '/v2/apis/boxoffice-a/realtime/tv?chart=all-movie')).data.chart).toBe('realtime-tv');
  });

  it('keeps rss guids stable across a refresh', async () => {
    serveDashboards();
    for (const route of ['all/movie', 'realtime/movie', 'realtime/tv', 'realtime/web']) await expectStableGuids(svc, clock, `/v2/apis/boxoffice-a/${route}`);
    const url = '/v2/apis/boxoffice-a/realtime/web';
    const before = await getFeed(svc, url);
    const doc = json('i/api/dashboard/webHeatData.json') as { webList: { data: { list: unknown[] } } };
    doc.webList.data.list.reverse();
    upstream.serve(HOST, WEB, signed(() => doc));
    expect((await forceRefresh(svc, clock, url)).headers.get('x-cache')).toBe('MISS');
    const after = await getFeed(svc, url);
    expect(after.items.map((i) => i.guid)).toEqual([...before.items.map((i) => i.guid)].reverse());
  });

  it('keeps the last good data through upstream failures', async () => {
    serveDashboards();
    const url = '/v2/apis/boxoffice-a/realtime/tv';
    const good = (await getJson<TvData>(svc, url)).data;

    upstream.serve(HOST, TV, { status: 502, body: 'bad gateway' });
    expect((await expectKeptAfterFailure<TvData>(svc, clock, url, 'boxoffice-a', /^transient: .*HTTP 502/)).list).toEqual(good.list);

    // A wrong signature: the upstream refuses it.
    upstream.serve(HOST, TV, { status: 200, body: { status: false, errorCode: 406, errorMsg: '签名校验失败' } });
    await expectKeptAfterFailure(svc, clock, url, 'boxoffice-a', /^blocked: .*406 签名校验失败/);

    upstream.serve(HOST, TV, { headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<html><title>猫眼验证中心</title></html>' });
    await expectKeptAfterFailure(svc, clock, url, 'boxoffice-a', /^blocked: .*HTML page/);

    upstream.serve(HOST, TV, { body: { tvList: { status: true, data: { programmes: [] } }, status: true } });
    await expectKeptAfterFailure(svc, clock, url, 'boxoffice-a', /^parse: missing tvListAll\.data\.list/);
    // The status page names the JSON path the parser missed and what it found there.
    const page = await (await svc.get('/status')).text();
    expect(page).toContain('parse: missing tvListAll.data.list (the list; tvList.data.list and data.list are missing too): the answer is an object with keys tvList, status');

    upstream.serve(HOST, TV, { body: { tvList: { status: true, data: { list: [] } }, status: true } });
    await expectKeptAfterFailure(svc, clock, url, 'boxoffice-a', /^empty: rejected: expected at least 3/);

    clock.advance(3600_000);
    const stale = await svc.get(url);
    expect(stale.headers.get('x-cache')).toBe('STALE');
    expect(((await stale.json()) as { data: TvData }).data.list).toEqual(good.list);
    await new Promise((r) => setTimeout(r, 100));
  });

  it('keeps the last good film data when the font cannot be decoded or fetched', async () => {
    serveDashboards();
    const url = '/v2/apis/boxoffice-a/realtime/movie';
    await getJson<RealtimeMovieData>(svc, url);
    upstream.serve(FONT_HOST, /^\/v1\/mss_fixture\/font\//, { headers: { 'content-type': 'font/woff' }, body: Buffer.from('wOFF-broken') });
    await expectKeptAfterFailure(svc, clock, url, 'boxoffice-a', /^parse: digit font could not be read/);
    upstream.serve(HOST, MOVIE, signed(() => ({ ...(obfuscatedMovie() as object), fontStyle: '' })));
    await expectKeptAfterFailure(svc, clock, url, 'boxoffice-a', /^parse: .*no font URL/);
    // The font URL is the upstream's data: an internal address in it is never fetched (issue 20 item 6).
    upstream.serve(HOST, MOVIE, signed(() => ({ ...(obfuscatedMovie() as object), fontStyle: '@font-face{src:url("http://169.254.169.254/latest/x.woff")}' })));
    await expectKeptAfterFailure(svc, clock, url, 'boxoffice-a', /^parse: the font URL in fontStyle was refused: 169\.254\.169\.254 is a link-local/);
  });

  it('answers 503 with Retry-After when cold and the upstream is slow or failing', async () => {
    const cold = await startService({ upstream, now: clock.now, sources: [boxofficeA], env: { ...NO_CLIENT_LIMITS, HTTP_TIMEOUT_MS: '300' } });
    try {
      upstream.serve(HOST, ALL, { delayMs: 1200, body: file('i/globalBox/historyRank.html'), headers: { 'content-type': 'text/html; charset=utf-8' } });
      expect(await expectUnavailable(cold, '/v2/apis/boxoffice-a/all/movie', '猫眼专业版票房')).toMatch(/timed out/);
      upstream.serve(HOST, WEB, { status: 403, body: 'Forbidden' });
      expect(await expectUnavailable(cold, '/v2/apis/boxoffice-a/realtime/web', '猫眼专业版票房')).toMatch(/blocked|HTTP 403/);
    } finally {
      await cold.close();
    }
  });
});
