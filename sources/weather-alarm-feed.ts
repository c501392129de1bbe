/**
 * The latest weather warnings of the national meteorological centre (中央气象台 全国气象预警), from
 * http://www.nmc.cn/rest/findAlarm?pageNo=1&pageSize=20&signaltype=&signallevel=&province=:
 * `{data: {page: {list: [{alertid, issuetime: 'YYYY/MM/DD HH:mm', title, url: site path, pic}]}}}`.
 * Newest first; it gives no heat. Format as read by imsyy/DailyHotApi src/routes/weatheralarm.ts
 * and src/router.types.d.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';

export const list: JsonList = {
  id: 'weather-alarm-feed',
  name: '中央气象台气象预警',
  description: "The national meteorological centre's latest weather warnings: title, warning icon, issue time and the warning's page (no heat).",
  homepage: 'https://www.nmc.cn/publish/alarm.html',
  path: '/weather-alarm-feed',
  pace: 'feed',
  request: { url: 'http://www.nmc.cn/rest/findAlarm', searchParams: { pageNo: 1, pageSize: 20, signaltype: '', signallevel: '', province: '' } },
  items: ['data', 'page', 'list'],
  item: (e) => ({
    id: e.alertid,
    title: e.title,
    link: e.url,
    cover: e.pic,
    time: e.issuetime,
  }),
};

export default defineHotList(list);
