import { expect, it } from 'vitest';
import { parseDeclared } from '../../sources/_shared/declared-list.ts';
import { list } from '../../sources/game-giveaway-news.ts';
import { describeDeclaredList, readFixture } from '../support/declared-list-suite.ts';

describeDeclaredList(list);

it('game-giveaway-news takes the quoted time, the summary and the mobile link of an article', () => {
  const [first] = parseDeclared(list, readFixture('www.ithome.com/zt/xijiayi.html'));
  expect(first).toMatchObject({ published: '2026-11-21 10:15:00', mobile_link: 'https://m.ithome.com/html/812300.htm', desc: '本周 Epic 商店免费游戏公布，限时领取后永久保留。' });
});
