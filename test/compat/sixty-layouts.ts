/**
 * 60s's answer layouts of the endpoints we share that are not lists, written in our own words from
 * the types of vikiboss/60s's modules (src/modules/*.module.ts). Used by the conformance test
 * (misc.test.ts) and by the upgrade test of stored data (test/sources/migrate.test.ts).
 */
import type { Layout } from './layout.ts';

/** Daily digest. 60s declares news items as {title, link}, but its upstream files carry plain strings since 2025 and 60s passes them through. */
export const DIGEST: Layout = {
  date: 'string',
  news: ['string'],
  cover: 'string',
  tip: 'string',
  image: 'string',
  link: 'string',
  day_of_week: 'string',
  lunar_date: 'string',
  // The digest file's own text, passed through; our fetch time as 60s's Common.localeTime.
  created: 'time/m',
  created_at: 'number',
  updated: 'time/m',
  updated_at: 'number',
  api_updated: 'time/',
  api_updated_at: 'number',
};

export const TODAY_IN_HISTORY: Layout = {
  date: 'string',
  month: 'number',
  day: 'number',
  items: [{ title: 'string', year: 'string', description: 'string', event_type: 'string', link: 'string' }],
};

export const EXCHANGE_RATE: Layout = {
  base_code: 'string',
  updated: 'time/',
  updated_at: 'number',
  next_updated: 'time/',
  next_updated_at: 'number',
  rates: [{ currency: 'string', rate: 'number' }],
};

export const BING: Layout = {
  title: 'string',
  headline: 'string',
  description: 'string',
  main_text: 'string',
  cover: 'string',
  cover_4k: 'string',
  copyright: 'string',
  update_date: 'time-',
  update_date_at: 'number',
};

export const PLACE: Layout = { name: 'string', province: 'string', city: 'string', county: 'string' };
export const SUN: Layout = { sunrise: 'string', sunrise_at: 'number', sunrise_desc: 'string', sunset: 'string', sunset_at: 'number', sunset_desc: 'string' };

export const WEATHER_NOW: Layout = {
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

export const WEATHER_FORECAST: Layout = {
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

export const PILLAR: Layout = { heaven_stem: 'string', earth_branch: 'string', name: 'string', name_short: 'string' };
export const HOUR_TABOO: Layout = { hour: 'string', hour_short: 'string', recommends: 'string', avoids: 'string' };
export const FOUR = (t: Layout): Layout => ({ year: t, month: t, day: t, hour: t });

export const LUNAR: Layout = {
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

/** 60s passes ip.sb's latitude and longitude through as numbers ('' when it has none). */
export const IP: Layout = {
  ...Object.fromEntries(
    ['ip', 'continent', 'country', 'zipcode', 'timezone', 'accuracy', 'owner', 'isp', 'source', 'areacode', 'adcode', 'asnumber', 'radius', 'prov', 'city', 'district'].map((f) => [f, 'string']),
  ),
  lat: 'number',
  lng: 'number',
};

export const COLOR: Layout = {
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

export const PALETTE: Layout = {
  input: { hex: 'string', rgb: { r: 'number', g: 'number', b: 'number' }, hsl: { h: 'number', s: 'number', l: 'number' }, name: 'string' },
  palettes: [{ name: 'string', description: 'string', colors: [{ hex: 'string', name: 'string', role: 'string', theory: 'string' }] }],
  metadata: { color_theory: 'string', total_palettes: 'number', applications: ['string'] },
};

export const SIDE: Layout = { text: 'string', type: 'string', type_desc: 'string', pronounce: 'string' };

export const GOLD_QUOTE = { price: 'string', unit: 'string', formatted: 'string', updated: 'string', updated_at: 'number' } as const;
export const GOLD: Layout = {
  date: 'string',
  // 60s's interface omits the metals' updated fields, yet serves them.
  metals: [{ name: 'string', sell_price: 'string', today_price: 'string', high_price: 'string', low_price: 'string', unit: 'string', 'updated?': 'string', 'updated_at?': 'number' }],
  stores: [{ brand: 'string', product: 'string', ...GOLD_QUOTE }],
  banks: [{ bank: 'string', product: 'string', time: 'string', ...GOLD_QUOTE }],
  recycle: [{ type: 'string', purity: 'string', ...GOLD_QUOTE }],
};

export const FUEL: Layout = {
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
  updated: 'time/',
  updated_at: 'number',
};

/** 60s's health report: each value as text with its label in `<name>_desc`. */
function described(...names: string[]): Record<string, Layout> {
  return Object.fromEntries(names.flatMap((n) => [[n, 'string'], [`${n}_desc`, 'string']]));
}
export const HEALTH: Layout = {
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

export const PROGRESS: Layout = { passed: 'number', total: 'number', remaining: 'number', percentage: 'number' };
export const MOYU: Layout = {
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

export const OLYMPICS: Layout = {
  event_id: 'string',
  event_name: 'string',
  start_date: 'string',
  end_date: 'string',
  updated: 'time-',
  updated_at: 'number',
  list: [{ rank: 'number', code: 'string', country: 'string', gold: 'number', silver: 'number', bronze: 'number', total: 'number', flag: 'string' }],
};

export const PASSWORD: Layout = {
  password: 'string',
  length: 'number',
  config: { include_numbers: 'boolean', include_symbols: 'boolean', include_lowercase: 'boolean', include_uppercase: 'boolean', exclude_similar: 'boolean', exclude_ambiguous: 'boolean' },
  character_sets: { lowercase: 'string', uppercase: 'string', numbers: 'string', symbols: 'string', used_sets: ['string'] },
  generation_info: { entropy: 'number', strength: 'string', time_to_crack: 'string' },
};

export const PASSWORD_CHECK: Layout = {
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

export const WHOIS: Layout = {
  domain: 'string',
  unicode_domain: 'string',
  punycode_domain: 'string',
  status: ['string'],
  registrar: 'string',
  registrant: { name: 'string', organization: 'string', email: 'string', country: 'string' },
  nameservers: ['string'],
  dnssec: 'boolean|string',
  created: 'time/',
  updated: 'time/',
  expires: 'time/',
  created_at: 'number',
  updated_at: 'number',
  expires_at: 'number',
  duration: 'number',
  duration_desc: 'string',
};

export const LYRIC: Layout = {
  title: 'string',
  artists: ['string'],
  album: 'string',
  offset: 'number',
  lyrics: [{ ms: 'number', time: 'string', label: 'string', lyric: 'string' }],
  formatted: 'string',
  raw_lyric: 'string',
};

export const CHANGYA: Layout = {
  user: { nickname: 'string', gender: 'string', avatar_url: 'string' },
  song: { name: 'string', singer: 'string', lyrics: ['string'] },
  audio: { url: 'string', duration: 'number', like_count: 'number', link: 'string', publish: 'time/', publish_at: 'number' },
};

export const BAIKE: Layout = { title: 'string', description: 'string', abstract: 'string', cover: 'string', has_other: 'boolean', link: 'string' };
export const OG: Layout = { title: 'string', image: 'string', description: 'string' };
