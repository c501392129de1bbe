/**
 * The news lists of the game studio's community site (米游社), one per game and kind: a GET of
 * https://bbs-api-static.miyoushe.com/painter/wapi/getNewsList?client_type=4&gids=<game>&type=<kind>
 * answers `{retcode: 0, data: {list: [{post: {post_id, subject, content, cover, images,
 * created_at, view_status}, user: {nickname}}]}}` (type 1 = 公告, 2 = 活动, 3 = 资讯). Format as
 * read by imsyy/DailyHotApi src/routes/genshin.ts, starrail.ts and miyoushe.ts.
 */
import type { JsonList, ListRequest, MappedItem } from './declared-list.ts';
import { asString, pick } from './hot-list.ts';

/** The request of one game's (`gids`) news of one kind (`type`). */
export function gameNewsRequest(gid: number | string, kind: number | string = 1): ListRequest {
  return { url: 'https://bbs-api-static.miyoushe.com/painter/wapi/getNewsList', searchParams: { client_type: 4, gids: gid, last_id: '', page_size: 20, type: kind } };
}

/** One entry of the list → our item, its links under the game's section of the site (`ys`, `sr`…). */
export function gameNewsItem(e: Record<string, unknown>, slug: string): MappedItem {
  const id = asString(pick(e, 'post', 'post_id'));
  return {
    id,
    title: pick(e, 'post', 'subject'),
    link: id ? `https://www.miyoushe.com/${slug}/article/${id}` : undefined,
    mobileLink: id ? `https://m.miyoushe.com/${slug}/#/article/${id}` : undefined,
    hot: pick(e, 'post', 'view_status'),
    cover: asString(pick(e, 'post', 'cover')) || pick(e, 'post', 'images', 0),
    author: pick(e, 'user', 'nickname'),
    desc: pick(e, 'post', 'content'),
    time: pick(e, 'post', 'created_at'),
  };
}

/** What the lists of the site share: the headers, the refusal field and where the items are. */
export const GAME_NEWS_ANSWER: Pick<JsonList, 'headers' | 'okWhen' | 'items' | 'pace'> = {
  pace: 'feed',
  headers: { referer: 'https://www.miyoushe.com/' },
  okWhen: { field: 'retcode', is: 0, message: 'message' },
  items: ['data', 'list'],
};

/** One game's announcements. */
export function gameCommunityNews(game: { gid: number; slug: string }): Pick<JsonList, 'request' | 'headers' | 'okWhen' | 'items' | 'item' | 'pace'> {
  return { ...GAME_NEWS_ANSWER, request: gameNewsRequest(game.gid), item: (e) => gameNewsItem(e, game.slug) };
}
