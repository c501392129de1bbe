import { expect, it } from 'vitest';
import { parseDeclared } from '../../sources/_shared/declared-list.ts';
import { list } from '../../sources/game-industry-news.ts';
import { describeDeclaredList, readFixture } from '../support/declared-list-suite.ts';

describeDeclaredList(list);

it('game-industry-news reads only the news pane, resolves site-relative links and takes the time before the author', () => {
  const items = parseDeclared(list, readFixture('www.gameres.com/index.html'));
  expect(items.map((i) => i.title)).not.toContain('另一栏目的文章');
  expect(items[1]?.link).toBe('https://www.gameres.com/512003.html');
  expect(items[0]).toMatchObject({ published: '2026-11-21 10:00:00', desc: '报告显示移动游戏收入继续增长。' });
});
