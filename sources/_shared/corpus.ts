/**
 * Shared by the corpus endpoints (one-liner, luck, duanzi, dad-joke, fabing, answer,
 * fast-food-copy, awesome-js, changya): loading a bundled corpus from data/corpus/, the `id`
 * parameter, and picking one item.
 *
 * Item ids are 0-based indexes into the corpus that answers (the fetched one when the endpoint
 * has a feed and it was fetched, the bundled one otherwise). A random item is chosen with
 * node:crypto (uniform); an id past the end is a 404 that names the valid range.
 */
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { escapeMarkdown } from '../../src/encoding/escape.ts';
import { AppError } from '../../src/kernel/errors.ts';
import { PROJECT_ROOT } from '../../src/kernel/project-root.ts';
import { need } from '../../src/kernel/json-path.ts';
import { defineSource, type IntegerParam, type LocalFeed } from '../../src/kernel/source.ts';
import { formatDateTime } from '../../src/kernel/time.ts';

export const CORPUS_DIR = path.join(PROJECT_ROOT, 'data/corpus');

/** Largest `id` accepted by the parameter parser (bigger values are 400, the rest past the end 404). */
const MAX_ID = 999_999_999;

/**
 * Read a bundled corpus (`data/corpus/<name>.json`, a JSON array) once, checking every item.
 * A broken corpus fails loudly at boot rather than at request time.
 */
export function loadCorpus<T>(name: string, check: (item: unknown) => T | undefined): readonly T[] {
  const file = path.join(CORPUS_DIR, `${name}.json`);
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  if (!Array.isArray(raw) || raw.length === 0) throw new Error(`${file}: expected a non-empty JSON array`);
  return Object.freeze(
    raw.map((item, i) => {
      const ok = check(item);
      if (ok === undefined) throw new Error(`${file}: item ${i} has the wrong shape: ${JSON.stringify(item).slice(0, 200)}`);
      return ok;
    }),
  );
}

/** The `id` parameter of a corpus endpoint: 0-based, or counted from 1 (`base` 1) where 60s counts so (awesome-js). */
export function idParam(what: string, base: 0 | 1 = 0): IntegerParam {
  return {
    type: 'integer',
    min: base,
    max: MAX_ID,
    doc:
      base === 0
        ? `0-based index of the ${what} to return (every answer carries it as \`index\`, with the corpus \`total\`); a random one when absent. An id at or past \`total\` answers 404.`
        : `Number of the ${what} to return, counted from 1 (every answer carries it as \`id\`, with the corpus \`total\`); a random one when absent. An id past \`total\` answers 404.`,
    example: String(base),
  };
}

/**
 * One item by id (0-based, or counted from `base`), or a uniformly random one; `id` is the item's
 * id and `index` its 0-based position. Out of range: a 404 stating the valid range.
 */
export function pickItem<T>(items: readonly T[], id: number | undefined, what: string, base: 0 | 1 = 0): { item: T; id: number; index: number } {
  const total = items.length;
  if (total === 0) throw new AppError(503, `No ${what} is available right now; try again later.`, { expose: true, headers: { 'Retry-After': '60' } });
  const index = id === undefined ? randomInt(total) : id - base;
  const item = items[index];
  if (item === undefined) throw new AppError(404, `No ${what} with id ${index + base}: valid ids are ${base} to ${total - 1 + base}.`);
  return { item, id: index + base, index };
}

/** Where the items of an answer came from: the fetched corpus (with its fetch time) or the bundled one. */
export interface CorpusOrigin {
  /** `bundled` = data/corpus shipped with the service; otherwise the upstream's name. */
  source: string;
  /** When the fetched corpus was fetched (absent for the bundled one). */
  updated?: string;
  updated_at?: number;
}

/** The fetched corpus when there is one with items, the bundled one otherwise. */
export function activeCorpus<T>(
  feed: { data: { items: readonly T[] }; fetchedAt: number } | undefined,
  bundled: readonly T[],
  upstreamName: string,
): { items: readonly T[]; origin: CorpusOrigin } {
  if (feed && feed.data.items.length > 0) {
    return { items: feed.data.items, origin: { source: upstreamName, updated: formatDateTime(feed.fetchedAt), updated_at: feed.fetchedAt } };
  }
  return { items: bundled, origin: { source: 'bundled' } };
}

