/**
 * The overall hot list of the third news portal (新浪 热榜), from its app's API
 * https://newsapp.sina.cn/api/hotlist?newsId=HB-1-snhs/top_news_list-all:
 * `{status: 0, data: {hotList: [{base: {base: {uniqueId, url}}, info: {title, hotValue}}]}}`
 * (`hotValue` is text such as "123.4万"). Format as read by imsyy/DailyHotApi src/routes/sina.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { pick } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'hot-news-portal-c',
  name: '新浪热榜',
  description: "The third news portal's overall hot list: title, heat and the article link.",
  homepage: 'https://sinanews.sina.cn/',
  path: '/hot-news-portal-c',
  trending: {},
  pace: 'hot',
  request: { url: 'https://newsapp.sina.cn/api/hotlist', searchParams: { newsId: 'HB-1-snhs/top_news_list-all' } },
    okWhen: { field: 'status', is: 0 },
  items: ['data', 'hotList'],
  item: (e) => ({
    id: pick(e, 'base', 'base', 'uniqueId'),
    title: pick(e, 'info', 'title'),
    link: pick(e, 'base', 'base', 'url'),
    hot: pick(e, 'info', 'hotValue'),
  }),
};

export default defineHotList(list);
