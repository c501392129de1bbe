/**
 * The hot threads of the gamers' forum (NGA 论坛热帖): a form POST of `__output=14` to
 * https://ngabbs.com/nuke.php?__lib=load_topic&__act=load_topic_reply_ladder2&opt=1&all=1
 * answers `{code: 0, result: [[{tid, subject, author, tpcurl, replies, postdate}]]}` (`tpcurl`
 * is a path on bbs.nga.cn, `postdate` in seconds). Format as read by imsyy/DailyHotApi
 * src/routes/ngabbs.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asString } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'hot-game-forum',
  name: 'NGA 论坛热帖',
  description: "The gamers' forum's hot threads: title, replies as heat, author, post time and the thread link.",
  homepage: 'https://ngabbs.com/',
  base: 'https://bbs.nga.cn/',
  path: '/hot-game-forum',
  trending: { role: 'coverage' },
  pace: 'feed',
  request: {
    url: 'https://ngabbs.com/nuke.php?__lib=load_topic&__act=load_topic_reply_ladder2&opt=1&all=1',
    method: 'POST',
    form: { __output: '14' },
  },
  headers: { accept: '*/*', referer: 'https://ngabbs.com/', 'x-user-agent': 'NGA_skull/7.3.1(iPhone13,2;iOS 17.2.1)' },
  okWhen: { field: 'code', is: 0, message: 'msg' },
  items: ['result', 0],
  item: (e) => ({
    id: e.tid,
    title: e.subject,
    link: e.tpcurl ?? (e.tid !== undefined ? `/read.php?tid=${asString(e.tid)}` : undefined),
    hot: e.replies,
    author: e.author,
    time: e.postdate,
  }),
};

export default defineHotList(list);
