import { describe, expect, it } from 'vitest';
import chineseDays from 'chinese-days';
import { computeMoyu, holidayOf, maxYear, MIN_YEAR, type Moyu } from '../../sources/moyu.ts';
import { TestClock } from '../support/clock.ts';
import { NO_CLIENT_LIMITS } from '../support/endpoint-checks.ts';
import { startService } from '../support/service.ts';
import { expectNoServerErrors, getJson } from './_corpus.ts';

describe('moyu calendar: known days', () => {
  it('2026-10-01 is the first of the 7 days of the National Day holiday', () => {
    const d = computeMoyu('2026-10-01');
    expect(d.date).toMatchObject({ gregorian: '2026-10-01', weekday: '星期四', weekday_number: 4, weekday_name: '星期四', dayOfWeek: 4 });
    expect(d.date.lunar).toMatchObject({ yearCN: '二零二六', monthCN: '八月', dayCN: '廿一', isLeapMonth: false, yearGanZhi: '丙午' });
    expect(d.today).toMatchObject({ isWorkday: false, isHoliday: true, isWeekend: false, holidayName: '国庆节' });
    expect(d.currentHoliday).toEqual({ name: '国庆节', dayOfHoliday: 1, daysRemaining: 7, totalDays: 7 });
    expect(d.nextWeekend).toEqual({ date: '2026-10-03', weekday: '星期六', daysUntil: 2 });
    expect(d.moyuQuote).toBe(d.quote);
    expect(d.date.lunar).toMatchObject({ year: 2026, month: 8, day: 21, month_name: '八月', day_name: '廿一', is_leap_month: false, year_gan_zhi: '丙午', zodiac: '马', full: '丙午年八月廿一' });
    expect(d.today).toMatchObject({ is_workday: false, is_holiday: true, is_weekend: false, is_adjusted_workday: false, holiday_name: '国庆节', holiday_data: true });
    expect(d.current_holiday).toEqual({ name: '国庆节', start: '2026-10-01', end: '2026-10-07', day_of_holiday: 1, total_days: 7, days_remaining: 6 });
    expect(d.next_workday).toEqual({ date: '2026-10-08', days_until: 7 });
    expect(d.progress.week).toEqual({ passed: 4, total: 7, remaining: 3, percentage: 57.1 });
    expect(d.progress.month).toEqual({ passed: 1, total: 31, remaining: 30, percentage: 3.2 });
    expect(d.progress.year).toEqual({ passed: 274, total: 365, remaining: 91, percentage: 75.1 });
    expect(d.countdown).toEqual({ to_weekend: 2, to_friday: 1, to_month_end: 30, to_year_end: 91, toWeekEnd: 2, toFriday: 1, toMonthEnd: 30, toYearEnd: 91 });
    expect(d.next_weekend).toEqual({ date: '2026-10-03', weekday_name: '星期六', days_until: 2 });
    expect(d.quote.length).toBeGreaterThan(5);
  });

  it('2026-09-28 is a workday 3 days before National Day (after the Mid-Autumn break)', () => {
    const d = computeMoyu('2026-09-28');
    expect(d.today).toMatchObject({ is_workday: true, is_holiday: false, holiday_name: null });
    expect(d.current_holiday).toBeNull();
    expect(d.next_holiday).toEqual({ name: '国庆节', start: '2026-10-01', end: '2026-10-07', days_until: 3, duration: 7 });
    // 60s's form, with the adjusted workdays of that holiday from the calendar data.
    expect(d.nextHoliday).toMatchObject({ name: '国庆节', date: '2026-10-01', until: 3, duration: 7 });
    expect(d.nextHoliday?.workdays.every((w) => chineseDays.getDayDetail(w).work)).toBe(true);
    expect(holidayOf('2026-09-26')).toBe('中秋');
  });

  it('Spring Festival 2026: a 9-day break with an adjusted workday on Saturday 2026-02-14', () => {
    const eve = computeMoyu('2026-02-14');
    expect(eve.today).toMatchObject({ is_workday: true, is_weekend: true, is_adjusted_workday: true, is_holiday: false });
    expect(eve.countdown.to_weekend).toBe(7);
    expect(eve.next_holiday).toMatchObject({ name: '春节', start: '2026-02-15', end: '2026-02-23', days_until: 1, duration: 9 });
    expect(eve.nextHoliday?.workdays).toContain('2026-02-14');
    const day = computeMoyu('2026-02-17');
    expect(day.current_holiday).toMatchObject({ name: '春节', day_of_holiday: 3, total_days: 9, days_remaining: 6 });
    expect(day.date.lunar).toMatchObject({ month_name: '正月', day_name: '初一' });
    expect(day.today.lunar_festivals).toContain('春节');
    expect(day.next_holiday).toMatchObject({ name: '清明', start: '2026-04-04' });
    // Before the Spring Festival (even after 立春 on 02-04) the lunar year is still 乙巳, the snake.
    expect(computeMoyu('2026-02-10').date.lunar).toMatchObject({ year: 2025, year_gan_zhi: '乙巳', zodiac: '蛇', month_name: '十二月' });
  });

  it('weekends, solar terms and the end of the holiday data', () => {
    const sat = computeMoyu('2026-11-21');
    expect(sat.today).toMatchObject({ is_weekend: true, is_workday: false, is_holiday: false });
    expect(sat.countdown.to_weekend).toBe(0);
    expect(computeMoyu('2026-10-08').today.solar_term).toBe('寒露');
    const last = computeMoyu(`${maxYear()}-12-31`);
    expect(last.countdown.to_year_end).toBe(0);
    expect(MIN_YEAR).toBe(2004);
    expect(maxYear()).toBeGreaterThanOrEqual(2026);
  });
});

