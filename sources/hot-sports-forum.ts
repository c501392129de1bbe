/**
 * The hot threads of the sports community's main board (虎扑 步行街热帖), from its mobile API
 * https://m.hupu.com/api/v2/bbs/topicThreads?topicId=1&page=1:
 * `{code: 1, data: {topicThreads: [{tid, title, replies, username, url}]}}`. Format as read by
 * imsyy/DailyHotApi src/routes/hupu.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asString } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'hot-sports-forum',
  name: '虎扑步行街热帖',
  description: "The sports community's main-board hot threads: title, replies as heat, author and the thread link.",
  homepage: 'https://bbs.hupu.com/all-gambia',
  path: '/hot-sports-forum',
  trending: { role: 'coverage' },
  pace: 'feed',
  request: { url: 'https://m.hupu.com/api/v2/bbs/topicThreads', searchParams: { topicId: 1, page: 1 } },
  headers: { referer: 'https://m.hupu.com/' },
  items: ['data', 'topicThreads'],
  item: (e) => {
    const tid = asString(e.tid);
    return {
      id: tid,
      title: e.title,
      link: tid ? `https://bbs.hupu.com/${tid}.html` : undefined,
      mobileLink: e.url,
      hot: e.replies,
      author: e.username,
    };
  },
};

export default defineHotList(list);
