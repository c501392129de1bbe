/**
 * The home-page articles of the technology media site (极客公园 热门文章), from
 * https://mainssl.geekpark.net/api/v2: `{homepage_posts: [{post: {id, title, abstract,
 * cover_url, views, published_timestamp (s), authors: [{nickname}]}}]}`. Format as read by
 * imsyy/DailyHotApi src/routes/geekpark.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asRecord, asString, pick } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'hot-tech-park',
  name: '极客公园热门文章',
  description: "The technology media site's home-page articles: title, views as heat, cover, author, abstract, publish time and the article link.",
  homepage: 'https://www.geekpark.net/',
  path: '/hot-tech-park',
  trending: { role: 'coverage' },
  pace: 'feed',
  request: { url: 'https://mainssl.geekpark.net/api/v2' },
  headers: { referer: 'https://www.geekpark.net/' },
  items: ['homepage_posts'],
  item: (e) => {
    const post = asRecord(e.post) ?? {};
    const id = asString(post.id);
    return {
      id,
      title: post.title,
      link: id ? `https://www.geekpark.net/news/${id}` : undefined,
      hot: post.views,
      cover: post.cover_url,
      author: pick(post, 'authors', 0, 'nickname') ?? post.nickname,
      desc: post.abstract,
      time: post.published_timestamp,
    };
  },
};

export default defineHotList(list);
