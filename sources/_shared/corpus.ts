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
import { defineSource, type IntegerParam } from '../../src/kernel/source.ts';
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

/** The `id` parameter of a corpus endpoint. */
export function idParam(what: string): IntegerParam {
  return {
    type: 'integer',
    min: 0,
    max: MAX_ID,
    doc: `0-based index of the ${what} to return (every answer carries it as \`index\`, with the corpus \`total\`); a random one when absent. An id at or past \`total\` answers 404.`,
    example: '0',
  };
}

/** One item by 0-based id, or a uniformly random one. Out of range: a 404 stating the valid range. */
export function pickItem<T>(items: readonly T[], id: number | undefined, what: string): { item: T; id: number } {
  const total = items.length;
  if (total === 0) throw new AppError(503, `No ${what} is available right now; try again later.`, { expose: true, headers: { 'Retry-After': '60' } });
  const index = id ?? randomInt(total);
  const item = items[index];
  if (item === undefined) throw new AppError(404, `No ${what} with id ${index}: valid ids are 0 to ${total - 1}.`);
  return { item, id: index };
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

/** A non-empty trimmed string, or undefined. */
export function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** A plain string, for `loadCorpus` of string arrays. */
export function stringItem(v: unknown): string | undefined {
  return text(v);
}

export interface TextItem {
  id: number;
  /** Same as `id` (60s's name for the 0-based position). */
  index: number;
  total: number;
  content: string;
  [alias: string]: string | number;
}

/**
 * The whole definition of an endpoint that serves one string of a bundled corpus (duanzi, dad-joke).
 * `alias` repeats the text under the field name 60s gives it (e.g. `duanzi`).
 */
export function textCorpusSource(o: { id: string; name: string; description: string; what: string; heading: string; corpus: readonly string[]; alias?: string }) {
  return defineSource({
    id: o.id,
    name: o.name,
    description: o.description,
    routes: [{ path: `/${o.id}` }],
    params: { id: idParam(o.what) },
    mode: 'local',
    compute(_ctx, p): TextItem {
      const { item, id } = pickItem(o.corpus, p.id, o.what);
      return { id, index: id, total: o.corpus.length, content: item, ...(o.alias ? { [o.alias]: item } : {}) };
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
