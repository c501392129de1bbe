/**
 * The news of the game studio's community site (米游社) for any of its games and kinds: `game`
 * picks the game (its `gids`), `type` the kind (公告, 活动, 资讯); see _shared/game-community.ts.
 * The games and kinds are those imsyy/DailyHotApi src/routes/miyoushe.ts offers; the links go to
 * each game's section of the site.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { GAME_NEWS_ANSWER, gameNewsItem, gameNewsRequest } from './_shared/game-community.ts';

/** `gids` → the game's name and its section of the site. */
export const GAMES: Readonly<Record<string, { name: string; slug: string }>> = {
  '1': { name: '崩坏3', slug: 'bh3' },
  '2': { name: '原神', slug: 'ys' },
  '3': { name: '崩坏学园2', slug: 'bh2' },
  '4': { name: '未定事件簿', slug: 'wd' },
  '5': { name: '大别野', slug: 'dby' },
  '6': { name: '崩坏：星穹铁道', slug: 'sr' },
  '8': { name: '绝区零', slug: 'zzz' },
};

export const KINDS: Readonly<Record<string, string>> = { '1': '公告', '2': '活动', '3': '资讯' };

export const list: JsonList = {
  id: 'game-community-news',
  name: '米游社最新公告',
  description: "The game studio's community site's news of one game (`game`) and kind (`type`: announcements, events, news): title, views as heat, cover, author, summary, publish time and the post link.",
  homepage: 'https://www.miyoushe.com/',
  path: '/game-community-news',
  ...GAME_NEWS_ANSWER,
  variants: [
    { param: 'game', doc: 'Which game', values: Object.fromEntries(Object.entries(GAMES).map(([gid, g]) => [gid, g.name])) },
    { param: 'type', doc: 'Which kind of news', values: KINDS },
  ],
  request: (_now, game, chosen) => gameNewsRequest(game ?? '1', chosen?.type ?? '1'),
  item: (e, _root, game) => gameNewsItem(e, GAMES[game ?? '1']?.slug ?? 'bh3'),
};

export default defineHotList(list);
