/**
 * The hosting forum's guide lists (全球主机交流 最新热门, or with `view` its digest, latest-reply and
 * latest-thread lists), from the Discuz! guide's RSS 2.0 feed
 * https://hostloc.com/forum.php?mod=guide&view=<view>&rss=1 (`channel > item`: `title`, `link`,
 * `description`, `author`, `pubDate`). It gives no heat. Feed as read by imsyy/DailyHotApi
 * src/routes/hostloc.ts; the elements are RSS 2.0's.
 */
import { defineHotList, type HtmlList } from './_shared/declared-list.ts';
import { discuzGuideFeed } from './_shared/feed-item.ts';

export const list: HtmlList = {
  id: 'hot-hosting-forum',
  name: '全球主机交流最新热门',
  description: "The hosting forum's hot threads (or, with `view`, its digest, latest-reply and latest-thread lists): title, author, excerpt, post time and the thread link (no heat).",
  homepage: 'https://hostloc.com/',
  path: '/hot-hosting-forum',
  pace: 'feed',
  ...discuzGuideFeed('https://hostloc.com', { hot: '最新热门', digest: '最新精华', new: '最新回复', newthread: '最新发表' }),
};

export default defineHotList(list);
