import { expect, it } from 'vitest';
import { parseDeclared } from '../../sources/_shared/declared-list.ts';
import { list } from '../../sources/game-community-news.ts';
import { describeDeclaredList, readFixture } from '../support/declared-list-suite.ts';

const ZZZ_NEWS = 'bbs-api-static.miyoushe.com/painter/wapi/getNewsList-gids-8-type-3.json';

describeDeclaredList(list);

it("game-community-news links each post under its game's section of the site", () => {
  const [first] = parseDeclared(list, readFixture(ZZZ_NEWS), '8');
  expect(first).toMatchObject({ link: 'https://www.miyoushe.com/zzz/article/64000001', mobile_link: 'https://m.miyoushe.com/zzz/#/article/64000001', author: '绝区零' });
  const [honkai] = parseDeclared(list, readFixture('bbs-api-static.miyoushe.com/painter/wapi/getNewsList-gids-1.json'), '1');
  expect(honkai?.link).toBe('https://www.miyoushe.com/bh3/article/63000001');
});

it('game-community-news asks for the game and the kind chosen', () => {
  expect(typeof list.request === 'function' && list.request(new Date(), '8', { game: '8', type: '3' }).searchParams).toMatchObject({ gids: '8', type: '3' });
});
