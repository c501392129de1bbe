import { expect, it } from 'vitest';
import { parseDeclared } from '../../sources/_shared/declared-list.ts';
import { list } from '../../sources/hot-product-launch.ts';
import { describeDeclaredList, readFixture } from '../support/declared-list-suite.ts';

describeDeclaredList(list);

it("hot-product-launch reads today's section only: the post id, the name link, the upvotes", () => {
  const items = parseDeclared(list, readFixture('www.producthunt.com/index.html'));
  expect(items[0]).toMatchObject({ id: '1080001', title: 'DeskPilot', hot_value: 612 });
  expect(items.map((i) => i.title)).not.toContain('Older One');
});
