/**
 * The `migrate` of the list sources: today's data (fetched through the real engine from the
 * upstream fixtures) passes unchanged, the very same value, so reading it costs no re-encoding;
 * data in the shapes of before 60s's list shapes (written by hand after the old parsers, see
 * `git log -p 5d37f78..94a8293 -- sources/`) comes out in today's shape and passes `validate`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paramsKey, parseParams } from '../../src/kernel/params.ts';
import type { FetchedSource, LocalSource, ParamSpecs } from '../../src/kernel/source.ts';
import aiNews from '../../sources/ai-news.ts';
import boxoffice from '../../sources/boxoffice-a/index.ts';
import musicRank from '../../sources/music-rank.ts';
import searchA from '../../sources/search-a.ts';
import shortVideo from '../../sources/hot-short-video-a.ts';
import fs from 'node:fs';
import path from 'node:path';
import baike, { type BaikeEntry } from '../../sources/baike.ts';
import changya, { migrateFeed, parsePage as parsePiecePage, type ChangyaFeed } from '../../sources/changya.ts';
import exchangeRate, { parse as parseRates, type ExchangeRates } from '../../sources/exchange-rate.ts';
import fanyi, { type Translation } from '../../sources/fanyi.ts';
import fuelPrice, { parse as parseFuel, type FuelPrices } from '../../sources/fuel-price.ts';
import goldPrice, { parse as parseGold, type GoldPrices, type QuotedPrice } from '../../sources/gold-price.ts';
import ip, { build as buildIp, parseIpSb, type IpData } from '../../sources/ip.ts';
import og, { type OgData } from '../../sources/og.ts';
import todayInHistory, { parse as parseDay, type DayInHistory } from '../../sources/today-in-history.ts';
import wallpaper, { parseArchive, type Wallpaper } from '../../sources/wallpaper-daily.ts';
import weather, { type ForecastWeather, type RealtimeWeather } from '../../sources/weather.ts';
import whois, { buildData, type WhoisData } from '../../sources/whois/index.ts';
import { normalizeDomain } from '../../sources/whois/domain.ts';
import { parseRdap } from '../../sources/whois/rdap.ts';
import { layoutMismatches, type Layout } from '../compat/layout.ts';
import { BAIKE, BING, CHANGYA, EXCHANGE_RATE, FUEL, GOLD, IP, OG, SIDE, TODAY_IN_HISTORY, WEATHER_FORECAST, WEATHER_NOW, WHOIS } from '../compat/sixty-layouts.ts';
import { startService, type TestService } from '../support/service.ts';
import { serviceForSuite } from '../support/suite-service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';
import * as old from './old-shapes.ts';

const migrateOf = (s: unknown) => (s as FetchedSource).migrate as (stored: unknown) => unknown;
const valid = (s: unknown, data: unknown) => (s as FetchedSource).validate(data);

describe('today’s data passes every migrate unchanged', () => {
  const { svc } = serviceForSuite();

  it('for every scheduled source with a migrate whose fixtures answer', async () => {
    const checked: string[] = [];
    for (const s of svc().registry.sources) {
      if (s.mode !== 'scheduled' || !s.migrate) continue;
      for (const raw of s.prefetch?.length ? s.prefetch : [{}]) {
        const params = parseParams(s.params, raw as Record<string, string>);
        let payload: string;
        try {
          payload = (await svc().engine.run(s, params, paramsKey(params))).payload as string;
        } catch {
          continue; // no fixture for this key
        }
        const data = JSON.parse(payload) as unknown;
        expect(s.migrate(data), s.id).toBe(data);
        checked.push(s.id);
      }
    }
    expect(new Set(checked).size).toBeGreaterThanOrEqual(10);
  });
});

describe('old shapes come out in today’s shape', () => {
  it('music-rank: the chart container with artists, quality and a missing album', () => {
    const old = {
      kind: 'chart',
      id: 3778678,
      name: '热歌榜',
      link: 'https://music.163.com/#/playlist?id=3778678',
      list: [1, 2].map((n) => ({
        rank: n,
        title: `歌${n}`,
        link: `https://music.163.com/#/song?id=${n}`,
        id: n,
        artists: [{ id: 9, name: '歌手', link: 'https://music.163.com/#/artist?id=9' }],
        album: n === 1 ? { id: 5, name: '专辑', link: 'https://music.163.com/#/album?id=5', cover: null, published: null, published_at: null, company: null } : null,
        duration: 200_000,
        duration_desc: '03:20',
        score: 100,
        fee: 8,
        status: 0,
        quality: { sq: null, hq: null, mq: null, lq: null },
      })),
      total: 2,
      updated: '2026-11-20 10:00:00',
      updated_at: 1,
    };
    const up = migrateOf(musicRank)(old) as Record<string, unknown>[];
    expect(valid(musicRank, up)).toBeUndefined();
    expect(up[0]).toMatchObject({ rank_name: '热歌榜', artist: [{ name: '歌手', cover: '' }], mb: { sq: null }, album: { id: 5, name: '专辑', cover: '', published: '', published_at: 0, company: '' } });
    expect(up[1]?.album).toEqual({ id: 0, name: '', link: '', cover: '', published: '', published_at: 0, company: '' });
    expect(up[0]).not.toHaveProperty('artists');
    expect(up[0]).not.toHaveProperty('quality');
    const charts = migrateOf(musicRank)({ kind: 'charts', list: [1, 2, 3, 4, 5].map((n) => ({ rank: n, title: `榜${n}`, name: `榜${n}`, link: `https://music.163.com/#/discover/toplist?id=${n}`, id: n })) }) as Record<string, unknown>[];
    expect(valid(musicRank, charts)).toBeUndefined();
    expect(charts[0]).toMatchObject({ name: '榜1', cover: '' });
  });

  it('ai-news: {list, date} becomes {date, news}; with all=1 the date is "all"', () => {
    const news = [{ rank: 1, title: '新闻', link: 'https://ai-bot.cn/1', date: '2026-11-20', detail: '', source: '' }];
    const base = { list: news, total: 1, updated: '2026-11-20 10:00:00', updated_at: 1, date: '2026-11-20', dates: ['2026-11-20'] };
    expect(migrateOf(aiNews)({ ...base, all: false, is_today: true })).toEqual({ date: '2026-11-20', news, total: 1, updated: '2026-11-20 10:00:00', updated_at: 1, all: false, is_today: true, dates: ['2026-11-20'] });
    const all = migrateOf(aiNews)({ ...base, all: true, is_today: true }) as Record<string, unknown>;
    expect(all).toMatchObject({ date: 'all', all: true, is_today: false });
    expect(valid(aiNews, all)).toBeUndefined();
  });

  it('boxoffice-a: amounts as numbers become digit text; the dashboard gains its title', () => {
    const item = (n: number) => ({ rank: n, title: `片${n}`, link: `https://piaofang.maoyan.com/movie/${n}`, movie_id: n, box_office: 1234.5, box_office_unit: '万', box_office_desc: '1234.5万', split_box_office: 1100, split_box_office_unit: '万' });
    const old = { list: [1, 2, 3, 4, 5].map(item), total: 5, updated: 'x', updated_at: 1, chart: 'realtime-movie', chart_title: '实时电影票房', box_office: 5678.9, box_office_unit: '万', split_box_office: null };
    const up = migrateOf(boxoffice)(old) as { title: string; box_office: string; split_box_office: string; list: { box_office: string; split_box_office: string }[] };
    expect(up).toMatchObject({ title: '', box_office: '5678.9', split_box_office: '' });
    expect(up.list[0]).toMatchObject({ box_office: '1234.5', split_box_office: '1100' });
    expect(valid(boxoffice, up)).toBeUndefined();
    expect(migrateOf(boxoffice)(up)).toBe(up);
  });

  it('search-a and hot-short-video-a: fields added since are filled from the old item and its container', () => {
    const forum = migrateOf(searchA)({
      board: 'forum',
      list: [1, 2, 3, 4, 5].map((n) => ({ rank: n, title: `帖${n}`, link: `https://tieba.baidu.com/t/${n}`, hot_value: 1000 * n, hot_value_desc: `${n}千`, desc: '' })),
    }) as Record<string, unknown>[];
    expect(forum[1]).toMatchObject({ url: 'https://tieba.baidu.com/t/2', score: 2000, score_desc: '2千', cover: null, avatar: null });
    const video = migrateOf(shortVideo)({
      active_time: '2026-11-20 10:00:00',
      active_time_at: 2,
      list: [1, 2, 3, 4, 5].map((n) => ({ rank: n, title: `话题${n}`, link: `https://www.douyin.com/search/${n}`, hot_value: n })),
    }) as Record<string, unknown>[];
    expect(video[4]).toMatchObject({ cover: '', event_time: null, event_time_at: null, active_time: '2026-11-20 10:00:00', active_time_at: 2 });
    expect(valid(shortVideo, video)).toBeUndefined();
  });
});

// ---- non-list sources: data stored by release 271b638 (see old-shapes.ts) ----------------------

/** The daily AQI level was never stored: an old forecast upgrades it to null, the parser's "unknown". */
const FORECAST_FROM_OLD = JSON.parse(JSON.stringify(WEATHER_FORECAST).replace('"aqi_level":"number"', '"aqi_level":"number|null"')) as Layout;

