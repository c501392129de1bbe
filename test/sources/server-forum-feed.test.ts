import { expect, it } from 'vitest';
import { parseDeclared } from '../../sources/_shared/declared-list.ts';
import { list } from '../../sources/server-forum-feed.ts';
import { describeDeclaredList, readFixture } from '../support/declared-list-suite.ts';

describeDeclaredList(list, (requests) => {
  it('asks for the feed as XML', () => {
    expect(requests().find((r) => r.host === 'rss.nodeseek.com')?.headers.accept).toMatch(/application\/rss\+xml/);
  });
});

it('server-forum-feed reads the RSS elements: link text, CDATA, dc:creator and the RFC 822 date', () => {
  const [first] = parseDeclared(list, readFixture('rss.nodeseek.com/index.xml'));
  expect(first).toMatchObject({ id: '520000', author: 'user0', desc: '卖一台香港 VPS，配置 2C4G。', published_at: Date.UTC(2026, 10, 21, 10, 5) });
});
