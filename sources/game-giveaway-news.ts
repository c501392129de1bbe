/**
 * The IT news site's free-game news (IT之家「喜加一」), from https://www.ithome.com/zt/xijiayi: each
 * `.newslist li` holds a link to `www.ithome.com/0/<3 digits>/<rest>.htm`, `.newsbody h2`,
 * `.newsbody p`, a lazy image (`data-original`), `.comment` (comments) and `span.time` with the
 * publish time in single quotes (an argument of the script that writes it). Format as read by
 * imsyy/DailyHotApi src/routes/ithome-xijiayi.ts.
 */
import type { Cheerio } from 'cheerio';
import type { AnyNode } from 'domhandler';
import { defineHotList, type HtmlList } from './_shared/declared-list.ts';

/** `https://www.ithome.com/0/812/345.htm` → the mobile site's page of it, `https://m.ithome.com/html/812345.htm`. */
function mobileLinkOf(href: string | undefined): string | undefined {
  const m = /www\.ithome\.com\/0\/(\d+)\/(\d+)\.htm/.exec(href ?? '');
  return m ? `https://m.ithome.com/html/${m[1]}${m[2]}.htm` : undefined;
}

export const list: HtmlList = {
  id: 'game-giveaway-news',
  name: 'IT之家喜加一',
  description: "The IT news site's free-game news: title, comments as heat, cover, summary, publish time and the article link.",
  homepage: 'https://www.ithome.com/zt/xijiayi',
  path: '/game-giveaway-news',
  pace: 'feed',
  html: '.newslist li',
  item: (el: Cheerio<AnyNode>) => {
    const href = el.find('a').attr('href');
    return {
      title: el.find('.newsbody h2').text(),
      link: href,
      mobileLink: mobileLinkOf(href),
      desc: el.find('.newsbody p').text(),
      hot: el.find('.comment').text().replace(/\D/g, '') || undefined,
      cover: el.find('img').attr('data-original'),
      time: /'([^']+)'/.exec(el.find('span.time').text())?.[1],
    };
  },
};

export default defineHotList(list);