/** 60s's layout of each endpoint, as the conformance test checks it. */
const SIXTY: Record<string, Layout> = {
  'exchange-rate': EXCHANGE_RATE,
  'today-in-history': TODAY_IN_HISTORY,
  'gold-price': GOLD,
  'fuel-price': FUEL,
  'wallpaper-daily': BING,
  'weather-now': WEATHER_NOW,
  'weather-forecast': FORECAST_FROM_OLD,
  whois: WHOIS,
  ip: IP,
  og: OG,
  baike: BAIKE,
  fanyi: { source: SIDE, target: SIDE },
  changya: CHANGYA,
};

const AT = new Date('2026-11-21T02:00:00Z');
const fixture = (p: string) => fs.readFileSync(path.join(FIXTURE_DIR, p));
const fixtureJson = (p: string) => JSON.parse(fixture(p).toString('utf8')) as unknown;
const copy = <T>(v: T): T => structuredClone(v);

/** Upgrades `old` with the source's migrate: it passes validate and 60s's layout, and upgrading again changes nothing. */
function upgrade<T>(source: unknown, old: unknown, layout: Layout): T {
  const up = migrateOf(source)(copy(old));
  expect(up).toBeDefined();
  expect(valid(source, up)).toBeUndefined();
  expect(layoutMismatches(up, layout)).toEqual([]);
  expect(migrateOf(source)(up)).toBe(up);
  return up as T;
}

