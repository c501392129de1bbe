/**
 * The hot ranking of the developer blog platform (CSDN 热榜), from
 * https://blog.csdn.net/phoenix/web/blog/hot-rank?page=0&pageSize=30:
 * `{code: 200, data: [{productId, articleTitle, articleDetailUrl, picList, nickName,
 * hotRankScore}]}` (`hotRankScore` is a digit string). Format as read by imsyy/DailyHotApi
 * src/routes/csdn.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { pick } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'hot-dev-blog',
  name: 'CSDN 热榜',
  description: "The developer blog platform's hot ranking: title, heat, cover, author and the article link.",
  homepage: 'https://blog.csdn.net/rank/list',
  path: '/hot-dev-blog',
  pace: 'feed',
  request: { url: 'https://blog.csdn.net/phoenix/web/blog/hot-rank', searchParams: { page: 0, pageSize: 30 } },
  headers: { referer: 'https://blog.csdn.net/rank/list' },
  okWhen: { field: 'code', is: 200, message: 'message' },
  items: ['data'],
  item: (e) => ({
    id: e.productId,
    title: e.articleTitle,
    link: e.articleDetailUrl,
    hot: e.hotRankScore,
    cover: pick(e, 'picList', 0),
    author: e.nickName,
  }),
};

export default defineHotList(list);
