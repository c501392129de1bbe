/**
 * The review site's picked group discussions (豆瓣小组 讨论精选), from
 * https://www.douban.com/group/explore: each `.article .channel-item` holds `h3 a` (title and
 * topic link), `.pic-wrap img`, `.block p` (excerpt) and `span.pubtime`. It shows no heat.
 * Format as read by imsyy/DailyHotApi src/routes/douban-group.ts.
 */
import { defineHotList, type HtmlList } from './_shared/declared-list.ts';

export const list: HtmlList = {
  id: 'review-a-groups',
  name: '豆瓣小组讨论精选',
  description: "The review site's picked group discussions: title, picture, excerpt, time and the topic link (no heat).",
  homepage: 'https://www.douban.com/group/explore',
  path: '/review-a/groups',
  trending: { role: 'coverage' },
  pace: 'feed',
  request: { url: 'https://www.douban.com/group/explore' },
  headers: { referer: 'https://www.douban.com/' },
  html: '.article .channel-item',
  item: (el) => {
    const a = el.find('h3 a').first();
    const href = a.attr('href');
    const id = /topic\/(\d+)/.exec(href ?? '')?.[1];
    return {
      id,
      title: a.text(),
      link: href,
      mobileLink: id ? `https://m.douban.com/group/topic/${id}/` : undefined,
      cover: el.find('.pic-wrap img').attr('src'),
      desc: el.find('.block p').first().text(),
      time: el.find('span.pubtime').first().text().trim() || undefined,
    };
  },
};

export default defineHotList(list);