describe('non-list sources: data stored by the previous release comes out in 60s’s shape', () => {
  it('exchange-rate: `updated` becomes the upstream time, the fetch time `fetched` — as a fetch today gives', () => {
    const up = upgrade<ExchangeRates>(exchangeRate, old.EXCHANGE_RATE, SIXTY['exchange-rate']!);
    const today = parseRates(fixtureJson('open.er-api.com/v6/latest/CNY.json'), AT);
    expect(up).toEqual(today);
    expect(up).toMatchObject({ updated: '2026/11/21 08:02:31', next_updated: '2026/11/22 08:11:05', fetched: '2026-11-21 10:00:00' });
    // Stored by the release that wrote 60s's fields with dashes: 60s's YYYY/MM/DD HH:mm:ss now.
    const dashed = { ...today, updated: '2026-11-21 08:02:31', next_updated: '2026-11-22 08:11:05' };
    expect(migrateOf(exchangeRate)(dashed)).toEqual(today);
  });

  it('today-in-history: list → items with year_text, date → requested_date, date the month-day', () => {
    const up = upgrade<DayInHistory>(todayInHistory, old.TODAY_IN_HISTORY, SIXTY['today-in-history']!);
    const today = parseDay(fixtureJson('baike.baidu.com/cms/home/eventsOnHistory/11.json'), '2026-11-21', AT);
    expect(up).toEqual({ ...today, items: today.items.slice(0, 2), total: 2 });
    expect(up).toMatchObject({ date: '11-21', requested_date: '2026-11-21', items: [{ year: '-221', year_text: '公元前221年' }, { year_text: '1694年' }] });
  });

  it('gold-price: numbers become text prices, numeric values keep their value, quotes gain updated and formatted', () => {
    const up = upgrade<GoldPrices>(goldPrice, old.GOLD_PRICE, SIXTY['gold-price']!);
    expect(up.metals[0]).toEqual({ name: '今日金价', sell_price: '968.5', today_price: '962.3', high_price: '971.2', low_price: '960.1', unit: '元/克', sell: 968.5, open: 962.3, high: 971.2, low: 960.1, updated: '2026-11-21 10:00:00', updated_at: AT.getTime() });
    const today = parseGold(fixture('res.huangjinjiage.com.cn/panjia2.js').toString('utf8'), new TextDecoder('gbk').decode(fixture('www.huangjinjiage.cn/jinrijinjia.html')), AT);
    // Everything but the text spelling of the prices is as a fetch today gives it.
    const numeric = ({ price: _p, formatted: _f, ...rest }: QuotedPrice) => rest;
    expect(up.stores.map(numeric)).toEqual(today.stores.slice(0, 1).map(numeric));
    expect(up.banks.map(numeric)).toEqual(today.banks.slice(0, 1).map(numeric));
    expect(up.recycle.map(numeric)).toEqual(today.recycle.slice(0, 1).map(numeric));
    expect(up.banks[0]).toMatchObject({ price: '982.6', formatted: '982.6元/克', time: '09:45:02', updated: '2026-11-21 09:45:02' });
    expect(up.stores[0]).toMatchObject({ updated: '2026-11-21', updated_at: up.stores[0]!.quoted_at });
  });

  it('fuel-price: the trend is read again from its stored text, as a fetch today gives it', () => {
    const up = upgrade<FuelPrices>(fuelPrice, old.FUEL_PRICE, SIXTY['fuel-price']!);
    expect(up).toEqual(parseFuel(fixture('www.qiyoujiage.com/guangdong.shtml').toString('utf8'), '广东', AT));
    expect(up.trend?.next_adjustment_date).toBe('12月5日24时');
    const unchanged = { ...copy(old.FUEL_PRICE), trend: null, updated: '2026/11/21 10:00:00' };
    expect(migrateOf(fuelPrice)({ ...unchanged, updated: '2026-11-21 10:00:00' })).toEqual(unchanged);
    expect(migrateOf(fuelPrice)(unchanged)).toBe(unchanged);
  });

  it('wallpaper-daily: update_date is the read time', () => {
    const up = upgrade<Wallpaper>(wallpaper, old.WALLPAPER, SIXTY['wallpaper-daily']!);
    expect(up).toEqual(parseArchive(fixtureJson('global.bing.com/HPImageArchive.aspx.json'), AT));
  });

  it('weather: updated from observed/published times, sun times as date-times, icons empty (never stored)', () => {
    const now = upgrade<RealtimeWeather>(weather, old.WEATHER_NOW, SIXTY['weather-now']!);
    expect(now.weather).toMatchObject({ weather_icon: '', weather_colors: [], updated: '2026-11-21 09:40:00', updated_at: old.WEATHER_NOW.weather.observed_at });
    expect(now.sunrise).toEqual({ date: '2026-11-21', sunrise: '2026-11-21 07:04:00', sunrise_at: 1795215840000, sunrise_desc: '07:04', sunset: '2026-11-21 16:52:00', sunset_at: 1795251120000, sunset_desc: '16:52' });
    expect(now.alerts[0]).toMatchObject({ updated: '2026-11-21 06:30:00' });
    const forecast = upgrade<ForecastWeather>(weather, old.WEATHER_FORECAST, SIXTY['weather-forecast']!);
    expect(forecast.hourly_forecast[0]).toMatchObject({ time: '2026-11-21 10:00', datetime: '2026-11-21 10:00', weather_icon: '' });
    expect(forecast.daily_forecast[1]).toMatchObject({ aqi: 54, aqi_level: null, day_weather_icon: '', night_weather_icon: '' });
    expect(forecast.sunrise_sunset[1]).toMatchObject({ sunrise: '2026-11-22 07:04:00', sunrise_desc: '07:04' });
  });

  it('whois: nulls become "", updated the last change, fetched the fetch time, duration to it — as a lookup today gives', () => {
    const up = upgrade<WhoisData>(whois, old.WHOIS, SIXTY.whois!);
    const name = normalizeDomain('lanting-books.com');
    const facts = parseRdap(fixtureJson('rdap.verisign.com/com/v1/domain/lanting-books.com.json'), name.ascii);
    expect(up).toEqual(buildData(name, facts, { source: 'rdap', rdapServer: 'https://rdap.verisign.com/com/v1/', whoisServer: null }, AT));
    expect(up).toMatchObject({ registrant: { name: '' }, updated: '2026/03/18 10:05:44', fetched: '2026-11-21 10:00:00', duration_desc: '10 年 227 天' });
  });

  it('ip: 60s’s fields from the stored location, source "" when none was asked', () => {
    const stored = { ip: '114.114.114.114', version: 4, is_private: false, range: 'unicast', ...old.IP_SB_GEO, source: 'ip.sb', updated: '2026-11-21 10:00:00', updated_at: AT.getTime() };
    const up = upgrade<IpData>(ip, stored, SIXTY.ip!);
    expect(up).toEqual(buildIp('114.114.114.114', 4, 'unicast', false, parseIpSb(fixtureJson('api.ip.sb/geoip/114.114.114.114.json'), '114.114.114.114'), 'ip.sb', AT));
    expect(up).toMatchObject({ prov: 'Jiangsu', lat: 32.0617, asnumber: '21859', zipcode: '', continent: 'AS' });
    const privateOne = upgrade<IpData>(ip, { ...stored, ip: '10.0.0.1', is_private: true, range: 'private', ...Object.fromEntries(Object.keys(old.IP_SB_GEO).map((k) => [k, null])), source: null }, { ...(SIXTY.ip as Record<string, Layout>), lat: 'string', lng: 'string' });
    expect(privateOne).toMatchObject({ source: '', country: '', city: '', lat: '' });
    // Stored by the release that wrote 60s's coordinates as text: numbers now, as 60s answers them.
    const asText = upgrade<IpData>(ip, { ...up, lat: '32.0617', lng: '118.7778' }, SIXTY.ip!);
    expect(asText).toMatchObject({ lat: 32.0617, lng: 118.7778 });
  });

  it('og and baike: a missing description, image or cover was null and is ""', () => {
    const og1 = upgrade<OgData>(og, { ...old.OG, description: null, image: null }, SIXTY.og!);
    expect(og1).toMatchObject({ description: '', image: '', title: old.OG.title });
    expect(migrateOf(og)(old.OG)).toBe(old.OG);
    const entry = upgrade<BaikeEntry>(baike, { ...old.BAIKE, cover: null }, SIXTY.baike!);
    expect(entry).toEqual({ ...old.BAIKE, cover: '' });
    expect(migrateOf(baike)(old.BAIKE)).toBe(old.BAIKE);
  });

  it('fanyi: each side gains an empty romanisation (the stored answer had none)', () => {
    const up = upgrade<Translation>(fanyi, old.FANYI, SIXTY.fanyi!);
    expect(up).toEqual({ ...old.FANYI, source: { ...old.FANYI.source, pronounce: '' }, target: { ...old.FANYI.target, pronounce: '' } });
  });

  it('changya (a local source’s feed): gender as M/F with gender_text, avatar_url, duration in ms', () => {
    const feed = { items: copy(old.CHANGYA_PIECES) };
    const up = migrateFeed(feed)!;
    expect((changya as LocalSource<ParamSpecs, unknown, ChangyaFeed>).feed!.validate(up)).toBeUndefined();
    for (const piece of up.items) expect(layoutMismatches(piece, SIXTY.changya!)).toEqual([]);
    expect(up.items[0]).toMatchObject({ user: { gender: 'F', gender_text: 'female', avatar_url: old.CHANGYA_PIECES[0]!.user.avatar }, audio: { duration: 31_000, duration_sec: 31 } });
    expect(up.items[1]?.user).toMatchObject({ gender: 'M', gender_text: 'male' });
    expect(migrateFeed(up)).toBe(up);
    const seed = fs.readdirSync(path.join(FIXTURE_DIR, 'm.singduck.cn', 'user-piece'))[0]!;
    const today = { items: parsePiecePage(fixture(`m.singduck.cn/user-piece/${seed}`).toString('utf8')) };
    expect(migrateFeed(today)).toBe(today);
  });
});

