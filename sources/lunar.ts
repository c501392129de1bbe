/**
 * 农历: the Chinese calendar of a day, computed locally with tyme4ts: lunar date, sexagenary
 * (干支) year/month/day, zodiac, 纳音, solar terms, festivals, the legal holiday of mainland China,
 * moon phase, 建除 duty, 28 mansions, 彭祖百忌 and the almanac's 宜/忌. `date` (YYYY-MM-DD,
 * 1900–2100) defaults to today in Asia/Shanghai.
 */
import type { SixtyCycle, SolarDay } from 'tyme4ts';
import { escapeMarkdown } from '../src/encoding/escape.ts';
import { badParam } from '../src/kernel/errors.ts';
import { defineSource } from '../src/kernel/source.ts';
import { DAY_MS, formatDateTime, weekdayZh } from '../src/kernel/time.ts';
import { tyme } from './_shared/tyme.ts';

export const MIN_YEAR = 1900;
export const MAX_YEAR = 2100;

const iso = (s: SolarDay) => `${String(s.getYear()).padStart(4, '0')}-${String(s.getMonth()).padStart(2, '0')}-${String(s.getDay()).padStart(2, '0')}`;

/** ISO 8601 week number. */
function isoWeek(date: string): number {
  const d = new Date(`${date}T00:00:00Z`);
  const day = (d.getUTCDay() + 6) % 7;
  d.setUTCDate(d.getUTCDate() - day + 3);
  const week1 = new Date(Date.UTC(d.getUTCFullYear(), 0, 4));
  return 1 + Math.round(((d.getTime() - week1.getTime()) / DAY_MS - 3 + ((week1.getUTCDay() + 6) % 7)) / 7);
}

/** A sexagenary (干支) pillar: stem, branch, name with its unit (`丙午年`) and bare (`丙午`). */
export interface Pillar {
  heaven_stem: string;
  earth_branch: string;
  name: string;
  name_short: string;
}

/** 宜 and 忌 as 60s gives them: joined with `.`. */
interface TabooText {
  recommends: string;
  avoids: string;
}

/**
 * 60s's layout (solar, lunar, stats, term, zodiac, sixty_cycle, legal_holiday, festival, phase,
 * constellation, taboo, julian_day, nayin, baizi, fortune, constants) with our fields beside
 * its own. The hour-dependent parts use the time of the request, or 00:00 when `date` is given.
 */
