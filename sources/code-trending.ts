/**
 * The code host's trending repositories (GitHub Trending), from the page
 * https://github.com/trending?since=daily (or weekly, monthly): each `article.Box-row` holds `h2 a` (href
 * `/<owner>/<repo>`), a description `p`, `[itemprop="programmingLanguage"]`, the stars and forks
 * links (`a[href$="/stargazers"]`, `a[href$="/forks"]`) and "N stars today" (this week, this month). Format as read by
 * imsyy/DailyHotApi src/routes/github.ts.
 */
import { defineHotList, type HtmlList } from './_shared/declared-list.ts';
import { parseHeat } from './_shared/hot-list.ts';

export const list: HtmlList = {
  id: 'code-trending',
  name: 'GitHub 趋势日榜',
  description: "The code host's trending repositories of the day (or week, or month): owner/name, stars in the period as heat, total stars and forks, language, description and the repository link.",
  homepage: 'https://github.com/trending',
  path: '/code-trending',
  pace: 'daily',
  variants: { param: 'since', doc: 'Period of the trend', values: { daily: 'stars gained today', weekly: 'this week', monthly: 'this month' } },
  request: (_now, since) => ({ url: 'https://github.com/trending', searchParams: { since: since ?? 'daily' } }),
  headers: { 'accept-language': 'en-US,en;q=0.5' },
  html: 'article.Box-row',
  item: (el) => {
    const href = el.find('h2 a').first().attr('href')?.trim();
    const name = href?.replace(/^\//, '');
    const gained = el.find('span.d-inline-block.float-sm-right').first().text();
    return {
      id: name,
      title: name,
      link: href,
      hot: parseHeat(gained),
      author: name?.split('/')[0],
      desc: el.find('p').first().text(),
      extra: {
        language: el.find('[itemprop="programmingLanguage"]').first().text().trim() || null,
        stars: parseHeat(el.find('a[href$="/stargazers"]').first().text()) ?? 0,
        forks: parseHeat(el.find('a[href$="/forks"]').first().text()) ?? 0,
      },
    };
  },
};

export default defineHotList(list);
