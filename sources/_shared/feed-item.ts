/** One item of an RSS 2.0 feed (https://www.rssboard.org/rss-specification) as a declared list's item, for lists declared with `xml: true`. */
import type { Cheerio } from 'cheerio';
import type { AnyNode } from 'domhandler';
import type { MappedItem } from './declared-list.ts';

/** `title`, `link`, `guid`, `pubDate` (RFC 822), the text of `description` and the author as `dc:creator` or `author`. */
export function rssItem(el: Cheerio<AnyNode>): MappedItem {
  const published = Date.parse(el.children('pubDate').text());
  return {
    id: el.children('guid').text() || undefined,
    title: el.children('title').text(),
    link: el.children('link').text(),
    author: el.children('dc\\:creator').text() || el.children('author').text(),
    // The description is often HTML (in CDATA): its text is the summary.
    desc: el.children('description').text().replace(/<[^>]*>/g, ' '),
    time: Number.isNaN(published) ? undefined : published,
  };
}