describe('today’s answers of the on-demand sources pass their migrate unchanged', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    upstream.serve('rdap.org', /^\/domain\//, (req) => ({ status: 302, headers: { location: `https://rdap.verisign.com/com/v1/domain/${req.path.slice('/domain/'.length)}` } }));
    svc = await startService({ upstream, env: { TRUST_PROXY: 'true', AI_UPSTREAM_BASE_URL: 'https://ai-gateway.test/', AI_UPSTREAM_API_KEY: 'sk-test' } });
  });
  afterAll(async () => {
    await svc?.close();
    await upstream.stop();
  });

  const CASES: [unknown, string, Record<string, string>?][] = [
    [whois, '/v2/apis/whois?domain=lanting-books.com'],
    [ip, '/v2/apis/ip', { 'x-forwarded-for': '114.114.114.114' }],
    [og, '/v2/apis/og?url=github.com'],
    [baike, '/v2/apis/baike?word=%E9%95%BF%E5%9F%8E'],
    [fanyi, '/v2/apis/fanyi?text=%E4%BD%A0%E5%A5%BD'],
    [weather, '/v2/apis/weather?query=%E5%8C%97%E4%BA%AC'],
    [weather, '/v2/apis/weather/forecast?query=%E5%8C%97%E4%BA%AC'],
  ];
  for (const [source, url, headers] of CASES) {
    it(url.split('?')[0]!, async () => {
      const res = await svc.get(url, headers ? { headers } : undefined);
      const body = (await res.json()) as { message: string; data: unknown };
      expect(res.status, body.message).toBe(200);
      expect(migrateOf(source)(body.data)).toBe(body.data);
    });
  }
});
