/**
 * The latest articles of the game-culture magazine (游研社 全部文章), from
 * https://www.yystv.cn/home/get_home_docs_by_page: `{data: [{id, title, cover, preface, author,
 * createtime}]}` (`createtime` a string, read as epoch seconds or a date-time). It gives no heat.
 * Format as read by imsyy/DailyHotApi src/routes/yystv.ts and src/router.types.d.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asString } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'game-media-feed',
  name: '游研社全部文章',
  description: "The game-culture magazine's latest articles: title, cover, author, preface, publish time and the article link (no heat).",
  homepage: 'https://www.yystv.cn/docs',
  path: '/game-media-feed',
  pace: 'feed',
  base: 'https://www.yystv.cn/',
  request: { url: 'https://www.yystv.cn/home/get_home_docs_by_page' },
  items: ['data'],
  item: (e) => ({
    id: e.id,
    title: e.title,
    link: asString(e.id) ? `https://www.yystv.cn/p/${asString(e.id)}` : undefined,
    cover: e.cover,
    author: e.author,
    desc: e.preface,
    time: e.createtime,
  }),
};

export default defineHotList(list);
