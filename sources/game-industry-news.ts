/**
 * The latest news of the game developers' site (GameRes 游资网 最新资讯), from its home page
 * https://www.gameres.com: in the news pane `div[data-news-pane-id="100000"]`, each
 * `article.feed-item` holds `.feed-item-title-a` (title and link, sometimes site-relative), a
 * lazy `.thumb` (`data-original`), `.feed-item-right > p` (summary) and `.mark-info`, whose first
 * text is the publish time. It gives no heat. Format as read by imsyy/DailyHotApi src/routes/gameres.ts.
 */
import type { Cheerio } from 'cheerio';
import type { AnyNode } from 'domhandler';
import { defineHotList, type HtmlList } from './_shared/declared-list.ts';

export const list: HtmlList = {
  id: 'game-industry-news',
  name: 'GameRes游资网最新资讯',
  description: "The game developers' site's latest news: title, cover, summary, publish time and the article link (no heat).",
  homepage: 'https://www.gameres.com/',
  path: '/game-industry-news',
  pace: 'feed',
  html: 'div[data-news-pane-id="100000"] article.feed-item',
  item: (el: Cheerio<AnyNode>) => {
    const heading = el.find('.feed-item-title-a').first();
    return {
      title: heading.text(),
      link: heading.attr('href'),
      cover: el.find('.thumb').attr('data-original'),
      desc: el.find('.feed-item-right > p').first().text(),
      time: el.find('.mark-info').contents().first().text().trim(),
    };
  },
};

export default defineHotList(list);
