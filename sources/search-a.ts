/**
 * Boards of the search engine, one module with three routes:
 * - hot and teleplay: https://top.baidu.com/board?tab=realtime|teleplay. The page is rendered
 *   on the server and keeps its state in an HTML comment `<!--s-data:{…}-->`; the JSON inside
 *   escapes `-` as `\-`, which JSON.parse refuses. Pinned entries carry `isTop`.
 * - forum: https://tieba.baidu.com/hottopic/browse/topicList, plain JSON
 *   (`data.bang_topic.topic_list`), `errno` non-zero on refusal.
 * A "百度安全验证" page instead of the board is risk control (`blocked`).
 */
import { defineHotList, parseDeclared, type JsonList, type ListRequest, type MappedItem } from './_shared/declared-list.ts';
import { commentState } from './_shared/embedded-json.ts';
import { absoluteUrl, asArray, asNumber, asString, epochMs, formatHeat, missing, type HotItem } from './_shared/hot-list.ts';
import { formatDateTime } from '../src/kernel/time.ts';

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
  id: string;
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

export type SearchList = SearchItem[];

/** The `s-data` JSON of a top.baidu.com page. */
export const extractSData = (html: string): unknown => commentState(html, 's-data', 'top.baidu.com');

/** An entry of a top.baidu.com board (`hot` or `teleplay`); pinned entries (`isTop`) are not ranked. */
function boardItem(e: Record<string, unknown>, board: Exclude<Board, 'forum'>): MappedItem | undefined {
  const title = asString(e.word)?.trim() ?? asString(e.query)?.trim();
  if (!title || e.isTop === true) return undefined;
  const link = absoluteUrl(e.url, 'https://www.baidu.com/') ?? `https://www.baidu.com/s?wd=${encodeURIComponent(title)}`;
  const heat = asNumber(e.hotScore) ?? 0;
  const tag = asString(e.hotTag) ?? '0';
  return {
    id: title,
    title,
    link,
    extra: {
      url: link,
      hot_value: heat,
      hot_value_desc: formatHeat(heat),
      score: asString(e.hotScore)?.trim() || String(heat),
      score_desc: formatHeat(heat),
      desc: asString(e.desc)?.trim() ?? '',
      cover: absoluteUrl(e.img, 'https://top.baidu.com/') ?? null,
      ...(board === 'hot'
        ? { type: tag, type_desc: HOT_TAGS[tag] ?? null, type_icon: absoluteUrl(e.hotTagImg, 'https://top.baidu.com/') ?? null }
        : { info: (asArray(e.show) ?? []).map((s) => asString(s)?.trim() ?? '').filter(Boolean) }),
    },
  };
}

/** A topic of the forum's hot list. */
function forumItem(e: Record<string, unknown>): MappedItem | undefined {
  const title = asString(e.topic_name)?.trim();
  if (!title) return undefined;
  const link =
    absoluteUrl(asString(e.topic_url)?.replace(/&amp;/g, '&'), 'https://tieba.baidu.com/')?.replace(/^http:/, 'https:') ??
    `https://tieba.baidu.com/hottopic/browse/hottopic?topic_id=${asString(e.topic_id) ?? ''}&topic_name=${encodeURIComponent(title)}`;
  const discuss = asNumber(e.discuss_num) ?? 0;
  const createdAt = epochMs(e.create_time);
  return {
    id: asString(e.topic_id),
    title,
    link,
    extra: {
      url: link,
      hot_value: discuss,
      hot_value_desc: formatHeat(discuss),
      score: discuss,
      score_desc: formatHeat(discuss),
      desc: asString(e.topic_desc)?.trim() ?? '',
      abstract: asString(e.abstract)?.trim() ?? '',
      cover: absoluteUrl(asString(e.topic_pic) || asString(e.topic_avatar) || asString(e.topic_default_avatar), 'https://tieba.baidu.com/') ?? null,
      avatar: absoluteUrl(asString(e.topic_avatar) || asString(e.topic_default_avatar), 'https://tieba.baidu.com/') ?? null,
      ...(createdAt !== undefined ? { created: formatDateTime(createdAt), created_at: createdAt } : {}),
    },
  };
}

const isBoard = (v: string | undefined): v is Board => (BOARDS as readonly string[]).includes(v ?? '');
const boardOf = (v: string | undefined): Board => (isBoard(v) ? v : 'hot');

export const list: JsonList = {
  id: 'search-a',
  name: '百度热搜',
  description: "Boards of the search engine: real-time hot searches, the TV drama list and the forum's hot topics, each with rank, title, heat, description, cover and link.",
  homepage: 'https://top.baidu.com/board',
  path: '/search-a/hot',
  pathVariant: 'hot',
  alsoAt: [
    { path: '/search-a/teleplay', variant: 'teleplay', summary: 'TV drama list of the search engine: rank, title, heat, description, genre and cast, cover and link.' },
    { path: '/search-a/forum', variant: 'forum', summary: "Hot topics of the search engine's forum: rank, topic, discussion count, description, abstract, cover and link." },
  ],
  variants: { param: 'board', doc: 'Which board (set by the route)', values: TITLES, warm: true, titles: TITLES },
  pace: 'hot',
  trending: { params: { board: 'hot' } },
  headers: { 'accept-language': 'zh-CN,zh;q=0.9' },
  request: (_now, board): ListRequest =>
    board === 'forum'
      ? { url: FORUM_URL, headers: { accept: 'application/json, text/plain, */*', referer: 'https://tieba.baidu.com/' } }
      : { url: BOARD_URL, searchParams: { tab: TABS[board === 'teleplay' ? 'teleplay' : 'hot'] }, headers: { accept: 'text/html,application/xhtml+xml' } },
  embedded: (board) => (board === 'forum' ? undefined : { comment: 's-data' }),
  okWhen: { field: 'errno', is: 0, message: 'errmsg' },
  items: ['data', 'cards', 0, 'content'],
  itemsOf: { forum: ['data', 'bang_topic', 'topic_list'] },
  item: (e, _root, board) => (board === 'forum' ? forumItem(e) : boardItem(e, board === 'teleplay' ? 'teleplay' : 'hot')),
  upgrade: {
    fill: (i, container) => {
      const forum = container.board === 'forum';
      return { ...missing(i, { url: i.link, score: forum ? i.hot_value : String(i.hot_value), score_desc: i.hot_value_desc, cover: null }), ...(forum ? missing(i, { avatar: null }) : {}) };
    },
  },
  view: {
    // Each board's items carry their own fields: the forum's an abstract, the drama list's an info line.
    hot: (i: SearchItem) => ('abstract' in i ? `${i.hot_value_desc} 讨论` : i.hot_value_desc),
    summary: (i: SearchItem) => (i.info ? [i.desc, ...i.info].filter(Boolean).join(' · ') : i.desc) || undefined,
    columns: (board) => (board === 'forum' ? { title: '话题', hot: '讨论' } : board === 'teleplay' ? { title: '剧集', hot: '热度' } : { title: '热搜', hot: '热度' }),
  },
};

/** Parse a top.baidu.com board page (`hot` or `teleplay`). */
export const parseBoard = (html: string, board: Exclude<Board, 'forum'>): SearchList => parseDeclared(list, html, board) as SearchList;

/** Parse the forum's hot topic list. */
export const parseForum = (raw: unknown): SearchList => parseDeclared(list, raw, 'forum') as SearchList;

export default defineHotList(list);
