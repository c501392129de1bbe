/**
 * Hot searches of the microblog platform (m.weibo.cn realtime hot list, the mobile container
 * API). Entries whose `pic` is not `img_search_<n>` are pinned or promoted, not ranked.
 * The API answers only with a visitor cookie; when the cookie expires it returns a login
 * page or `ok: 0`, which shows as `blocked` on /v2/status. Set SOURCE_HOT_MICROBLOG_COOKIE.
 */
import { SourceError } from '../src/kernel/errors.ts';
import { defineSource } from '../src/kernel/source.ts';
import { asArray, asNumber, asRecord, asString, hotList, hotListRows, pick, validateHotList, type HotItem, type HotList } from './_shared/hot-list.ts';

export const UPSTREAM_URL =
  'https://m.weibo.cn/api/container/getIndex?containerid=106003type%3D25%26t%3D3%26disable_hot%3D1%26filter_type%3Drealtimehot';

const RANKED_PIC = /img_search_(\d+)/;

export function parse(raw: unknown, now: Date): HotList<HotItem> {
  const root = asRecord(raw);
  if (!root) throw new SourceError('parse', 'answer is not a JSON object');
  if (root.ok !== 1) throw new SourceError('blocked', `upstream answered ok=${JSON.stringify(root.ok)} (visitor cookie expired or risk control)`);
  const group = asArray(pick(root, 'data', 'cards', 0, 'card_group'));
  if (!group) throw new SourceError('parse', 'data.cards[0].card_group is missing');
  const list: HotItem[] = [];
  for (const entry of group) {
    const e = asRecord(entry);
    const rank = RANKED_PIC.exec(asString(e?.pic) ?? '')?.[1];
    const title = asString(e?.desc)?.trim();
    if (!e || !rank || !title) continue;
    const hot = asNumber(e.desc_extr);
    list.push({
      rank: Number(rank),
      title,
      link: `https://s.weibo.com/weibo?q=${encodeURIComponent(`#${title}#`)}`,
      ...(hot !== undefined ? { hot_value: hot } : {}),
    });
  }
  list.sort((a, b) => a.rank - b.rank);
  return hotList(list, now);
}

export default defineSource({
  id: 'hot-microblog',
  name: '微博热搜',
  description: 'Real-time hot searches of the microblog platform: rank, title, heat and a search link.',
  homepage: 'https://s.weibo.com/top/summary',
  routes: [{ path: '/hot-microblog' }],
  mode: 'scheduled',
  schedule: '*/5 * * * *',
  freshness: { ttlSec: 300, backoffCapSec: 3600 },
  env: [{ name: 'SOURCE_HOT_MICROBLOG_COOKIE', doc: 'Visitor cookie sent to m.weibo.cn (the list is refused without one)', secret: true }],
  headers: (env) => {
    const cookie = env('SOURCE_HOT_MICROBLOG_COOKIE');
    return { referer: 'https://m.weibo.cn/', accept: 'application/json, text/plain, */*', 'mweibo-pwa': '1', ...(cookie ? { cookie } : {}) };
  },
  async fetch(ctx) {
    const res = await ctx.http.request(UPSTREAM_URL, { signal: ctx.signal });
    if (/text\/html/.test(String(res.headers['content-type']))) throw new SourceError('blocked', 'upstream answered an HTML page (login or risk control) instead of JSON');
    return parse(res.json(), ctx.now());
  },
  validate: (data) => validateHotList(data, 5),
  view: { rows: hotListRows },
  example: '/v2/apis/hot-microblog?encoding=text',
});
