/**
 * Hacker News stories through the official Firebase API
 * (https://github.com/HackerNews/API): `/v0/{top,new,best}stories.json` gives up to 500 ids,
 * then each story is one `/v0/item/<id>.json` request. Those lists also hold jobs (and the odd
 * poll); only `type: "story"` items are kept, and further ids are read until `limit` stories
 * are found. A vanished item answers `null`; removed ones carry `deleted` or `dead`. Ask HN and
 * other text posts have no `url`, so their link is the discussion page.
 */
import { SourceError } from '../src/kernel/errors.ts';
import { need } from '../src/kernel/json-path.ts';
import { defineSource, type FetchContext } from '../src/kernel/source.ts';
import { formatDateTime } from '../src/kernel/time.ts';
import { asArray, asNumber, asRecord, asString, migrateHotList, validateHotList, type HotItem, type HotList } from './_shared/hot-list.ts';

export const API = 'https://hacker-news.firebaseio.com/v0';
export const TYPES = ['top', 'new', 'best'] as const;
export type StoryType = (typeof TYPES)[number];
/** Upstream requests in flight at once (the ids list plus item fetches). */
export const PARALLEL = 8;
/** At most this many rounds of item fetches to replace jobs and deleted items. */
const MAX_ROUNDS = 3;

export interface Story extends HotItem {
  id: number;
  score: number;
  author: string;
  comment_count: number;
  /** The discussion page on news.ycombinator.com. */
  item_link: string;
  created: string;
  created_at: number;
}

export type StoryList = HotList<Story>;

export const itemPage = (id: number) => `https://news.ycombinator.com/item?id=${id}`;

/** The id list of `<type>stories.json`. */
export function parseIds(raw: unknown): number[] {
  const ids = need(raw, '', asArray, 'a JSON array of story ids');
  return ids.filter((x): x is number => typeof x === 'number' && Number.isInteger(x) && x > 0);
}

/** One item (rank 0 until placed); undefined for anything but a live story (jobs, polls, deleted, null). */
export function parseItem(raw: unknown): Story | undefined {
  if (raw === null) return undefined;
  const it = need(raw, '', asRecord, 'a JSON object');
  if (it.type !== 'story' || it.deleted === true || it.dead === true) return undefined;
  const id = asNumber(it.id);
  const title = asString(it.title)?.trim();
  if (id === undefined || !title) return undefined;
  const url = asString(it.url)?.trim();
  const createdAt = (asNumber(it.time) ?? 0) * 1000;
  return {
    rank: 0,
    id,
    title,
    link: url && /^https?:\/\//i.test(url) ? url : itemPage(id),
    item_link: itemPage(id),
    score: asNumber(it.score) ?? 0,
    author: asString(it.by) ?? '',
    comment_count: asNumber(it.descendants) ?? 0,
    created: createdAt ? formatDateTime(createdAt) : '',
    created_at: createdAt,
  };
}

/** Items in list order → ranked stories (at most `limit`). */
export function parse(items: readonly unknown[], limit: number): StoryList {
  const list: Story[] = [];
  for (const raw of items) {
    const story = parseItem(raw);
    if (story && list.length < limit) list.push({ ...story, rank: list.length + 1 });
  }
  return list;
}

async function fetchItems(ctx: FetchContext<StoryList>, ids: readonly number[]): Promise<unknown[]> {
  // The source's http client runs at most PARALLEL of these at once.
  const settled = await Promise.allSettled(ids.map((id) => ctx.http.json(`${API}/item/${id}.json`, { signal: ctx.signal })));
  const failed = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
  // A few failed items are skipped; more than a quarter means the upstream is in trouble.
  if (failed.length && failed.length * 4 > ids.length) throw failed[0]!.reason;
  return settled.map((s) => (s.status === 'fulfilled' ? s.value : null));
}

export async function fetchStories(ctx: FetchContext<StoryList>, type: StoryType, limit: number): Promise<StoryList> {
  const ids = parseIds(await ctx.http.json(`${API}/${type}stories.json`, { signal: ctx.signal }));
  if (!ids.length) throw new SourceError('empty', `${type}stories.json is an empty list`);
  const items: unknown[] = [];
  let offset = 0;
  for (let round = 0; round < MAX_ROUNDS && offset < ids.length; round += 1) {
    const found = items.filter((i) => parseItem(i) !== undefined).length;
    if (found >= limit) break;
    const batch = ids.slice(offset, offset + (limit - found));
    offset += batch.length;
    // eslint-disable-next-line no-await-in-loop -- a round only runs when the previous one came up short
    items.push(...(await fetchItems(ctx, batch)));
  }
  return parse(items, limit);
}

export function validate(data: StoryList): string | undefined {
  return validateHotList(data, 1);
}

export default defineSource({
  id: 'tech-forum',
  name: 'Hacker News',
  description: 'Hacker News stories: the front page (top), the newest (new) or the best of the last days (best), with score, author, comment count and time.',
  homepage: 'https://news.ycombinator.com/',
  routes: [{ path: '/tech-forum/:type' }],
  params: {
    type: { type: 'string', in: 'path', required: true, enum: TYPES, doc: 'Which list: top (front page), new (newest) or best.', example: 'top' },
    limit: { type: 'integer', default: 10, min: 1, max: 35, doc: 'Number of stories (1–35).' },
  },
  mode: 'scheduled',
  schedule: '*/10 * * * *',
  prefetch: TYPES.map((type) => ({ type })),
  freshness: { ttlSec: 600, timeoutMs: 20_000, backoffCapSec: 3600 },
  headers: { accept: 'application/json' },
  concurrency: PARALLEL,
  maxKeys: TYPES.length * 35,
  fetch: (ctx, p) => fetchStories(ctx, p.type as StoryType, p.limit),
  validate,
  migrate: migrateHotList(),
  view: {
    title: (_d, p) => `Hacker News · ${p.type === 'top' ? 'Top' : p.type === 'new' ? 'New' : 'Best'} stories`,
    columns: () => ({ title: '文章', hot: '得分' }),
    rows: (d) =>
      d.map((s) => ({
        title: s.title,
        link: s.link,
        guid: s.item_link,
        hot: s.score,
        summary: `${s.score} points by ${s.author} · ${s.comment_count} comments · ${s.created}`,
        date: s.created_at,
      })),
  },
  example: '/v2/apis/tech-forum/top?limit=10&encoding=text',
});
