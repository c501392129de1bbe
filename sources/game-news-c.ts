/**
 * Update announcements and videos of the arena game (英雄联盟), from its publisher's content API
 * https://apps.game.qq.com/cmc/zmMcnTargetContentList?r0=json&page=1&num=30&target=24&source=web_pc:
 * `{status: 0, data: {result: [{iDocID, sTitle, sIMG (protocol-relative), sAuthor, iTotalPlay,
 * sCreated: "YYYY-MM-DD HH:mm:ss"}]}}`. Format as read by imsyy/DailyHotApi src/routes/lol.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asString } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'game-news-c',
  name: '英雄联盟更新公告',
  description: "News and update announcements of the arena game: title, plays as heat, cover, author, publish time and the article link.",
  homepage: 'https://lol.qq.com/gicp/news/423/2/1334/1.html',
  path: '/game-news-c',
  pace: 'feed',
  request: { url: 'https://apps.game.qq.com/cmc/zmMcnTargetContentList', searchParams: { r0: 'json', page: 1, num: 30, target: 24, source: 'web_pc' } },
  headers: { referer: 'https://lol.qq.com/' },
  okWhen: { field: 'status', is: 0, message: 'msg' },
  items: ['data', 'result'],
  item: (e) => {
    const id = asString(e.iDocID);
    return {
      id,
      title: e.sTitle,
      link: id ? `https://lol.qq.com/news/detail.shtml?docid=${encodeURIComponent(id)}` : undefined,
      hot: e.iTotalPlay,
      cover: e.sIMG,
      author: e.sAuthor,
      time: e.sCreated,
    };
  },
};

export default defineHotList(list);
