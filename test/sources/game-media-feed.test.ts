import { expect, it } from 'vitest';
import { parseDeclared } from '../../sources/_shared/declared-list.ts';
import { list } from '../../sources/game-media-feed.ts';
import { describeDeclaredList, readFixture } from '../support/declared-list-suite.ts';

describeDeclaredList(list);

it('game-media-feed reads createtime as epoch seconds or as a date-time text', () => {
  const items = parseDeclared(list, readFixture('www.yystv.cn/home/get_home_docs_by_page.json'));
  expect(items[0]).toMatchObject({ author: '游研社', published_at: 1795226400000 });
  const [text] = parseDeclared(list, { data: [{ id: '9', title: 't', createtime: '2026-11-21 08:00:00' }] });
  expect(text?.published).toBe('2026-11-21 08:00:00');
});
