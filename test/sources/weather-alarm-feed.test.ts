import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDeclared } from '../../sources/_shared/declared-list.ts';
import weatherAlarmFeed, { list } from '../../sources/weather-alarm-feed.ts';
import { paramsKey, parseParams } from '../../src/kernel/params.ts';
import { describeDeclaredList, readFixture } from '../support/declared-list-suite.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';

describeDeclaredList(list);

it("weather-alarm-feed reads the issue time in the site's slashed layout, in Asia/Shanghai", () => {
  const [first] = parseDeclared(list, readFixture('www.nmc.cn/rest/findAlarm.json'));
  expect(first).toMatchObject({ published: '2026-11-21 10:30:00', cover: 'https://image.nmc.cn/assets/img/alarm/p0000.png' });
});

it('keeps the whole country under the key it was stored under before provinces (no province parameter)', () => {
  expect(paramsKey(parseParams(weatherAlarmFeed.params, {}))).toBe('');
});

describe('weather-alarm-feed by province, at our path and /dailyhot/weatheralarm', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    upstream.serve('www.nmc.cn', '/rest/findAlarm', (req) => {
      const province = req.query.get('province');
      if (province === '') return upstream.fileReply('www.nmc.cn/rest/findAlarm.json');
      return upstream.fileReply(province === '广东省' ? 'www.nmc.cn/rest/findAlarm-guangdong.json' : 'www.nmc.cn/rest/findAlarm-none.json');
    });
    svc = await startService({ upstream, sources: [weatherAlarmFeed] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it("asks the centre for one province's warnings and answers them", async () => {
    const res = await svc.get(`/v2/apis/weather-alarm-feed?province=${encodeURIComponent('广东省')}`);
    const body = (await res.json()) as { data: { title: string }[] };
    expect(res.status).toBe(200);
    expect(body.data.map((i) => i.title)).toEqual(['广东省气象台发布大风蓝色预警', '广州市气象台发布寒冷黄色预警']);
    expect(upstream.hits('www.nmc.cn').at(-1)?.query.get('province')).toBe('广东省');
    expect(await (await svc.get(`/v2/apis/weather-alarm-feed?province=${encodeURIComponent('广东省')}&encoding=markdown`)).text()).toMatch(/^# 中央气象台 · 广东省气象预警/);
  });

  it('answers a province without warnings in force with an empty list', async () => {
    const res = await svc.get(`/v2/apis/weather-alarm-feed?province=${encodeURIComponent('西藏自治区')}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown[] }).data).toEqual([]);
  });

  it('refuses a province it does not know with a 400 naming the parameter, the names it takes and the one given', async () => {
    for (const path of ['/v2/apis/weather-alarm-feed', '/dailyhot/weatheralarm']) {
      const res = await svc.get(`${path}?province=${encodeURIComponent('广东')}`);
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(/^Invalid parameter "province": one of 北京市, .*广东省.*, not "广东"\.$/);
    }
  });

  it("answers /dailyhot/weatheralarm?province= in DailyHotApi's shape, its type naming the province", async () => {
    const res = await svc.get(`/dailyhot/weatheralarm?province=${encodeURIComponent('广东省')}`);
    const body = (await res.json()) as { type: string; params: unknown; total: number; data: { url: string }[] };
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ type: '广东省气象预警', params: { province: { name: '预警区域', value: '省份名称（ 例如：广东省 ）' } }, total: 2 });
    expect(body.data[0]?.url).toBe('https://www.nmc.cn/publish/alarm/44000041600000_202611211100.html');
    const all = (await (await svc.get('/dailyhot/weatheralarm')).json()) as { type: string; total: number };
    expect(all).toMatchObject({ type: '全国气象预警', total: 6 });
  });
});
