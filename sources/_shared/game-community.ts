/**
 * The news lists of the game studio's community site (米游社), one per game: a GET of
 * https://bbs-api-static.miyoushe.com/painter/wapi/getNewsList?client_type=4&gids=<game>&type=1
 * answers `{retcode: 0, data: {list: [{post: {post_id, subject, content, cover, images,
 * created_at, view_status}, user: {nickname}}]}}` (type 1 = 公告, 2 = 活动, 3 = 资讯). Format as
 * read by imsyy/DailyHotApi src/routes/genshin.ts and starrail.ts.
 */
import type { JsonList } from './declared-list.ts';
import { asString, pick } from './hot-list.ts';

export function gameCommunityNews(game: { gid: number; slug: string }): Pick<JsonList, 'request' | 'headers' | 'okWhen' | 'items' | 'item' | 'pace'> {
  return {
    pace: 'feed',
    request: { url: 'https://bbs-api-static.miyoushe.com/painter/wapi/getNewsList', searchParams: { client_type: 4, gids: game.gid, last_id: '', page_size: 20, type: 1 } },
    headers: { referer: 'https://www.miyoushe.com/' },
    okWhen: { field: 'retcode', is: 0, message: 'message' },
    items: ['data', 'list'],
    item: (e) => {
      const id = asString(pick(e, 'post', 'post_id'));
      return {
        id,
        title: pick(e, 'post', 'subject'),
        link: id ? `https://www.miyoushe.com/${game.slug}/article/${id}` : undefined,
        mobileLink: id ? `https://m.miyoushe.com/${game.slug}/#/article/${id}` : undefined,
        hot: pick(e, 'post', 'view_status'),
        cover: asString(pick(e, 'post', 'cover')) || pick(e, 'post', 'images', 0),
        author: pick(e, 'user', 'nickname'),
        desc: pick(e, 'post', 'content'),
        time: pick(e, 'post', 'created_at'),
      };
    },
  };
}
