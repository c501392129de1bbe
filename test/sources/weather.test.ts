import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import weather, { compactTimeMs, parseForecast, parseRealtime, pickLocation, validateWeather, type Location } from '../../sources/weather.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { TestClock } from '../support/clock.ts';
import { describeConformance, readRecording } from '../support/conformance.ts';
import { describeFailureModes } from '../support/failure-modes.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream, type UpstreamRequest } from '../support/upstream.ts';

const HOST = 'i.news.qq.com';
const read = (p: string) => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, HOST, p), 'utf8')) as Record<string, unknown>;
const common = () => read('weather/common.json') as { data: Record<string, unknown>; status: number };
const cityLike = () => read('city/like.json');
const now = new Date('2026-11-21T02:00:00Z');
const BEIJING: Location = { name: '北京', province: '北京', city: '北京', county: '', code: '101010100' };
const CHAOYANG = { data: { '101010300': '北京, 北京, 朝阳', '101071201': '辽宁, 朝阳', '101071202': '辽宁, 朝阳, 朝阳县' }, message: 'OK', status: 200 };

interface Body {
  code: number;
  message: string;
  data: Record<string, unknown> & { location: Location };
}

describe('weather parse', () => {
  it('resolves a region name, preferring the place named exactly as asked', () => {
    expect(pickLocation(cityLike(), '北京')).toEqual(BEIJING);
    expect(pickLocation(cityLike(), '海淀')).toMatchObject({ name: '北京海淀', province: '北京', city: '北京', county: '海淀', code: '101010200' });
    expect(pickLocation(CHAOYANG, '朝阳')).toMatchObject({ name: '北京朝阳', code: '101010300' });
    expect(pickLocation(CHAOYANG, '朝阳', { province: '辽宁省' })).toMatchObject({ name: '辽宁朝阳', province: '辽宁', city: '朝阳', county: '', code: '101071201' });
    expect(pickLocation(CHAOYANG, '朝阳', { province: '辽宁', city: '朝阳' })).toMatchObject({ code: '101071201' });
    for (const [raw, hint] of [
      [CHAOYANG, { province: '河北' }],
      [{ data: {}, message: 'OK', status: 200 }, {}],
      [{ data: [], message: 'OK', status: 200 }, {}],
    ] as const) {
      try {
        pickLocation(raw, '朝阳', hint);
        expect.unreachable();
      } catch (err) {
        expect((err as SourceError).kind).toBe('not_found');
        expect((err as Error).message).toMatch(/No region matches "朝阳"/);
      }
    }
  });

  it('reads the observation, air quality, sunrise, indices, alerts and tips', () => {
    const d = parseRealtime(common(), common(), BEIJING, now);
    expect(d.weather).toEqual({
      condition: '晴',
      condition_code: '00',
      temperature: 5,
      humidity: 31,
      pressure: 1027,
      precipitation: 0,
      wind_direction: '北风',
      wind_power: '3',
      weather_icon: 'https://mat1.gtimg.com/qqcdn/xw/tianqi/bigIcon/baitian/00.png',
      weather_colors: ['#4891FF', '#9AD2F9'],
      observed: '2026-11-21 09:40:00',
      observed_at: Date.parse('2026-11-21T09:40:00+08:00'),
      updated: '2026-11-21 09:40:00',
      updated_at: Date.parse('2026-11-21T09:40:00+08:00'),
    });
    expect(d.air_quality).toMatchObject({ aqi: 46, level: 1, quality: '优', pm25: 19, pm10: 45, co: 0.4, rank: 88, total_cities: 374, observed: '2026-11-21 10:00:00' });
    expect(d.sunrise).toEqual({
      date: '2026-11-21',
      sunrise: '2026-11-21 07:04:00',
      sunrise_at: Date.parse('2026-11-21T07:04:00+08:00'),
      sunrise_desc: '07:04',
      sunset: '2026-11-21 16:52:00',
      sunset_at: Date.parse('2026-11-21T16:52:00+08:00'),
      sunset_desc: '16:52',
    });
    expect(d.life_indices.map((i) => i.key)).toEqual(['clothes', 'umbrella', 'ultraviolet', 'sports', 'cold']);
    expect(d.life_indices[0]).toMatchObject({ name: '穿衣', level: '冷' });
    expect(d.alerts).toEqual([
      expect.objectContaining({ type: '大风', level: '蓝色', level_code: '01', province: '北京', published: '2026-11-21 06:30:00', published_at: Date.parse('2026-11-21T06:30:00+08:00') }),
    ]);
    expect(d.tips).toEqual(['天冷了，该加衣服了~', '风有点大，出门注意保暖~']);
    expect(d.updated_at).toBe(now.getTime());
    expect(validateWeather(d)).toBeUndefined();
    // Without the air answer the observation still stands.
    expect(parseRealtime(common(), undefined, BEIJING, now).air_quality).toMatchObject({ aqi: 46 });
    const noAir = common();
    delete noAir.data.air;
    expect(parseRealtime(noAir, undefined, BEIJING, now).air_quality).toBeNull();
  });

  it('reads the forecast from today on, limited to the days asked for', () => {
    const d = parseForecast(common(), BEIJING, 3, now);
    expect(d.daily_forecast.map((x) => x.date)).toEqual(['2026-11-21', '2026-11-22', '2026-11-23']);
    expect(d.daily_forecast[0]).toMatchObject({ weekday: '星期六', day_condition: '晴', night_condition: '晴', max_temperature: 8, min_temperature: -2, day_wind_direction: '北风', aqi: 47, air_quality: '优' });
    expect(d.hourly_forecast).toHaveLength(48);
    expect(d.hourly_forecast[0]).toEqual({
      time: '2026-11-21 10:00',
      time_at: Date.parse('2026-11-21T10:00:00+08:00'),
      datetime: '2026-11-21 10:00',
      temperature: 1,
      condition: '晴',
      condition_code: '00',
      wind_direction: '北风',
      wind_power: '3-4',
      weather_icon: 'https://mat1.gtimg.com/qqcdn/xw/tianqi/smallIcon/baitian/00.png',
    });
    expect(d.sunrise_sunset.map((s) => s.date)).toEqual(['2026-11-21', '2026-11-22', '2026-11-23']);
    expect(parseForecast(common(), BEIJING, 8, now).daily_forecast).toHaveLength(7);
    expect(validateWeather(d)).toBeUndefined();
  });

  it('rejects broken copies', () => {
    const blank = common();
    blank.data.observe = {};
    expect(validateWeather(parseRealtime(blank, undefined, BEIJING, now))).toMatch(/no temperature/);
    const hot = common();
    (hot.data.observe as Record<string, string>).degree = '999';
    expect(validateWeather(parseRealtime(hot, undefined, BEIJING, now))).toMatch(/implausible/);
    expect(validateWeather(parseForecast(common(), BEIJING, 3, new Date('2027-01-01T00:00:00Z')))).toMatch(/no daily forecast/);
    expect(() => parseRealtime({ data: { now: {} }, status: 200 }, undefined, BEIJING, now)).toThrow(SourceError);
    expect(() => parseRealtime({ status: 500, message: 'busy' }, undefined, BEIJING, now)).toThrow(/status 500/);
    expect(compactTimeMs('202006200840')).toBe(Date.parse('2020-06-20T08:40:00+08:00'));
    expect(compactTimeMs('bad')).toBeNull();
  });
});

