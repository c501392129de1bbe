/**
 * Popular articles of the digital-life magazine (少数派 热门文章), from
 * https://sspai.com/api/v1/article/tag/page/get?limit=40&tag=热门文章, which answers
 * `{error: 0, data: [{id, title, summary, banner, like_count, released_time, author: {nickname}}]}`
 * (`banner` is a path on cdn.sspai.com). Format as read by imsyy/DailyHotApi src/routes/sspai.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asString, pick } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'hot-digital-life',
  name: '少数派热门文章',
  description: "Popular articles of the digital-life magazine: title, likes as heat, cover, author, summary, publish time and the article link.",
  homepage: 'https://sspai.com/',
  path: '/hot-digital-life',
  trending: { role: 'coverage' },
  pace: 'feed',
  request: { url: 'https://sspai.com/api/v1/article/tag/page/get', searchParams: { limit: 40, tag: '热门文章' } },
  headers: { referer: 'https://sspai.com/' },
  okWhen: { field: 'error', is: 0, message: 'msg' },
  items: ['data'],
  item: (e) => {
    const banner = asString(e.banner);
    return {
      id: e.id,
      title: e.title,
      link: `https://sspai.com/post/${asString(e.id)}`,
      hot: e.like_count,
      cover: banner ? new URL(banner, 'https://cdn.sspai.com/').toString() : undefined,
      author: pick(e, 'author', 'nickname'),
      desc: e.summary,
      time: e.released_time,
    };
  },
};

export default defineHotList(list);
