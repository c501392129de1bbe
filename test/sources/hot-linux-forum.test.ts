import { expect, it } from 'vitest';
import { parseDeclared } from '../../sources/_shared/declared-list.ts';
import { list } from '../../sources/hot-linux-forum.ts';
import { describeDeclaredList, readFixture } from '../support/declared-list-suite.ts';

describeDeclaredList(list);

it("hot-linux-forum reads Discourse's feed: the creator, the text of the HTML description and the date", () => {
  const [first] = parseDeclared(list, readFixture('linux.do/top.rss'));
  expect(first).toMatchObject({ id: 'linux.do-topic-1200000', author: 'user0', published_at: Date.UTC(2026, 10, 21, 0, 0) });
  expect(first?.desc).toBe('终端配置分享');
});
