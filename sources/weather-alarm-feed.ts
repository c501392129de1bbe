/**
 * The latest weather warnings of the national meteorological centre (中央气象台 全国气象预警), from
 * http://www.nmc.cn/rest/findAlarm?pageNo=1&pageSize=20&signaltype=&signallevel=&province=:
 * `{data: {page: {list: [{alertid, issuetime: 'YYYY/MM/DD HH:mm', title, url: site path, pic}]}}}`.
 * Newest first; it gives no heat. `province` (a province's full name, e.g. 广东省) narrows the
 * list to one province's warnings; empty is the whole country. Format as read by
 * imsyy/DailyHotApi src/routes/weatheralarm.ts and src/router.types.d.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';

/**
 * The province-level divisions of the mainland the centre publishes warnings for, by the full
 * names its warnings carry (广东省气象台…, 内蒙古自治区气象台…), which `province` takes.
 */
export const PROVINCES = [
  '北京市', '天津市', '上海市', '重庆市',
  '河北省', '山西省', '辽宁省', '吉林省', '黑龙江省', '江苏省', '浙江省', '安徽省', '福建省', '江西省', '山东省', '河南省',
  '湖北省', '湖南省', '广东省', '海南省', '四川省', '贵州省', '云南省', '陕西省', '甘肃省', '青海省',
  '内蒙古自治区', '广西壮族自治区', '西藏自治区', '宁夏回族自治区', '新疆维吾尔自治区',
] as const;

export const list: JsonList = {
  id: 'weather-alarm-feed',
  name: '中央气象台气象预警',
  description: "The national meteorological centre's latest weather warnings, of the whole country or of one province: title, warning icon, issue time and the warning's page (no heat).",
  homepage: 'https://www.nmc.cn/publish/alarm.html',
  path: '/weather-alarm-feed',
  pace: 'feed',
  variants: {
    param: 'province',
    doc: "Only this province's warnings, by its full name",
    values: Object.fromEntries(PROVINCES.map((p) => [p, p])),
    absent: 'the whole country',
    titles: Object.fromEntries(PROVINCES.map((p) => [p, `中央气象台 · ${p}气象预警`])),
  },
  request: (_now, province) => ({
    url: 'http://www.nmc.cn/rest/findAlarm',
    searchParams: { pageNo: 1, pageSize: 20, signaltype: '', signallevel: '', province: province ?? '' },
  }),
  // A province often has no warning in force: an empty list is then the answer.
  min: (province) => (province === undefined ? 5 : 0),
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
