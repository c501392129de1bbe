/**
 * Conformance with vikiboss/60s for the endpoints we share that are not lists (issue 13): each
 * answer's `data` must have 60s's container and every 60s field with its type. The layouts below
 * are written in our own words from the types of 60s's modules (src/modules/*.module.ts); our
 * richer fields are allowed beside them. Upstreams are the local fixtures of test/fixtures/upstream.
 */
import fs from 'node:fs';
import path from 'node:path';
import Parser from 'rss-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../sources/index.ts';
import { TestClock } from '../support/clock.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream, type UpstreamReply, type UpstreamRequest } from '../support/upstream.ts';
import { layoutMismatches, type Layout } from './layout.ts';

// ---- 60s's layouts ----------------------------------------------------------------------------

/** Daily digest. 60s declares news items as {title, link}, but its upstream files carry plain strings since 2025 and 60s passes them through. */
const DIGEST: Layout = {
  date: 'string',
  news: ['string'],
  cover: 'string',
  tip: 'string',
  image: 'string',
  link: 'string',
  day_of_week: 'string',
  lunar_date: 'string',
  created: 'string',
  created_at: 'number',
  updated: 'string',
  updated_at: 'number',
  api_updated: 'string',
  api_updated_at: 'number',
};

const TODAY_IN_HISTORY: Layout = {
  date: 'string',
  month: 'number',
  day: 'number',
  items: [{ title: 'string', year: 'string', description: 'string', event_type: 'string', link: 'string' }],
};

const EXCHANGE_RATE: Layout = {
  base_code: 'string',
  updated: 'string',
  updated_at: 'number',
  next_updated: 'string',
  next_updated_at: 'number',
  rates: [{ currency: 'string', rate: 'number' }],
};

const BING: Layout = {
  title: 'string',
  headline: 'string',
  description: 'string',
  main_text: 'string',
  cover: 'string',
  cover_4k: 'string',
  copyright: 'string',
  update_date: 'string',
  update_date_at: 'number',
};

const PLACE: Layout = { name: 'string', province: 'string', city: 'string', county: 'string' };
const SUN: Layout = { sunrise: 'string', sunrise_at: 'number', sunrise_desc: 'string', sunset: 'string', sunset_at: 'number', sunset_desc: 'string' };

const WEATHER_NOW: Layout = {
  location: PLACE,
  weather: {
    condition: 'string',
    condition_code: 'string',
    temperature: 'number',
    humidity: 'number',
    pressure: 'number',
    precipitation: 'number',
    wind_direction: 'string',
    wind_power: 'string',
    weather_icon: 'string',
    weather_colors: ['string'],
    updated: 'string',
    updated_at: 'number',
  },
  air_quality: {
    aqi: 'number',
    level: 'number',
    quality: 'string',
    pm25: 'number',
    pm10: 'number',
    co: 'number',
    no2: 'number',
    o3: 'number',
    so2: 'number',
    rank: 'number',
    total_cities: 'number',
    updated: 'string',
    updated_at: 'number',
  },
  sunrise: SUN,
  life_indices: [{ key: 'string', name: 'string', level: 'string', description: 'string' }],
  alerts: [{ type: 'string', level: 'string', level_code: 'string', province: 'string', city: 'string', county: 'string', detail: 'string', updated: 'string', updated_at: 'number' }],
};

const WEATHER_FORECAST: Layout = {
  location: PLACE,
  hourly_forecast: [{ datetime: 'string', temperature: 'number', condition: 'string', condition_code: 'string', wind_direction: 'string', wind_power: 'string', weather_icon: 'string' }],
  daily_forecast: [
    {
      date: 'string',
      day_condition: 'string',
      day_condition_code: 'string',
      night_condition: 'string',
      night_condition_code: 'string',
      max_temperature: 'number',
      min_temperature: 'number',
      day_wind_direction: 'string',
      day_wind_power: 'string',
      night_wind_direction: 'string',
      night_wind_power: 'string',
      aqi: 'number',
      aqi_level: 'number',
      air_quality: 'string',
      day_weather_icon: 'string',
      night_weather_icon: 'string',
    },
  ],
  sunrise_sunset: [SUN],
};