describe('weather through the server', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;
  const weatherCalls = () => upstream.hits(HOST, '/weather/common');

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, sources: [weather] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('serves the current weather of 北京 by default in json, text, markdown and html', async () => {
    const json = await svc.get('/v2/apis/weather');
    expect(json.status).toBe(200);
    const body = (await json.json()) as Body;
    expect(body.data.location).toEqual(BEIJING);
    expect(body.data.weather).toMatchObject({ temperature: 5, condition: '晴' });
    expect(upstream.hits(HOST, '/city/like')[0]?.query.get('city')).toBe('北京');
    expect(upstream.hits(HOST, '/city/like')[0]?.headers.referer).toBe('https://news.qq.com/');
    const types = weatherCalls().map((r) => r.query.get('weather_type')).sort();
    expect(types).toEqual(['air|rise', 'observe|forecast_1h|forecast_24h|index|alarm|limit|tips|rise']);
    expect(weatherCalls()[0]?.query.get('province')).toBe('北京');

    const text = await (await svc.get('/v2/apis/weather?encoding=text')).text();
    expect(text).toMatch(/^📍 北京 实时天气\n🌡️ 晴 5°C {2}湿度 31% {2}气压 1027 hPa\n💨 北风 3 级 {2}降水 0 mm\n🌫️ 空气质量 优（AQI 46，PM2\.5 19）\n🌅 日出 07:04 {2}日落 16:52\n⚠️ 大风蓝色预警：/);
    expect(text).toContain('穿衣：冷；雨伞：不带伞；紫外线强度：弱；运动：较适宜');
    expect(text).toContain('观测时间 2026-11-21 09:40:00');

    const md = await (await svc.get('/v2/apis/weather?encoding=markdown')).text();
    expect(md).toMatch(/^# 北京 实时天气\n\n\| 项目 \| 数值 \|/);
    expect(md).toContain('| 温度 | 5°C |');
    expect(md).toContain('| 穿衣 | 冷 | 天气冷，建议着棉服、羽绒服、皮夹克加羊毛衫等冬季服装。 |');

    const html = await (await svc.get('/v2/apis/weather?encoding=html')).text();
    expect(html).toContain('<tr><td>湿度</td><td>31%</td></tr>');
    expect(html).toContain('<strong>⚠️ 大风蓝色预警</strong>');

    // Cached per region: no further upstream calls.
    expect(upstream.hits(HOST)).toHaveLength(3);
  });

  it('serves the forecast, with days enforced from 1 to 8', async () => {
    const json = await svc.get('/v2/apis/weather/forecast?days=3');
    expect(json.status).toBe(200);
    const body = (await json.json()) as Body & { data: { daily_forecast: { date: string }[]; days: number } };
    expect(body.data.days).toBe(3);
    expect(body.data.daily_forecast.map((x) => x.date)).toEqual(['2026-11-21', '2026-11-22', '2026-11-23']);
    expect(weatherCalls()).toHaveLength(1);

    const text = await (await svc.get('/v2/apis/weather/forecast?days=3&encoding=text')).text();
    expect(text).toMatch(/^📍 北京 未来 3 天天气\n\n2026-11-21 星期六 晴 -2~8°C 北风 3-4 级\n2026-11-22 星期日 晴转多云 0~10°C/);
    expect(text).toContain('逐小时：\n10:00 晴 1°C');
    const md = await (await svc.get('/v2/apis/weather/forecast?days=3&encoding=markdown')).text();
    expect(md).toContain('| 2026-11-23 | 星期一 | 多云 | 阴 | 1°C | 11°C | 北风 | 3-4 | 良 |');
    const html = await (await svc.get('/v2/apis/weather/forecast?days=3&encoding=html')).text();
    expect(html).toContain('<td>2026-11-21 10:00</td><td>晴</td><td>1°C</td>');

    for (const days of ['0', '9', 'x']) {
      const bad = await svc.get(`/v2/apis/weather/forecast?days=${days}`);
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as Body).message).toMatch(/"days".*from 1 to 8/);
    }
    const def = (await (await svc.get('/v2/apis/weather/forecast')).json()) as { data: { days: number; daily_forecast: unknown[] } };
    expect(def.data.days).toBe(7);
    expect(def.data.daily_forecast).toHaveLength(7);
  });

  it('takes URL-encoded Chinese names and tells places of the same name apart', async () => {
    const cities: Record<string, unknown> = { 上海: { data: { '101020100': '上海, 上海' }, message: 'OK', status: 200 }, 朝阳: CHAOYANG, 海淀: cityLike() };
    upstream.serve(HOST, '/city/like', (req) => ({ body: cities[req.query.get('city') ?? ''] ?? { data: {}, message: 'OK', status: 200 } }));
    const shanghai = (await (await svc.get(`/v2/apis/weather?query=${encodeURIComponent('上海')}`)).json()) as Body;
    expect(shanghai.data.location.name).toBe('上海');
    expect(weatherCalls().every((r: UpstreamRequest) => r.query.get('province') === '上海' && r.query.get('city') === '上海')).toBe(true);

    const liaoning = (await (await svc.get(`/v2/apis/weather?query=${encodeURIComponent('朝阳')}&province=${encodeURIComponent('辽宁')}`)).json()) as Body;
    expect(liaoning.data.location).toMatchObject({ name: '辽宁朝阳', province: '辽宁', city: '朝阳' });
    const beijingChaoyang = (await (await svc.get(`/v2/apis/weather?query=${encodeURIComponent('朝阳')}`)).json()) as Body;
    expect(beijingChaoyang.data.location.name).toBe('北京朝阳');

    const haidian = (await (await svc.get(`/v2/apis/weather?query=${encodeURIComponent('海淀区')}`)).json()) as Body;
    expect(haidian.data.location).toMatchObject({ county: '海淀' });
    expect(upstream.hits(HOST, '/city/like').map((r) => r.query.get('city'))).toContain('海淀');
  });

  it('answers 404 (not 200) for a region it cannot find', async () => {
    upstream.serve(HOST, '/city/like', { body: { data: {}, message: 'OK', status: 200 } });
    for (const route of ['/v2/apis/weather', '/v2/apis/weather/forecast']) {
      const res = await svc.get(`${route}?query=${encodeURIComponent('火星基地')}`);
      expect(res.status).toBe(404);
      const body = (await res.json()) as Body;
      expect(body.code).toBe(404);
      expect(body.data).toBeNull();
      expect(body.message).toMatch(/No region matches "火星基地"/);
    }
    const text = await svc.get(`/v2/apis/weather?query=${encodeURIComponent('火星基地')}&encoding=text`);
    expect(text.status).toBe(404);
    // A caller's miss is not an upstream failure.
    const status = (await (await svc.get('/v2/status')).json()) as { data: { sources: { id: string; fail_count: number }[] } };
    expect(status.data.sources.find((s) => s.id === 'weather')?.fail_count).toBe(0);
  });

  it('is on demand with a short TTL per region', () => {
    expect(weather.mode).toBe('on-demand');
    expect(weather.mode !== 'local' && weather.freshness.ttlSec).toBeLessThanOrEqual(900);
  });
});

