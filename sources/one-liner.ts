/**
 * 一言: one sentence (a line from anime, literature, poetry, films...). The corpus is the public
 * hitokoto sentence bundle (https://sentences-bundle.hitokoto.cn/sentences/<category>.json,
 * records `{id, uuid, hitokoto, type, from, from_who, creator, created_at, length}`), fetched once
 * a day into the store through the source's feed. Until a first fetch succeeds (offline, first
 * start) the bundled corpus data/corpus/one-liner.json, written for this project, answers.
 */
import { escapeMarkdown, markdownUrl } from '../src/encoding/escape.ts';
import { SourceError } from '../src/kernel/errors.ts';
import { need } from '../src/kernel/json-path.ts';
import { defineSource } from '../src/kernel/source.ts';
import { activeCorpus, idParam, loadCorpus, pickItem, text, type CorpusOrigin } from './_shared/corpus.ts';
import { asArray, asRecord, asString } from './_shared/hot-list.ts';

export const BUNDLE_URL = (category: string) => `https://sentences-bundle.hitokoto.cn/sentences/${category}.json`;
export const UPSTREAM_NAME = 'hitokoto';

/** The bundle's categories (its categories.json). */
export const CATEGORIES: Readonly<Record<string, string>> = {
  a: '动画',
  b: '漫画',
  c: '游戏',
  d: '文学',
  e: '原创',
  f: '来自网络',
  g: '其他',
  h: '影视',
  i: '诗词',
  j: '网易云',
  k: '哲学',
  l: '抖机灵',
};
const DEFAULT_CATEGORIES = Object.keys(CATEGORIES).join(',');
const CATEGORIES_ENV = 'SOURCE_ONE_LINER_CATEGORIES';
/** A fetched corpus smaller than this is implausible (the full bundle holds thousands). */
const MIN_FETCHED = 10;

export interface OneLinerEntry {
  content: string;
  from: string;
  from_who: string;
  /** Category key of the bundle (`a`…`l`). */
  category: string;
  uuid?: string;
}

export interface OneLinerFeed {
  items: OneLinerEntry[];
  categories: string[];
}

export const CORPUS = loadCorpus<OneLinerEntry>('one-liner', (v) => {
  const r = asRecord(v);
  const content = text(r?.content);
  if (!r || !content) return undefined;
  const category = asString(r.category) ?? 'e';
  if (!(category in CATEGORIES)) return undefined;
  return { content, from: asString(r.from)?.trim() ?? '', from_who: asString(r.from_who)?.trim() ?? '', category };
});

/** Parse one category file of the bundle; records without a sentence are skipped. */
export function parseBundle(raw: unknown, category: string): OneLinerEntry[] {
  const list = need(raw, '', asArray, `a JSON array (sentences/${category}.json)`);
  const out: OneLinerEntry[] = [];
  for (const entry of list) {
    const r = asRecord(entry);
    const content = text(r?.hitokoto);
    if (!r || !content) continue;
    const uuid = asString(r.uuid);
    out.push({
      content,
      from: asString(r.from)?.trim() ?? '',
      from_who: asString(r.from_who)?.trim() ?? '',
      category: asString(r.type) && asString(r.type)! in CATEGORIES ? (asString(r.type) as string) : category,
      ...(uuid ? { uuid } : {}),
    });
  }
  return out;
}

/** The categories named by the setting (comma-separated keys), checked. */
export function categoriesFrom(setting: string | undefined): string[] {
  const keys = (setting ?? DEFAULT_CATEGORIES)
    .split(',')
    .map((k) => k.trim().toLowerCase())
    .filter(Boolean);
  const bad = keys.filter((k) => !(k in CATEGORIES));
  if (bad.length || !keys.length) throw new SourceError('config', `${CATEGORIES_ENV} must list category keys among ${Object.keys(CATEGORIES).join(', ')} (got ${JSON.stringify(setting)})`);
  return [...new Set(keys)];
}

export interface OneLiner extends CorpusOrigin {
  id: number;
  /** Same as `id` (60s's name). */
  index: number;
  total: number;
  content: string;
  /** Same as `content` (60s's name). */
  hitokoto: string;
  from: string;
  from_who: string;
  category: string;
  category_name: string;
  /** The sentence's page on hitokoto.cn (fetched corpus only). */
  link?: string;
}

function attribution(d: OneLiner): string {
  const from = d.from ? `《${d.from}》` : '';
  return d.from_who || from ? `—— ${d.from_who}${from}` : '';
}

export default defineSource({
  id: 'one-liner',
  name: '一言',
  description: 'One sentence (一言) with its work and author (text: the sentence alone, as 60s): random, or a given id (0-based). The corpus is the hitokoto sentence bundle, refreshed daily; a bundled corpus answers until the first fetch.',
  homepage: 'https://hitokoto.cn',
  routes: [{ path: '/one-liner' }],
  params: { id: idParam('sentence') },
  env: [{ name: CATEGORIES_ENV, doc: `Categories of the sentence bundle to fetch, comma-separated keys (${Object.entries(CATEGORIES).map(([k, v]) => `${k} ${v}`).join(', ')})`, default: DEFAULT_CATEGORIES }],
  mode: 'local',
  feed: {
    schedule: '23 4 * * *',
    freshness: { ttlSec: 86_400, timeoutMs: 60_000, backoffCapSec: 6 * 3600 },
    headers: { accept: 'application/json' },
    async fetch(ctx): Promise<OneLinerFeed> {
      const categories = categoriesFrom(ctx.env(CATEGORIES_ENV));
      const parts = await Promise.all(categories.map(async (c) => parseBundle(await ctx.http.json(BUNDLE_URL(c), { signal: ctx.signal, maxBytes: 16 * 1024 * 1024 }), c)));
      return { items: parts.flat(), categories };
    },
    validate: (d) => (d.items.length < MIN_FETCHED ? `only ${d.items.length} sentences in categories ${d.categories.join(',')}` : undefined),
    count: (d) => d.items.length,
  },
  compute(ctx, p): OneLiner {
    const { items, origin } = activeCorpus(ctx.feed, CORPUS, UPSTREAM_NAME);
    const { item, id } = pickItem(items, p.id, 'sentence');
    return {
      id,
      index: id,
      total: items.length,
      content: item.content,
      hitokoto: item.content,
      from: item.from,
      from_who: item.from_who,
      category: item.category,
      category_name: CATEGORIES[item.category] ?? '',
      ...(item.uuid ? { link: `https://hitokoto.cn/?uuid=${encodeURIComponent(item.uuid)}` } : {}),
      ...origin,
    };
  },
  view: {
    title: () => '一言',
    // 60s's text is the sentence alone.
    text: (d) => d.content,
    markdown: (d) => {
      const by = attribution(d);
      return `# 一言\n\n> ${escapeMarkdown(d.content)}${by ? `\n>\n> ${escapeMarkdown(by)}` : ''}\n\n_${escapeMarkdown(d.category_name)} · 第 ${d.id} 条，共 ${d.total} 条${d.link ? ` · [出处](${markdownUrl(d.link)})` : ''}_\n`;
    },
  },
  example: '/v2/apis/one-liner?encoding=text',
});