const PILLAR: Layout = { heaven_stem: 'string', earth_branch: 'string', name: 'string', name_short: 'string' };
const HOUR_TABOO: Layout = { hour: 'string', hour_short: 'string', recommends: 'string', avoids: 'string' };
const FOUR = (t: Layout): Layout => ({ year: t, month: t, day: t, hour: t });

const LUNAR: Layout = {
  solar: {
    year: 'number',
    month: 'number',
    day: 'number',
    hour: 'number',
    minute: 'number',
    second: 'number',
    full: 'string',
    full_with_time: 'string',
    week: 'number',
    week_desc: 'string',
    week_desc_short: 'string',
    season: 'number',
    season_desc: 'string',
    season_desc_short: 'string',
    season_name: 'string',
    season_name_desc: 'string',
    is_leap_year: 'boolean',
  },
  lunar: {
    year: 'string',
    month: 'string',
    day: 'string',
    hour: 'string',
    full_with_hour: 'string',
    desc_short: 'string',
    year_desc: 'string',
    month_desc: 'string',
    day_desc: 'string',
    hour_desc: 'string',
    is_leap_month: 'boolean',
  },
  stats: {
    day_of_year: 'number',
    week_of_year: 'number',
    week_of_month: 'number',
    percents: { year: 'number', month: 'number', week: 'number', day: 'number' },
    percents_formatted: { year: 'string', month: 'string', week: 'string', day: 'string' },
  },
  term: { today: 'string|null', stage: { name: 'string', position: 'number', is_jie: 'boolean', is_qi: 'boolean' } },
  zodiac: FOUR('string'),
  sixty_cycle: FOUR(PILLAR),
  legal_holiday: 'object|null',
  festival: { solar: 'string|null', lunar: 'string|null', both_desc: 'string|null' },
  phase: { name: 'string', position: 'number' },
  constellation: { name: 'string', name_short: 'string' },
  taboo: { day: { recommends: 'string', avoids: 'string' }, hour: HOUR_TABOO, hours: [HOUR_TABOO] },
  julian_day: 'number',
  nayin: FOUR('string'),
  baizi: { year_baizi: 'string', day_baizi: 'string' },
  fortune: { today_luck: 'string', career: 'string', money: 'string', love: 'string' },
  constants: {
    legal_holiday_list: [{ name: 'string', date: 'string|null', start: 'string', end: 'string' }],
    phase_list: [{ name: 'string', lunar_day: 'number' }],
    zodiac_list: ['string'],
    constellation_list: [
      { name: 'string', desc: 'string', start: 'string', end: 'string', range: 'string', start_month: 'number', start_day: 'number', end_month: 'number', end_day: 'number' },
    ],
    heaven_stems: ['string'],
    earth_branches: ['string'],
    solar_terms: [{ name: 'string', desc: 'string' }],
  },
};

const IP: Layout = Object.fromEntries(
  ['ip', 'continent', 'country', 'zipcode', 'timezone', 'accuracy', 'owner', 'isp', 'source', 'areacode', 'adcode', 'asnumber', 'lat', 'lng', 'radius', 'prov', 'city', 'district'].map((f) => [f, 'string']),
);

const COLOR: Layout = {
  hex: 'string',
  name: 'string',
  rgb: { r: 'number', g: 'number', b: 'number', string: 'string' },
  hsl: { h: 'number', s: 'number', l: 'number', string: 'string' },
  hsv: { h: 'number', s: 'number', v: 'number', string: 'string' },
  cmyk: { c: 'number', m: 'number', y: 'number', k: 'number', string: 'string' },
  lab: { l: 'number', a: 'number', b: 'number', string: 'string' },
  brightness: 'number',
  contrast: { white: 'number', black: 'number' },
  accessibility: { aa_normal: 'boolean', aa_large: 'boolean', aaa_normal: 'boolean', aaa_large: 'boolean', best_text_color: 'string' },
  complementary: 'string',
  analogous: ['string'],
  triadic: ['string'],
};

const PALETTE: Layout = {
  input: { hex: 'string', rgb: { r: 'number', g: 'number', b: 'number' }, hsl: { h: 'number', s: 'number', l: 'number' }, name: 'string' },
  palettes: [{ name: 'string', description: 'string', colors: [{ hex: 'string', name: 'string', role: 'string', theory: 'string' }] }],
  metadata: { color_theory: 'string', total_palettes: 'number', applications: ['string'] },
};

