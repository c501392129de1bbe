import { expect, it } from 'vitest';
import { parseDeclared } from '../../sources/_shared/declared-list.ts';
import { list } from '../../sources/hot-campus-forum.ts';
import { describeDeclaredList, readFixture } from '../support/declared-list-suite.ts';

describeDeclaredList(list);

it('hot-campus-forum keeps the board, the author and the post time of a topic', () => {
  const [first] = parseDeclared(list, readFixture('wap.newsmth.net/wap/api/hot/global.json'));
  expect(first).toMatchObject({ board: '亲子', author: 'smth0', published_at: 1795226400000, desc: '正文摘要0：大家怎么看？' });
});
