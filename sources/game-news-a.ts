/** Announcements of the first open-world game (原神) on its studio's community site; see _shared/game-community.ts. */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { gameCommunityNews } from './_shared/game-community.ts';

export const list: JsonList = {
  id: 'game-news-a',
  name: '原神最新公告',
  description: "Announcements of the first open-world game on its studio's community site: title, views as heat, cover, author, summary, publish time and the post link.",
  homepage: 'https://www.miyoushe.com/ys/home/28',
  path: '/game-news-a',
  ...gameCommunityNews({ gid: 2, slug: 'ys' }),
};

export default defineHotList(list);