const SIDE: Layout = { text: 'string', type: 'string', type_desc: 'string', pronounce: 'string' };

const GOLD_QUOTE = { price: 'string', unit: 'string', formatted: 'string', updated: 'string', updated_at: 'number' } as const;
const GOLD: Layout = {
  date: 'string',
  // 60s's interface omits the metals' updated fields, yet serves them.
  metals: [{ name: 'string', sell_price: 'string', today_price: 'string', high_price: 'string', low_price: 'string', unit: 'string', 'updated?': 'string', 'updated_at?': 'number' }],
  stores: [{ brand: 'string', product: 'string', ...GOLD_QUOTE }],
  banks: [{ bank: 'string', product: 'string', time: 'string', ...GOLD_QUOTE }],
  recycle: [{ type: 'string', purity: 'string', ...GOLD_QUOTE }],
};

const FUEL: Layout = {
  region: 'string',
  trend: {
    next_adjustment_date: 'string',
    direction: 'string',
    change_ton: 'number',
    change_ton_desc: 'string',
    change_liter_min: 'number',
    change_liter_max: 'number',
    change_liter_desc: 'string',
    description: 'string',
  },
  items: [{ name: 'string', price: 'number', price_desc: 'string' }],
  link: 'string',
  updated: 'string',
  updated_at: 'number',
};

/** 60s's health report: each value as text with its label in `<name>_desc`. */
function described(...names: string[]): Record<string, Layout> {
  return Object.fromEntries(names.flatMap((n) => [[n, 'string'], [`${n}_desc`, 'string']]));
}
const HEALTH: Layout = {
  basic_info: described('height', 'weight', 'gender', 'age'),
  bmi: { value: 'number', value_desc: 'string', ...described('category', 'evaluation', 'risk') },
  weight_assessment: described('ideal_weight_range', 'standard_weight', 'status', 'adjustment'),
  metabolism: described('bmr', 'tdee', 'recommended_calories', 'weight_loss_calories', 'weight_gain_calories'),
  body_surface_area: described('value', 'formula'),
  body_fat: described('percentage', 'category', 'fat_weight', 'lean_weight'),
  health_advice: { ...described('daily_water_intake', 'exercise_recommendation', 'nutrition_advice'), health_tips: ['string'], health_tips_desc: 'string' },
  ideal_measurements: described('chest', 'waist', 'hip', 'note'),
  disclaimer: 'string',
};

const PROGRESS: Layout = { passed: 'number', total: 'number', remaining: 'number', percentage: 'number' };
const MOYU: Layout = {
  date: {
    gregorian: 'string',
    weekday: 'string',
    dayOfWeek: 'number',
    lunar: {
      year: 'number',
      month: 'number',
      day: 'number',
      yearCN: 'string',
      monthCN: 'string',
      dayCN: 'string',
      isLeapMonth: 'boolean',
      yearGanZhi: 'string',
      monthGanZhi: 'string',
      dayGanZhi: 'string',
      zodiac: 'string',
    },
  },
  today: { isWeekend: 'boolean', isHoliday: 'boolean', isWorkday: 'boolean', holidayName: 'string|null', solarTerm: 'string|null', lunarFestivals: ['string'] },
  progress: { week: PROGRESS, month: PROGRESS, year: PROGRESS },
  currentHoliday: { name: 'string', dayOfHoliday: 'number', daysRemaining: 'number', totalDays: 'number' },
  nextHoliday: { name: 'string', date: 'string', until: 'number', duration: 'number', workdays: ['string'] },
  nextWeekend: { date: 'string', weekday: 'string', daysUntil: 'number' },
  countdown: { toWeekEnd: 'number', toFriday: 'number', toMonthEnd: 'number', toYearEnd: 'number' },
  moyuQuote: 'string',
};

const OLYMPICS: Layout = {
  event_id: 'string',
  event_name: 'string',
  start_date: 'string',
  end_date: 'string',
  updated: 'string',
  updated_at: 'number',
  list: [{ rank: 'number', code: 'string', country: 'string', gold: 'number', silver: 'number', bronze: 'number', total: 'number', flag: 'string' }],
};

