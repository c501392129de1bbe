/**
 * The latest articles of the popular-science site (果壳 热门文章), from
 * https://www.guokr.com/beta/proxy/science_api/articles?limit=30: a bare array of `{id, title,
 * summary, small_image, author: {nickname}, date_modified: ISO 8601}`. It gives no heat.
 * Format as read by imsyy/DailyHotApi src/routes/guokr.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asString, pick } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'hot-science',
  name: '果壳热门文章',
  description: "The popular-science site's latest articles: title, picture, author, summary, time and the article link (no heat).",
  homepage: 'https://www.guokr.com/',
  path: '/hot-science',
  trending: { role: 'coverage' },
  pace: 'feed',
  request: { url: 'https://www.guokr.com/beta/proxy/science_api/articles', searchParams: { limit: 30 } },
  headers: { referer: 'https://www.guokr.com/' },
  items: [],
  item: (e) => {
    const id = asString(e.id);
    const modified = asString(e.date_modified);
    return {
      id,
      title: e.title,
      link: id ? `https://www.guokr.com/article/${id}/` : undefined,
      mobileLink: id ? `https://m.guokr.com/article/${id}/` : undefined,
      cover: e.small_image,
      author: pick(e, 'author', 'nickname'),
      desc: e.summary,
      time: modified ? Date.parse(modified) || undefined : undefined,
    };
  },
};

export default defineHotList(list);
