/**
 * The latest earthquake reports of the national earthquake network (中国地震台网 地震速报), from
 * https://news.ceic.ac.cn/speedsearch.html, whose script assigns the list to `const newdata`:
 * `[{NEW_DID, LOCATION_C, M, O_TIME, EPI_LAT, EPI_LON, EPI_DEPTH, SAVE_TIME}]` (times in
 * Asia/Shanghai). It gives no heat. Format as read by imsyy/DailyHotApi src/routes/earthquake.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asString } from './_shared/hot-list.ts';

/** The report's fields shown in its summary, with their labels on the site. */
const DETAILS: ReadonlyArray<readonly [string, string]> = [
  ['O_TIME', '发震时刻(UTC+8)'],
  ['LOCATION_C', '参考位置'],
  ['M', '震级(M)'],
  ['EPI_LAT', '纬度(°)'],
  ['EPI_LON', '经度(°)'],
  ['EPI_DEPTH', '深度(千米)'],
];

export const list: JsonList = {
  id: 'earthquake-feed',
  name: '中国地震台网地震速报',
  description: "The national earthquake network's latest reports: place and magnitude as title, time, epicentre and depth in the summary, and the report's page (no heat).",
  homepage: 'https://news.ceic.ac.cn/speedsearch.html',
  path: '/earthquake-feed',
  pace: 'feed',
  items: [],
  embedded: { assigned: 'const newdata' },
  item: (e) => {
    const id = asString(e.NEW_DID);
    const place = asString(e.LOCATION_C);
    const magnitude = asString(e.M);
    return {
      id,
      title: place && magnitude ? `${place}发生${magnitude}级地震` : undefined,
      link: id ? `https://news.ceic.ac.cn/${id}.html` : undefined,
      desc: DETAILS.filter(([k]) => asString(e[k])).map(([k, label]) => `${label}：${asString(e[k])}`).join('；'),
      time: e.O_TIME,
    };
  },
};

export default defineHotList(list);
