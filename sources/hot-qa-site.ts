/**
 * The hot list of the Q&A site, from https://api.zhihu.com/topstory/hot-lists/total (no login
 * needed). `target.url` points at the API (api.zhihu.com/questions/<id>); we link the web page
 * instead. The heat exists only as text in `detail_text` ("356 万热度"); `target.created` is
 * in seconds. The API answers `{error: {...}}` (often with 401/403) when it refuses a client.
 */
import { SourceError } from '../src/kernel/errors.ts';
import { missingPath, need } from '../src/kernel/json-path.ts';
import { defineSource } from '../src/kernel/source.ts';
import { formatDateTime, formatSixtyDateTime } from '../src/kernel/time.ts';
import {
  asArray,
  asNumber,
  asRecord,
  asString,
  dedupeByLink,
  epochMs,
  hotListRowsWith,
  migrateHotList,
  missing,
  parseHeat,
  pick,
  validateHotList,
  type HotItem,
  type HotList,
} from './_shared/hot-list.ts';

export const UPSTREAM_URL = 'https://api.zhihu.com/topstory/hot-lists/total';

export interface QaItem extends HotItem {
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

export function parse(raw: unknown): HotList<QaItem> {
  const root = need(raw, '', asRecord, 'a JSON object');
  const error = asRecord(root.error);
  if (error) throw new SourceError('blocked', `upstream refused the request: ${asString(error.message) ?? asString(error.code) ?? 'error'}`);
  const entries = asArray(root.data);
  if (!entries) throw missingPath(root, 'data', 'an array');
  const list: QaItem[] = [];
  for (const entry of entries) {
    const e = asRecord(entry);
    const t = asRecord(e?.target);
    const title = asString(t?.title)?.trim();
    if (!e || !t || !title) continue;
    const link = webLink(asString(t.url), asString(t.type), asString(t.id));
    if (!link) continue;
    const heatText = asString(e.detail_text)?.trim() ?? '';
    const cover = asString(pick(e, 'children', 0, 'thumbnail'));
    const createdAt = epochMs(t.created) ?? null;
    list.push({
      rank: list.length + 1,
      title,
      link,
      hot_value: parseHeat(heatText) ?? 0,
      hot_value_desc: heatText,
      detail: asString(t.excerpt)?.trim() ?? '',
      cover: cover ?? '',
      answer_cnt: asNumber(t.answer_count) ?? 0,
      follower_cnt: asNumber(t.follower_count) ?? 0,
      comment_cnt: asNumber(t.comment_count) ?? 0,
      created: createdAt === null ? null : formatSixtyDateTime(createdAt),
      created_at: createdAt,
    });
  }
  return dedupeByLink(list);
}

export default defineSource({
  id: 'hot-qa-site',
  name: '知乎热榜',
  description: 'The hot list of the Q&A site: rank, question, heat, excerpt, cover, answer/follower/comment counts and the question link.',
  homepage: 'https://www.zhihu.com/hot',
  routes: [{ path: '/hot-qa-site' }],
  mode: 'scheduled',
  schedule: '*/10 * * * *',
  trending: {},
  freshness: { ttlSec: 600, backoffCapSec: 3600 },
  headers: { accept: 'application/json' },
  async fetch(ctx) {
    // 401/403 carry the refusal as JSON; read it for a clearer reason.
    const res = await ctx.http.request(UPSTREAM_URL, { searchParams: { limit: 50 }, signal: ctx.signal, allowStatus: [401, 403] });
    if (/text\/html/i.test(String(res.headers['content-type']))) throw new SourceError('blocked', 'upstream answered an HTML page instead of JSON');
    if (res.status === 401 || res.status === 403) {
      let reason = '';
      try {
        reason = asString(pick(res.json(), 'error', 'message')) ?? '';
      } catch {
        /* not JSON */
      }
      throw new SourceError('blocked', `upstream answered HTTP ${res.status}${reason ? `: ${reason}` : ''}`, { httpStatus: res.status });
    }
    return parse(res.json());
  },
  validate: (data) => validateHotList(data, 5),
  migrate: migrateHotList({ fill: (i) => missing(i, { cover: '', created: null, created_at: null }) }),
  view: { rows: (d: HotList<QaItem>) => hotListRowsWith(d, { hot: (i) => i.hot_value_desc || i.hot_value, summary: (i) => i.detail || undefined }) },
  example: '/v2/apis/hot-qa-site?encoding=text',
});
