/**
 * The Android app community's hot posts of the day (酷安 今日热门), from its app API
 * https://api.coolapk.com/v6/page/dataList?url=/feed/statList?cacheExpires=300&statType=day&sortField=detailnum&title=今日热门…:
 * `{data: [{id, message, ttitle, shareUrl, username, tpic, replynum}]}` (`message` is the post
 * text, with HTML links). The API wants the app's headers, with an `X-App-Token` computed
 * for the moment of the request (appToken below). Format, headers and token as read by
 * imsyy/DailyHotApi src/routes/coolapk.ts, src/utils/getToken/coolapk.ts and src/router.types.d.ts.
 */
import { randomBytes } from 'node:crypto';
import { md5 } from '../src/kernel/digest.ts';
import { defineHotList, type JsonList } from './_shared/declared-list.ts';

/** The package name and the app's key in its token URL (public, in the app and DailyHotApi's code). */
const PACKAGE = 'com.coolapk.market';
const APP_KEY = 'c67ef5943784d09750dcfbb31020f0ab';

/** A device id in the app's layout: five groups of base-36 characters (8, 4, 4, 4, 12 long), joined by '-'. */
export function randomDeviceId(): string {
  return [8, 4, 4, 4, 12].map((n) => [...randomBytes(n)].map((b) => (b % 36).toString(36)).join('')).join('-');
}

/**
 * The app's token at `now`: md5 of the base64 of `token://<package>/<key>?<md5(seconds)>$<device>&<package>`,
 * then the device id, then the seconds as 0x-hex.
 */
export function appToken(now: Date, deviceId: string): string {
  const seconds = Math.round(now.getTime() / 1000);
  const url = `token://${PACKAGE}/${APP_KEY}?${md5(String(seconds))}$${deviceId}&${PACKAGE}`;
  return `${md5(Buffer.from(url).toString('base64'))}${deviceId}0x${seconds.toString(16)}`;
}

/** One device per process, as one installed app would be. */
const DEVICE_ID = randomDeviceId();

export const list: JsonList = {
  id: 'hot-app-community',
  name: '酷安今日热门',
  description: "The Android app community's hot posts of the day: the post text as title, replies as heat, picture, author, topic and the post link.",
  homepage: 'https://www.coolapk.com/',
  path: '/hot-app-community',
  trending: { role: 'coverage' },
  pace: 'feed',
  request: (now) => ({
    url: 'https://api.coolapk.com/v6/page/dataList',
    searchParams: { url: '/feed/statList?cacheExpires=300', statType: 'day', sortField: 'detailnum', title: '今日热门', subTitle: '', page: 1 },
    headers: { 'x-app-token': appToken(now, DEVICE_ID) },
  }),
  headers: { 'x-requested-with': 'XMLHttpRequest', 'x-app-id': PACKAGE, 'x-sdk-int': '29', 'x-sdk-locale': 'zh-CN', 'x-app-version': '11.0', 'x-api-version': '11', 'x-app-code': '2101202' },
  items: ['data'],
  item: (e) => ({
    id: e.id,
    title: typeof e.message === 'string' ? e.message.replace(/<[^>]*>/g, '') : undefined,
    link: e.shareUrl,
    hot: e.replynum,
    cover: e.tpic,
    author: e.username,
    desc: e.ttitle,
  }),
};

export default defineHotList(list);
