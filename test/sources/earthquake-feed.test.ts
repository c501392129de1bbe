import { expect, it } from 'vitest';
import { parseDeclared } from '../../sources/_shared/declared-list.ts';
import { list } from '../../sources/earthquake-feed.ts';
import { describeDeclaredList, readFixture } from '../support/declared-list-suite.ts';

describeDeclaredList(list);

it('earthquake-feed reads the array the page script assigns, with the epicentre in the summary', () => {
  const [first] = parseDeclared(list, readFixture('news.ceic.ac.cn/speedsearch.html'));
  expect(first).toMatchObject({ published: '2026-11-21 10:15:30' });
  expect(first?.desc).toContain('深度(千米)：10');
  expect(() => parseDeclared(list, '<script>var other = [];</script>')).toThrow('news.ceic.ac.cn page has no script assigning JSON to const newdata');
});
