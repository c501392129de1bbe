/**
 * The 24-hour brief news of the business and technology magazine (虎嗅 24小时), from
 * https://moment-api.huxiu.com/web-v3/moment/feed?platform=www:
 * `{success: true, data: {moment_list: {datalist: [{object_id, content, publish_time (s),
 * user_info: {username}, count_info: {agree_num}}]}}}`. `content` has no title: its first line
 * (up to a `<br>`) is the headline, the rest the text. Format as read by imsyy/DailyHotApi
 * src/routes/huxiu.ts.
 */
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asString, pick } from './_shared/hot-list.ts';

/** The headline (first line, without its closing 。) and the rest of a moment's text. */
export function splitMoment(content: string): { title: string; text: string } {
  const [first = '', ...rest] = content
    .split(/<br\s*\/?>|\n/i)
    .map((l) => l.replace(/<[^>]+>/g, '').trim())
    .filter(Boolean);
  return { title: first.replace(/。$/, ''), text: rest.join('\n') };
}

export const list: JsonList = {
  id: 'tech-moments',
  name: '虎嗅 24 小时',
  description: "The business and technology magazine's 24-hour brief news: headline, agrees as heat, author, text, publish time and the item link.",
  homepage: 'https://www.huxiu.com/moment/',
  path: '/tech-moments',
  trending: { role: 'coverage' },
  pace: 'feed',
  request: { url: 'https://moment-api.huxiu.com/web-v3/moment/feed', searchParams: { platform: 'www' } },
  headers: { referer: 'https://www.huxiu.com/moment/' },
  okWhen: { field: 'success', is: true, message: 'message' },
  items: ['data', 'moment_list', 'datalist'],
  item: (e) => {
    const id = asString(e.object_id);
    const { title, text } = splitMoment(asString(e.content) ?? '');
    return {
      id,
      title,
      link: id ? `https://www.huxiu.com/moment/${id}.html` : undefined,
      mobileLink: id ? `https://m.huxiu.com/moment/${id}.html` : undefined,
      hot: pick(e, 'count_info', 'agree_num'),
      author: pick(e, 'user_info', 'username'),
      desc: text,
      time: e.publish_time,
    };
  },
};

export default defineHotList(list);
