/**
 * 疯狂星期四文案: a "Crazy Thursday, V me 50" joke copy. The corpus is the public v50 list
 * (https://cdn.jsdelivr.net/gh/vikiboss/v50@main/static/v50.json, a JSON array of strings),
 * fetched once a day into the store through the source's feed; until a first fetch succeeds the
 * bundled corpus data/corpus/fast-food-copy.json, written for this project, answers.
 */
import { SourceError } from '../src/kernel/errors.ts';
import { need } from '../src/kernel/json-path.ts';
import { defineSource } from '../src/kernel/source.ts';
import { activeCorpus, idParam, loadCorpus, markdownBlock, pickItem, stringItem, text, type CorpusOrigin } from './_shared/corpus.ts';
import { asArray } from './_shared/hot-list.ts';

export const UPSTREAM_URL = 'https://cdn.jsdelivr.net/gh/vikiboss/v50@main/static/v50.json';
export const UPSTREAM_NAME = 'v50';
/** Copies longer than this are dropped (the list's are a few hundred characters at most). */
const MAX_COPY = 5_000;
const MIN_FETCHED = 10;

export const CORPUS = loadCorpus('fast-food-copy', stringItem);

export interface CopyFeed {
  items: string[];
}

/** The v50 list: a JSON array of strings; blank, non-string and oversized entries are skipped, duplicates dropped. */
export function parseList(raw: unknown): CopyFeed {
  const list = need(raw, '', asArray, 'a JSON array');
  const items = [...new Set(list.map(text).filter((s): s is string => !!s && s.length <= MAX_COPY))];
  return { items };
}

export interface FastFoodCopy extends CorpusOrigin {
  id: number;
  /** Same as `id` (60s's name). */
  index: number;
  total: number;
  content: string;
  /** Same as `content` (60s's name). */
  kfc: string;
}

export default defineSource({
  id: 'fast-food-copy',
  name: '疯狂星期四文案',
  description: 'A "Crazy Thursday, V me 50" joke copy (疯狂星期四文案): random, or a given id (0-based). The corpus is the public v50 list, refreshed daily; a bundled corpus answers until the first fetch.',
  homepage: 'https://github.com/vikiboss/v50',
  routes: [{ path: '/fast-food-copy' }],
  params: { id: idParam('copy') },
  mode: 'local',
  feed: {
    schedule: '41 4 * * *',
    freshness: { ttlSec: 86_400, timeoutMs: 30_000, backoffCapSec: 6 * 3600 },
    headers: { accept: 'application/json' },
    async fetch(ctx): Promise<CopyFeed> {
      return parseList(await ctx.http.json(UPSTREAM_URL, { signal: ctx.signal }));
    },
    validate: (d) => (d.items.length < MIN_FETCHED ? `only ${d.items.length} copies` : undefined),
    count: (d) => d.items.length,
  },
  compute(ctx, p): FastFoodCopy {
    const { items, origin } = activeCorpus(ctx.feed, CORPUS, UPSTREAM_NAME);
    const { item, id } = pickItem(items, p.id, 'copy');
    return { id, index: id, total: items.length, content: item, kfc: item, ...origin };
  },
  view: {
    title: () => '疯狂星期四文案',
    text: (d) => d.content,
    markdown: (d) => `# 🍗 疯狂星期四文案\n\n${markdownBlock(d.content)}\n\n_第 ${d.id} 条，共 ${d.total} 条_\n`,
  },
  example: '/v2/apis/fast-food-copy?encoding=text',
});
