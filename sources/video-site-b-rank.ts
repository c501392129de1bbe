/**
 * The daily ranking of the second bullet-comment video site (AcFun 排行榜 · 全站), from
 * https://www.acfun.cn/rest/pc-direct/rank/channel?channelId=&rankLimit=30&rankPeriod=DAY:
 * `{result: 0, rankList: [{dougaId, contentTitle, contentDesc, coverUrl, userName,
 * contributeTime (ms), likeCount}]}`. Format as read by imsyy/DailyHotApi src/routes/acfun.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asString } from './_shared/hot-list.ts';

export const list: JsonList = {
  id: 'video-site-b-rank',
  name: 'AcFun 排行榜',
  description: "The second video site's all-channel ranking of the day: title, likes as heat, cover, uploader, summary, publish time and the video link.",
  homepage: 'https://www.acfun.cn/rank/list/',
  path: '/video-site-b-rank',
  trending: { role: 'coverage' },
  pace: 'feed',
  request: { url: 'https://www.acfun.cn/rest/pc-direct/rank/channel', searchParams: { channelId: '', rankLimit: 30, rankPeriod: 'DAY' } },
  headers: { referer: 'https://www.acfun.cn/rank/list/?cid=-1&pcid=-1&range=DAY' },
  okWhen: { field: 'result', is: 0, message: 'error_msg' },
  items: ['rankList'],
  item: (e) => {
    const id = asString(e.dougaId);
    return {
      id,
      title: e.contentTitle,
      link: id ? `https://www.acfun.cn/v/ac${id}` : undefined,
      mobileLink: id ? `https://m.acfun.cn/v/?ac=${id}` : undefined,
      hot: e.likeCount,
      cover: e.coverUrl,
      author: e.userName,
      desc: e.contentDesc,
      time: e.contributeTime,
    };
  },
};

export default defineHotList(list);