describe('moyu through the server', () => {
  it('defaults to today in Asia/Shanghai; validates date; renders text and markdown; never 500', async () => {
    // 2026-11-20T17:00Z is already 2026-11-21 (Saturday) in Shanghai.
    const clock = new TestClock(Date.parse('2026-11-20T17:00:00Z'));
    const svc = await startService({ now: clock.now, env: { ...NO_CLIENT_LIMITS } });
    try {
      const { status, body } = await getJson<Moyu>(svc, '/v2/apis/moyu');
      expect(status).toBe(200);
      expect(body.data.date.gregorian).toBe('2026-11-21');
      expect(body.data.today.is_weekend).toBe(true);

      const named = await getJson<Moyu>(svc, '/v2/apis/moyu?date=2026-10-01');
      expect(named.body.data.today.holiday_name).toBe('国庆节');

      for (const bad of ['2026-02-30', '2026-13-01', '2026100', '2026/10/32', 'today', `${MIN_YEAR - 1}-12-31`, `${maxYear() + 1}-01-01`]) {
        const r = await getJson(svc, `/v2/apis/moyu?date=${bad}`);
        expect(r.status, bad).toBe(400);
        expect(r.body.message, bad).toContain('"date"');
      }
      const text = await (await svc.get('/v2/apis/moyu?date=2026-10-01&encoding=text')).text();
      expect(text).toMatch(/^🐟 摸鱼日历\n2026-10-01 星期四 · 农历八月廿一\n🎉 国庆节假期/);
      expect(text).toContain('国庆节第 1/7 天，还剩 6 天');
      const md = await (await svc.get('/v2/apis/moyu?date=2026-09-28&encoding=markdown')).text();
      expect(md).toContain('- 国庆节：3 天（2026-10-01 起，共 7 天）');
      const body2 = JSON.stringify(body.data);
      // Our keys are snake_case; the camelCase ones are exactly 60s's names (DESIGN: 60s's shape where it serves the endpoint).
      const SIXTY_S_KEYS = ['dayOfWeek', 'yearCN', 'monthCN', 'dayCN', 'isLeapMonth', 'yearGanZhi', 'monthGanZhi', 'dayGanZhi', 'isWeekend', 'isHoliday', 'isWorkday', 'holidayName', 'solarTerm', 'lunarFestivals', 'currentHoliday', 'dayOfHoliday', 'daysRemaining', 'totalDays', 'nextHoliday', 'nextWeekend', 'daysUntil', 'toWeekEnd', 'toFriday', 'toMonthEnd', 'toYearEnd', 'moyuQuote'];
      const camel = [...body2.matchAll(/"([a-z]+[A-Z]\w*)":/g)].map((m) => m[1]);
      expect(camel.filter((k) => !SIXTY_S_KEYS.includes(k as string))).toEqual([]);
      await expectNoServerErrors(svc, '/v2/apis/moyu', ['date']);
    } finally {
      await svc.close();
    }
  });
});
