/**
 * The video site's ranking of the last days' videos (bilibili, "排行榜 · 全站"), beside its hot
 * search words (hot-video-site). https://api.bilibili.com/x/web-interface/ranking/v2 answers
 * `{code, data: {list: [{bvid, title, desc, pic, pubdate, owner: {name}, stat: {view}}]}}`;
 * `code` -352 or -412 is risk control. `rid` (older clients) or `tid` (DailyHotApi today) picks a
 * partition (0 is the whole site); both are sent. Format and
 * partitions as read by imsyy/DailyHotApi src/routes/bilibili.ts. Requests carry the site's WBI
 * signature (_shared/wbi.ts); one it does not accept is answered with a `data.v_voucher` instead
 * of the list (bilibili-API-collect docs/misc/sign/wbi.md), a refusal.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asString, pick } from './_shared/hot-list.ts';
import { wbiSigned } from './_shared/wbi.ts';

export const list: JsonList = {
  id: 'video-site-rank',
  name: '哔哩哔哩排行榜',
  description: "The video site's all-round ranking of recent videos (or, with `partition`, one partition's): title, views as heat, cover, uploader, summary, publish time and the video link.",
  homepage: 'https://www.bilibili.com/v/popular/rank/all',
  path: '/video-site-rank',
  trending: {},
  pace: 'feed',
  variants: {
    param: 'partition',
    doc: 'Which partition',
    values: { '0': '全站', '1': '动画', '3': '音乐', '4': '游戏', '5': '娱乐', '36': '科技', '188': '数码', '119': '鬼畜', '129': '舞蹈', '155': '时尚', '160': '生活', '168': '国创相关', '181': '影视' },
  },
  request: (_now, rid) => ({ url: 'https://api.bilibili.com/x/web-interface/ranking/v2', searchParams: { rid: rid ?? '0', tid: rid ?? '0', type: 'all' } }),
  prepare: wbiSigned,
  headers: { referer: 'https://www.bilibili.com/ranking/all' },
  okWhen: { field: 'code', is: 0, message: 'message' },
  refused: (root) => (pick(root, 'data', 'v_voucher') !== undefined ? 'upstream answered a v_voucher (risk control: the WBI signature was not accepted)' : undefined),
  items: ['data', 'list'],
  item: (e) => ({
    id: e.bvid,
    title: e.title,
    link: `https://www.bilibili.com/video/${asString(e.bvid)}`,
    mobileLink: `https://m.bilibili.com/video/${asString(e.bvid)}`,
    hot: pick(e, 'stat', 'view'),
    cover: e.pic,
    author: pick(e, 'owner', 'name') ?? e.author,
    desc: asString(e.desc) === '-' ? undefined : e.desc,
    time: e.pubdate,
  }),
};

export default defineHotList(list);