for (const route of ['/v2/apis/weather', '/v2/apis/weather/forecast']) {
  describeFailureModes({
    sources: [weather],
    sourceId: 'weather',
    path: route,
    host: HOST,
    upstreamPath: '/weather/common',
    ttlSec: 600,
    loginPage: { status: 403, headers: { 'content-type': 'text/html' }, body: '<html><body>访问受限，请登录后重试</body></html>' },
    changedShape: { body: { data: { now: { temp: 5 } }, message: 'OK', status: 200 } },
    empty: { body: { data: { observe: {}, forecast_24h: [], forecast_1h: [] }, message: 'OK', status: 200 } },
  });
}

describeConformance('weather', 'weather on the real recording', (dir) => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    upstream.serve(HOST, '/weather/common', { headers: { 'content-type': 'application/json' }, body: readRecording(dir, 'qq-weather-common-2020-06-20-trimmed.json') });
    svc = await startService({ upstream, now: new TestClock(Date.parse('2020-06-20T01:00:00Z')).now, sources: [weather] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('reads the observation (objects keyed "0", "1", … and a wind direction code)', async () => {
    const body = (await (await svc.get('/v2/apis/weather')).json()) as Body;
    expect(body.data.weather).toEqual({
      condition: '雨',
      condition_code: '301',
      temperature: 23,
      humidity: 85,
      pressure: 1009,
      precipitation: 0.1,
      wind_direction: '北风',
      wind_power: '0',
      // The 2020 recording predates the icon and colour fields.
      weather_icon: '',
      weather_colors: [],
      observed: '2020-06-20 08:40:00',
      observed_at: Date.parse('2020-06-20T08:40:00+08:00'),
      updated: '2020-06-20 08:40:00',
      updated_at: Date.parse('2020-06-20T08:40:00+08:00'),
    });
    expect(body.data.air_quality).toBeNull();
    expect(body.data.sunrise).toMatchObject({ date: '2020-06-20', sunrise: '2020-06-20 04:50:00', sunrise_desc: '04:50', sunset_desc: '19:01' });
    expect((body.data.life_indices as unknown[]).length).toBe(22);
    expect(body.data.tips).toEqual(['下雨了，出门记得带伞~', '现在的温度比较舒适~']);
  });

  it('reads the forecast from today (the list starts with yesterday)', async () => {
    const body = (await (await svc.get('/v2/apis/weather/forecast?days=8')).json()) as Body & {
      data: { daily_forecast: { date: string; max_temperature: number; min_temperature: number; day_condition: string }[]; hourly_forecast: { time: string }[]; sunrise_sunset: unknown[] };
    };
    expect(body.data.daily_forecast.map((d) => d.date)).toEqual(['2020-06-20', '2020-06-21', '2020-06-22', '2020-06-23', '2020-06-24', '2020-06-25', '2020-06-26']);
    expect(body.data.daily_forecast[0]).toMatchObject({ day_condition: '小雨', max_temperature: 24, min_temperature: 21 });
    expect(body.data.hourly_forecast.map((h) => h.time)).toEqual(['2020-06-20 08:00', '2020-06-20 09:00', '2020-06-20 10:00', '2020-06-20 11:00', '2020-06-20 12:00', '2020-06-20 13:00']);
    expect(body.data.sunrise_sunset).toHaveLength(3);
    expect(upstream.unmatched).toEqual([]);
  });
});
