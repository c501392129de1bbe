/** One item of an RSS 2.0 feed (https://www.rssboard.org/rss-specification) as a declared list's item, for lists declared with `xml: true`. */
import type { Cheerio } from 'cheerio';
import type { AnyNode } from 'domhandler';
import type { HtmlList, MappedItem } from './declared-list.ts';

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

/**
 * A Discuz! forum's guide lists (`forum.php?mod=guide&view=<view>&rss=1`, an RSS 2.0 feed of
 * `channel > item`), one list per view, the first the default: what a forum's declaration adds to
 * its id, names and path.
 */
export function discuzGuideFeed(site: string, views: Readonly<Record<string, string>>): Pick<HtmlList, 'variants' | 'request' | 'xml' | 'html' | 'item'> {
  const first = Object.keys(views)[0] as string;
  return {
    variants: { param: 'view', doc: 'Which list', values: views },
    request: (_now, view) => ({ url: `${site}/forum.php`, searchParams: { mod: 'guide', view: view ?? first, rss: 1 } }),
    xml: true,
    html: 'channel > item',
    item: rssItem,
  };
}
