import { expect, it } from 'vitest';
import { parseDeclared } from '../../sources/_shared/declared-list.ts';
import { list } from '../../sources/weather-alarm-feed.ts';
import { describeDeclaredList, readFixture } from '../support/declared-list-suite.ts';

describeDeclaredList(list);

it("weather-alarm-feed reads the issue time in the site's slashed layout, in Asia/Shanghai", () => {
  const [first] = parseDeclared(list, readFixture('www.nmc.cn/rest/findAlarm.json'));
  expect(first).toMatchObject({ published: '2026-11-21 10:30:00', cover: 'https://image.nmc.cn/assets/img/alarm/p0000.png' });
});
