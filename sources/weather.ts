/**
 * Weather from Tencent's news weather service (i.news.qq.com, the API behind the QQ news
 * weather cards). A region name is first resolved with `city/like` (`{"<code>": "省, 市[, 区]"}`),
 * then `weather/common` answers the observation, hourly and daily forecasts, life indices,
 * alerts and sunrise times for that province/city/county; air quality comes from a second call
 * with `weather_type=air`. Older answers key lists by "0", "1"… in objects, newer ones use arrays;
 * `forecast_24h` starts with yesterday. Both calls want the news.qq.com Referer.
 */
import { SourceError } from '../src/kernel/errors.ts';
import { missingPath, need } from '../src/kernel/json-path.ts';
import { defineSource, type FetchContext } from '../src/kernel/source.ts';
import { addDays, formatDate, formatDateTime, weekdayZh } from '../src/kernel/time.ts';
import { htmlTable, mdTable } from './_shared/format.ts';
import { escapeHtml, escapeMarkdown } from '../src/encoding/escape.ts';
import { asArray, asRecord, asString } from './_shared/hot-list.ts';

export const CITY_URL = 'https://i.news.qq.com/city/like';
export const WEATHER_URL = 'https://i.news.qq.com/weather/common';
const MAIN_TYPES = 'observe|forecast_1h|forecast_24h|index|alarm|limit|tips|rise';

export interface Location {
  name: string;
  province: string;
  city: string;
  county: string;
  code: string;
}

export interface Observation {
  condition: string;
  condition_code: string;
  temperature: number | null;
  humidity: number | null;
  pressure: number | null;
  precipitation: number | null;
  wind_direction: string;
  wind_power: string;
  /** Icon of the condition (empty when the upstream gives none). */
  weather_icon: string;
  /** Colours of the condition card (empty when the upstream gives none). */
  weather_colors: string[];
  observed: string;
  observed_at: number | null;
  /** Same as `observed` (60s's name). */
  updated: string;
  updated_at: number | null;
}

export interface AirQuality {
  aqi: number | null;
  level: number | null;
  quality: string;
  pm25: number | null;
  pm10: number | null;
  co: number | null;
  no2: number | null;
  o3: number | null;
  so2: number | null;
  rank: number | null;
  total_cities: number | null;
  observed: string;
  observed_at: number | null;
  /** Same as `observed` (60s's name). */
  updated: string;
  updated_at: number | null;
}

export interface SunTimes {
  date: string;
  /** `YYYY-MM-DD HH:mm:ss` (empty when unknown); `sunrise_desc` is the bare `HH:mm`. */
  sunrise: string;
  sunrise_at: number | null;
  sunrise_desc: string;
  sunset: string;
  sunset_at: number | null;
  sunset_desc: string;
}

export interface LifeIndex {
  key: string;
  name: string;
  level: string;
  description: string;
}

export interface Alert {
  type: string;
  level: string;
  level_code: string;
  province: string;
  city: string;
  county: string;
  detail: string;
  published: string;
  published_at: number | null;
  /** Same as `published` (60s's name). */
  updated: string;
  updated_at: number | null;
}

export interface RealtimeWeather {
  kind: 'realtime';
  location: Location;
  weather: Observation;
  air_quality: AirQuality | null;
  sunrise: SunTimes | null;
  life_indices: LifeIndex[];
  alerts: Alert[];
  tips: string[];
  updated: string;
  updated_at: number;
}

export interface HourlyForecast {
  /** `YYYY-MM-DD HH:mm` */
  time: string;
  time_at: number | null;
  /** Same as `time` (60s's name). */
  datetime: string;
  temperature: number | null;
  condition: string;
  condition_code: string;
  wind_direction: string;
  wind_power: string;
  weather_icon: string;
}

