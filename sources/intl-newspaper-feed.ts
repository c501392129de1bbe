/**
 * The latest stories of the international newspaper (纽约时报 中文网, or with `edition=global` its
 * World section in English), from its RSS 2.0 feeds https://cn.nytimes.com/rss/ and
 * https://rss.nytimes.com/services/xml/rss/nyt/World.xml (`channel > item`: `title`, `link`,
 * `guid`, `pubDate`, `dc:creator`, `description`). It gives no heat. Feeds as read by
 * imsyy/DailyHotApi src/routes/nytimes.ts; the elements are RSS 2.0's.
 */
import { defineHotList, type HtmlList } from './_shared/declared-list.ts';
import { rssItem } from './_shared/feed-item.ts';

export const list: HtmlList = {
  id: 'intl-newspaper-feed',
  name: '纽约时报中文网',
  description: "The international newspaper's latest stories (Chinese edition, or with `edition` its World section): title, author, summary, publish time and the story link (no heat).",
  homepage: 'https://cn.nytimes.com/',
  path: '/intl-newspaper-feed',
  trending: {},
  pace: 'feed',
  variants: { param: 'edition', doc: 'Which edition', values: { china: '中文网', global: '全球版' } },
  request: (_now, edition) => ({ url: edition === 'global' ? 'https://rss.nytimes.com/services/xml/rss/nyt/World.xml' : 'https://cn.nytimes.com/rss/' }),
  xml: true,
  html: 'channel > item',
  item: rssItem,
};

export default defineHotList(list);
