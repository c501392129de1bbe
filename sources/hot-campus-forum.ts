/**
 * The hot topics of the campus-born forum (水木社区 热门话题), from its mobile site's API
 * https://wap.newsmth.net/wap/api/hot/global: `{data: {topics: [{firstArticleId, subject,
 * article: {topicId, postTime, subject, body, account: {name}}, board: {title, name}}]}}`. It
 * gives no heat. Format as read by imsyy/DailyHotApi src/routes/newsmth.ts and src/router.types.d.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asRecord, asString, pick } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'hot-campus-forum',
  name: '水木社区热门话题',
  description: "The campus-born forum's hot topics: title, author, excerpt, board, post time and the topic link (no heat).",
  homepage: 'https://www.newsmth.net/',
  path: '/hot-campus-forum',
  trending: { role: 'coverage' },
  pace: 'feed',
  request: { url: 'https://wap.newsmth.net/wap/api/hot/global' },
  items: ['data', 'topics'],
  item: (e) => {
    const post = asRecord(e.article) ?? {};
    const topic = asString(post.topicId);
    const board = asString(pick(e, 'board', 'title'));
    return {
      id: e.firstArticleId ?? topic,
      title: post.subject ?? e.subject,
      link: topic ? `https://wap.newsmth.net/article/${topic}?${new URLSearchParams({ ...(board ? { title: board } : {}), from: 'home' }).toString()}` : undefined,
      author: pick(post, 'account', 'name'),
      desc: post.body,
      time: post.postTime,
      extra: board ? { board } : undefined,
    };
  },
};

export default defineHotList(list);
