/**
 * The week's top topics of the Linux community forum (Linux.do 热门文章), from its Discourse RSS
 * 2.0 feed https://linux.do/top.rss?period=weekly (`channel > item`: `title`, `link`, `guid`,
 * `pubDate`, `dc:creator`, `description`). It gives no heat. Feed as read by imsyy/DailyHotApi
 * src/routes/linuxdo.ts; the elements are RSS 2.0's.
 */
import { defineHotList, type HtmlList } from './_shared/declared-list.ts';
import { rssItem } from './_shared/feed-item.ts';

export const list: HtmlList = {
  id: 'hot-linux-forum',
  name: 'Linux.do热门文章',
  description: "The Linux community forum's top topics of the week: title, author, excerpt, post time and the topic link (no heat).",
  homepage: 'https://linux.do/top/weekly',
  path: '/hot-linux-forum',
  pace: 'feed',
  request: { url: 'https://linux.do/top.rss', searchParams: { period: 'weekly' } },
  xml: true,
  html: 'channel > item',
  item: rssItem,
};

export default defineHotList(list);