export interface LunarInfo {
  solar: {
    date: string;
    year: number;
    month: number;
    day: number;
    hour: number;
    minute: number;
    second: number;
    /** `YYYY-MM-DD` */
    full: string;
    full_with_time: string;
    /** 0 = Sunday … 6 = Saturday (60s); `weekday` counts 1 = Monday … 7 = Sunday. */
    week: number;
    week_desc: string;
    week_desc_short: string;
    weekday: number;
    weekday_name: string;
    /** Quarter of the year, 1–4, and its names. */
    season: number;
    season_desc: string;
    season_desc_short: string;
    season_name: string;
    season_name_desc: string;
    is_leap_year: boolean;
    day_of_year: number;
    /** ISO 8601 week. */
    week_of_year: number;
    constellation: string;
  };
  lunar: {
    /** 60s's text fields: `丙午`, `正` (month without 闰/月), `初一`, `巳` (hour without 时). */
    year: string;
    month: string;
    day: string;
    hour: string;
    full_with_hour: string;
    desc_short: string;
    year_desc: string;
    month_desc: string;
    day_desc: string;
    hour_desc: string;
    is_leap_month: boolean;
    year_number: number;
    month_number: number;
    day_number: number;
    year_name: string;
    month_name: string;
    day_name: string;
    days_in_month: number;
    full: string;
  };
  stats: {
    day_of_year: number;
    /** Weeks starting on Sunday, as 60s counts them. */
    week_of_year: number;
    week_of_month: number;
    /** Fractions (0–1) of the year, month, week (from Monday) and day elapsed at this time. */
    percents: { year: number; month: number; week: number; day: number };
    percents_formatted: { year: string; month: string; week: string; day: string };
  };
  term: { today: string | null; stage: { name: string; position: number; is_jie: boolean; is_qi: boolean } };
  zodiac: { year: string; month: string; day: string; hour: string };
  sixty_cycle: { year: Pillar; month: Pillar; day: Pillar; hour: Pillar };
  /** 干支 of year and month counted from the solar terms (立春, 节), as used by 八字; `sixty_cycle` counts by lunar year and month. */
  sixty_cycle_by_term: { year: string; month: string; day: string };
  nayin: { year: string; month: string; day: string; hour: string };
  solar_term: { today: string | null; current: { name: string; start: string; day_index: number }; next: { name: string; date: string; days_until: number } };
  festival: { solar: string | null; lunar: string | null; both_desc: string | null };
  legal_holiday: { name: string; is_work: boolean } | null;
  phase: { name: string; position: number; day_index: number };
  constellation: { name: string; name_short: string };
  duty: string;
  twenty_eight_star: string;
  peng_zu: string;
  /** `day`/`hour`/`hours`: 60s's text form; `recommends`/`avoids`: the day's lists. */
  taboo: {
    day: TabooText;
    hour: TabooText & { hour: string; hour_short: string };
    hours: (TabooText & { hour: string; hour_short: string })[];
    recommends: string[];
    avoids: string[];
  };
  julian_day: number;
  /** 60s's `baizi`: the 干支 and 纳音 of the year and of the day in words. */
  baizi: { year_baizi: string; day_baizi: string };
  /**
   * 60s's `fortune`, read from the almanac rather than invented: `today_luck` is the day's
   * 黄道/黑道 star, the others the day's 宜/忌 that concern work, money and love.
   */
  fortune: { today_luck: string; career: string; money: string; love: string };
  constants: {
    legal_holiday_list: { name: string; date: string | null; start: string; end: string }[];
    phase_list: { name: string; lunar_day: number }[];
    zodiac_list: string[];
    constellation_list: { name: string; desc: string; start: string; end: string; range: string; start_month: number; start_day: number; end_month: number; end_day: number }[];
    heaven_stems: string[];
    earth_branches: string[];
    solar_terms: { name: string; desc: string }[];
  };
}

/** Time of day in Asia/Shanghai. */
export interface TimeOfDay {
  hour: number;
  minute: number;
  second: number;
}

const pad = (n: number) => String(n).padStart(2, '0');
const SEASON_NAMES = ['春', '夏', '秋', '冬'];
const CAREER = ['开市', '立券', '交易', '出行', '入宅', '移徙', '修造', '动土', '上梁', '开仓', '赴任'];
const MONEY = ['纳财', '开市', '交易', '立券', '求财', '开仓', '出货财'];
const LOVE = ['嫁娶', '纳采', '订盟', '会亲友', '求嗣', '冠笄', '结婚姻'];
/** The usual lunar day of each of the eight phases. */
const PHASE_DAYS = [1, 4, 8, 11, 15, 19, 23, 26];
const SOLAR_TERM_DESC: [string, string][] = [
  ['立春', '春季开始'], ['雨水', '降水增多'], ['惊蛰', '春雷始鸣'], ['春分', '昼夜平分'], ['清明', '气清景明'], ['谷雨', '雨水滋润谷物'],
  ['立夏', '夏季开始'], ['小满', '夏熟作物籽粒渐满'], ['芒种', '麦收与播种'], ['夏至', '白昼最长'], ['小暑', '开始炎热'], ['大暑', '一年最热'],
  ['立秋', '秋季开始'], ['处暑', '暑热将尽'], ['白露', '夜凉露生'], ['秋分', '昼夜平分'], ['寒露', '露水更凉'], ['霜降', '开始降霜'],
  ['立冬', '冬季开始'], ['小雪', '开始降雪'], ['大雪', '降雪增多'], ['冬至', '白昼最短'], ['小寒', '开始寒冷'], ['大寒', '一年最冷'],
];

function pillar(c: SixtyCycle, unit: string): Pillar {
  return { heaven_stem: c.getHeavenStem().getName(), earth_branch: c.getEarthBranch().getName(), name: `${c.getName()}${unit}`, name_short: c.getName() };
}

