import { expect, it } from 'vitest';
import { list } from '../../sources/intl-newspaper-feed.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';

describeDeclaredList(list);

it('intl-newspaper-feed asks the World feed for the global edition', () => {
  if (typeof list.request !== 'function') throw new Error('intl-newspaper-feed picks its feed by edition: its request is a function');
  expect(list.request(new Date(), 'global').url).toBe('https://rss.nytimes.com/services/xml/rss/nyt/World.xml');
  expect(list.request(new Date(), 'china').url).toBe('https://cn.nytimes.com/rss/');
});
