import { expect, it } from 'vitest';
import { parseDeclared } from '../../sources/_shared/declared-list.ts';
import { list } from '../../sources/news-portal-c-rank.ts';
import { describeDeclaredList, readFixture } from '../support/declared-list-suite.ts';

describeDeclaredList(list, (requests) => {
  it("asks the day's ranking by its Asia/Shanghai date", () => {
    const asked = requests().find((r) => r.host === 'top.news.sina.com.cn');
    expect(asked?.query.get('top_time')).toMatch(/^20\d{6}$/);
    expect(asked?.query.get('top_show_num')).toBe('50');
  });
});

it('news-portal-c-rank reads the script, its source and its Asia/Shanghai date and time', () => {
  const [first] = parseDeclared(list, readFixture('top.news.sina.com.cn/ws/GetTopDataList.php.txt'));
  expect(first).toMatchObject({ author: '新华社', published: '2026-11-21 08:30:00' });
  expect(() => parseDeclared(list, 'var other = {};')).toThrow('news.sina.com.cn page has no script assigning JSON to var data');
});

it('news-portal-c-rank asks the sports section on its own host', () => {
  if (typeof list.request !== 'function') throw new Error('news-portal-c-rank asks by the date: its request is a function');
  const req = list.request(new Date(Date.UTC(2026, 10, 20, 17, 0)), '7');
  expect(req.url).toBe('https://top.sports.sina.com.cn/ws/GetTopDataList.php');
  expect(req.searchParams).toMatchObject({ top_cat: 'sports_suda', top_time: '20261121' });
});
