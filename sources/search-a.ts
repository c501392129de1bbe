/**
 * Boards of the search engine, one module with three routes:
 * - hot and teleplay: https://top.baidu.com/board?tab=realtime|teleplay. The page is rendered
 *   on the server and keeps its state in an HTML comment `<!--s-data:{…}-->`; the JSON inside
 *   escapes `-` as `\-`, which JSON.parse refuses. Pinned entries carry `isTop`.
 * - forum: https://tieba.baidu.com/hottopic/browse/topicList, plain JSON
 *   (`data.bang_topic.topic_list`), `errno` non-zero on refusal.
 * A "百度安全验证" page instead of the board is risk control (`blocked`).
 */
import { SourceError } from '../src/kernel/errors.ts';
import { missingPath, need } from '../src/kernel/json-path.ts';
import { defineSource, type Row } from '../src/kernel/source.ts';
import { formatDateTime } from '../src/kernel/time.ts';
import { isChallengePage } from './_shared/embedded-json.ts';
import {
  absoluteUrl,
  asArray,
  asNumber,
  asRecord,
  asString,
  dedupeByLink,
  epochMs,
  formatHeat,
  hotListRowsWith,
  migrateHotList,
  missing,
  pick,
  validateHotList,
  type HotItem,
  type HotList,
} from './_shared/hot-list.ts';

export const BOARD_URL = 'https://top.baidu.com/board';
export const FORUM_URL = 'https://tieba.baidu.com/hottopic/browse/topicList';

export const BOARDS = ['hot', 'teleplay', 'forum'] as const;
export type Board = (typeof BOARDS)[number];

const TITLES: Record<Board, string> = { hot: '百度实时热搜', teleplay: '百度电视剧榜', forum: '百度贴吧热议' };
/** Upstream `tab` of the top.baidu.com page per board. */
const TABS: Record<Exclude<Board, 'forum'>, string> = { hot: 'realtime', teleplay: 'teleplay' };
/** `hotTag` codes of the realtime board. */
const HOT_TAGS: Record<string, string> = { '1': '新', '3': '热', '4': '沸', '5': '商', '7': '辟谣' };

export interface SearchItem extends HotItem {
  hot_value: number;
  /** The heat as short text, e.g. "790.5万". */
  hot_value_desc: string;
  /** The heat as the upstream gives it: digit text on the boards, the discussion count (a number) on the forum. */
  score: string | number;
  /** The same as `hot_value_desc` (60s's name). */
  score_desc: string;
  /** The same as `link` (60s's name). */
  url: string;
  cover: string | null;
  desc: string;
  /** hot: the badge code and its label (新, 热…) and image. */
  type?: string | null;
  type_desc?: string | null;
  type_icon?: string | null;
  /** teleplay: genre and cast lines. */
  info?: string[];
  /** forum: the opening of the topic's lead post. */
  abstract?: string;
  /** forum: the topic's avatar image, or null. */
  avatar?: string | null;
  created?: string;
  created_at?: number;
}

export type SearchList = HotList<SearchItem>;

/** The `s-data` JSON of a top.baidu.com page. */
export function extractSData(html: string): unknown {
  const m = /<!--s-data:([\s\S]*?)-->/.exec(html);
  if (!m?.[1]) {
    if (isChallengePage(html)) throw new SourceError('blocked', 'top.baidu.com answered a security verification page instead of the board');
    throw new SourceError('parse', 'the page has no <!--s-data:…--> state');
  }
  // Keep escaped backslashes as they are; turn the invalid escape `\-` into `-`.
  const json = m[1].replace(/\\\\|\\-/g, (s) => (s === '\\-' ? '-' : s));
  try {
    return JSON.parse(json) as unknown;
  } catch {
    throw new SourceError('parse', 'the s-data state is not valid JSON');
  }
}

/** Parse a top.baidu.com board page (`hot` or `teleplay`). */
export function parseBoard(html: string, board: Exclude<Board, 'forum'>): SearchList {
  const state = extractSData(html);
  const content = need(state, 'data.cards[0].content', asArray, 'an array');
  const list: SearchItem[] = [];
  for (const entry of content) {
    const e = asRecord(entry);
    const title = asString(e?.word)?.trim() ?? asString(e?.query)?.trim();
    if (!e || !title || e.isTop === true) continue;
    const link = absoluteUrl(e.url, 'https://www.baidu.com/') ?? `https://www.baidu.com/s?wd=${encodeURIComponent(title)}`;
    const heat = asNumber(e.hotScore) ?? 0;
    const item: SearchItem = {
      rank: list.length + 1,
      title,
      link,
      url: link,
      hot_value: heat,
      hot_value_desc: formatHeat(heat),
      score: asString(e.hotScore)?.trim() || String(heat),
      score_desc: formatHeat(heat),
      desc: asString(e.desc)?.trim() ?? '',
      cover: absoluteUrl(e.img, 'https://top.baidu.com/') ?? null,
    };
    if (board === 'hot') {
      const tag = asString(e.hotTag) ?? '0';
      item.type = tag;
      item.type_desc = HOT_TAGS[tag] ?? null;
      item.type_icon = absoluteUrl(e.hotTagImg, 'https://top.baidu.com/') ?? null;
    } else {
      item.info = (asArray(e.show) ?? []).map((s) => asString(s)?.trim() ?? '').filter(Boolean);
    }
    list.push(item);
  }
  return dedupeByLink(list);
}

