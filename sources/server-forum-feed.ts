/**
 * The latest posts of the server and hosting forum (NodeSeek 最新), from its RSS 2.0 feed
 * https://rss.nodeseek.com/: `channel > item` with `title`, `link`, `guid`, `pubDate` (RFC 822),
 * `description` and `dc:creator` or `author`. It gives no heat. Feed as read by imsyy/DailyHotApi
 * src/routes/nodeseek.ts; the elements are RSS 2.0's (https://www.rssboard.org/rss-specification).
 */
import { defineHotList, type HtmlList } from './_shared/declared-list.ts';
import { rssItem } from './_shared/feed-item.ts';

export const list: HtmlList = {
  id: 'server-forum-feed',
  name: 'NodeSeek最新',
  description: "The server and hosting forum's latest posts: title, author, excerpt, post time and the post link (no heat).",
  homepage: 'https://www.nodeseek.com/',
  path: '/server-forum-feed',
  pace: 'feed',
  xml: true,
  html: 'channel > item',
  request: { url: 'https://rss.nodeseek.com/' },
  item: rssItem,
};

export default defineHotList(list);
