/**
 * Hot searches of the microblog platform (m.weibo.cn realtime hot list, the mobile container
 * API). Entries whose `pic` is not `img_search_<n>` are pinned or promoted, not ranked.
 * The API answers only with a visitor cookie; when the cookie expires it returns a login
 * page or `ok: 0`, which shows as `blocked` on /v2/status. Set SOURCE_HOT_MICROBLOG_COOKIE
 * (the default is the visitor cookie the reference project ships, which rotates every few months).
 * `desc_extr` is the heat, sometimes prefixed with a category ("综艺 1050401"), sometimes a
 * number; `icon` is the 热/新/沸/爆 badge image.
 */
import { SourceError } from '../src/kernel/errors.ts';
import { missingPath, need } from '../src/kernel/json-path.ts';
import { defineSource } from '../src/kernel/source.ts';
import { asArray, asNumber, asRecord, asString, dedupeByLink, hotListRows, migrateHotList, pick, validateHotList, type HotItem, type HotList } from './_shared/hot-list.ts';

export const UPSTREAM_URL =
  'https://m.weibo.cn/api/container/getIndex?containerid=106003type%3D25%26t%3D3%26disable_hot%3D1%26filter_type%3Drealtimehot';

const RANKED_PIC = /img_search_(\d+)/;

export const DEFAULT_COOKIE =
  'SUB=_2AkMflEwGf8NxqwFRmvsXxG7ia4h2wwrEieKpyL3dJRM3HRl-yT9yqk4mtRB6NBRi6maz6YaTyfIClrCyCUrm0-7nB1R9; SUBP=0033WrSXqPxfM72-Ws9jqgMF55529P9D9WhR9EPgz3BDPWy-YHwFuiIb; MLOGIN=0; _T_WM=29824971760; XSRF-TOKEN=3e7411; WEIBOCN_FROM=1110006030; mweibo_short_token=0f127e0728; M_WEIBOCN_PARAMS=fid%3D106003type%253D25%2526t%253D3%2526disable_hot%253D1%2526filter_type%253Drealtimehot%26uicode%3D10000011';

/** Badge image names → the label they show. */
const BADGES: [RegExp, string][] = [
  [/_new\b/, '新'],
  [/_hot\b/, '热'],
  [/_boil|_fei/, '沸'],
  [/_bao|_explode/, '爆'],
  [/_recom|_jian/, '荐'],
];

export interface MicroblogItem extends HotItem {
  hot_value: number;
  /** Category shown before the heat ("综艺", "剧集"…), or null. */
  category: string | null;
  /** The badge (热, 新, 沸, 爆, 荐), or null. */
  label: string | null;
  label_icon: string | null;
}

export function parse(raw: unknown): HotList<MicroblogItem> {
  const root = need(raw, '', asRecord, 'a JSON object');
  if (root.ok !== 1) throw new SourceError('blocked', `upstream answered ok=${JSON.stringify(root.ok)} (visitor cookie expired or risk control)`);
  const group = asArray(pick(root, 'data', 'cards', 0, 'card_group'));
  if (!group) throw missingPath(root, 'data.cards[0].card_group', 'an array');
  const list: MicroblogItem[] = [];
  for (const entry of group) {
    const e = asRecord(entry);
    const rank = RANKED_PIC.exec(asString(e?.pic) ?? '')?.[1];
    const title = asString(e?.desc)?.trim();
    if (!e || !rank || !title) continue;
    const extra = asString(e.desc_extr)?.trim() ?? '';
    const category = /^([^\d\s]+)\s*\d/.exec(extra)?.[1] ?? null;
    const icon = asString(e.icon) || null;
    list.push({
      rank: Number(rank),
      title,
      link: `https://s.weibo.com/weibo?q=${encodeURIComponent(`#${title}#`)}`,
      hot_value: asNumber(e.desc_extr) ?? 0,
      category,
      label: icon ? (BADGES.find(([re]) => re.test(icon))?.[1] ?? null) : null,
      label_icon: icon,
    });
  }
  list.sort((a, b) => a.rank - b.rank);
  return dedupeByLink(list);
}

export default defineSource({
  id: 'hot-microblog',
  name: '微博热搜',
  description: 'Real-time hot searches of the microblog platform: rank, title, heat, category, badge and a search link. Pinned and promoted entries are left out.',
  homepage: 'https://s.weibo.com/top/summary',
  routes: [{ path: '/hot-microblog' }],
  mode: 'scheduled',
  schedule: '*/5 * * * *',
  trending: {},
  freshness: { ttlSec: 300, backoffCapSec: 3600 },
  env: [{ name: 'SOURCE_HOT_MICROBLOG_COOKIE', doc: 'Visitor cookie sent to m.weibo.cn (the list is refused without one)', default: DEFAULT_COOKIE, secret: true }],
  headers: (env) => {
    const cookie = env('SOURCE_HOT_MICROBLOG_COOKIE');
    return { referer: 'https://m.weibo.cn/', accept: 'application/json, text/plain, */*', 'mweibo-pwa': '1', ...(cookie ? { cookie } : {}) };
  },
  async fetch(ctx) {
    const res = await ctx.http.request(UPSTREAM_URL, { signal: ctx.signal });
    if (/text\/html/.test(String(res.headers['content-type']))) throw new SourceError('blocked', 'upstream answered an HTML page (login or risk control) instead of JSON');
    return parse(res.json());
  },
  validate: (data) => validateHotList(data, 5),
  migrate: migrateHotList(),
  view: { rows: hotListRows },
  example: '/v2/apis/hot-microblog?encoding=text',
});