function tabooText(t: { getRecommends(): { getName(): string }[]; getAvoids(): { getName(): string }[] }): TabooText {
  return { recommends: t.getRecommends().map((x) => x.getName()).join('.'), avoids: t.getAvoids().map((x) => x.getName()).join('.') };
}

function concerning(words: readonly string[], recommends: string[], avoids: string[]): string {
  const yes = recommends.filter((r) => words.includes(r));
  const no = avoids.filter((a) => words.includes(a));
  const parts = [...(yes.length ? [`宜${yes.join('、')}`] : []), ...(no.length ? [`忌${no.join('、')}`] : [])];
  return parts.length ? parts.join('；') : '黄历无相关宜忌';
}

/** The legal holidays of a year (days off grouped by name), with the festival's own day where it has a fixed rule. */
function legalHolidays(year: number): LunarInfo['constants']['legal_holiday_list'] {
  const { LegalHoliday, LunarDay, SolarDay, SolarTerm } = tyme();
  const blocks = new Map<string, { start: string; end: string }>();
  for (let day = SolarDay.fromYmd(year, 1, 1); day.getYear() === year; day = day.next(1)) {
    const h = LegalHoliday.fromYmd(day.getYear(), day.getMonth(), day.getDay());
    if (!h || h.isWork()) continue;
    const b = blocks.get(h.getName());
    if (b) b.end = iso(day);
    else blocks.set(h.getName(), { start: iso(day), end: iso(day) });
  }
  const lunarDate = (m: number, d: number) => iso(LunarDay.fromYmd(year, m, d).getSolarDay());
  const fixed: Record<string, () => string> = {
    元旦: () => `${year}-01-01`,
    春节: () => iso(LunarDay.fromYmd(year, 1, 1).getSolarDay()),
    清明节: () => iso(SolarTerm.fromName(year, '清明').getJulianDay().getSolarDay()),
    劳动节: () => `${year}-05-01`,
    端午节: () => lunarDate(5, 5),
    中秋节: () => lunarDate(8, 15),
    国庆节: () => `${year}-10-01`,
  };
  return [...blocks].map(([name, b]) => {
    const date = fixed[name]?.() ?? null;
    return { name, date: date && date >= b.start && date <= b.end ? date : null, start: b.start, end: b.end };
  });
}

/**
 * Each sign's dates, read from the library's sign of every day of a common year: worked out on
 * first use (walking 365 days costs ~13 ms, which the service's start need not pay).
 */
let constellations: LunarInfo['constants']['constellation_list'] | undefined;
const constellationList = (): LunarInfo['constants']['constellation_list'] => (constellations ??= readConstellations());
function readConstellations(): LunarInfo['constants']['constellation_list'] {
  const { Constellation, SolarDay } = tyme();
  const first = new Map<string, [number, number]>();
  const last = new Map<string, [number, number]>();
  for (let day = SolarDay.fromYmd(2025, 1, 1); day.getYear() === 2025; day = day.next(1)) {
    const name = day.getConstellation().getName();
    const at: [number, number] = [day.getMonth(), day.getDay()];
    const prev = day.next(-1).getConstellation().getName();
    if (prev !== name) first.set(name, at);
    if (day.next(1).getConstellation().getName() !== name) last.set(name, at);
  }
  return Constellation.NAMES.map((name) => {
    const [sm, sd] = first.get(name) ?? [0, 0];
    const [em, ed] = last.get(name) ?? [0, 0];
    const start = `${sm}月${sd}日`;
    const end = `${em}月${ed}日`;
    return { name, desc: `${name}座`, start, end, range: `${start}~${end}`, start_month: sm, start_day: sd, end_month: em, end_day: ed };
  });
}

