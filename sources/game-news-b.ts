/** Announcements of the second game of the same studio (崩坏：星穹铁道) on its community site; see _shared/game-community.ts. */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { gameCommunityNews } from './_shared/game-community.ts';

export const list: JsonList = {
  id: 'game-news-b',
  name: '崩坏：星穹铁道最新公告',
  description: "Announcements of the studio's space-fantasy game on its community site: title, views as heat, cover, author, summary, publish time and the post link.",
  homepage: 'https://www.miyoushe.com/sr/home/53',
  path: '/game-news-b',
  ...gameCommunityNews({ gid: 6, slug: 'sr' }),
};

export default defineHotList(list);
