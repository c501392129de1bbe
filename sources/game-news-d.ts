/** Announcements of the studio's action game (崩坏3) on its community site; see _shared/game-community.ts. */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { gameCommunityNews } from './_shared/game-community.ts';

export const list: JsonList = {
  id: 'game-news-d',
  name: '崩坏3最新公告',
  description: "Announcements of the studio's action game on its community site: title, views as heat, cover, author, summary, publish time and the post link.",
  homepage: 'https://www.miyoushe.com/bh3/home/6',
  path: '/game-news-d',
  ...gameCommunityNews({ gid: 1, slug: 'bh3' }),
};

export default defineHotList(list);
