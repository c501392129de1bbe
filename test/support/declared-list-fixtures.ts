/**
 * The fixtures of the lists declared with defineHotList (sources/_shared/declared-list.ts): which
 * upstream path each list asks, which file answers it, and what the list then holds. Used by
 * test/sources/declared-lists.test.ts and by `npm run demo` (the lists whose fixture is not at
 * the upstream's path, e.g. two lists of one API told apart by the query).
 */
import type { Upstream } from './upstream.ts';

export interface DeclaredListFixture {
  sourceId: string;
  /** Our path, `/v2/apis/…`. */
  path: string;
  host: string;
  upstreamPath: string;
  /** Under test/fixtures/upstream. */
  file: string;
  /** A query value the upstream request must carry, where one API serves several lists. */
  query?: Record<string, string>;
  /** Response headers over the file's own type (a feed whose charset only its XML declaration names). */
  headers?: Record<string, string>;
  total: number;
  first: { title: string; link: string; hot_value?: number };
}

export const DECLARED_LIST_FIXTURES: readonly DeclaredListFixture[] = [
  { sourceId: 'video-site-rank', path: '/v2/apis/video-site-rank', host: 'api.bilibili.com', upstreamPath: '/x/web-interface/ranking/v2', file: 'api.bilibili.com/x/web-interface/ranking/v2.json', total: 8, first: { title: '【年度巨制】我用三年时间复刻了一座古城', link: 'https://www.bilibili.com/video/BV1aX4y1c7Pq', hot_value: 3521890 } },
  { sourceId: 'hot-business-news', path: '/v2/apis/hot-business-news', host: 'gateway.36kr.com', upstreamPath: '/api/mis/nav/home/nav/rank/hot', file: 'gateway.36kr.com/api/mis/nav/home/nav/rank/hot.json', total: 8, first: { title: '苹果被曝正研发折叠屏iPad，最快2028年发布', link: 'https://www.36kr.com/p/3500000000000000', hot_value: 5123 } },
  { sourceId: 'hot-digital-life', path: '/v2/apis/hot-digital-life', host: 'sspai.com', upstreamPath: '/api/v1/article/tag/page/get', file: 'sspai.com/api/v1/article/tag/page/get.json', total: 8, first: { title: '我的 2026 年度 App 清单', link: 'https://sspai.com/post/95000', hot_value: 312 } },
  { sourceId: 'it-news-rank', path: '/v2/apis/hot-it-news', host: 'm.ithome.com', upstreamPath: '/rankm/', file: 'm.ithome.com/rankm/index.html', total: 8, first: { title: '国产新款旗舰手机今日开售，首销一分钟破纪录', link: 'https://www.ithome.com/0/812/345.htm', hot_value: 1285 } },
  { sourceId: 'hot-news-paper', path: '/v2/apis/hot-news-paper', host: 'cache.thepaper.cn', upstreamPath: '/contentapi/wwwIndex/rightSidebar', file: 'cache.thepaper.cn/contentapi/wwwIndex/rightSidebar.json', total: 8, first: { title: '多地发布寒潮预警，这些地方将迎大风降温', link: 'https://www.thepaper.cn/newsDetail_forward_31234001', hot_value: 2836 } },
  { sourceId: 'hot-dev-community', path: '/v2/apis/hot-dev-community', host: 'api.juejin.cn', upstreamPath: '/content_api/v1/content/article_rank', file: 'api.juejin.cn/content_api/v1/content/article_rank.json', total: 8, first: { title: '2026 年前端框架性能横评', link: 'https://juejin.cn/post/7320001234567890123', hot_value: 1820 } },
  { sourceId: 'hot-news-portal-a', path: '/v2/apis/hot-news-portal-a', host: 'r.inews.qq.com', upstreamPath: '/gw/event/hot_ranking_list', file: 'r.inews.qq.com/gw/event/hot_ranking_list.json', total: 8, first: { title: '今冬首场寒潮来袭 多地气温骤降', link: 'https://new.qq.com/rain/a/20261121A01ABC00', hot_value: 9812345 } },
  { sourceId: 'hot-news-portal-b', path: '/v2/apis/hot-news-portal-b', host: 'm.163.com', upstreamPath: '/fe/api/hot/news/flow', file: 'm.163.com/fe/api/hot/news/flow.json', total: 8, first: { title: '寒潮来袭！多地启动应急响应', link: 'https://www.163.com/dy/article/JH8A0A0R0001899O.html' } },
  { sourceId: 'hot-news-portal-c', path: '/v2/apis/hot-news-portal-c', host: 'newsapp.sina.cn', upstreamPath: '/api/hotlist', file: 'newsapp.sina.cn/api/hotlist.json', total: 8, first: { title: '寒潮预警升级为橙色', link: 'https://so.sina.cn/search/list.d.html?keyword=%E5%AF%92%E6%BD%AE%E9%A2%84%E8%AD%A6%E5%8D%87%E7%BA%A7%E4%B8%BA%E6%A9%99%E8%89%B2', hot_value: 1234000 } },
  { sourceId: 'review-a-chart', path: '/v2/apis/review-a/chart', host: 'movie.douban.com', upstreamPath: '/chart', file: 'movie.douban.com/chart.html', total: 8, first: { title: '海上钢琴师', link: 'https://movie.douban.com/subject/1292001/', hot_value: 123456 } },
  { sourceId: 'review-a-groups', path: '/v2/apis/review-a/groups', host: 'www.douban.com', upstreamPath: '/group/explore', file: 'www.douban.com/group/explore.html', total: 8, first: { title: '有没有人和我一样，冬天只想窝在家里', link: 'https://www.douban.com/group/topic/330000001/' } },
  { sourceId: 'game-news-a', path: '/v2/apis/game-news-a', host: 'bbs-api-static.miyoushe.com', upstreamPath: '/painter/wapi/getNewsList', file: 'bbs-api-static.miyoushe.com/painter/wapi/getNewsList-gids-2.json', query: { gids: '2' }, total: 6, first: { title: '「月之四」版本更新说明', link: 'https://www.miyoushe.com/ys/article/61000001', hot_value: 1520340 } },
  { sourceId: 'game-news-b', path: '/v2/apis/game-news-b', host: 'bbs-api-static.miyoushe.com', upstreamPath: '/painter/wapi/getNewsList', file: 'bbs-api-static.miyoushe.com/painter/wapi/getNewsList-gids-6.json', query: { gids: '6' }, total: 6, first: { title: '「3.8」版本更新说明', link: 'https://www.miyoushe.com/sr/article/62000001', hot_value: 1320450 } },
  { sourceId: 'game-news-c', path: '/v2/apis/game-news-c', host: 'apps.game.qq.com', upstreamPath: '/cmc/zmMcnTargetContentList', file: 'apps.game.qq.com/cmc/zmMcnTargetContentList.json', total: 7, first: { title: '版本更新公告：新英雄登场', link: 'https://lol.qq.com/news/detail.shtml?docid=1234567', hot_value: 988123 } },
  { sourceId: 'book-rank-a', path: '/v2/apis/book-rank-a', host: 'weread.qq.com', upstreamPath: '/web/bookListInCategory/rising', file: 'weread.qq.com/web/bookListInCategory/rising.json', total: 7, first: { title: '三体全集', link: 'https://weread.qq.com/web/bookDetail/ce032b305a9bc1ce0b0dd2a', hot_value: 123456 } },
  { sourceId: 'hot-game-forum', path: '/v2/apis/hot-game-forum', host: 'ngabbs.com', upstreamPath: '/nuke.php', file: 'ngabbs.com/nuke.php.json', total: 7, first: { title: '[讨论] 新版本强度榜出炉，你的本命上榜了吗', link: 'https://bbs.nga.cn/read.php?tid=41000001', hot_value: 2345 } },
  { sourceId: 'hot-sports-forum', path: '/v2/apis/hot-sports-forum', host: 'm.hupu.com', upstreamPath: '/api/v2/bbs/topicThreads', file: 'm.hupu.com/api/v2/bbs/topicThreads.json', total: 7, first: { title: '今天的比赛太精彩了，绝杀！', link: 'https://bbs.hupu.com/63000001.html', hot_value: 3456 } },
  { sourceId: 'hot-dev-forum', path: '/v2/apis/hot-dev-forum', host: 'www.v2ex.com', upstreamPath: '/api/topics/hot.json', file: 'www.v2ex.com/api/topics/hot.json', total: 7, first: { title: '大家 2026 年都换了什么新设备', link: 'https://www.v2ex.com/t/1090001', hot_value: 156 } },
  { sourceId: 'hot-open-source', path: '/v2/apis/hot-open-source', host: 'abroad.hellogithub.com', upstreamPath: '/v1/', file: 'abroad.hellogithub.com/v1/index.json', total: 6, first: { title: 'free-programming-books', link: 'https://hellogithub.com/repository/ab12cd34ef', hot_value: 98765 } },
  { sourceId: 'hot-writing-community', path: '/v2/apis/hot-writing-community', host: 'www.jianshu.com', upstreamPath: '/', file: 'www.jianshu.com/index.html', total: 7, first: { title: '我用一年时间，读完了 100 本书', link: 'https://www.jianshu.com/p/a1b2c3d4e5f6' } },
  { sourceId: 'qa-site-daily', path: '/v2/apis/qa-site-daily', host: 'daily.zhihu.com', upstreamPath: '/api/4/news/latest', file: 'daily.zhihu.com/api/4/news/latest.json', total: 6, first: { title: '为什么冬天特别容易犯困？', link: 'https://daily.zhihu.com/story/9780001' } },
  { sourceId: 'code-trending', path: '/v2/apis/code-trending', host: 'github.com', upstreamPath: '/trending', file: 'github.com/trending.html', total: 6, first: { title: 'microsoft/markitdown', link: 'https://github.com/microsoft/markitdown', hot_value: 1234 } },
  { sourceId: 'hot-dev-blog', path: '/v2/apis/hot-dev-blog', host: 'blog.csdn.net', upstreamPath: '/phoenix/web/blog/hot-rank', file: 'blog.csdn.net/phoenix/web/blog/hot-rank.json', total: 7, first: { title: '程序员如何在 2026 年保持竞争力', link: 'https://blog.csdn.net/user0/article/details/145009001', hot_value: 12345 } },
  { sourceId: 'video-site-b-rank', path: '/v2/apis/video-site-b-rank', host: 'www.acfun.cn', upstreamPath: '/rest/pc-direct/rank/channel', file: 'www.acfun.cn/rest/pc-direct/rank/channel.json', total: 6, first: { title: '【手书】冬日的约定', link: 'https://www.acfun.cn/v/ac44000001', hot_value: 12345 } },
  { sourceId: 'tech-moments', path: '/v2/apis/tech-moments', host: 'moment-api.huxiu.com', upstreamPath: '/web-v3/moment/feed', file: 'moment-api.huxiu.com/web-v3/moment/feed.json', total: 6, first: { title: '某科技公司发布新一代AI芯片', link: 'https://www.huxiu.com/moment/3300001.html', hot_value: 321 } },
  { sourceId: 'tech-flash-news', path: '/v2/apis/tech-flash-news', host: 'sso.ifanr.com', upstreamPath: '/api/v5/wp/buzz/', file: 'sso.ifanr.com/api/v5/wp/buzz/index.json', total: 6, first: { title: '某品牌发布新款折叠屏手机', link: 'https://www.ifanr.com/digest/1700001', hot_value: 56 } },
  { sourceId: 'game-news-d', path: '/v2/apis/game-news-d', host: 'bbs-api-static.miyoushe.com', upstreamPath: '/painter/wapi/getNewsList', file: 'bbs-api-static.miyoushe.com/painter/wapi/getNewsList-gids-1.json', query: { gids: '1' }, total: 6, first: { title: '《崩坏3》新版本更新说明', link: 'https://www.miyoushe.com/bh3/article/63000001', hot_value: 876543 } },
  { sourceId: 'hot-shopping-deals', path: '/v2/apis/hot-shopping-deals', host: 'post.smzdm.com', upstreamPath: '/rank/json_more/', file: 'post.smzdm.com/rank/json_more/index.json', total: 6, first: { title: '这款羽绒服今年又降价了，值不值得买？', link: 'https://post.smzdm.com/p/a80081001/', hot_value: 3456 } },
  { sourceId: 'hot-tech-park', path: '/v2/apis/hot-tech-park', host: 'mainssl.geekpark.net', upstreamPath: '/api/v2', file: 'mainssl.geekpark.net/api/v2.json', total: 6, first: { title: '专访：一家硬件创业公司的十年', link: 'https://www.geekpark.net/news/340001', hot_value: 12345 } },
  { sourceId: 'hot-science', path: '/v2/apis/hot-science', host: 'www.guokr.com', upstreamPath: '/beta/proxy/science_api/articles', file: 'www.guokr.com/beta/proxy/science_api/articles.json', total: 6, first: { title: '为什么冬天手脚总是冰凉？', link: 'https://www.guokr.com/article/2900001/' } },
  { sourceId: 'hot-digital-gear', path: '/v2/apis/hot-digital-gear', host: 'opser.api.dgtle.com', upstreamPath: '/v2/news/index', file: 'opser.api.dgtle.com/v2/news/index.json', total: 6, first: { title: '新款旗舰相机上手体验', link: 'https://www.dgtle.com/news-1560001-1.html', hot_value: 321 } },
  { sourceId: 'hot-short-video-b', path: '/v2/apis/hot-short-video-b', host: 'www.kuaishou.com', upstreamPath: '/', file: 'www.kuaishou.com/index.html', query: { isHome: '1' }, total: 8, first: { title: '这家小面馆火了二十年', link: 'https://www.kuaishou.com/short-video/3x1abcd1efgh1jk', hot_value: 11023000 } },
  { sourceId: 'game-media-feed', path: '/v2/apis/game-media-feed', host: 'www.yystv.cn', upstreamPath: '/home/get_home_docs_by_page', file: 'www.yystv.cn/home/get_home_docs_by_page.json', total: 6, first: { title: '老游戏里的冬天：像素画师如何画雪', link: 'https://www.yystv.cn/p/1300' } },
  { sourceId: 'hot-app-community', path: '/v2/apis/hot-app-community', host: 'api.coolapk.com', upstreamPath: '/v6/page/dataList', file: 'api.coolapk.com/v6/page/dataList.json', query: { url: '/feed/statList?cacheExpires=300', statType: 'day' }, total: 7, first: { title: '今天入手了新手机，分享一下第一天的使用感受 #数码#', link: 'https://www.coolapk.com/feed/61000000?shareKey=ZjE0&shareUid=0&shareFrom=com.coolapk.market_11.0', hot_value: 356 } },
  { sourceId: 'hot-campus-forum', path: '/v2/apis/hot-campus-forum', host: 'wap.newsmth.net', upstreamPath: '/wap/api/hot/global', file: 'wap.newsmth.net/wap/api/hot/global.json', total: 6, first: { title: '冬天北京哪里适合带娃玩', link: 'https://wap.newsmth.net/article/60a1b2c3d4e5f60718293a4b00?title=%E4%BA%B2%E5%AD%90&from=home' } },
  { sourceId: 'news-portal-c-rank', path: '/v2/apis/news-portal-c-rank', host: 'top.news.sina.com.cn', upstreamPath: '/ws/GetTopDataList.php', file: 'top.news.sina.com.cn/ws/GetTopDataList.php.txt', query: { top_type: 'day', top_cat: 'www_www_all_suda_suda' }, total: 6, first: { title: '多地迎来今冬首场降雪 交通出行受影响', link: 'https://news.sina.com.cn/c/2026-11-21/doc-ihemqyz0a1234567.shtml', hot_value: 1234567 } },
  { sourceId: 'weather-alarm-feed', path: '/v2/apis/weather-alarm-feed', host: 'www.nmc.cn', upstreamPath: '/rest/findAlarm', file: 'www.nmc.cn/rest/findAlarm.json', total: 6, first: { title: '广东省气象台发布大风蓝色预警', link: 'https://www.nmc.cn/publish/alarm/44000041600000_202611211000.html' } },
  { sourceId: 'game-giveaway-news', path: '/v2/apis/game-giveaway-news', host: 'www.ithome.com', upstreamPath: '/zt/xijiayi', file: 'www.ithome.com/zt/xijiayi.html', total: 6, first: { title: 'Epic 喜加一：冒险解谜游戏限时免费领取', link: 'https://www.ithome.com/0/812/300.htm', hot_value: 128 } },
  { sourceId: 'game-industry-news', path: '/v2/apis/game-industry-news', host: 'www.gameres.com', upstreamPath: '/', file: 'www.gameres.com/index.html', total: 6, first: { title: '2026 年移动游戏市场年度报告发布', link: 'https://www.gameres.com/512000.html' } },
  { sourceId: 'earthquake-feed', path: '/v2/apis/earthquake-feed', host: 'news.ceic.ac.cn', upstreamPath: '/speedsearch.html', file: 'news.ceic.ac.cn/speedsearch.html', total: 6, first: { title: '四川甘孜州泸定县发生3.2级地震', link: 'https://news.ceic.ac.cn/CC20261121101530.html' } },
  { sourceId: 'server-forum-feed', path: '/v2/apis/server-forum-feed', host: 'rss.nodeseek.com', upstreamPath: '/', file: 'rss.nodeseek.com/index.xml', total: 6, first: { title: '出一台香港 VPS，年付', link: 'https://www.nodeseek.com/post-520000-1' } },
  { sourceId: 'hot-linux-forum', path: '/v2/apis/hot-linux-forum', host: 'linux.do', upstreamPath: '/top.rss', file: 'linux.do/top.rss', query: { period: 'weekly' }, total: 6, first: { title: '分享一个好用的终端配置', link: 'https://linux.do/t/topic/1200000' } },
  { sourceId: 'intl-newspaper-feed', path: '/v2/apis/intl-newspaper-feed', host: 'cn.nytimes.com', upstreamPath: '/rss/', file: 'cn.nytimes.com/rss/index.xml', total: 6, first: { title: '寒潮席卷北半球，多国发布预警', link: 'https://cn.nytimes.com/world/20261120/story-0/' } },
  { sourceId: 'hot-hosting-forum', path: '/v2/apis/hot-hosting-forum', host: 'hostloc.com', upstreamPath: '/forum.php', file: 'hostloc.com/forum.php.xml', query: { mod: 'guide', view: 'hot', rss: '1' }, total: 6, first: { title: '出一台美西 VPS', link: 'https://hostloc.com/thread-1400000-1-1.html' } },
  { sourceId: 'hot-product-launch', path: '/v2/apis/hot-product-launch', host: 'www.producthunt.com', upstreamPath: '/', file: 'www.producthunt.com/index.html', total: 7, first: { title: 'DeskPilot', link: 'https://www.producthunt.com/products/deskpilot', hot_value: 612 } },
  { sourceId: 'hot-reverse-forum', path: '/v2/apis/hot-reverse-forum', host: 'www.52pojie.cn', upstreamPath: '/forum.php', file: 'www.52pojie.cn/forum.php.xml', headers: { 'content-type': 'application/xml' }, query: { mod: 'guide', view: 'hot', rss: '1' }, total: 6, first: { title: '[原创] 某安卓应用的协议分析笔记', link: 'https://www.52pojie.cn/thread-1900001-1-1.html' } },
  { sourceId: 'game-community-news', path: '/v2/apis/game-community-news', host: 'bbs-api-static.miyoushe.com', upstreamPath: '/painter/wapi/getNewsList', file: 'bbs-api-static.miyoushe.com/painter/wapi/getNewsList-gids-1.json', query: { gids: '1', type: '1' }, total: 6, first: { title: '《崩坏3》新版本更新说明', link: 'https://www.miyoushe.com/bh3/article/63000001', hot_value: 876543 } },
  { sourceId: 'hot-it-community', path: '/v2/apis/hot-it-community', host: 'api-media.51cto.com', upstreamPath: '/index/index/recommend', file: 'api-media.51cto.com/index/index/recommend.json', query: { page: '1', page_size: '50', token: '5f3c9a1e2b7d4c8e9a0b1c2d3e4f5a6b' }, total: 7, first: { title: 'Kubernetes 集群升级的十个坑', link: 'https://www.51cto.com/article/800001.html' } },
];

/** Serve every declared list's fixture (by query where one API serves several lists). */
export function serveDeclaredLists(upstream: Upstream, fixtures: readonly DeclaredListFixture[] = DECLARED_LIST_FIXTURES): void {
  const byPath = new Map<string, DeclaredListFixture[]>();
  for (const f of fixtures) byPath.set(`${f.host}${f.upstreamPath}`, [...(byPath.get(`${f.host}${f.upstreamPath}`) ?? []), f]);
  for (const group of byPath.values()) {
    const [{ host, upstreamPath }] = group as [DeclaredListFixture];
    upstream.serve(host, upstreamPath, (req) => {
      const f = group.find((g) => Object.entries(g.query ?? {}).every(([k, v]) => req.query.get(k) === v));
      return f ? upstream.fileReply(f.file, f.headers) : { status: 404, body: 'no fixture for this query' };
    });
  }
}