export interface DailyForecast {
  date: string;
  weekday: string;
  day_condition: string;
  day_condition_code: string;
  night_condition: string;
  night_condition_code: string;
  max_temperature: number | null;
  min_temperature: number | null;
  day_wind_direction: string;
  day_wind_power: string;
  night_wind_direction: string;
  night_wind_power: string;
  aqi: number | null;
  aqi_level: number | null;
  air_quality: string;
  day_weather_icon: string;
  night_weather_icon: string;
}

export interface ForecastWeather {
  kind: 'forecast';
  location: Location;
  days: number;
  hourly_forecast: HourlyForecast[];
  daily_forecast: DailyForecast[];
  sunrise_sunset: SunTimes[];
  updated: string;
  updated_at: number;
}

export type WeatherData = RealtimeWeather | ForecastWeather;

// China Meteorological Administration wind direction codes, as the observation gives them.
const WIND_DIRECTIONS = ['无持续风向', '东北风', '东风', '东南风', '南风', '西南风', '西风', '西北风', '北风', '旋转风'];

/** Lists come as arrays or as objects keyed "0", "1", … */
function listOf(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  const r = asRecord(v);
  if (!r) return [];
  return Object.keys(r)
    .filter((k) => /^\d+$/.test(k))
    .sort((a, b) => Number(a) - Number(b))
    .map((k) => r[k]);
}

/** A signed number from a number or a numeric string; null otherwise. */
function num(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  const s = str(v);
  return /^-?\d+(\.\d+)?$/.test(s) ? Number(s) : null;
}

function str(v: unknown): string {
  return asString(v)?.trim() ?? '';
}

