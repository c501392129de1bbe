/**
 * IT之家's rankings of the most read articles: the day, the week and the month. They are shown on
 * two pages, which this project once fetched as two sources: the mobile ranking page
 * https://m.ithome.com/rankm/ (each list a `.rank-name[data-rank-type]` heading and its
 * `.rank-box` of `.placeholder`s: a link to `m.ithome.com/html/<id>.htm`, `.plc-title`, a lazy
 * image `data-original`, `span.post-time` and `.review-num` comments; format as read by
 * imsyy/DailyHotApi src/routes/ithome.ts, the day list's mark as datehoer/hotToday reads it) and
 * the home page https://www.ithome.com/ (its `#rank` block: `#d-1` day, `#d-2` week, `#d-3` month, each of
 * `<li><a href title>`; the layout vikiboss/60s's src/modules/it-news.module.ts reads). The day
 * list is read from the mobile page, which gives comments, covers and times as well; the week and
 * month lists from the home page. `/hot-it-news` (DailyHotApi's `ithome`) is the day list, and
 * its snapshots stored before the merge are still read for its past days.
 */
import type { Cheerio } from 'cheerio';
import type { AnyNode } from 'domhandler';
import { defineHotList, type HtmlList, type MappedItem } from './_shared/declared-list.ts';

export const RANKM_URL = 'https://m.ithome.com/rankm/';
export const HOME_URL = 'https://www.ithome.com/';

/** `https://m.ithome.com/html/812345.htm` → the article id, `812345`. */
export function articleId(href: string | undefined): string | undefined {
  return /(?:html|live)\/(\d+)\.htm/.exec(href ?? '')?.[1];
}

/** An entry of the mobile ranking (a `.placeholder`) or of a home-page list (an `li`). */
function rankItem(el: Cheerio<AnyNode>): MappedItem {
  const a = el.find('a').first();
  const href = a.attr('href');
  const mobile = el.is('.placeholder');
  const id = mobile ? articleId(href) : undefined;
  return {
    id,
    title: mobile ? el.find('.plc-title').text() : (a.attr('title') ?? a.text()),
    // The mobile page links the phone page; the article's web page is www.ithome.com/0/<first 3 digits>/<rest>.htm.
    link: id ? `https://www.ithome.com/0/${id.slice(0, 3)}/${id.slice(3)}.htm` : href,
    ...(mobile
      ? {
          mobileLink: href,
          hot: el.find('.review-num').text().replace(/\D/g, '') || undefined,
          cover: el.find('img').attr('data-original') ?? el.find('img').attr('src'),
          time: el.find('span.post-time').text().trim() || undefined,
        }
      : {}),
  };
}

export const list: HtmlList = {
  id: 'it-news-rank',
  name: 'IT之家热榜',
  description: 'The most read articles of IT之家 of the day, the week or the month: title and link; the day list also with comments as heat, cover and publish time.',
  homepage: HOME_URL,
  path: '/it-news/rank',
  trending: { role: 'coverage', params: { type: 'day' } },
  pace: 'feed',
  variants: {
    param: 'type',
    doc: 'Which ranking',
    values: { day: '日榜', week: '周榜', month: '月榜' },
    warm: true,
    titles: { day: 'IT之家日榜', week: 'IT之家周榜', month: 'IT之家月榜' },
  },
  alsoAt: [{ path: '/hot-it-news', variant: 'day', summary: "IT之家's day ranking (the same list as /v2/apis/it-news/rank?type=day): title, comments as heat, cover, publish time and the article link." }],
  formerly: [{ variant: 'day', sourceId: 'hot-it-news' }],
  request: (_now, type) => ({ url: type === 'day' ? RANKM_URL : HOME_URL }),
  // The mobile page shows the day, week and month lists one after another: the day one is the box after its heading.
  html: '.rank-name[data-rank-type="day-rank"] + .rank-box .placeholder',
  htmlOf: { week: '#rank #d-2 li', month: '#rank #d-3 li' },
  min: 3,
  item: rankItem,
  example: '/v2/apis/it-news/rank?type=week&encoding=text',
};

export default defineHotList(list);
