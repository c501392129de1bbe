/**
 * The reverse-engineering forum's guide lists (吾爱破解 人气热门, or with `view` its digest, tech
 * sharing and newest lists), from the Discuz! guide's RSS 2.0 feed
 * https://www.52pojie.cn/forum.php?mod=guide&view=<view>&rss=1 (`channel > item`: `title`, `link`,
 * `description`, `author`, `pubDate`). The feed is GBK-encoded, named by its XML declaration (the
 * kernel's HTTP client decodes it). It gives no heat. Feed and views as read by imsyy/DailyHotApi
 * src/routes/52pojie.ts; the elements are RSS 2.0's.
 */
import { defineHotList, type HtmlList } from './_shared/declared-list.ts';
import { discuzGuideFeed } from './_shared/feed-item.ts';

export const list: HtmlList = {
  id: 'hot-reverse-forum',
  name: '吾爱破解人气热门',
  description: "The reverse-engineering forum's popular threads (or, with `view`, its digest, tech-sharing and newest lists): title, author, excerpt, post time and the thread link (no heat).",
  homepage: 'https://www.52pojie.cn/',
  path: '/hot-reverse-forum',
  pace: 'feed',
  ...discuzGuideFeed('https://www.52pojie.cn', { hot: '人气热门', digest: '精华采撷', newthread: '技术分享', tech: '新鲜出炉' }),
};

export default defineHotList(list);
