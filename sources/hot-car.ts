/**
 * Hot searches of the car site, read from its news page https://www.dongchedi.com/news, a
 * Next.js page whose server state (`script#__NEXT_DATA__`) holds
 * `props.pageProps.hotSearchList` (`title`, numeric `score`, `is_hot`, `gid`…). A
 * verification page instead of the news page is risk control (`blocked`).
 */
import { SourceError } from '../src/kernel/errors.ts';
import { need } from '../src/kernel/json-path.ts';
import { defineSource } from '../src/kernel/source.ts';
import { nextData } from './_shared/embedded-json.ts';
import {
  absoluteUrl,
  asArray,
  asNumber,
  asRecord,
  asString,
  dedupeByLink,
  formatHeat,
  hotListRowsWith,
  migrateHotList,
  missing,
  pick,
  validateHotList,
  type HotItem,
  type HotList,
} from './_shared/hot-list.ts';

export const UPSTREAM_URL = 'https://www.dongchedi.com/news';

export interface CarItem extends HotItem {
  hot_value: number;
  /** The heat as short text, e.g. "12.3万". */
  hot_value_desc: string;
  /** The same as `hot_value`, `hot_value_desc` and `link` (60s's names). */
  score: number;
  score_desc: string;
  url: string;
  /** Whether the site marks the search as hot. */
  is_hot: boolean;
  description: string;
}

export function parse(html: string): HotList<CarItem> {
  const entries = need(nextData(html, 'www.dongchedi.com'), 'props.pageProps.hotSearchList', asArray, 'an array');
  const list: CarItem[] = [];
  for (const entry of entries) {
    const e = asRecord(entry);
    const title = asString(e?.title)?.trim();
    if (!e || !title) continue;
    const heat = asNumber(e.score) ?? 0;
    const cover = absoluteUrl(e.serial_icon, 'https://www.dongchedi.com/');
    const link = `https://www.dongchedi.com/search?keyword=${encodeURIComponent(title)}`;
    list.push({
      rank: list.length + 1,
      title,
      link,
      url: link,
      hot_value: heat,
      hot_value_desc: formatHeat(heat),
      score: heat,
      score_desc: formatHeat(heat),
      is_hot: asNumber(e.is_hot) === 1 || e.is_hot === true,
      description: asString(e.description)?.trim() ?? '',
      ...(cover ? { cover } : {}),
    });
  }
  return dedupeByLink(list);
}

export default defineSource({
  id: 'hot-car',
  name: '懂车帝热搜',
  description: 'Hot searches of the car site: rank, title, heat, hot mark and a search link.',
  homepage: 'https://www.dongchedi.com/news',
  routes: [{ path: '/hot-car' }],
  mode: 'scheduled',
  schedule: '*/10 * * * *',
  freshness: { ttlSec: 600, backoffCapSec: 3600 },
  headers: { accept: 'text/html,application/xhtml+xml', referer: 'https://www.dongchedi.com/' },
  async fetch(ctx) {
    return parse(await ctx.http.text(UPSTREAM_URL, { signal: ctx.signal }));
  },
  validate: (data) => validateHotList(data, 5),
  migrate: migrateHotList({ fill: (i) => missing(i, { url: i.link, score: i.hot_value, score_desc: i.hot_value_desc }) }),
  view: { rows: (d: HotList<CarItem>) => hotListRowsWith(d, { hot: (i) => i.hot_value_desc, summary: (i) => i.description || undefined }) },
  example: '/v2/apis/hot-car?encoding=text',
});
