/**
 * The hot ranking of the first news portal (腾讯新闻 热点榜), from
 * https://r.inews.qq.com/gw/event/hot_ranking_list?page_size=50:
 * `{ret: 0, idlist: [{newslist: [header card, {id, title, abstract, source, timestamp,
 * miniProShareImage, hotEvent: {hotScore}}…]}]}`. The first entry is the list's header card,
 * which has no `hotEvent`. Format as read by imsyy/DailyHotApi src/routes/qq-news.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asRecord, asString, pick } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'hot-news-portal-a',
  name: '腾讯新闻热点榜',
  description: "The first news portal's hot ranking: title, heat, cover, outlet, summary, publish time and the article link.",
  homepage: 'https://news.qq.com/',
  path: '/hot-news-portal-a',
  trending: {},
  pace: 'hot',
  request: { url: 'https://r.inews.qq.com/gw/event/hot_ranking_list', searchParams: { page_size: 50 } },
  headers: { referer: 'https://news.qq.com/' },
  okWhen: { field: 'ret', is: 0 },
  items: ['idlist', 0, 'newslist'],
  item: (e) => {
    if (!asRecord(e.hotEvent)) return undefined;
    const id = asString(e.id);
    return {
      id,
      title: e.title,
      link: id ? `https://new.qq.com/rain/a/${id}` : undefined,
      mobileLink: id ? `https://view.inews.qq.com/k/${id}` : undefined,
      hot: pick(e, 'hotEvent', 'hotScore'),
      cover: e.miniProShareImage ?? e.thumbnails,
      author: e.source,
      desc: e.abstract,
      time: e.timestamp,
    };
  },
};

export default defineHotList(list);
