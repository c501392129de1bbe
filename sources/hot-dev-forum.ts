/**
 * The hot topics of the developers' forum (V2EX 最热主题), from its public API
 * https://www.v2ex.com/api/topics/hot.json: a bare array of `{id, title, url, content, replies,
 * created, member: {username}}` (documented at https://www.v2ex.com/p/7v9TEc53). Format also as
 * read by imsyy/DailyHotApi src/routes/v2ex.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { pick } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'hot-dev-forum',
  name: 'V2EX 最热主题',
  description: "The developers' forum's hottest topics: title, replies as heat, author, excerpt, post time and the topic link.",
  homepage: 'https://www.v2ex.com/?tab=hot',
  path: '/hot-dev-forum',
  trending: { role: 'coverage', params: { type: 'hot' } },
  pace: 'feed',
  variants: { param: 'type', doc: 'Which topics', values: { hot: 'the hottest', latest: 'the newest' } },
  request: (_now, type) => ({ url: `https://www.v2ex.com/api/topics/${type === 'latest' ? 'latest' : 'hot'}.json` }),
    items: [],
  item: (e) => ({
    id: e.id,
    title: e.title,
    link: e.url ?? (e.id !== undefined ? `https://www.v2ex.com/t/${String(e.id)}` : undefined),
    hot: e.replies,
    author: pick(e, 'member', 'username'),
    desc: typeof e.content === 'string' ? e.content.slice(0, 200) : undefined,
    time: e.created,
  }),
};

export default defineHotList(list);