/** Parse the forum's hot topic list. */
export function parseForum(raw: unknown): SearchList {
  const root = need(raw, '', asRecord, 'a JSON object');
  const errno = asNumber(root.errno);
  if (errno !== undefined && errno !== 0) throw new SourceError('blocked', `upstream answered errno=${errno} ${asString(root.errmsg) ?? ''}`.trim());
  const topics = asArray(pick(root, 'data', 'bang_topic', 'topic_list'));
  if (!topics) throw missingPath(root, 'data.bang_topic.topic_list', 'an array');
  const list: SearchItem[] = [];
  for (const entry of topics) {
    const e = asRecord(entry);
    const title = asString(e?.topic_name)?.trim();
    if (!e || !title) continue;
    const link =
      absoluteUrl(asString(e.topic_url)?.replace(/&amp;/g, '&'), 'https://tieba.baidu.com/')?.replace(/^http:/, 'https:') ??
      `https://tieba.baidu.com/hottopic/browse/hottopic?topic_id=${asString(e.topic_id) ?? ''}&topic_name=${encodeURIComponent(title)}`;
    const discuss = asNumber(e.discuss_num) ?? 0;
    const cover = absoluteUrl(asString(e.topic_pic) || asString(e.topic_avatar) || asString(e.topic_default_avatar), 'https://tieba.baidu.com/') ?? null;
    const avatar = absoluteUrl(asString(e.topic_avatar) || asString(e.topic_default_avatar), 'https://tieba.baidu.com/') ?? null;
    const createdAt = epochMs(e.create_time);
    list.push({
      rank: list.length + 1,
      title,
      link,
      url: link,
      hot_value: discuss,
      hot_value_desc: formatHeat(discuss),
      score: discuss,
      score_desc: formatHeat(discuss),
      desc: asString(e.topic_desc)?.trim() ?? '',
      abstract: asString(e.abstract)?.trim() ?? '',
      cover,
      avatar,
      ...(createdAt !== undefined ? { created: formatDateTime(createdAt), created_at: createdAt } : {}),
    });
  }
  return dedupeByLink(list);
}

function rows(d: SearchList, board: Board): Row[] {
  return hotListRowsWith(d, {
    hot: (i) => (board === 'forum' ? `${i.hot_value_desc} 讨论` : i.hot_value_desc),
    summary: (i) => (board === 'teleplay' ? [i.desc, ...(i.info ?? [])].filter(Boolean).join(' · ') : i.desc) || undefined,
  });
}

function isBoard(v: string | undefined): v is Board {
  return (BOARDS as readonly string[]).includes(v ?? '');
}

export default defineSource({
  id: 'search-a',
  name: '百度热搜',
  description: 'Boards of the search engine: real-time hot searches, the TV drama list and the forum\'s hot topics, each with rank, title, heat, description, cover and link.',
  homepage: 'https://top.baidu.com/board',
  routes: [
    { path: '/search-a/hot', fixed: { board: 'hot' }, summary: 'Real-time hot searches of the search engine: rank, title, heat, badge, description, cover and link.' },
    { path: '/search-a/teleplay', fixed: { board: 'teleplay' }, example: '/v2/apis/search-a/teleplay?encoding=text', summary: 'TV drama list of the search engine: rank, title, heat, description, genre and cast, cover and link.' },
    { path: '/search-a/forum', fixed: { board: 'forum' }, example: '/v2/apis/search-a/forum?encoding=text', summary: 'Hot topics of the search engine\'s forum: rank, topic, discussion count, description, abstract, cover and link.' },
  ],
  params: {
    board: { type: 'string', enum: BOARDS, default: 'hot', doc: 'Which board: hot, teleplay or forum (fixed by the route).' },
  },
  mode: 'scheduled',
  schedule: '*/10 * * * *',
  trending: { params: { board: 'hot' } },
  prefetch: [{ board: 'hot' }, { board: 'teleplay' }, { board: 'forum' }],
  freshness: { ttlSec: 600, backoffCapSec: 3600 },
  headers: { 'accept-language': 'zh-CN,zh;q=0.9' },
  async fetch(ctx, params): Promise<SearchList> {
    const board = isBoard(params.board) ? params.board : 'hot';
    if (board === 'forum') {
      const res = await ctx.http.request(FORUM_URL, { signal: ctx.signal, headers: { accept: 'application/json, text/plain, */*', referer: 'https://tieba.baidu.com/' } });
      if (/text\/html/i.test(String(res.headers['content-type']))) throw new SourceError('blocked', 'tieba.baidu.com answered an HTML page (verification) instead of JSON');
      return parseForum(res.json());
    }
    const html = await ctx.http.text(BOARD_URL, { searchParams: { tab: TABS[board] }, signal: ctx.signal, headers: { accept: 'text/html,application/xhtml+xml' } });
    return parseBoard(html, board);
  },
  validate: (data) => validateHotList(data, 5),
  migrate: migrateHotList({
    fill: (i, list) => {
      const forum = list.board === 'forum';
      return { ...missing(i, { url: i.link, score: forum ? i.hot_value : String(i.hot_value), score_desc: i.hot_value_desc, cover: null }), ...(forum ? missing(i, { avatar: null }) : {}) };
    },
  }),
  view: {
    title: (_d, p) => (isBoard(p.board) ? TITLES[p.board] : '百度热搜'),
    rows: (d, p) => rows(d, isBoard(p.board) ? p.board : 'hot'),
    columns: (_d, p) => (p.board === 'forum' ? { title: '话题', hot: '讨论' } : p.board === 'teleplay' ? { title: '剧集', hot: '热度' } : { title: '热搜', hot: '热度' }),
  },
  example: '/v2/apis/search-a/hot?encoding=text',
});
