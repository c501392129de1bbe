import { list } from '../../sources/hot-news-paper.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';
import { describeHotListEndpoint } from '../support/hot-list-endpoint.ts';

describeDeclaredList(list);

describeHotListEndpoint({
  sourceId: 'hot-news-paper',
  path: '/v2/apis/hot-news-paper',
  ttlSec: 600,
  serveGood: (u) => {
    u.serveFile('cache.thepaper.cn', '/contentapi/wwwIndex/rightSidebar', 'cache.thepaper.cn/contentapi/wwwIndex/rightSidebar.json');
  },
  upstreams: [{ host: 'cache.thepaper.cn', path: '/contentapi/wwwIndex/rightSidebar' }],
  blocked: { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<html><head><title>安全验证</title></head><body></body></html>' },
  changedShape: { body: { resultCode: 1, data: { hotList: [] } } },
  emptyList: { body: { resultCode: 1, data: { hotNews: [] } } },
  expected: { total: 8, first: { title: '多地发布寒潮预警，这些地方将迎大风降温', link: 'https://www.thepaper.cn/newsDetail_forward_31234001' }, firstHot: '2,836' },
});
