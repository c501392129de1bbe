/**
 * 摸鱼日历: today's status in the mainland China work calendar (workday, weekend, public holiday,
 * adjusted workday 调休), progress of the week/month/year, the current and next public holiday,
 * countdowns, and a line to smile at. Holiday data: the chinese-days package (State Council
 * notices, 2004 to its newest year); lunar date: tyme4ts. Computed locally for `date`
 * (YYYY-MM-DD), today in Asia/Shanghai by default.
 */
import type ChineseDays from 'chinese-days';
import { badParam } from '../src/kernel/errors.ts';
import { lazyModule } from '../src/kernel/lazy-module.ts';
import { defineSource } from '../src/kernel/source.ts';
import { addDays, DAY_MS, formatDate, weekdayZh } from '../src/kernel/time.ts';
import { tyme } from './_shared/tyme.ts';

export const MIN_YEAR = 2004;

// The holiday tables are evaluated on the first request for this source, not at every start.
const loadChineseDays = lazyModule<{ default: typeof ChineseDays }>('chinese-days');
const chineseDays = () => loadChineseDays().default;

let maxYearFound: number | undefined;
/** The newest year with holiday data in the installed chinese-days (National Day is in every year's notice). */
export function maxYear(): number {
  if (maxYearFound !== undefined) return maxYearFound;
  let y = MIN_YEAR;
  for (let probe = MIN_YEAR; probe <= new Date().getUTCFullYear() + 3; probe++) if (chineseDays().getDayDetail(`${probe}-10-01`).name.includes(',')) y = probe;
  return (maxYearFound = y);
}

const QUOTES = [
  '工作是老板的，身体是自己的，记得起来走两步。',
  '今天的摸鱼，是为了明天更好地摸鱼。',
  '认真工作的样子很帅，偶尔发呆的样子也不差。',
  '离下班又近了一分钟，胜利在望。',
  '喝口水吧，水杯比待办清单更需要你。',
  '只要思想不滑坡，办法总比困难多；只要椅子够舒服，时间总比想象快。',
  '先把最难的事做完，剩下的时间都是自己的。',
  '周末不会因为你盯着日历就来得更快，但盯着会更有盼头。',
  '工位上的绿植都在努力生长，你也可以慢慢来。',
  '今天也是值得被好好对待的一天，包括午饭。',
  '把大任务拆成小步骤，每一步都是一次合法摸鱼的理由。',
  '伸个懒腰，颈椎会感谢你的。',
  '忙里偷闲五分钟，效率提升两小时（大概）。',
  '放假倒计时是打工人最好的提神饮料。',
  '别忘了：今天的你已经比昨天多熬过了一天。',
  '看看窗外，天空不需要你提交周报。',
];

