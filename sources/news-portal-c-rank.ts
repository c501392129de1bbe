/**
 * The day's most-read news of the third news portal (新浪新闻 排行: all news, or with `ranking`
 * its video, picture, domestic, world, society, sports, finance, entertainment, technology and
 * military rankings), from https://top.<section>.sina.com.cn/ws/GetTopDataList.php?top_type=day&top_cat=<cat>&top_time=<YYYYMMDD>&top_show_num=50:
 * a script `var data = {data: [{id, title, media, url, create_date, create_time, top_num}]};`
 * (`top_num` a count with thousands commas; the date and time in Asia/Shanghai).
 * Format and rankings as read by imsyy/DailyHotApi src/routes/sina-news.ts and src/router.types.d.ts.
 */
import { formatDate } from '../src/kernel/time.ts';
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asString } from './_shared/hot-list.ts';

/** Each ranking's section (the host's subdomain) and category. */
const RANKINGS: Readonly<Record<string, { name: string; section: string; cat: string }>> = {
  '1': { name: '总排行', section: 'news', cat: 'www_www_all_suda_suda' },
  '2': { name: '视频排行', section: 'news', cat: 'video_news_all_by_vv' },
  '3': { name: '图片排行', section: 'news', cat: 'total_slide_suda' },
  '4': { name: '国内新闻', section: 'news', cat: 'news_china_suda' },
  '5': { name: '国际新闻', section: 'news', cat: 'news_world_suda' },
  '6': { name: '社会新闻', section: 'news', cat: 'news_society_suda' },
  '7': { name: '体育新闻', section: 'sports', cat: 'sports_suda' },
  '8': { name: '财经新闻', section: 'finance', cat: 'finance_0_suda' },
  '9': { name: '娱乐新闻', section: 'ent', cat: 'ent_suda' },
  '10': { name: '科技新闻', section: 'tech', cat: 'tech_news_suda' },
  '11': { name: '军事新闻', section: 'news', cat: 'news_mil_suda' },
};

export const list: JsonList = {
  id: 'news-portal-c-rank',
  name: '新浪新闻排行',
  description: "The third news portal's most-read news of the day (or, with `ranking`, one section's): title, reads as heat, source, publish time and the article link.",
  homepage: 'https://news.sina.com.cn/',
  path: '/news-portal-c-rank',
  trending: {},
  pace: 'feed',
  variants: { param: 'ranking', doc: 'Which ranking', values: Object.fromEntries(Object.entries(RANKINGS).map(([k, r]) => [k, r.name])) },
  request: (now, ranking) => {
    const r = RANKINGS[ranking ?? '1'] ?? RANKINGS['1']!;
    return {
      url: `https://top.${r.section}.sina.com.cn/ws/GetTopDataList.php`,
      searchParams: { top_type: 'day', top_cat: r.cat, top_time: formatDate(now.getTime()).replace(/-/g, ''), top_show_num: 50 },
    };
  },
  embedded: { assigned: 'var data' },
  items: ['data'],
  item: (e) => ({
    id: e.id,
    title: e.title,
    link: e.url,
    hot: e.top_num,
    author: e.media,
    time: asString(e.create_date) && asString(e.create_time) ? `${asString(e.create_date)} ${asString(e.create_time)}` : undefined,
  }),
};

export default defineHotList(list);
