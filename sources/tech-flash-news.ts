/**
 * The flash news of the consumer-technology site (爱范儿 快讯), from
 * https://sso.ifanr.com/api/v5/wp/buzz/?limit=20&offset=0:
 * `{objects: [{id, post_id, post_title, post_content, created_at (s), like_count,
 * comment_count, buzz_original_url}]}`. Format as read by imsyy/DailyHotApi src/routes/ifanr.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asNumber, asString } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'tech-flash-news',
  name: '爱范儿快讯',
  description: "The consumer-technology site's flash news: title, likes (else comments) as heat, text, publish time and the original link.",
  homepage: 'https://www.ifanr.com/digest/',
  path: '/tech-flash-news',
  trending: { role: 'coverage' },
  pace: 'feed',
  request: { url: 'https://sso.ifanr.com/api/v5/wp/buzz/', searchParams: { limit: 20, offset: 0 } },
  headers: { referer: 'https://www.ifanr.com/' },
  items: ['objects'],
  item: (e) => {
    const postId = asString(e.post_id);
    return {
      id: e.id,
      title: e.post_title,
      link: asString(e.buzz_original_url) || (postId ? `https://www.ifanr.com/${postId}` : undefined),
      hot: asNumber(e.like_count) || asNumber(e.comment_count),
      desc: e.post_content,
      time: e.created_at,
    };
  },
};

export default defineHotList(list);
