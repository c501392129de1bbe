/**
 * 农历: the Chinese calendar of a day, computed locally with tyme4ts: lunar date, sexagenary
 * (干支) year/month/day, zodiac, 纳音, solar terms, festivals, the legal holiday of mainland China,
 * moon phase, 建除 duty, 28 mansions, 彭祖百忌 and the almanac's 宜/忌. `date` (YYYY-MM-DD,
 * 1900–2100) defaults to today in Asia/Shanghai.
 */
import { SolarDay } from 'tyme4ts';
import { escapeMarkdown } from '../src/encoding/escape.ts';
import { badParam } from '../src/kernel/errors.ts';
import { defineSource } from '../src/kernel/source.ts';
import { formatDate, weekdayZh } from '../src/kernel/time.ts';

export const MIN_YEAR = 1900;
export const MAX_YEAR = 2100;

const iso = (s: SolarDay) => `${String(s.getYear()).padStart(4, '0')}-${String(s.getMonth()).padStart(2, '0')}-${String(s.getDay()).padStart(2, '0')}`;
const DAY_MS = 86_400_000;

/** ISO 8601 week number. */
function isoWeek(date: string): number {
  const d = new Date(`${date}T00:00:00Z`);
  const day = (d.getUTCDay() + 6) % 7;
  d.setUTCDate(d.getUTCDate() - day + 3);
  const week1 = new Date(Date.UTC(d.getUTCFullYear(), 0, 4));
  return 1 + Math.round(((d.getTime() - week1.getTime()) / DAY_MS - 3 + ((week1.getUTCDay() + 6) % 7)) / 7);
}

export interface LunarInfo {
  solar: { date: string; year: number; month: number; day: number; weekday: number; weekday_name: string; is_leap_year: boolean; day_of_year: number; week_of_year: number; constellation: string };
  lunar: { year: number; month: number; day: number; year_name: string; month_name: string; day_name: string; is_leap_month: boolean; days_in_month: number; full: string };
  sixty_cycle: { year: string; month: string; day: string };
  /** 干支 of year and month counted from the solar terms (立春, 节), as used by 八字; `sixty_cycle` counts by lunar year and month. */
  sixty_cycle_by_term: { year: string; month: string; day: string };
  zodiac: string;
  nayin: { year: string; month: string; day: string };
  solar_term: { today: string | null; current: { name: string; start: string; day_index: number }; next: { name: string; date: string; days_until: number } };
  festival: { solar: string | null; lunar: string | null };
  legal_holiday: { name: string; is_work: boolean } | null;
  phase: { name: string; day_index: number };
  duty: string;
  twenty_eight_star: string;
  peng_zu: string;
  taboo: { recommends: string[]; avoids: string[] };
  julian_day: number;
}

export function lunarInfo(date: string): LunarInfo {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const solar = SolarDay.fromYmd(y, m, d);
  const lunar = solar.getLunarDay();
  const month = lunar.getLunarMonth();
  const lunarYear = month.getLunarYear();
  const cycleDay = solar.getSixtyCycleDay();
  const term = solar.getTerm();
  const termDay = solar.getTermDay();
  const termStart = term.getJulianDay().getSolarDay();
  const next = term.next(1);
  const nextDay = next.getJulianDay().getSolarDay();
  const holiday = solar.getLegalHoliday();
  const weekday = ((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7) + 1;
  // The lunar year's 干支 changes at the Spring Festival; tyme4ts's LunarDay.getYearSixtyCycle changes at 立春.
  const yearCycle = lunarYear.getSixtyCycle();
  const monthCycle = month.getSixtyCycle();
  const yearName = `${yearCycle.getName()}年`;
  return {
    solar: {
      date,
      year: y,
      month: m,
      day: d,
      weekday,
      weekday_name: weekdayZh(date),
      is_leap_year: solar.getSolarMonth().getSolarYear().isLeap(),
      day_of_year: solar.getIndexInYear() + 1,
      week_of_year: isoWeek(date),
      constellation: `${solar.getConstellation().getName()}座`,
    },
    lunar: {
      year: lunarYear.getYear(),
      month: month.getMonth(),
      day: lunar.getDay(),
      year_name: yearName,
      month_name: month.getName(),
      day_name: lunar.getName(),
      is_leap_month: month.isLeap(),
      days_in_month: month.getDayCount(),
      full: `${yearName}${month.getName()}${lunar.getName()}`,
    },
    sixty_cycle: { year: yearCycle.getName(), month: monthCycle.getName(), day: lunar.getSixtyCycle().getName() },
    sixty_cycle_by_term: { year: cycleDay.getYear().getName(), month: cycleDay.getMonth().getName(), day: cycleDay.getSixtyCycle().getName() },
    zodiac: yearCycle.getEarthBranch().getZodiac().getName(),
    nayin: { year: yearCycle.getSound().getName(), month: monthCycle.getSound().getName(), day: lunar.getSixtyCycle().getSound().getName() },
    solar_term: {
      today: termDay.getDayIndex() === 0 ? term.getName() : null,
      current: { name: term.getName(), start: iso(termStart), day_index: termDay.getDayIndex() + 1 },
      next: { name: next.getName(), date: iso(nextDay), days_until: Math.round((Date.parse(`${iso(nextDay)}T00:00:00Z`) - Date.parse(`${date}T00:00:00Z`)) / DAY_MS) },
    },
    festival: { solar: solar.getFestival()?.getName() ?? null, lunar: lunar.getFestival()?.getName() ?? null },
    legal_holiday: holiday ? { name: holiday.getName(), is_work: holiday.isWork() } : null,
    phase: { name: solar.getPhaseDay().getPhase().getName(), day_index: solar.getPhaseDay().getDayIndex() + 1 },
    duty: lunar.getDuty().getName(),
    twenty_eight_star: lunar.getTwentyEightStar().getName(),
    peng_zu: lunar.getSixtyCycle().getPengZu().toString(),
    taboo: { recommends: cycleDay.getRecommends().map((t) => t.getName()), avoids: cycleDay.getAvoids().map((t) => t.getName()) },
    julian_day: solar.getJulianDay().getDay(),
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
    return lunarInfo(p.date ?? formatDate(ctx.now().getTime()));
  },
  view: {
    title: (d) => `农历 ${d.solar.date}`,
    text: (d) =>
      [
        `${d.solar.date} ${d.solar.weekday_name} · 农历${d.lunar.full}${festivals(d) ? ` · ${festivals(d)}` : ''}`,
        d.solar_term.today ? `今日${d.solar_term.today}` : `${d.solar_term.current.name}第 ${d.solar_term.current.day_index} 天，${d.solar_term.next.days_until} 天后${d.solar_term.next.name}（${d.solar_term.next.date}）`,
        `${d.solar.constellation} · 生肖${d.zodiac} · ${d.phase.name}`,
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
        `| 干支 | ${d.sixty_cycle.year}年 ${d.sixty_cycle.month}月 ${d.sixty_cycle.day}日 |`,
        `| 生肖 | ${d.zodiac} |`,
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

