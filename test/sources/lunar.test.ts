import { describe, expect, it } from 'vitest';
import { lunarInfo, MAX_YEAR, MIN_YEAR, type LunarInfo } from '../../sources/lunar.ts';
import { TestClock } from '../support/clock.ts';
import { NO_CLIENT_LIMITS } from '../support/endpoint-checks.ts';
import { startService } from '../support/service.ts';
import { expectNoServerErrors, getJson } from './_corpus.ts';

describe('lunar calendar: known days', () => {
  it('2026-02-17 is the first day of the year 丙午 (horse): Spring Festival', () => {
    const d = lunarInfo('2026-02-17');
    expect(d.solar).toMatchObject({ date: '2026-02-17', year: 2026, month: 2, day: 17, weekday: 2, weekday_name: '星期二', is_leap_year: false, day_of_year: 48, week_of_year: 8, constellation: '水瓶座' });
    // 60s's solar fields: the time of day (00:00 for a given date), Sunday-based week, quarter.
    expect(d.solar).toMatchObject({ hour: 0, minute: 0, second: 0, full: '2026-02-17', full_with_time: '2026-02-17 00:00:00', week: 2, week_desc: '星期二', week_desc_short: '二', season: 1, season_name: '春' });
    expect(d.lunar).toEqual({
      year: '丙午',
      month: '正',
      day: '初一',
      hour: '子',
      full_with_hour: '农历丙午年正月初一子时',
      desc_short: '农历丙午年正月初一',
      year_desc: '农历丙午年',
      month_desc: '正月',
      day_desc: '初一',
      hour_desc: '子时',
      is_leap_month: false,
      year_number: 2026,
      month_number: 1,
      day_number: 1,
      year_name: '丙午年',
      month_name: '正月',
      day_name: '初一',
      days_in_month: expect.any(Number),
      full: '丙午年正月初一',
    });
    expect(d.zodiac.year).toBe('马');
    expect(d.sixty_cycle.year).toEqual({ heaven_stem: '丙', earth_branch: '午', name: '丙午年', name_short: '丙午' });
    expect([d.sixty_cycle.month.name_short, d.sixty_cycle.day.name_short]).toEqual(['庚寅', '壬戌']);
    expect(d.term).toEqual({ today: null, stage: { name: '立春', position: 14, is_jie: true, is_qi: false } });
    expect(d.festival.both_desc).toBe('春节');
    expect(d.taboo.day.avoids.split('.')).toContain('嫁娶');
    expect(d.taboo.hours).toHaveLength(12);
    expect(d.fortune.love).toBe('忌嫁娶');
    expect(d.constants.legal_holiday_list.find((h) => h.name === '春节')).toEqual({ name: '春节', date: '2026-02-17', start: '2026-02-15', end: '2026-02-23' });
    expect(d.constants.constellation_list.find((c) => c.name === '摩羯')?.range).toBe('12月22日~1月19日');
    expect(d.festival.lunar).toBe('春节');
    expect(d.legal_holiday).toEqual({ name: '春节', is_work: false });
    expect(d.solar_term).toEqual({ today: null, current: { name: '立春', start: '2026-02-04', day_index: 14 }, next: { name: '雨水', date: '2026-02-18', days_until: 1 } });
    expect(d.phase.name).toBe('新月');
    expect(d.taboo.recommends).toContain('祭祀');
    expect(d.taboo.avoids).toContain('嫁娶');
    expect(d.nayin.day).toBe('大海水');
    expect(d.julian_day).toBe(2461088.5);
  });

  it('other known days: Chinese New Year 2024, a leap month, a solar-term day, National Day', () => {
    expect(lunarInfo('2024-02-10').lunar).toMatchObject({ year: '甲辰', year_number: 2024, month_number: 1, day_number: 1, year_name: '甲辰年' });
    expect(lunarInfo('2024-02-10').zodiac.year).toBe('龙');
    expect(lunarInfo('2023-03-22').lunar).toMatchObject({ month: '二', month_desc: '闰二月', month_number: 2, month_name: '闰二月', day_name: '初一', is_leap_month: true });
    const term = lunarInfo('2026-02-04');
    expect(term.solar_term).toMatchObject({ today: '立春', current: { name: '立春', day_index: 1 } });
    expect(term.sixty_cycle_by_term.year).toBe('丙午');
    expect(term.sixty_cycle.year.name_short).toBe('乙巳'); // still the lunar year of the snake until New Year's Eve
    expect(lunarInfo('2026-10-01')).toMatchObject({ lunar: { month_name: '八月', day_name: '廿一' }, legal_holiday: { name: '国庆节', is_work: false } });
    expect(lunarInfo('2000-01-01').julian_day).toBe(2451544.5);
  });

  it('ISO week numbers at year boundaries', () => {
    expect(lunarInfo('2026-01-01').solar.week_of_year).toBe(1);
    expect(lunarInfo('2021-01-01').solar.week_of_year).toBe(53);
    expect(lunarInfo('2024-12-30').solar.week_of_year).toBe(1);
    expect(lunarInfo('2024-02-29').solar).toMatchObject({ is_leap_year: true, day_of_year: 60 });
  });

  it(`computes every day of the supported range edges (${MIN_YEAR}–${MAX_YEAR})`, () => {
    for (const d of [`${MIN_YEAR}-01-01`, `${MIN_YEAR}-01-30`, `${MAX_YEAR}-12-31`]) expect(lunarInfo(d).lunar.full.length).toBeGreaterThan(3);
  });
});

describe('lunar through the server', () => {
  it('defaults to today in Asia/Shanghai; validates date; renders text and markdown; never 500', async () => {
    const clock = new TestClock(Date.parse('2026-02-16T16:30:00Z')); // 2026-02-17 00:30 in Shanghai
    const svc = await startService({ now: clock.now, env: { ...NO_CLIENT_LIMITS } });
    try {
      const { status, body } = await getJson<LunarInfo>(svc, '/v2/apis/lunar');
      expect(status).toBe(200);
      expect(body.data.solar.date).toBe('2026-02-17');
      expect(body.data.lunar.full).toBe('丙午年正月初一');
      // Without a date the time of the request picks the hour: 00:30 is 子时.
      expect(body.data.solar).toMatchObject({ hour: 0, minute: 30, full_with_time: '2026-02-17 00:30:00' });
      expect(body.data.lunar.hour_desc).toBe('子时');
      for (const bad of ['2026-02-29', '1899-12-31', '2101-01-01', 'yesterday', '17000000000', '2026/02/30']) {
        const r = await getJson(svc, `/v2/apis/lunar?date=${bad}`);
        expect(r.status, bad).toBe(400);
        expect(r.body.message).toContain('"date"');
      }
      const text = await (await svc.get('/v2/apis/lunar?date=2026-02-17&encoding=text')).text();
      expect(text.trim().split('\n')).toEqual([
        '2026-02-17 星期二 · 农历丙午年正月初一 · 春节（休）',
        '立春第 14 天，1 天后雨水（2026-02-18）',
        '水瓶座 · 生肖马 · 新月',
        expect.stringMatching(/^宜：祭祀 /),
        expect.stringMatching(/^忌：嫁娶/),
      ]);
      const md = await (await svc.get('/v2/apis/lunar?date=2026-02-17&encoding=markdown')).text();
      expect(md).toContain('| 干支 | 丙午年 庚寅月 壬戌日 |');
      await expectNoServerErrors(svc, '/v2/apis/lunar', ['date']);
    } finally {
      await svc.close();
    }
  });
});
