/**
 * The hot list of the Q&A site, from https://api.zhihu.com/topstory/hot-lists/total (no login
 * needed). `target.url` points at the API (api.zhihu.com/questions/<id>); we link the web page
 * instead. The heat exists only as text in `detail_text` ("356 万热度"); `target.created` is
 * in seconds. The API answers `{error: {...}}` (often with 401/403) when it refuses a client.
 */
import { formatSixtyDateTime } from '../src/kernel/time.ts';
import { defineHotList, parseDeclared, type DeclaredItem, type JsonList } from './_shared/declared-list.ts';
import { asNumber, asRecord, asString, epochMs, missing, parseHeat, pick } from './_shared/hot-list.ts';

export const UPSTREAM_URL = 'https://api.zhihu.com/topstory/hot-lists/total';

export interface QaItem extends DeclaredItem {
  hot_value: number;
  /** The heat as the site shows it, e.g. "356 万热度". */
  hot_value_desc: string;
  /** Excerpt of the question (often empty). */
  detail: string;
  /** The topic's picture; '' when it has none. */
  cover: string;
  answer_cnt: number;
  follower_cnt: number;
  comment_cnt: number;
  /** When the question was asked; null when the upstream does not say. */
  created: string | null;
  created_at: number | null;
}

/** The web page of a question, article or other target named by its API URL. */
export function webLink(apiUrl: string | undefined, type: string | undefined, id: string | undefined): string | undefined {
  const m = /\/(questions|articles|answers|zvideos?|pins)\/(\d+)/.exec(apiUrl ?? '');
  const kind = m?.[1] ?? (type ? `${type}s` : undefined);
  const targetId = m?.[2] ?? id;
  if (!kind || !targetId) return undefined;
  switch (kind) {
    case 'questions':
      return `https://www.zhihu.com/question/${targetId}`;
    case 'articles':
      return `https://zhuanlan.zhihu.com/p/${targetId}`;
    case 'answers':
      return `https://www.zhihu.com/answer/${targetId}`;
    case 'pins':
      return `https://www.zhihu.com/pin/${targetId}`;
    default:
      return `https://www.zhihu.com/zvideo/${targetId}`;
  }
}

export const list: JsonList = {
  id: 'hot-qa-site',
  name: '知乎热榜',
  description: 'The hot list of the Q&A site: rank, question, heat, excerpt, cover, answer/follower/comment counts and the question link.',
  homepage: 'https://www.zhihu.com/hot',
  path: '/hot-qa-site',
  trending: {},
  pace: 'hot',
  // 401/403 carry the refusal as JSON (`{error: {...}}`): read for a clearer reason.
  request: { url: UPSTREAM_URL, searchParams: { limit: 50 }, allowStatus: [401, 403] },
    refused: (root, status) => {
    const error = asRecord(root.error);
    const reason = error ? (asString(error.message) ?? asString(error.code) ?? 'error') : undefined;
    if (status >= 400) return `upstream answered HTTP ${status}${reason ? `: ${reason}` : ''}`;
    return reason && `upstream refused the request: ${reason}`;
  },
  items: ['data'],
  item: (e) => {
    const t = asRecord(e.target);
    if (!t) return undefined;
    const heatText = asString(e.detail_text)?.trim() ?? '';
    const createdAt = epochMs(t.created) ?? null;
    return {
      id: t.id,
      title: t.title,
      link: webLink(asString(t.url), asString(t.type), asString(t.id)),
      hot: parseHeat(heatText) ?? 0,
      extra: {
        hot_value_desc: heatText,
        detail: asString(t.excerpt)?.trim() ?? '',
        cover: asString(pick(e, 'children', 0, 'thumbnail')) ?? '',
        answer_cnt: asNumber(t.answer_count) ?? 0,
        follower_cnt: asNumber(t.follower_count) ?? 0,
        comment_cnt: asNumber(t.comment_count) ?? 0,
        created: createdAt === null ? null : formatSixtyDateTime(createdAt),
        created_at: createdAt,
      },
    };
  },
  upgrade: { fill: (i) => missing(i, { cover: '', created: null, created_at: null }) },
  view: { hot: (i: QaItem) => i.hot_value_desc || i.hot_value, summary: (i: QaItem) => i.detail || undefined },
};

export const parse = (raw: unknown) => parseDeclared(list, raw) as QaItem[];

export default defineHotList(list);