export function lunarInfo(date: string, time: TimeOfDay = { hour: 0, minute: 0, second: 0 }): LunarInfo {
  const { EarthBranch, HeavenStem, Phase, SolarDay, SolarTime, Zodiac } = tyme();
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const solar = SolarDay.fromYmd(y, m, d);
  const lunar = solar.getLunarDay();
  const month = lunar.getLunarMonth();
  const lunarYear = month.getLunarYear();
  const lunarHour = SolarTime.fromYmdHms(y, m, d, time.hour, time.minute, time.second).getLunarHour();
  const cycleDay = solar.getSixtyCycleDay();
  const term = solar.getTerm();
  const termDay = solar.getTermDay();
  const termStart = term.getJulianDay().getSolarDay();
  const next = term.next(1);
  const nextDay = next.getJulianDay().getSolarDay();
  const holiday = solar.getLegalHoliday();
  const sunday0 = new Date(`${date}T00:00:00Z`).getUTCDay();
  const weekday = ((sunday0 + 6) % 7) + 1;
  // The lunar year's 干支 changes at the Spring Festival; tyme4ts's LunarDay.getYearSixtyCycle changes at 立春.
  const yearCycle = lunarYear.getSixtyCycle();
  const monthCycle = month.getSixtyCycle();
  const dayCycle = lunar.getSixtyCycle();
  const hourCycle = lunarHour.getSixtyCycle();
  const yearName = `${yearCycle.getName()}年`;
  const season = solar.getSolarMonth().getSeason();
  const yearDays = solar.getSolarMonth().getSolarYear().isLeap() ? 366 : 365;
  const monthDays = solar.getSolarMonth().getDayCount();
  const dayFraction = (time.hour * 3600 + time.minute * 60 + time.second) / 86_400;
  const percents = {
    year: (solar.getIndexInYear() + dayFraction) / yearDays,
    month: (d - 1 + dayFraction) / monthDays,
    week: (weekday - 1 + dayFraction) / 7,
    day: dayFraction,
  };
  const percent = (x: number) => `${(x * 100).toFixed(2)}%`;
  const phaseDay = solar.getPhaseDay();
  const recommends = cycleDay.getRecommends().map((t) => t.getName());
  const avoids = cycleDay.getAvoids().map((t) => t.getName());
  const star = lunar.getTwelveStar();
  const festivalSolar = solar.getFestival()?.getName() ?? null;
  const festivalLunar = lunar.getFestival()?.getName() ?? null;
  const hourTaboo = (h: typeof lunarHour) => ({ hour: h.getName(), hour_short: h.getName().replace(/时$/, ''), ...tabooText(h) });
  return {
    solar: {
      date,
      year: y,
      month: m,
      day: d,
      hour: time.hour,
      minute: time.minute,
      second: time.second,
      full: date,
      full_with_time: `${date} ${pad(time.hour)}:${pad(time.minute)}:${pad(time.second)}`,
      week: sunday0,
      week_desc: weekdayZh(date),
      week_desc_short: weekdayZh(date).slice(2),
      weekday,
      weekday_name: weekdayZh(date),
      season: season.getIndex() + 1,
      season_desc: season.getName(),
      season_desc_short: season.getName().replace(/季度$/, ''),
      season_name: SEASON_NAMES[season.getIndex()] as string,
      season_name_desc: `${SEASON_NAMES[season.getIndex()]}天`,
      is_leap_year: solar.getSolarMonth().getSolarYear().isLeap(),
      day_of_year: solar.getIndexInYear() + 1,
      week_of_year: isoWeek(date),
      constellation: `${solar.getConstellation().getName()}座`,
    },
    lunar: {
      year: yearCycle.getName(),
      month: month.getName().replace(/^闰/, '').replace(/月$/, ''),
      day: lunar.getName(),
      hour: lunarHour.getName().replace(/时$/, ''),
      full_with_hour: `${lunar.toString()}${lunarHour.getName()}`,
      desc_short: lunar.toString(),
      year_desc: lunarYear.getName(),
      month_desc: month.getName(),
      day_desc: lunar.getName(),
      hour_desc: lunarHour.getName(),
      is_leap_month: month.isLeap(),
      year_number: lunarYear.getYear(),
      month_number: month.getMonth(),
      day_number: lunar.getDay(),
      year_name: yearName,
      month_name: month.getName(),
      day_name: lunar.getName(),
      days_in_month: month.getDayCount(),
      full: `${yearName}${month.getName()}${lunar.getName()}`,
    },
    stats: {
      day_of_year: solar.getIndexInYear() + 1,
      week_of_year: solar.getSolarWeek(0).getIndexInYear() + 1,
      week_of_month: solar.getSolarWeek(0).getIndex() + 1,
      percents,
      percents_formatted: { year: percent(percents.year), month: percent(percents.month), week: percent(percents.week), day: percent(percents.day) },
    },
    term: { today: termDay.getDayIndex() === 0 ? term.getName() : null, stage: { name: term.getName(), position: termDay.getDayIndex() + 1, is_jie: term.isJie(), is_qi: term.isQi() } },
    zodiac: {
      year: yearCycle.getEarthBranch().getZodiac().getName(),
      month: monthCycle.getEarthBranch().getZodiac().getName(),
      day: dayCycle.getEarthBranch().getZodiac().getName(),
      hour: hourCycle.getEarthBranch().getZodiac().getName(),
    },
    sixty_cycle: { year: pillar(yearCycle, '年'), month: pillar(monthCycle, '月'), day: pillar(dayCycle, '日'), hour: pillar(hourCycle, '时') },
    sixty_cycle_by_term: { year: cycleDay.getYear().getName(), month: cycleDay.getMonth().getName(), day: cycleDay.getSixtyCycle().getName() },
    nayin: { year: yearCycle.getSound().getName(), month: monthCycle.getSound().getName(), day: dayCycle.getSound().getName(), hour: hourCycle.getSound().getName() },
    solar_term: {
      today: termDay.getDayIndex() === 0 ? term.getName() : null,
      current: { name: term.getName(), start: iso(termStart), day_index: termDay.getDayIndex() + 1 },
      next: { name: next.getName(), date: iso(nextDay), days_until: Math.round((Date.parse(`${iso(nextDay)}T00:00:00Z`) - Date.parse(`${date}T00:00:00Z`)) / DAY_MS) },
    },
    festival: { solar: festivalSolar, lunar: festivalLunar, both_desc: [festivalSolar, festivalLunar].filter(Boolean).join('、') || null },
    legal_holiday: holiday ? { name: holiday.getName(), is_work: holiday.isWork() } : null,
    phase: { name: phaseDay.getPhase().getName(), position: phaseDay.getPhase().getIndex() + 1, day_index: phaseDay.getDayIndex() + 1 },
    constellation: { name: `${solar.getConstellation().getName()}座`, name_short: solar.getConstellation().getName() },
    duty: lunar.getDuty().getName(),
    twenty_eight_star: lunar.getTwentyEightStar().getName(),
    peng_zu: dayCycle.getPengZu().toString(),
    taboo: {
      day: { recommends: recommends.join('.'), avoids: avoids.join('.') },
      hour: hourTaboo(lunarHour),
      hours: Array.from({ length: 12 }, (_, i) => hourTaboo(lunarHour.next(i))),
      recommends,
      avoids,
    },
    julian_day: solar.getJulianDay().getDay(),
    baizi: {
      year_baizi: `${yearName}生人，纳音${yearCycle.getSound().getName()}，属${yearCycle.getEarthBranch().getZodiac().getName()}`,
      day_baizi: `${dayCycle.getName()}日，纳音${dayCycle.getSound().getName()}，${lunar.getDuty().getName()}日`,
    },
    fortune: {
      today_luck: `${star.getName()}（${star.getEcliptic().getName()}，${star.getEcliptic().getLuck().getName()}）`,
      career: concerning(CAREER, recommends, avoids),
      money: concerning(MONEY, recommends, avoids),
      love: concerning(LOVE, recommends, avoids),
    },
    constants: {
      legal_holiday_list: legalHolidays(y),
      phase_list: Phase.NAMES.map((name, i) => ({ name, lunar_day: PHASE_DAYS[i] ?? 0 })),
      zodiac_list: [...Zodiac.NAMES],
      constellation_list: constellationList(),
      heaven_stems: [...HeavenStem.NAMES],
      earth_branches: [...EarthBranch.NAMES],
      solar_terms: SOLAR_TERM_DESC.map(([name, desc]) => ({ name, desc })),
    },
  };
}

