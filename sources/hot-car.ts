/**
 * Hot searches of the car site, read from its news page https://www.dongchedi.com/news, a
 * Next.js page whose server state (`script#__NEXT_DATA__`) holds
 * `props.pageProps.hotSearchList` (`title`, numeric `score`, `is_hot`, `gid`…). A
 * verification page instead of the news page is risk control (`blocked`).
 */
import { defineHotList, parseDeclared, type DeclaredItem, type JsonList } from './_shared/declared-list.ts';
import { absoluteUrl, asNumber, asString, formatHeat, missing } from './_shared/hot-list.ts';

export const UPSTREAM_URL = 'https://www.dongchedi.com/news';

export interface CarItem extends DeclaredItem {
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

export const list: JsonList = {
  id: 'hot-car',
  name: '懂车帝热搜',
  description: 'Hot searches of the car site: rank, title, heat, hot mark and a search link.',
  homepage: 'https://www.dongchedi.com/news',
  base: 'https://www.dongchedi.com/',
  path: '/hot-car',
  trending: { role: 'coverage' },
  pace: 'hot',
  request: { url: UPSTREAM_URL },
  headers: { referer: 'https://www.dongchedi.com/' },
  embedded: 'next-data',
  items: ['props', 'pageProps', 'hotSearchList'],
  item: (e) => {
    const title = asString(e.title)?.trim();
    if (!title) return undefined;
    const heat = asNumber(e.score) ?? 0;
    const cover = absoluteUrl(e.serial_icon, 'https://www.dongchedi.com/');
    const link = `https://www.dongchedi.com/search?keyword=${encodeURIComponent(title)}`;
    return {
      id: e.gid,
      title,
      link,
      hot: heat,
      cover,
      extra: {
        url: link,
        hot_value_desc: formatHeat(heat),
        score: heat,
        score_desc: formatHeat(heat),
        is_hot: asNumber(e.is_hot) === 1 || e.is_hot === true,
        description: asString(e.description)?.trim() ?? '',
      },
    };
  },
  upgrade: { fill: (i) => missing(i, { url: i.link, score: i.hot_value, score_desc: i.hot_value_desc }) },
  view: { hot: (i: CarItem) => i.hot_value_desc, summary: (i: CarItem) => i.description || undefined },
};

export const parse = (html: string) => parseDeclared(list, html) as CarItem[];

export default defineHotList(list);
