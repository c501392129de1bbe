/**
 * The IT news site's ranking of the last day (IT之家 热榜), from its mobile page
 * https://m.ithome.com/rankm/: each `.rank-box .placeholder` holds a link to
 * `m.ithome.com/html/<id>.htm`, `.plc-title`, a lazy image (`data-original`), `span.post-time`
 * and `.review-num` (comments). We link the article's web page,
 * `www.ithome.com/0/<first 3 digits>/<rest>.htm`. Format as read by imsyy/DailyHotApi
 * src/routes/ithome.ts.
 */
import type { Cheerio } from 'cheerio';
import type { AnyNode } from 'domhandler';
import { defineHotList, type HtmlList } from './_shared/declared-list.ts';

/** `https://m.ithome.com/html/812345.htm` → the article id, `812345`. */
export function articleId(href: string | undefined): string | undefined {
  return /(?:html|live)\/(\d+)\.htm/.exec(href ?? '')?.[1];
}

export const list: HtmlList = {
  id: 'hot-it-news',
  name: 'IT之家热榜',
  description: "The IT news site's ranking of the last day: title, comments as heat, cover, publish time and the article link.",
  homepage: 'https://m.ithome.com/rankm/',
  path: '/hot-it-news',
  pace: 'hot',
  request: { url: 'https://m.ithome.com/rankm/' },
    html: '.rank-box .placeholder',
  item: (el: Cheerio<AnyNode>) => {
    const href = el.find('a').attr('href');
    const id = articleId(href);
    return {
      id,
      title: el.find('.plc-title').text(),
      link: id ? `https://www.ithome.com/0/${id.slice(0, 3)}/${id.slice(3)}.htm` : href,
      mobileLink: href,
      hot: el.find('.review-num').text().replace(/\D/g, '') || undefined,
      cover: el.find('img').attr('data-original') ?? el.find('img').attr('src'),
      time: el.find('span.post-time').text().trim() || undefined,
    };
  },
};

export default defineHotList(list);
