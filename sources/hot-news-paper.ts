/**
 * The hot news of the news paper's site (澎湃新闻 热榜), from the right sidebar of its home page,
 * https://cache.thepaper.cn/contentapi/wwwIndex/rightSidebar:
 * `{resultCode: 1, data: {hotNews: [{contId, name, pic, praiseTimes, pubTimeLong}]}}`
 * (`praiseTimes` is a digit string). Format as read by imsyy/DailyHotApi src/routes/thepaper.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asString } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'hot-news-paper',
  name: '澎湃新闻热榜',
  description: "The news paper site's hot news: title, likes as heat, cover, publish time and the article link.",
  homepage: 'https://www.thepaper.cn/',
  path: '/hot-news-paper',
  trending: {},
  pace: 'hot',
  request: { url: 'https://cache.thepaper.cn/contentapi/wwwIndex/rightSidebar' },
  headers: { referer: 'https://www.thepaper.cn/' },
  items: ['data', 'hotNews'],
  item: (e) => ({
    id: e.contId,
    title: e.name,
    link: `https://www.thepaper.cn/newsDetail_forward_${asString(e.contId)}`,
    mobileLink: `https://m.thepaper.cn/newsDetail_forward_${asString(e.contId)}`,
    hot: e.praiseTimes,
    cover: e.pic,
    time: e.pubTimeLong,
  }),
};

export default defineHotList(list);