function festivals(d: LunarInfo): string {
  const holiday = d.legal_holiday ? `${d.legal_holiday.name}（${d.legal_holiday.is_work ? '班' : '休'}）` : null;
  const names = [d.festival.solar, d.festival.lunar].filter((n): n is string => !!n && n !== d.legal_holiday?.name);
  return [...names, ...(holiday ? [holiday] : [])].join(' · ');
}

export default defineSource({
  id: 'lunar',
  name: '农历',
  description: 'The Chinese calendar of a day: lunar date, 干支, zodiac, 纳音, solar terms, festivals and legal holiday, moon phase, 建除, 28 mansions, 彭祖百忌 and 宜/忌. `date` (1900–2100) defaults to today (Asia/Shanghai).',
  routes: [{ path: '/lunar' }],
  params: {
    date: { type: 'date', doc: `Day to describe (YYYY-MM-DD, years ${MIN_YEAR}–${MAX_YEAR}); today in Asia/Shanghai by default.`, example: '2026-02-17' },
  },
  mode: 'local',
  compute(ctx, p) {
    if (p.date) {
      const year = Number(p.date.slice(0, 4));
      if (year < MIN_YEAR || year > MAX_YEAR) throw badParam('date', `a date in the years ${MIN_YEAR} to ${MAX_YEAR} (got ${p.date})`);
    }
    if (p.date) return lunarInfo(p.date);
    const [day = '', clock = ''] = formatDateTime(ctx.now().getTime()).split(' ');
    const [hour = 0, minute = 0, second = 0] = clock.split(':').map(Number);
    return lunarInfo(day, { hour, minute, second });
  },
  view: {
    title: (d) => `农历 ${d.solar.date}`,
    text: (d) =>
      [
        `${d.solar.date} ${d.solar.weekday_name} · 农历${d.lunar.full}${festivals(d) ? ` · ${festivals(d)}` : ''}`,
        d.solar_term.today ? `今日${d.solar_term.today}` : `${d.solar_term.current.name}第 ${d.solar_term.current.day_index} 天，${d.solar_term.next.days_until} 天后${d.solar_term.next.name}（${d.solar_term.next.date}）`,
        `${d.solar.constellation} · 生肖${d.zodiac.year} · ${d.phase.name}`,
        `宜：${d.taboo.recommends.join(' ') || '无'}`,
        `忌：${d.taboo.avoids.join(' ') || '无'}`,
        '',
      ].join('\n'),
    markdown: (d) =>
      [
        `# 农历 ${d.solar.date} ${d.solar.weekday_name}`,
        '',
        `**农历${escapeMarkdown(d.lunar.full)}**${festivals(d) ? ` · ${escapeMarkdown(festivals(d))}` : ''}`,
        '',
        '| 项目 | 内容 |',
        '| --- | --- |',
        `| 干支 | ${d.sixty_cycle.year.name} ${d.sixty_cycle.month.name} ${d.sixty_cycle.day.name} |`,
        `| 生肖 | ${d.zodiac.year} |`,
        `| 纳音 | ${d.nayin.year} · ${d.nayin.month} · ${d.nayin.day} |`,
        `| 节气 | ${d.solar_term.current.name}（${d.solar_term.current.start} 起第 ${d.solar_term.current.day_index} 天），下一个 ${d.solar_term.next.name} ${d.solar_term.next.date} |`,
        `| 星座 | ${d.solar.constellation} |`,
        `| 月相 | ${d.phase.name} |`,
        `| 建除 · 星宿 | ${d.duty} · ${d.twenty_eight_star} |`,
        `| 彭祖百忌 | ${escapeMarkdown(d.peng_zu)} |`,
        `| 第几天 / 周 | 第 ${d.solar.day_of_year} 天 · 第 ${d.solar.week_of_year} 周 |`,
        '',
        `**宜**：${d.taboo.recommends.join(' ') || '无'}`,
        '',
        `**忌**：${d.taboo.avoids.join(' ') || '无'}`,
        '',
      ].join('\n'),
  },
  example: '/v2/apis/lunar?date=2026-02-17&encoding=text',
});

