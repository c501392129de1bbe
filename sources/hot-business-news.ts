/**
 * The business and technology news site's rankings (36氪 人气榜, and with `type` its video,
 * most-discussed and most-saved rankings): a POST of
 * `{partner_id: 'wap', param: {siteId: 1, platformId: 2}, timestamp}` to
 * https://gateway.36kr.com/api/mis/nav/home/nav/rank/<type> answers
 * `{code, data: {hotRankList | videoList | remarkList | collectList: [{itemId, publishTime,
 * templateMaterial: {widgetTitle, widgetImage, authorName, statCollect}}]}}`.
 * Format as read by imsyy/DailyHotApi src/routes/36kr.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asRecord, asString } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'hot-business-news',
  name: '36氪人气榜',
  description: "The business and technology news site's popularity ranking (or, with `type`, its video, most-discussed and most-saved rankings): title, saves as heat, cover, author, publish time and the article link.",
  homepage: 'https://36kr.com/hot-list/catalog',
  path: '/hot-business-news',
  trending: {},
  pace: 'hot',
  variants: { param: 'type', doc: 'Which ranking', values: { hot: '人气榜', video: '视频榜', comment: '热议榜', collect: '收藏榜' } },
  request: (now, type) => ({
    url: `https://gateway.36kr.com/api/mis/nav/home/nav/rank/${type ?? 'hot'}`,
    method: 'POST',
    json: { partner_id: 'wap', param: { siteId: 1, platformId: 2 }, timestamp: now.getTime() },
  }),
  headers: { referer: 'https://m.36kr.com/' },
  okWhen: { field: 'code', is: 0 },
  items: ['data', 'hotRankList'],
  itemsOf: { video: ['data', 'videoList'], comment: ['data', 'remarkList'], collect: ['data', 'collectList'] },
  item: (e) => {
    const m = asRecord(e.templateMaterial) ?? {};
    return {
      id: e.itemId,
      title: m.widgetTitle,
      link: `https://www.36kr.com/p/${asString(e.itemId)}`,
      mobileLink: `https://m.36kr.com/p/${asString(e.itemId)}`,
      hot: m.statCollect,
      cover: m.widgetImage,
      author: m.authorName,
      time: e.publishTime,
    };
  },
};

export default defineHotList(list);