/** The name answers give a corpus fetched from 60s's repository (`source`). */
export const SIXTY_CORPUS = '60s';

/**
 * 60s's corpus of one of its modules: the JSON array it ships in its public repository
 * (`src/modules/<name>/<name>.json`, the file its module reads), served by jsDelivr.
 */
export function sixtyCorpusUrl(name: string): string {
  return `https://cdn.jsdelivr.net/gh/vikiboss/60s@main/src/modules/${name}/${name}.json`;
}

export interface CorpusFeed<T> {
  items: T[];
}

/** A corpus file: a JSON array whose entries `item` narrows; entries it refuses are skipped. */
export function parseCorpus<T>(raw: unknown, item: (entry: unknown) => T | undefined): CorpusFeed<T> {
  const list = need(raw, '', (v) => (Array.isArray(v) ? v : undefined), 'a JSON array');
  return { items: list.map(item).filter((x): x is T => x !== undefined) };
}

/**
 * The feed of a corpus endpoint whose items are 60s's own dataset: fetched once a day (at `minute`
 * past 4, spread so the endpoints do not fetch together), stored, and answered from instead of the
 * bundled corpus once a fetch with at least `min` usable entries succeeded.
 */
export function sixtyCorpusFeed<T>(name: string, item: (entry: unknown) => T | undefined, min: number, minute: number): LocalFeed<CorpusFeed<T>> {
  return {
    schedule: `${minute} 4 * * *`,
    freshness: { ttlSec: 86_400, timeoutMs: 30_000, backoffCapSec: 6 * 3600 },
    headers: { accept: 'application/json' },
    async fetch(ctx): Promise<CorpusFeed<T>> {
      return parseCorpus(await ctx.http.json(sixtyCorpusUrl(name), { signal: ctx.signal, maxBytes: 8 * 1024 * 1024 }), item);
    },
    validate: (d) => (d.items.length < min ? `only ${d.items.length} usable entries in 60s's ${name}.json` : undefined),
    count: (d) => d.items.length,
  };
}

/** A non-empty trimmed string, or undefined. */
export function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** A plain string, for `loadCorpus` of string arrays. */
export function stringItem(v: unknown): string | undefined {
  return text(v);
}

export interface TextItem extends CorpusOrigin {
  id: number;
  /** Same as `id` (60s's name for the 0-based position). */
  index: number;
  total: number;
  content: string;
  [alias: string]: string | number | undefined;
}

/**
 * The whole definition of an endpoint that serves one string of a bundled corpus (duanzi, dad-joke).
 * `alias` repeats the text under the field name 60s gives it (e.g. `duanzi`).
 */
export function textCorpusSource(o: { id: string; name: string; description: string; what: string; heading: string; corpus: readonly string[]; alias?: string; feed: LocalFeed<CorpusFeed<string>> }) {
  return defineSource({
    id: o.id,
    name: o.name,
    description: o.description,
    routes: [{ path: `/${o.id}` }],
    params: { id: idParam(o.what) },
    mode: 'local',
    feed: o.feed,
    compute(ctx, p): TextItem {
      const { items, origin } = activeCorpus(ctx.feed, o.corpus, SIXTY_CORPUS);
      const { item, id } = pickItem(items, p.id, o.what);
      return { id, index: id, total: items.length, content: item, ...(o.alias ? { [o.alias]: item } : {}), ...origin };
    },
    view: {
      title: () => o.name,
      text: (d) => d.content,
      markdown: (d) => `# ${o.heading}\n\n${markdownBlock(d.content)}\n\n_第 ${d.id} 条，共 ${d.total} 条_\n`,
    },
    example: `/v2/apis/${o.id}?encoding=text`,
  });
}

/** Multi-line text as a markdown paragraph: each line escaped, line breaks kept. */
export function markdownBlock(s: string): string {
  return s
    .split(/\r?\n/)
    .map((line) => escapeMarkdown(line))
    .join('  \n');
}
