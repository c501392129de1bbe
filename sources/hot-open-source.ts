/**
 * The featured open-source projects of the monthly open-source magazine (HelloGitHub 热门仓库),
 * from https://abroad.hellogithub.com/v1/?sort_by=featured&tid=&page=1:
 * `{success: true, data: [{item_id, title, summary, author, clicks_total, updated_at}]}`.
 * Format as read by imsyy/DailyHotApi src/routes/hellogithub.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asString } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'hot-open-source',
  name: 'HelloGitHub 热门仓库',
  description: "The open-source magazine's featured projects: name, clicks as heat, author, summary, update time and the project page.",
  homepage: 'https://hellogithub.com/',
  path: '/hot-open-source',
  pace: 'daily',
  request: { url: 'https://abroad.hellogithub.com/v1/', searchParams: { sort_by: 'featured', tid: '', page: 1 } },
  headers: { referer: 'https://hellogithub.com/' },
  okWhen: { field: 'success', is: true, message: 'message' },
  items: ['data'],
  item: (e) => ({
    id: e.item_id,
    title: e.title,
    link: e.item_id !== undefined ? `https://hellogithub.com/repository/${asString(e.item_id)}` : undefined,
    hot: e.clicks_total,
    author: e.author,
    desc: e.summary ?? e.description,
    time: e.updated_at,
  }),
};

export default defineHotList(list);
