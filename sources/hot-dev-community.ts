/**
 * The developer community's article ranking (稀土掘金 文章榜, all categories), from
 * https://api.juejin.cn/content_api/v1/content/article_rank?category_id=1&type=hot:
 * `{err_no: 0, data: [{content: {content_id, title}, author: {name}, content_counter: {hot_rank}}]}`.
 * Format as read by imsyy/DailyHotApi src/routes/juejin.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asString, pick } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'hot-dev-community',
  name: '稀土掘金文章榜',
  description: "The developer community's hot article ranking: title, heat, author and the article link.",
  homepage: 'https://juejin.cn/hot/articles',
  path: '/hot-dev-community',
  trending: { role: 'coverage' },
  pace: 'feed',
  request: { url: 'https://api.juejin.cn/content_api/v1/content/article_rank', searchParams: { category_id: 1, type: 'hot' } },
  headers: { referer: 'https://juejin.cn/' },
  okWhen: { field: 'err_no', is: 0, message: 'err_msg' },
  items: ['data'],
  item: (e) => {
    const id = asString(pick(e, 'content', 'content_id'));
    return {
      id,
      title: pick(e, 'content', 'title'),
      link: id ? `https://juejin.cn/post/${id}` : undefined,
      hot: pick(e, 'content_counter', 'hot_rank'),
      author: pick(e, 'author', 'name'),
    };
  },
};

export default defineHotList(list);
