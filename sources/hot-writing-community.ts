/**
 * Recommended articles of the writing community's home page (简书 热门推荐),
 * https://www.jianshu.com/: each `ul.note-list li` holds `a.title` (link `/p/<id>`), an `img`,
 * `p.abstract` and `a.nickname`. It shows no heat. Format as read by imsyy/DailyHotApi
 * src/routes/jianshu.ts.
 */
import { defineHotList, type HtmlList } from './_shared/declared-list.ts';

export const list: HtmlList = {
  id: 'hot-writing-community',
  name: '简书热门推荐',
  description: "The writing community's recommended articles: title, picture, author, excerpt and the article link (no heat).",
  homepage: 'https://www.jianshu.com/',
  path: '/hot-writing-community',
  trending: { role: 'coverage' },
  pace: 'feed',
  request: { url: 'https://www.jianshu.com/' },
  headers: { referer: 'https://www.jianshu.com' },
  html: 'ul.note-list li',
  item: (el) => {
    const href = el.find('a.title').attr('href');
    return {
      id: /\/p\/(\w+)/.exec(href ?? '')?.[1],
      title: el.find('a.title').text(),
      link: href,
      cover: el.find('img').attr('src'),
      author: el.find('a.nickname').text(),
      desc: el.find('p.abstract').text(),
    };
  },
};

export default defineHotList(list);
