/**
 * The IT community's recommended articles (51CTO 推荐榜). Its API wants a token and a signature:
 * https://api-media.51cto.com/api/token-get answers `{data: {data: {token}}}` (kept for an hour,
 * fetched again after an answer that refuses or cannot be read);
 * https://api-media.51cto.com/index/index/recommend?page&page_size&limit_time&name_en then also
 * carries `timestamp` (ms), `token` and `sign` = md5(md5(<path>) + md5(<its parameter names,
 * sorted, comma-joined> + md5(token) + timestamp)), and answers `{data: {data: {list: [{source_id,
 * title, cover, abstract, pubdate, url}]}}}`. Token, signature and format as read by
 * imsyy/DailyHotApi src/routes/51cto.ts and src/utils/getToken/51cto.ts.
 */
import { SourceError } from '../src/kernel/errors.ts';
import { need } from '../src/kernel/json-path.ts';
import { defineHotList, type JsonList, type ListRequest } from './_shared/declared-list.ts';
import { md5 } from '../src/kernel/digest.ts';
import { asString } from './_shared/hot-list.ts';
import { keptPerClient } from './_shared/kept-value.ts';

const API = 'https://api-media.51cto.com';
const LIST_PATH = 'index/index/recommend';

const token = keptPerClient(3600_000, async (http, signal) => {
  const answer = await http.json(`${API}/api/token-get`, { signal });
  const value = need(answer, 'data.data.token', asString, 'the token (a string)');
  if (!value.trim()) throw new SourceError('parse', 'token-get answered an empty data.data.token');
  return value;
});

/** The request with its `timestamp`, `token` and `sign` (see above). */
export function signed(req: ListRequest, tokenValue: string, nowMs: number): ListRequest {
  const params = { ...req.searchParams, timestamp: nowMs, token: tokenValue };
  const names = Object.keys(params).sort().join(',');
  const sign = md5(md5(LIST_PATH) + md5(names + md5(tokenValue) + nowMs));
  return { ...req, searchParams: { ...params, sign } };
}

export const list: JsonList = {
  id: 'hot-it-community',
  name: '51CTO推荐榜',
  description: "The IT community's recommended articles: title, cover, abstract, publish time and the article link (no heat).",
  homepage: 'https://www.51cto.com/',
  path: '/hot-it-community',
  pace: 'feed',
  request: { url: `${API}/${LIST_PATH}`, searchParams: { page: 1, page_size: 50, limit_time: 0, name_en: '' } },
  prepare: {
    request: async (req, ctx) => signed(req, await token.get(ctx.http, ctx.signal, ctx.now.getTime()), ctx.now.getTime()),
    forget: (http) => token.forget(http),
  },
  items: ['data', 'data', 'list'],
  item: (e) => ({ id: e.source_id, title: e.title, link: e.url, cover: e.cover, desc: e.abstract, time: e.pubdate }),
};

export default defineHotList(list);