/** "20200620084000", "202006200840" or "20200620" (Asia/Shanghai) → ms. */
export function compactTimeMs(v: unknown): number | null {
  const m = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2})?)?$/.exec(str(v));
  if (!m) return null;
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4] ?? '00'}:${m[5] ?? '00'}:${m[6] ?? '00'}+08:00`);
  return Number.isNaN(ms) ? null : ms;
}

function windDirection(v: unknown, name?: unknown): string {
  const n = str(name);
  if (n) return n;
  const s = str(v);
  return /^\d$/.test(s) ? (WIND_DIRECTIONS[Number(s)] ?? s) : s;
}

function sunTimes(entry: unknown): SunTimes | null {
  const r = asRecord(entry);
  const day = compactTimeMs(r?.time);
  if (!r || day === null) return null;
  const at = (hm: string) => (/^\d{1,2}:\d{2}$/.test(hm) ? day + (Number(hm.split(':')[0]) * 60 + Number(hm.split(':')[1])) * 60_000 : null);
  const sunrise = str(r.sunrise);
  const sunset = str(r.sunset);
  const sunriseAt = at(sunrise);
  const sunsetAt = at(sunset);
  return {
    date: formatDate(day),
    sunrise: sunriseAt === null ? '' : formatDateTime(sunriseAt),
    sunrise_at: sunriseAt,
    sunrise_desc: sunrise,
    sunset: sunsetAt === null ? '' : formatDateTime(sunsetAt),
    sunset_at: sunsetAt,
    sunset_desc: sunset,
  };
}

/** The answer's `data`, or the reason it has none. */
function weatherData(raw: unknown): Record<string, unknown> {
  const r = need(raw, '', asRecord, 'a JSON object');
  if (r.status !== undefined && Number(r.status) !== 200) throw new SourceError('transient', `weather service answered status ${String(r.status)}: ${str(r.message)}`);
  const data = asRecord(r.data);
  if (!data || !asRecord(data.observe)) throw missingPath(r, 'data.observe', 'an object');
  return data;
}

/** Pick the region from a `city/like` answer. */
export function pickLocation(raw: unknown, query: string, hint: { province?: string | undefined; city?: string | undefined } = {}): Location {
  const r = need(raw, '', asRecord, 'a JSON object');
  if (r.status !== undefined && Number(r.status) !== 200) throw new SourceError('transient', `city search answered status ${String(r.status)}: ${str(r.message)}`);
  const found = Object.entries(asRecord(r.data) ?? {})
    .map(([code, v]) => {
      const [province = '', city = '', county = ''] = str(v).split(/\s*,\s*/);
      return { code, province, city, county };
    })
    .filter((c) => c.province);
  const bare = (s: string) => (s.length > 2 ? s.replace(/(特别行政区|维吾尔自治区|壮族自治区|回族自治区|自治区|省|市|区|县)$/, '') : s);
  const matches = found.filter(
    (c) => (!hint.province || bare(c.province) === bare(hint.province)) && (!hint.city || bare(c.city) === bare(hint.city) || bare(c.county) === bare(hint.city)),
  );
  const within = [hint.province, hint.city].filter(Boolean).join(' ');
  if (!matches.length) {
    throw new SourceError('not_found', `No region matches "${query}"${within ? ` in ${within}` : ''}. Use a Chinese city or county name such as 北京, 上海 or 海淀 (URL-encoded), with province or city to tell places of the same name apart.`);
  }
  // The place named exactly as asked wins ("北京" → the city, not one of its districts).
  const q = bare(query);
  const best = matches.find((c) => bare(c.county || c.city) === q) ?? matches.find((c) => !c.county && bare(c.city) === q) ?? matches[0]!;
  const name = [best.province, best.city, best.county].filter((x, i, all) => x && all.indexOf(x) === i).join('');
  return { name, ...best };
}

export function parseRealtime(raw: unknown, airRaw: unknown, location: Location, now: Date): RealtimeWeather {
  const data = weatherData(raw);
  const o = asRecord(data.observe) as Record<string, unknown>;
  const air = asRecord(asRecord(asRecord(airRaw)?.data)?.air) ?? asRecord(data.air);
  const observedAt = compactTimeMs(o.update_time);
  const airAt = compactTimeMs(air?.update_time);
  const today = formatDate(now.getTime());
  const rises = listOf(data.rise).map(sunTimes).filter((s): s is SunTimes => !!s);
  const tips = asRecord(asRecord(data.tips)?.observe);
  const at = now.getTime();
  return {
    kind: 'realtime',
    location,
    weather: {
      condition: str(o.weather),
      condition_code: str(o.weather_code),
      temperature: num(o.degree),
      humidity: num(o.humidity),
      pressure: num(o.pressure),
      precipitation: num(o.precipitation),
      wind_direction: windDirection(o.wind_direction, o.wind_direction_name),
      wind_power: str(o.wind_power),
      weather_icon: str(o.weather_url),
      weather_colors: listOf(o.weather_color).map(str).filter(Boolean),
      observed: observedAt === null ? '' : formatDateTime(observedAt),
      observed_at: observedAt,
      updated: observedAt === null ? '' : formatDateTime(observedAt),
      updated_at: observedAt,
    },
    air_quality:
      air && air.aqi !== undefined
        ? {
            aqi: num(air.aqi),
            level: num(air.aqi_level),
            quality: str(air.aqi_name),
            pm25: num(air['pm2.5'] ?? air.pm25),
            pm10: num(air.pm10),
            co: num(air.co),
            no2: num(air.no2),
            o3: num(air.o3),
            so2: num(air.so2),
            rank: num(air.rank),
            total_cities: num(air.total),
            observed: airAt === null ? '' : formatDateTime(airAt),
            observed_at: airAt,
            updated: airAt === null ? '' : formatDateTime(airAt),
            updated_at: airAt,
          }
        : null,
    sunrise: rises.find((s) => s.date === today) ?? rises[0] ?? null,
    life_indices: Object.entries(asRecord(data.index) ?? {})
      .map(([key, v]) => ({ key, r: asRecord(v) }))
      .filter(({ r }) => r && str(r.name) && str(r.info))
      .map(({ key, r }) => ({ key, name: str(r?.name), level: str(r?.info), description: str(r?.detail) })),
    alerts: listOf(data.alarm)
      .map(asRecord)
      .filter((a): a is Record<string, unknown> => !!a && !!(str(a.type_name) || str(a.detail)))
      .map((a) => {
        const published = compactTimeMs(str(a.update_time).replace(/\D/g, ''));
        return {
          type: str(a.type_name),
          level: str(a.level_name),
          level_code: str(a.level_code),
          province: str(a.province),
          city: str(a.city),
          county: str(a.county),
          detail: str(a.detail),
          published: published === null ? '' : formatDateTime(published),
          published_at: published,
          updated: published === null ? '' : formatDateTime(published),
          updated_at: published,
        };
      }),
    tips: tips ? listOf(tips).map(str).filter(Boolean) : [],
    updated: formatDateTime(at),
    updated_at: at,
  };
}

export function parseForecast(raw: unknown, location: Location, days: number, now: Date): ForecastWeather {
  const data = weatherData(raw);
  const today = formatDate(now.getTime());
  const hourly = listOf(data.forecast_1h)
    .map(asRecord)
    .filter((h): h is Record<string, unknown> => !!h)
    .map((h) => {
      const t = compactTimeMs(h.update_time);
      const time = t === null ? '' : formatDateTime(t).slice(0, 16);
      return {
        time,
        time_at: t,
        datetime: time,
        temperature: num(h.degree),
        condition: str(h.weather),
        condition_code: str(h.weather_code),
        wind_direction: windDirection(h.wind_direction),
        wind_power: str(h.wind_power),
        weather_icon: str(h.weather_url),
      };
    })
    .slice(0, 48);
  const daily = listOf(data.forecast_24h)
    .map(asRecord)
    .filter((d): d is Record<string, unknown> => !!d && /^\d{4}-\d{2}-\d{2}$/.test(str(d.time)))
    // The list starts with yesterday.
    .filter((d) => str(d.time) >= today)
    .slice(0, days)
    .map((d) => ({
      date: str(d.time),
      weekday: weekdayZh(str(d.time)),
      day_condition: str(d.day_weather),
      day_condition_code: str(d.day_weather_code),
      night_condition: str(d.night_weather),
      night_condition_code: str(d.night_weather_code),
      max_temperature: num(d.max_degree),
      min_temperature: num(d.min_degree),
      day_wind_direction: str(d.day_wind_direction),
      day_wind_power: str(d.day_wind_power),
      night_wind_direction: str(d.night_wind_direction),
      night_wind_power: str(d.night_wind_power),
      aqi: num(d.aqi),
      aqi_level: num(d.aqi_level),
      air_quality: str(d.aqi_name),
      day_weather_icon: str(d.day_weather_url),
      night_weather_icon: str(d.night_weather_url),
    }));
  const last = addDays(today, days - 1);
  const at = now.getTime();
  return {
    kind: 'forecast',
    location,
    days,
    hourly_forecast: hourly,
    daily_forecast: daily,
    sunrise_sunset: listOf(data.rise)
      .map(sunTimes)
      .filter((s): s is SunTimes => !!s && s.date >= today && s.date <= last),
    updated: formatDateTime(at),
    updated_at: at,
  };
}

/** Whether stored data has a field (not a type guard: the stored value may predate the type). */
const has = (o: object, field: string): boolean => field in o;

/** A sun time stored before 60s's shape held the bare `HH:mm` in `sunrise`/`sunset`; it moves to `_desc`. */
function upgradeSun(s: SunTimes): SunTimes {
  if (has(s, 'sunrise_desc')) return s;
  const at = (ms: number | null) => (ms === null ? '' : formatDateTime(ms));
  return { date: s.date, sunrise: at(s.sunrise_at), sunrise_at: s.sunrise_at, sunrise_desc: s.sunrise, sunset: at(s.sunset_at), sunset_at: s.sunset_at, sunset_desc: s.sunset };
}

/**
 * Weather stored before 60s's shape (release 271b638). 60s's `updated` of the observation, the air
 * quality and the alerts is their observed or published time; the hourly `datetime` is `time`;
 * sun times gain their date-time. Icons, condition colours and the daily AQI level were not kept,
 * so they are empty (as today when the upstream gives none). Today's data passes unchanged.
 */
export function migrate(stored: unknown): WeatherData | undefined {
  const d = asRecord(stored) as WeatherData | undefined;
  if (!d) return undefined;
  if (d.kind === 'realtime') {
    if (!d.weather || has(d.weather, 'weather_icon')) return d;
    const w = d.weather;
    return {
      ...d,
      weather: { ...w, weather_icon: '', weather_colors: [], updated: w.observed, updated_at: w.observed_at },
      air_quality: d.air_quality && { ...d.air_quality, updated: d.air_quality.observed, updated_at: d.air_quality.observed_at },
      sunrise: d.sunrise && upgradeSun(d.sunrise),
      alerts: (d.alerts ?? []).map((a) => ({ ...a, updated: a.published, updated_at: a.published_at })),
    };
  }
  if (d.kind !== 'forecast') return undefined;
  const current = d.hourly_forecast.every((h) => has(h, 'datetime')) && d.daily_forecast.every((x) => has(x, 'aqi_level')) && d.sunrise_sunset.every((x) => has(x, 'sunrise_desc'));
  if (current) return d;
  return {
    ...d,
    hourly_forecast: d.hourly_forecast.map((h) => (has(h, 'datetime') ? h : { ...h, datetime: h.time, weather_icon: '' })),
    daily_forecast: d.daily_forecast.map((x) => (has(x, 'aqi_level') ? x : { ...x, aqi_level: null, day_weather_icon: '', night_weather_icon: '' })),
    sunrise_sunset: d.sunrise_sunset.map(upgradeSun),
  };
}

export function validateWeather(d: WeatherData): string | undefined {
  if (d.kind === 'realtime') {
    if (d.weather.temperature === null || !d.weather.condition) return 'the observation has no temperature or condition';
    if (d.weather.temperature < -80 || d.weather.temperature > 70) return `implausible temperature ${d.weather.temperature}`;
    return undefined;
  }
  if (!d.daily_forecast.length) return 'no daily forecast from today on';
  return d.daily_forecast.some((x) => x.max_temperature === null || x.min_temperature === null) ? 'a day of the forecast has no temperatures' : undefined;
}

async function locate(ctx: FetchContext<WeatherData>, query: string, hint: { province?: string | undefined; city?: string | undefined }): Promise<Location> {
  // "海淀区" is listed as "海淀": a trailing administrative suffix is dropped for the search.
  const term = query.length > 2 ? query.replace(/(省|市|区|县)$/, '') : query;
  const raw = await ctx.http.json(CITY_URL, { signal: ctx.signal, searchParams: { source: 'pc', city: term } });
  return pickLocation(raw, query, hint);
}

const t = (n: number | null, unit = '') => (n === null ? '-' : `${n}${unit}`);

function realtimeText(d: RealtimeWeather): string {
  const w = d.weather;
  const lines = [`📍 ${d.location.name} 实时天气`, `🌡️ ${w.condition} ${t(w.temperature, '°C')}  湿度 ${t(w.humidity, '%')}  气压 ${t(w.pressure, ' hPa')}`, `💨 ${w.wind_direction} ${w.wind_power} 级  降水 ${t(w.precipitation, ' mm')}`];
  if (d.air_quality) lines.push(`🌫️ 空气质量 ${d.air_quality.quality}（AQI ${t(d.air_quality.aqi)}，PM2.5 ${t(d.air_quality.pm25)}）`);
  if (d.sunrise) lines.push(`🌅 日出 ${d.sunrise.sunrise_desc}  日落 ${d.sunrise.sunset_desc}`);
  for (const a of d.alerts) lines.push(`⚠️ ${a.type}${a.level}预警：${a.detail}`);
  const picks = d.life_indices.filter((i) => ['clothes', 'umbrella', 'ultraviolet', 'sports'].includes(i.key));
  if (picks.length) lines.push(picks.map((i) => `${i.name}：${i.level}`).join('；'));
  if (d.tips[0]) lines.push(`💡 ${d.tips[0]}`);
  lines.push('', `观测时间 ${d.weather.observed}`);
  return `${lines.join('\n')}\n`;
}

function forecastText(d: ForecastWeather): string {
  const days = d.daily_forecast.map(
    (x) => `${x.date} ${x.weekday} ${x.day_condition}${x.night_condition && x.night_condition !== x.day_condition ? `转${x.night_condition}` : ''} ${t(x.min_temperature)}~${t(x.max_temperature)}°C ${x.day_wind_direction}${x.day_wind_power ? ` ${x.day_wind_power} 级` : ''}`,
  );
  const hours = d.hourly_forecast.slice(0, 12).map((h) => `${h.time.slice(11)} ${h.condition} ${t(h.temperature, '°C')}`);
  return `📍 ${d.location.name} 未来 ${d.daily_forecast.length} 天天气\n\n${days.join('\n')}\n\n逐小时：\n${hours.join('\n')}\n\n更新于 ${d.updated}\n`;
}

const DAILY_HEAD = ['日期', '星期', '白天', '夜间', '最低', '最高', '风向', '风力', '空气'];
const dailyRow = (x: DailyForecast) => [x.date, x.weekday, x.day_condition, x.night_condition, t(x.min_temperature, '°C'), t(x.max_temperature, '°C'), x.day_wind_direction, x.day_wind_power, x.air_quality];
const HOURLY_HEAD = ['时间', '天气', '温度', '风向', '风力'];
const hourlyRow = (h: HourlyForecast) => [h.time, h.condition, t(h.temperature, '°C'), h.wind_direction, h.wind_power];

function realtimeRows(d: RealtimeWeather): [string, string][] {
  const w = d.weather;
  const rows: [string, string][] = [
    ['天气', w.condition],
    ['温度', t(w.temperature, '°C')],
    ['湿度', t(w.humidity, '%')],
    ['气压', t(w.pressure, ' hPa')],
    ['降水', t(w.precipitation, ' mm')],
    ['风', `${w.wind_direction} ${w.wind_power} 级`],
  ];
  if (d.air_quality) rows.push(['空气质量', `${d.air_quality.quality}（AQI ${t(d.air_quality.aqi)}）`]);
  if (d.sunrise) rows.push(['日出 / 日落', `${d.sunrise.sunrise_desc} / ${d.sunrise.sunset_desc}`]);
  return rows;
}

export default defineSource({
  id: 'weather',
  name: '天气',
  description: 'Current weather (temperature, humidity, wind, air quality, sunrise, life indices, alerts) or the hourly and daily forecast of a Chinese region, by name.',
  homepage: 'https://news.qq.com/',
  routes: [
    { path: '/weather', fixed: { kind: 'realtime', days: '1' } },
    { path: '/weather/forecast', fixed: { kind: 'forecast' }, example: '/v2/apis/weather/forecast?query=%E4%B8%8A%E6%B5%B7&days=3&encoding=text', summary: 'Hourly forecast (48 h) and daily forecast (up to 8 days from today) of a Chinese region, with sunrise and sunset.' },
  ],
  params: {
    kind: { type: 'string', enum: ['realtime', 'forecast'], default: 'realtime', doc: 'Set by the route.' },
    query: { type: 'string', default: '北京', maxLength: 40, doc: 'Region name: a city or county such as 北京, 上海 or 海淀 (URL-encode Chinese characters).', example: '上海' },
    province: { type: 'string', maxLength: 20, doc: 'Province, to tell places of the same name apart (e.g. 辽宁 for 朝阳).', example: '辽宁' },
    city: { type: 'string', maxLength: 20, doc: 'City, to tell counties of the same name apart.', example: '朝阳' },
    days: { type: 'integer', default: 7, min: 1, max: 8, doc: 'Days of the daily forecast, from today (1–8).', example: '3' },
  },
  mode: 'on-demand',
  freshness: { ttlSec: 600, backoffCapSec: 1800 },
  headers: { referer: 'https://news.qq.com/', accept: 'application/json, text/plain, */*' },
  async fetch(ctx, params) {
    const location = await locate(ctx, params.query, { province: params.province, city: params.city });
    const searchParams = (types: string) => ({ source: 'pc', weather_type: types, province: location.province, city: location.city, county: location.county });
    if (params.kind === 'forecast') {
      const raw = await ctx.http.json(WEATHER_URL, { signal: ctx.signal, searchParams: searchParams(MAIN_TYPES) });
      return parseForecast(raw, location, params.days, ctx.now());
    }
    const [raw, air] = await Promise.all([
      ctx.http.json(WEATHER_URL, { signal: ctx.signal, searchParams: searchParams(MAIN_TYPES) }),
      // Air quality is a nice-to-have: without it the observation is still served.
      ctx.http.json(WEATHER_URL, { signal: ctx.signal, searchParams: { source: 'pc', weather_type: 'air|rise', province: location.province, city: location.city } }).catch((err: unknown) => {
        ctx.log.warn({ err: (err as Error).message }, 'air quality unavailable');
        return undefined;
      }),
    ]);
    return parseRealtime(raw, air, location, ctx.now());
  },
  validate: validateWeather,
  migrate,
  count: (d) => (d.kind === 'forecast' ? d.daily_forecast.length : 1),
  view: {
    title: (d) => (d.kind === 'forecast' ? `${d.location.name} 天气预报` : `${d.location.name} 实时天气`),
    text: (d) => (d.kind === 'forecast' ? forecastText(d) : realtimeText(d)),
    markdown: (d) => {
      if (d.kind === 'forecast') {
        return `# ${escapeMarkdown(d.location.name)} 天气预报\n\n## 未来 ${d.daily_forecast.length} 天\n\n${mdTable(DAILY_HEAD, d.daily_forecast.map(dailyRow))}\n\n## 逐小时\n\n${mdTable(HOURLY_HEAD, d.hourly_forecast.slice(0, 24).map(hourlyRow))}\n\n_更新于 ${d.updated}_\n`;
      }
      const alerts = d.alerts.map((a) => `> ⚠️ **${escapeMarkdown(`${a.type}${a.level}预警`)}**：${escapeMarkdown(a.detail)}`).join('\n>\n');
      return `# ${escapeMarkdown(d.location.name)} 实时天气\n\n${mdTable(['项目', '数值'], realtimeRows(d))}\n\n${alerts ? `${alerts}\n\n` : ''}## 生活指数\n\n${mdTable(['指数', '等级', '说明'], d.life_indices.map((i) => [i.name, i.level, i.description]))}\n\n_观测时间 ${d.weather.observed}_\n`;
    },
    htmlBody: (d) => {
      if (d.kind === 'forecast') return [htmlTable(DAILY_HEAD, d.daily_forecast.map(dailyRow)), '<h2>逐小时</h2>', htmlTable(HOURLY_HEAD, d.hourly_forecast.slice(0, 24).map(hourlyRow))].join('\n');
      const alerts = d.alerts.map((a) => `<p><strong>⚠️ ${escapeHtml(`${a.type}${a.level}预警`)}</strong>：${escapeHtml(a.detail)}</p>`);
      return [
        htmlTable(['项目', '数值'], realtimeRows(d)),
        ...alerts,
        '<h2>生活指数</h2>',
        htmlTable(['指数', '等级', '说明'], d.life_indices.map((i) => [i.name, i.level, i.description])),
        `<p class="s">${escapeHtml(`观测时间 ${d.weather.observed}`)}</p>`,
      ].join('\n');
    },
    encodings: ['json', 'text', 'markdown', 'html'],
  },
  example: '/v2/apis/weather?query=%E4%B8%8A%E6%B5%B7&encoding=text',
});
