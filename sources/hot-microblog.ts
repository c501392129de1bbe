/**
 * Hot searches of the microblog platform (m.weibo.cn realtime hot list, the mobile container
 * API). Entries whose `pic` is not `img_search_<n>` are pinned or promoted, not ranked.
 * The API answers only with a visitor cookie; when the cookie expires it returns a login
 * page or `ok: 0`, which shows as `blocked` on /v2/status. Set SOURCE_HOT_MICROBLOG_COOKIE
 * (the default is the visitor cookie the reference project ships, which rotates every few months).
 * `desc_extr` is the heat, sometimes prefixed with a category ("综艺 1050401"), sometimes a
 * number; `icon` is the 热/新/沸/爆 badge image.
 */
import { defineHotList, parseDeclared, type DeclaredItem, type JsonList } from './_shared/declared-list.ts';
import { asNumber, asString } from './_shared/hot-list.ts';

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

export interface MicroblogItem extends DeclaredItem {
  hot_value: number;
  /** Category shown before the heat ("综艺", "剧集"…), or null. */
  category: string | null;
  /** The badge (热, 新, 沸, 爆, 荐), or null. */
  label: string | null;
  label_icon: string | null;
}

export const list: JsonList = {
  id: 'hot-microblog',
  name: '微博热搜',
  description: 'Real-time hot searches of the microblog platform: rank, title, heat, category, badge and a search link. Pinned and promoted entries are left out.',
  homepage: 'https://s.weibo.com/top/summary',
  path: '/hot-microblog',
  trending: {},
  pace: 'live',
  request: { url: UPSTREAM_URL },
  env: [{ name: 'SOURCE_HOT_MICROBLOG_COOKIE', doc: 'Visitor cookie sent to m.weibo.cn (the list is refused without one)', default: DEFAULT_COOKIE, secret: true }],
  headers: (env) => {
    const cookie = env('SOURCE_HOT_MICROBLOG_COOKIE');
    return { referer: 'https://m.weibo.cn/', accept: 'application/json, text/plain, */*', 'mweibo-pwa': '1', ...(cookie ? { cookie } : {}) };
  },
  refused: (root) => (root.ok !== 1 ? `upstream answered ok=${JSON.stringify(root.ok)} (visitor cookie expired or risk control)` : undefined),
  items: ['data', 'cards', 0, 'card_group'],
  item: (e) => {
    const rank = RANKED_PIC.exec(asString(e.pic) ?? '')?.[1];
    const title = asString(e.desc)?.trim();
    if (!rank || !title) return undefined;
    const extra = asString(e.desc_extr)?.trim() ?? '';
    const icon = asString(e.icon) || null;
    return {
      rank: Number(rank),
      title,
      link: `https://s.weibo.com/weibo?q=${encodeURIComponent(`#${title}#`)}`,
      hot: asNumber(e.desc_extr) ?? 0,
      extra: {
        category: /^([^\d\s]+)\s*\d/.exec(extra)?.[1] ?? null,
        label: icon ? (BADGES.find(([re]) => re.test(icon))?.[1] ?? null) : null,
        label_icon: icon,
      },
    };
  },
};

export const parse = (raw: unknown) => parseDeclared(list, raw) as MicroblogItem[];

export default defineHotList(list);
