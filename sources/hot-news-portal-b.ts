/**
 * The hot news of the second news portal (网易新闻 热点榜), from its mobile site's
 * https://m.163.com/fe/api/hot/news/flow: `{code: 200, data: {list: [{docid, title, imgsrc,
 * source, ptime: "YYYY-MM-DD HH:mm:ss"}]}}`. It gives no heat. Format as read by
 * imsyy/DailyHotApi src/routes/netease-news.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asString } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'hot-news-portal-b',
  name: '网易新闻热点榜',
  description: "The second news portal's hot news: title, cover, outlet, publish time and the article link (no heat).",
  homepage: 'https://m.163.com/hot',
  path: '/hot-news-portal-b',
  trending: {},
  pace: 'hot',
  request: { url: 'https://m.163.com/fe/api/hot/news/flow' },
  headers: { referer: 'https://m.163.com/hot' },
  okWhen: { field: 'code', is: 200 },
  items: ['data', 'list'],
  item: (e) => {
    const id = asString(e.docid);
    return {
      id,
      title: e.title,
      link: id ? `https://www.163.com/dy/article/${id}.html` : undefined,
      mobileLink: id ? `https://m.163.com/dy/article/${id}.html` : undefined,
      cover: e.imgsrc,
      author: e.source,
      time: e.ptime,
    };
  },
};

export default defineHotList(list);
