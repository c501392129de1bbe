/**
 * 发病文学: an over-the-top "I am hopelessly crazy about you" message addressed to `name`, from the
 * bundled templates data/corpus/fabing.json (written for this project; `{name}` marks the name).
 */
import { escapeMarkdown } from '../src/encoding/escape.ts';
import { defineSource } from '../src/kernel/source.ts';
import { activeCorpus, idParam, loadCorpus, markdownBlock, pickItem, SIXTY_CORPUS, sixtyCorpusFeed, text, type CorpusOrigin } from './_shared/corpus.ts';

export const DEFAULT_NAME = '主人';
export const MAX_NAME = 20;
const PLACEHOLDER = '{name}';

export const CORPUS = loadCorpus('fabing', (v) => {
  const t = text(v);
  return t?.includes(PLACEHOLDER) ? t : undefined;
});

/** A template of 60s's fabing.json: its `[name]` marks the name, as `{name}` does in ours. */
export function sixtyTemplate(v: unknown): string | undefined {
  return text(v)?.split('[name]').join(PLACEHOLDER);
}

export interface Fabing extends CorpusOrigin {
  id: number;
  /** Same as `id` (60s's name). */
  index: number;
  total: number;
  name: string;
  content: string;
  /** Same as `content` (60s's name). */
  saying: string;
}

export default defineSource({
  id: 'fabing',
  name: '发病文学',
  description: 'A playful, over-the-top "crazy about you" message (发病文学) addressed to `name`: random, or a given template id (0-based, as 60s). The corpus is the dataset of 60s (the file src/modules/fabing/fabing.json of its repository), refreshed daily; a bundled corpus answers until the first fetch.',
  routes: [{ path: '/fabing' }],
  params: {
    name: { type: 'string', doc: `Who the message is for (at most ${MAX_NAME} characters); ${DEFAULT_NAME} by default.`, default: DEFAULT_NAME, maxLength: MAX_NAME, example: '小明' },
    id: idParam('template'),
  },
  mode: 'local',
  feed: sixtyCorpusFeed('fabing', sixtyTemplate, 20, 37),
  compute(ctx, p): Fabing {
    const { items, origin } = activeCorpus(ctx.feed, CORPUS, SIXTY_CORPUS);
    const { item, id } = pickItem(items, p.id, 'template');
    const content = item.split(PLACEHOLDER).join(p.name);
    return { id, index: id, total: items.length, name: p.name, content, saying: content, ...origin };
  },
  view: {
    title: (d) => `发病文学 · 献给${d.name}`,
    text: (d) => d.content,
    markdown: (d) => `# 💘 发病文学\n\n${markdownBlock(d.content)}\n\n_献给：${escapeMarkdown(d.name)} · 第 ${d.id} 条_\n`,
  },
  example: '/v2/apis/fabing?name=%E5%B0%8F%E6%98%8E&encoding=text',
});
