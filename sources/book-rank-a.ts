/**
 * The reading app's rising-books chart (微信读书 飙升榜), from
 * https://weread.qq.com/web/bookListInCategory/rising?rank=1:
 * `{books: [{readingCount, bookInfo: {bookId, title, author, intro, cover, publishTime}}]}`.
 * Covers come as small `s_` images; the `t9_` size is the large one. The web page of a book is
 * named by an encoded id (bookPageId below), the site's own scheme. Format as read by
 * imsyy/DailyHotApi src/routes/weread.ts and src/utils/getToken/weread.ts.
 */
import { md5 } from '../src/kernel/digest.ts';
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asRecord, asString } from './_shared/hot-list.ts';


/**
 * The id in a book page's URL: a prefix from the md5 of the book id, a kind (3: digits, sent in
 * 9-digit chunks as hex; 4: anything else, as the hex of its char codes), each chunk with its
 * length, then three characters of a check hash.
 */
export function bookPageId(bookId: string): string {
  const hash = md5(bookId);
  const numeric = /^\d*$/.test(bookId);
  const chunks: string[] = [];
  if (numeric) for (let i = 0; i < bookId.length; i += 9) chunks.push(Number.parseInt(bookId.slice(i, i + 9), 10).toString(16));
  else chunks.push([...bookId].map((c) => c.charCodeAt(0).toString(16)).join(''));
  let id = `${hash.slice(0, 3)}${numeric ? '3' : '4'}2${hash.slice(-2)}`;
  id += chunks.map((c) => c.length.toString(16).padStart(2, '0') + c).join('g');
  if (id.length < 20) id += hash.slice(0, 20 - id.length);
  return id + md5(id).slice(0, 3);
}

export const list: JsonList = {
  id: 'book-rank-a',
  name: '微信读书飙升榜',
  description: "The reading app's rising-books chart (or, with `type`, its hot-search, new-book, novel and all-time charts): title, readers as heat, cover, author, introduction, publish date and the book's page.",
  homepage: 'https://weread.qq.com/web/category/rising',
  path: '/book-rank-a',
  pace: 'daily',
  variants: { param: 'type', doc: 'Which chart', values: { rising: '飙升榜', hot_search: '热搜榜', newbook: '新书榜', general_novel_rising: '小说榜', all: '总榜' } },
  request: (_now, type) => ({ url: `https://weread.qq.com/web/bookListInCategory/${type ?? 'rising'}`, searchParams: { rank: 1 } }),
  headers: { referer: 'https://weread.qq.com/' },
  okWhen: { field: 'errcode', is: 0, message: 'errmsg' },
  items: ['books'],
  item: (e) => {
    const b = asRecord(e.bookInfo) ?? {};
    const id = asString(b.bookId);
    return {
      id,
      title: b.title,
      link: id ? `https://weread.qq.com/web/bookDetail/${bookPageId(id)}` : undefined,
      hot: e.readingCount,
      cover: asString(b.cover)?.replace('/s_', '/t9_'),
      author: b.author,
      desc: b.intro,
      time: b.publishTime,
    };
  },
};

export default defineHotList(list);
