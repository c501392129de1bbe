/**
 * The review site's chart of new films (豆瓣电影 新片榜), from https://movie.douban.com/chart:
 * each `.article tr.item` holds the subject link and title (`a[title]`), a poster `img`,
 * `p.pl` (release dates, cast), `.rating_nums` and `span.pl` ("(12345人评价)"). The rating is
 * kept as `score`; the number of ratings is the heat. Format as read by imsyy/DailyHotApi
 * src/routes/douban-movie.ts.
 */
import { defineHotList, type HtmlList } from './_shared/declared-list.ts';

export const list: HtmlList = {
  id: 'review-a-chart',
  name: '豆瓣电影新片榜',
  description: "The review site's chart of new films: title, rating (`score`), number of ratings as heat, poster, release and cast line, and the film's page.",
  homepage: 'https://movie.douban.com/chart',
  path: '/review-a/chart',
  pace: 'daily',
  request: { url: 'https://movie.douban.com/chart' },
  headers: { referer: 'https://movie.douban.com/' },
  html: '.article tr.item',
  item: (el) => {
    const a = el.find('a').first();
    const href = a.attr('href');
    const id = /subject\/(\d+)/.exec(href ?? '')?.[1];
    const score = Number(el.find('.rating_nums').first().text().trim());
    return {
      id,
      title: a.attr('title') ?? el.find('.pl2 a').first().text(),
      link: href,
      mobileLink: id ? `https://m.douban.com/movie/subject/${id}/` : undefined,
      hot: el.find('span.pl').first().text() || undefined,
      cover: el.find('img').attr('src'),
      desc: el.find('p.pl').first().text(),
      extra: { score: Number.isFinite(score) && score > 0 ? score : null },
    };
  },
};

export default defineHotList(list);
