/**
 * Today's popular posts of the shopping-deals community (什么值得买 今日热门), from
 * https://post.smzdm.com/rank/json_more/?unit=1: `{error_code: 0, data: [{article_id, title,
 * content, pic_url, nickname, collection_count (digit string), time_sort (s), jump_link}]}`.
 * Format as read by imsyy/DailyHotApi src/routes/smzdm.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';

export const list: JsonList = {
  id: 'hot-shopping-deals',
  name: '什么值得买今日热门',
  description: "Today's popular posts of the shopping-deals community: title, saves as heat, picture, author, excerpt, time and the post link.",
  homepage: 'https://www.smzdm.com/top/',
  path: '/hot-shopping-deals',
  pace: 'feed',
  variants: { param: 'unit', doc: 'Period of the ranking, in days', values: { '1': 'today', '7': 'this week', '30': 'this month' } },
  request: (_now, unit) => ({ url: 'https://post.smzdm.com/rank/json_more/', searchParams: { unit: unit ?? '1' } }),
  headers: { referer: 'https://post.smzdm.com/' },
  okWhen: { field: 'error_code', is: 0, message: 'error_msg' },
  items: ['data'],
  item: (e) => ({
    id: e.article_id,
    title: e.title,
    link: e.jump_link,
    hot: e.collection_count,
    cover: e.pic_url,
    author: e.nickname,
    desc: e.content,
    time: e.time_sort,
  }),
};

export default defineHotList(list);
