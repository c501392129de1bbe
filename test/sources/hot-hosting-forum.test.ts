import { expect, it } from 'vitest';
import { parseDeclared } from '../../sources/_shared/declared-list.ts';
import { list } from '../../sources/hot-hosting-forum.ts';
import { describeDeclaredList, readFixture } from '../support/declared-list-suite.ts';

describeDeclaredList(list);

it('hot-hosting-forum reads a Discuz! feed: the author element, no guid (the link is the id)', () => {
  const [first] = parseDeclared(list, readFixture('hostloc.com/forum.php.xml'));
  expect(first).toMatchObject({ id: 'https://hostloc.com/thread-1400000-1-1.html', author: 'loc0', published_at: Date.UTC(2026, 10, 21, 0, 20) });
});
