/**
 * The Q&A site's daily digest (知乎日报), from https://daily.zhihu.com/api/4/news/latest:
 * `{date: "YYYYMMDD", stories: [{id, title, hint, images: [url], url, type}], top_stories}`;
 * `type` 0 are the day's stories. Format as read by imsyy/DailyHotApi src/routes/zhihu-daily.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asNumber, pick } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'qa-site-daily',
  name: '知乎日报',
  description: "The Q&A site's daily digest: the day's stories with title, picture, author line and link (no heat).",
  homepage: 'https://daily.zhihu.com/',
  path: '/qa-site-daily',
  trending: { role: 'coverage' },
  pace: 'daily',
  min: 3,
  request: { url: 'https://daily.zhihu.com/api/4/news/latest' },
  headers: { referer: 'https://daily.zhihu.com/' },
  items: ['stories'],
  item: (e) =>
    e.type === undefined || asNumber(e.type) === 0
      ? { id: e.id, title: e.title, link: e.url ?? (e.id !== undefined ? `https://daily.zhihu.com/story/${String(e.id)}` : undefined), cover: pick(e, 'images', 0), author: e.hint }
      : undefined,
};

export default defineHotList(list);