const PASSWORD: Layout = {
  password: 'string',
  length: 'number',
  config: { include_numbers: 'boolean', include_symbols: 'boolean', include_lowercase: 'boolean', include_uppercase: 'boolean', exclude_similar: 'boolean', exclude_ambiguous: 'boolean' },
  character_sets: { lowercase: 'string', uppercase: 'string', numbers: 'string', symbols: 'string', used_sets: ['string'] },
  generation_info: { entropy: 'number', strength: 'string', time_to_crack: 'string' },
};

const PASSWORD_CHECK: Layout = {
  password: 'string',
  length: 'number',
  score: 'number',
  strength: 'string',
  entropy: 'number',
  time_to_crack: 'string',
  character_analysis: {
    has_lowercase: 'boolean',
    has_uppercase: 'boolean',
    has_numbers: 'boolean',
    has_symbols: 'boolean',
    has_repeated: 'boolean',
    has_sequential: 'boolean',
    character_variety: 'number',
  },
  recommendations: ['string'],
  security_tips: ['string'],
};

const WHOIS: Layout = {
  domain: 'string',
  unicode_domain: 'string',
  punycode_domain: 'string',
  status: ['string'],
  registrar: 'string',
  registrant: { name: 'string', organization: 'string', email: 'string', country: 'string' },
  nameservers: ['string'],
  dnssec: 'boolean|string',
  created: 'string',
  updated: 'string',
  expires: 'string',
  created_at: 'number',
  updated_at: 'number',
  expires_at: 'number',
  duration: 'number',
  duration_desc: 'string',
};

const LYRIC: Layout = {
  title: 'string',
  artists: ['string'],
  album: 'string',
  offset: 'number',
  lyrics: [{ ms: 'number', time: 'string', label: 'string', lyric: 'string' }],
  formatted: 'string',
  raw_lyric: 'string',
};

const CHANGYA: Layout = {
  user: { nickname: 'string', gender: 'string', avatar_url: 'string' },
  song: { name: 'string', singer: 'string', lyrics: ['string'] },
  audio: { url: 'string', duration: 'number', like_count: 'number', link: 'string', publish: 'string', publish_at: 'number' },
};

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
  { sixty: '/v2/baike', path: '/v2/apis/baike?word=%E9%95%BF%E5%9F%8E', layout: { title: 'string', description: 'string', abstract: 'string', cover: 'string', has_other: 'boolean', link: 'string' } },
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
  { sixty: '/v2/og', path: '/v2/apis/og?url=github.com', layout: { title: 'string', image: 'string', description: 'string' } },
  { sixty: '/v2/olympics', path: '/v2/apis/olympics', layout: OLYMPICS },
  { sixty: '/v2/password', path: '/v2/apis/password', layout: PASSWORD },
  { sixty: '/v2/password/check', path: '/v2/apis/password/check?password=Tr0ub4dor%263', layout: PASSWORD_CHECK },
  { sixty: '/v2/whois', path: '/v2/apis/whois?domain=lanting-books.com', layout: WHOIS },
  {
    sixty: '/v2/awesome-js',
    path: '/v2/apis/awesome-js?id=0',
    layout: { id: 'number', question: 'string', 'code?': 'string', options: ['string'], answer: 'string', explanation: 'string' },
  },
  { sixty: '/v2/kfc', path: '/v2/apis/fast-food-copy?id=0', layout: { index: 'number', kfc: 'string' } },
];

// ---- the service, on local upstreams --------------------------------------------------------------

const DIGEST_PATH = /^\/60s\/(\d{4}-\d{2}-\d{2})\.json$/;
function digestByDate(req: UpstreamRequest): UpstreamReply {
  const file = path.join(FIXTURE_DIR, '60s-static.viki.moe', '60s', `${DIGEST_PATH.exec(req.path)?.[1]}.json`);
  return fs.existsSync(file) ? { headers: { 'content-type': 'application/json' }, body: fs.readFileSync(file) } : { status: 404, body: 'Not Found' };
}

describe('60s shapes of the shared non-list endpoints', () => {
  const upstream = new Upstream();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    upstream.serve('60s-static.viki.moe', DIGEST_PATH, digestByDate);
    // RDAP bootstrap: .com goes to its registry.
    upstream.serve('rdap.org', /^\/domain\//, (req) => ({ status: 302, headers: { location: `https://rdap.verisign.com/com/v1/domain/${req.path.slice('/domain/'.length)}` } }));
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