const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;
const daysBetween = (from: string, to: string) => Math.round(dayNumber(to) - dayNumber(from));
/** 1 = Monday … 7 = Sunday. */
const isoWeekday = (date: string) => ((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7) + 1;
const isWeekend = (date: string) => isoWeekday(date) >= 6;

/** The public holiday a day belongs to (its Chinese name), or undefined. Adjusted workdays carry the name too, so `work` decides. */
export function holidayOf(date: string): string | undefined {
  const d = chineseDays().getDayDetail(date);
  if (d.work) return undefined;
  const parts = d.name.split(',');
  return parts.length >= 2 ? parts[1] : undefined;
}

/** First and last day of the holiday block containing `date` (consecutive days off with that holiday name). */
function holidayBlock(date: string, name: string): { start: string; end: string } {
  let start = date;
  while (holidayOf(addDays(start, -1)) === name) start = addDays(start, -1);
  let end = date;
  while (holidayOf(addDays(end, 1)) === name) end = addDays(end, 1);
  return { start, end };
}

function progress(passed: number, total: number) {
  return { passed, total, remaining: total - passed, percentage: Math.round((passed / total) * 1000) / 10 };
}

function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/**
 * Our snake_case fields, and beside them 60s's camelCase ones (`dayOfWeek`, `isHoliday`,
 * `currentHoliday`, `nextHoliday`, `nextWeekend`, `countdown.toWeekEnd`, `moyuQuote` …).
 */
export interface Moyu {
  date: {
    gregorian: string;
    /** 星期一 … 星期日. */
    weekday: string;
    /** 1 = Monday … 7 = Sunday. */
    weekday_number: number;
    weekday_name: string;
    /** 0 = Sunday … 6 = Saturday. */
    dayOfWeek: number;
    lunar: {
      year: number;
      month: number;
      day: number;
      month_name: string;
      day_name: string;
      is_leap_month: boolean;
      year_gan_zhi: string;
      month_gan_zhi: string;
      day_gan_zhi: string;
      zodiac: string;
      full: string;
      /** The year in Chinese digits, e.g. 二零二六. */
      yearCN: string;
      monthCN: string;
      dayCN: string;
      isLeapMonth: boolean;
      yearGanZhi: string;
      monthGanZhi: string;
      dayGanZhi: string;
    };
  };
  today: {
    is_workday: boolean;
    is_weekend: boolean;
    is_holiday: boolean;
    /** A weekend day that is a workday because of a holiday swap (调休). */
    is_adjusted_workday: boolean;
    holiday_name: string | null;
    solar_term: string | null;
    lunar_festivals: string[];
    /** Whether the holiday data of chinese-days covers this year. */
    holiday_data: boolean;
    isWeekend: boolean;
    isHoliday: boolean;
    isWorkday: boolean;
    holidayName: string | null;
    solarTerm: string | null;
    lunarFestivals: string[];
  };
  progress: { week: ReturnType<typeof progress>; month: ReturnType<typeof progress>; year: ReturnType<typeof progress> };
  current_holiday: { name: string; start: string; end: string; day_of_holiday: number; total_days: number; days_remaining: number } | null;
  next_holiday: { name: string; start: string; end: string; days_until: number; duration: number } | null;
  next_workday: { date: string; days_until: number } | null;
  next_weekend: { date: string; weekday_name: string; days_until: number };
  countdown: { to_weekend: number; to_friday: number; to_month_end: number; to_year_end: number; toWeekEnd: number; toFriday: number; toMonthEnd: number; toYearEnd: number };
  quote: string;
  /** `daysRemaining` counts today, as 60s does. */
  currentHoliday: { name: string; dayOfHoliday: number; daysRemaining: number; totalDays: number } | null;
  /** `workdays`: the adjusted workdays (调休) that belong to this holiday. */
  nextHoliday: { name: string; date: string; until: number; duration: number; workdays: string[] } | null;
  nextWeekend: { date: string; weekday: string; daysUntil: number };
  moyuQuote: string;
}

const CN_DIGITS = '零一二三四五六七八九';

/** Weekend days that are workdays because of this holiday (调休), within a month of its block. */
function adjustedWorkdays(name: string, block: { start: string; end: string }): string[] {
  const out: string[] = [];
  for (let day = addDays(block.start, -31); day <= addDays(block.end, 31); day = addDays(day, 1)) {
    const detail = chineseDays().getDayDetail(day);
    if (detail.work && isWeekend(day) && detail.name.split(',')[1] === name) out.push(day);
  }
  return out;
}

export function computeMoyu(date: string): Moyu {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const weekday = isoWeekday(date);
  const detail = chineseDays().getDayDetail(date);
  const holiday = holidayOf(date);
  const solar = tyme().SolarDay.fromYmd(y, m, d);
  const lunar = solar.getLunarDay();
  const lunarMonth = lunar.getLunarMonth();
  // Year 干支 and zodiac of the lunar year (they change at the Spring Festival, not at 立春).
  const lunarYear = lunarMonth.getLunarYear();
  const termToday = chineseDays().getSolarTerms(date)[0]?.name ?? null;

  let current: Moyu['current_holiday'] = null;
  if (holiday) {
    const b = holidayBlock(date, holiday);
    current = { name: holiday, ...b, day_of_holiday: daysBetween(b.start, date) + 1, total_days: daysBetween(b.start, b.end) + 1, days_remaining: daysBetween(date, b.end) };
  }
  let next: Moyu['next_holiday'] = null;
  for (let i = 1, day = addDays(current?.end ?? date, 1); i <= 400; i++, day = addDays(day, 1)) {
    const name = holidayOf(day);
    if (name) {
      const b = holidayBlock(day, name);
      next = { name, ...b, days_until: daysBetween(date, b.start), duration: daysBetween(b.start, b.end) + 1 };
      break;
    }
  }
  let nextWork: Moyu['next_workday'] = null;
  for (let i = 1; i <= 60; i++) {
    const day = addDays(date, i);
    if (chineseDays().isWorkday(day)) {
      nextWork = { date: day, days_until: i };
      break;
    }
  }
  const toSaturday = (6 - weekday + 7) % 7 || 7;
  const nextSaturday = addDays(date, toSaturday);
  const yearDays = daysBetween(`${y}-01-01`, `${y + 1}-01-01`);
  const monthDays = daysInMonth(y, m);
  const dayOfYear = daysBetween(`${y}-01-01`, date) + 1;

  const isWorkdayToday = detail.work;
  const lunarFestivals = chineseDays().getLunarFestivals(date)[0]?.name ?? [];
  const toWeekend = isWeekend(date) && !detail.work ? 0 : toSaturday;
  const quote = QUOTES[(y * 10_000 + m * 100 + d) % QUOTES.length] as string;
  return {
    date: {
      gregorian: date,
      weekday: weekdayZh(date),
      weekday_number: weekday,
      weekday_name: weekdayZh(date),
      dayOfWeek: weekday % 7,
      lunar: {
        year: lunarYear.getYear(),
        month: lunarMonth.getMonth(),
        day: lunar.getDay(),
        month_name: lunarMonth.getName(),
        day_name: lunar.getName(),
        is_leap_month: lunarMonth.isLeap(),
        year_gan_zhi: lunarYear.getSixtyCycle().getName(),
        month_gan_zhi: lunarMonth.getSixtyCycle().getName(),
        day_gan_zhi: lunar.getSixtyCycle().getName(),
        zodiac: lunarYear.getSixtyCycle().getEarthBranch().getZodiac().getName(),
        full: `${lunarYear.getSixtyCycle().getName()}年${lunarMonth.getName()}${lunar.getName()}`,
        yearCN: [...String(lunarYear.getYear())].map((c) => CN_DIGITS[Number(c)]).join(''),
        monthCN: lunarMonth.getName(),
        dayCN: lunar.getName(),
        isLeapMonth: lunarMonth.isLeap(),
        yearGanZhi: lunarYear.getSixtyCycle().getName(),
        monthGanZhi: lunarMonth.getSixtyCycle().getName(),
        dayGanZhi: lunar.getSixtyCycle().getName(),
      },
    },
    today: {
      is_workday: detail.work,
      is_weekend: isWeekend(date),
      is_holiday: !!holiday,
      is_adjusted_workday: detail.work && isWeekend(date),
      holiday_name: holiday ?? null,
      solar_term: termToday,
      lunar_festivals: lunarFestivals,
      holiday_data: y >= MIN_YEAR && y <= maxYear(),
      isWeekend: isWeekend(date),
      isHoliday: !!holiday,
      isWorkday: isWorkdayToday,
      holidayName: holiday ?? null,
      solarTerm: termToday,
      lunarFestivals,
    },
    progress: { week: progress(weekday, 7), month: progress(d, monthDays), year: progress(dayOfYear, yearDays) },
    current_holiday: current,
    next_holiday: next,
    next_workday: nextWork,
    next_weekend: { date: nextSaturday, weekday_name: weekdayZh(nextSaturday), days_until: toSaturday },
    countdown: {
      // 0 on a weekend day off; an adjusted workday on a weekend counts to the next Saturday.
      to_weekend: toWeekend,
      to_friday: (5 - weekday + 7) % 7,
      to_month_end: monthDays - d,
      to_year_end: yearDays - dayOfYear,
      toWeekEnd: toWeekend,
      toFriday: (5 - weekday + 7) % 7,
      toMonthEnd: monthDays - d,
      toYearEnd: yearDays - dayOfYear,
    },
    quote,
    currentHoliday: current ? { name: current.name, dayOfHoliday: current.day_of_holiday, daysRemaining: current.days_remaining + 1, totalDays: current.total_days } : null,
    nextHoliday: next ? { name: next.name, date: next.start, until: next.days_until, duration: next.duration, workdays: adjustedWorkdays(next.name, next) } : null,
    nextWeekend: { date: nextSaturday, weekday: weekdayZh(nextSaturday), daysUntil: toSaturday },
    moyuQuote: quote,
  };
}

function bar(pct: number, width = 20): string {
  const full = Math.round((pct / 100) * width);
  return `${'█'.repeat(full)}${'░'.repeat(width - full)} ${pct}%`;
}

function status(d: Moyu): string {
  if (d.today.is_holiday) return `🎉 ${d.today.holiday_name}假期，好好休息`;
  if (d.today.is_adjusted_workday) return '😮‍💨 调休上班日';
  if (d.today.is_weekend) return '🛋️ 周末，放松一下';
  return '💼 工作日，适度摸鱼';
}

export default defineSource({
  id: 'moyu',
  name: '摸鱼日历',
  description: 'Workday, weekend, public-holiday and adjusted-workday status of a day in mainland China, progress of the week/month/year, the current and next holiday, countdowns and a quote. `date` defaults to today (Asia/Shanghai).',
  routes: [{ path: '/moyu' }],
  params: {
    date: {
      type: 'date',
      // A getter: the year span needs the holiday tables, read only when the docs are built.
      get doc() {
        return `Day to describe (YYYY-MM-DD, years ${MIN_YEAR}–${maxYear()}, the span of the holiday data); today in Asia/Shanghai by default.`;
      },
      example: '2026-10-01',
    },
  },
  mode: 'local',
  compute(ctx, p) {
    if (p.date) {
      const year = Number(p.date.slice(0, 4));
      if (year < MIN_YEAR || year > maxYear()) throw badParam('date', `a date in the years ${MIN_YEAR} to ${maxYear()}, which the holiday data covers (got ${p.date})`);
    }
    return computeMoyu(p.date ?? formatDate(ctx.now().getTime()));
  },
  view: {
    title: () => '摸鱼日历',
    text: (d) =>
      [
        '🐟 摸鱼日历',
        `${d.date.gregorian} ${d.date.weekday_name} · 农历${d.date.lunar.month_name}${d.date.lunar.day_name}${d.today.solar_term ? ` · ${d.today.solar_term}` : ''}`,
        status(d),
        '',
        `本周 ${bar(d.progress.week.percentage)}`,
        `本月 ${bar(d.progress.month.percentage)}`,
        `今年 ${bar(d.progress.year.percentage)}`,
        '',
        ...(d.current_holiday ? [`${d.current_holiday.name}第 ${d.current_holiday.day_of_holiday}/${d.current_holiday.total_days} 天，还剩 ${d.current_holiday.days_remaining} 天`] : []),
        d.countdown.to_weekend === 0 ? '今天就是周末' : `距离周末还有 ${d.countdown.to_weekend} 天`,
        ...(d.next_holiday ? [`距离${d.next_holiday.name}（${d.next_holiday.start}，共 ${d.next_holiday.duration} 天）还有 ${d.next_holiday.days_until} 天`] : []),
        `距离月底还有 ${d.countdown.to_month_end} 天，距离年底还有 ${d.countdown.to_year_end} 天`,
        '',
        `💬 ${d.quote}`,
        '',
      ].join('\n'),
    markdown: (d) =>
      [
        '# 🐟 摸鱼日历',
        '',
        `**${d.date.gregorian} ${d.date.weekday_name}** · 农历${d.date.lunar.month_name}${d.date.lunar.day_name}${d.today.solar_term ? ` · ${d.today.solar_term}` : ''}`,
        '',
        `> ${status(d)}`,
        '',
        '| 进度 | 已过 | 剩余 | 百分比 |',
        '| --- | --- | --- | --- |',
        ...(
          [
            ['本周', d.progress.week],
            ['本月', d.progress.month],
            ['今年', d.progress.year],
          ] as const
        ).map(([n, p]) => `| ${n} | ${p.passed}/${p.total} 天 | ${p.remaining} 天 | ${p.percentage}% |`),
        '',
        '## 倒计时',
        '',
        ...(d.current_holiday ? [`- ${d.current_holiday.name}第 ${d.current_holiday.day_of_holiday}/${d.current_holiday.total_days} 天，还剩 ${d.current_holiday.days_remaining} 天`] : []),
        `- 周末：${d.countdown.to_weekend === 0 ? '就是今天' : `${d.countdown.to_weekend} 天`}`,
        ...(d.next_holiday ? [`- ${d.next_holiday.name}：${d.next_holiday.days_until} 天（${d.next_holiday.start} 起，共 ${d.next_holiday.duration} 天）`] : []),
        `- 月底：${d.countdown.to_month_end} 天 · 年底：${d.countdown.to_year_end} 天`,
        '',
        `_${d.quote}_`,
        '',
      ].join('\n'),
  },
  example: '/v2/apis/moyu?encoding=text',
});
