import { expect, it } from 'vitest';
import { articleId, list } from '../../sources/hot-it-news.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';
import { describeHotListEndpoint } from '../support/hot-list-endpoint.ts';

it('reads the article id of mobile and live links', () => {
  expect(articleId('https://m.ithome.com/html/812345.htm')).toBe('812345');
  expect(articleId('https://live.ithome.com/live/812346.htm')).toBe('812346');
  expect(articleId('https://m.ithome.com/')).toBeUndefined();
});

describeDeclaredList(list);

const html = { 'content-type': 'text/html; charset=utf-8' };
describeHotListEndpoint({
  sourceId: 'hot-it-news',
  path: '/v2/apis/hot-it-news',
  ttlSec: 600,
  serveGood: (u) => {
    u.serveFile('m.ithome.com', '/rankm/', 'm.ithome.com/rankm/index.html');
  },
  upstreams: [{ host: 'm.ithome.com', path: '/rankm/' }],
  blocked: { status: 200, headers: html, body: '<html><head><title>安全验证</title></head><body><div class="captcha"></div></body></html>' },
  changedShape: { status: 200, headers: html, body: '<html><body><div class="rank-list-new"><a href="/html/1.htm">x</a></div></body></html>' },
  emptyList: { status: 200, headers: html, body: '<html><body><div class="rank-box"><div class="placeholder"><a href="https://m.ithome.com/html/1.htm"></a></div></div></body></html>' },
  expected: { total: 8, first: { title: '国产新款旗舰手机今日开售，首销一分钟破纪录', link: 'https://www.ithome.com/0/812/345.htm' }, firstHot: '1,285' },
});
