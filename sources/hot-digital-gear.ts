/**
 * The news of the digital-lifestyle community (数字尾巴 热门文章), from
 * https://opser.api.dgtle.com/v2/news/index: `{items: [{id, type, title, content, cover, from,
 * membernum, created_at (s)}]}`; brief items have no `title` (their text is the headline).
 * Format as read by imsyy/DailyHotApi src/routes/dgtle.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asString } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'hot-digital-gear',
  name: '数字尾巴热门文章',
  description: "The digital-lifestyle community's news: title, members as heat, cover, outlet, text, publish time and the article link.",
  homepage: 'https://www.dgtle.com/',
  path: '/hot-digital-gear',
  trending: { role: 'coverage' },
  pace: 'feed',
  request: { url: 'https://opser.api.dgtle.com/v2/news/index' },
  headers: { referer: 'https://www.dgtle.com/' },
  items: ['items'],
  item: (e) => {
    const id = asString(e.id);
    return {
      id,
      title: asString(e.title) || e.content,
      link: id ? `https://www.dgtle.com/news-${id}-${asString(e.type) ?? '1'}.html` : undefined,
      mobileLink: id ? `https://m.dgtle.com/news-details/${id}` : undefined,
      hot: e.membernum,
      cover: e.cover,
      author: e.from,
      desc: e.content,
      time: e.created_at,
    };
  },
};

export default defineHotList(list);
