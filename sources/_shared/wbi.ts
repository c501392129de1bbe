/**
 * The video site's WBI signature of web API requests (bilibili; facts from
 * SocialSisterYi/bilibili-API-collect docs/misc/sign/wbi.md): the site-wide `img_key` and
 * `sub_key` are the file names (without extension) of `data.wbi_img.img_url` and `sub_url` of
 * https://api.bilibili.com/x/web-interface/nav (answered without login too; they change daily,
 * so they are kept an hour); the mixin key is the first 32 characters of img_key + sub_key
 * permuted by a fixed table; a request carries `wts` (Unix seconds) and `w_rid` = md5 of its
 * parameters with `wts`, sorted by name, values without the characters !'()*, encoded as a URL
 * query (%20 for spaces, upper-case hex), followed by the mixin key.
 */
import { need } from '../../src/kernel/json-path.ts';
import type { Preparation } from './declared-list.ts';
import { md5 } from '../../src/kernel/digest.ts';
import { asString } from './hot-list.ts';
import { keptPerClient } from './kept-value.ts';

const NAV = 'https://api.bilibili.com/x/web-interface/nav';

/** The documented permutation of img_key + sub_key (64 characters). */
const MIXIN_KEY_ENC_TAB = [
  46, 47, 18, 2, 53, 8, 23, 32, 15, 50, 10, 31, 58, 3, 45, 35, 27, 43, 5, 49, 33, 9, 42, 19, 29, 28, 14, 39, 12, 38, 41, 13, 37, 48, 7, 16, 24, 55, 40, 61, 26, 17, 0, 1, 60,
  51, 30, 4, 22, 25, 54, 21, 56, 59, 6, 63, 57, 62, 11, 36, 20, 34, 44, 52,
];

export function mixinKey(imgKey: string, subKey: string): string {
  const raw = imgKey + subKey;
  return MIXIN_KEY_ENC_TAB.map((i) => raw[i] ?? '').join('').slice(0, 32);
}

/** `https://i0.hdslb.com/bfs/wbi/7cd0….png` → `7cd0…`. */
const keyOfUrl = (url: string): string => url.slice(url.lastIndexOf('/') + 1).replace(/\.[^.]*$/, '');

/** The mixin key of a nav answer; a parse error naming the missing path otherwise. */
export function mixinKeyOfNav(answer: unknown): string {
  const img = need(answer, 'data.wbi_img.img_url', asString, 'the img_url of the WBI keys');
  const sub = need(answer, 'data.wbi_img.sub_url', asString, 'the sub_url of the WBI keys');
  return mixinKey(keyOfUrl(img), keyOfUrl(sub));
}

/** The query's parameters with `wts` and their `w_rid` under the mixin key. */
export function wbiParams(params: Readonly<Record<string, string | number | boolean>>, key: string, wtsSec: number): Record<string, string> {
  const withTime: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...params, wts: wtsSec })) withTime[k] = String(v).replace(/[!'()*]/g, '');
  const query = Object.keys(withTime)
    .sort()
    .map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(withTime[k] as string)}`)
    .join('&');
  return { ...withTime, w_rid: md5(query + key) };
}

const keys = keptPerClient(3600_000, async (http, signal) => mixinKeyOfNav(await http.json(NAV, { signal })));

/** A declared list's `prepare` step: the request signed with today's keys (fetched again after a refusal). */
export const wbiSigned: Preparation = {
  async request(req, ctx) {
    const key = await keys.get(ctx.http, ctx.signal, ctx.now.getTime());
    return { ...req, searchParams: wbiParams(req.searchParams ?? {}, key, Math.round(ctx.now.getTime() / 1000)) };
  },
  forget: (http) => keys.forget(http),
};
