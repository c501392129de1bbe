/**
 * 答案之书: an answer to the question you keep in mind, from 60s's dataset (fetched daily), or the
 * bundled data/corpus/answer.json (written for this project) until the first fetch.
 */
import { escapeMarkdown } from '../src/encoding/escape.ts';
import { defineSource } from '../src/kernel/source.ts';
import { activeCorpus, idParam, loadCorpus, pickItem, SIXTY_CORPUS, sixtyCorpusFeed, text, type CorpusOrigin } from './_shared/corpus.ts';

export interface AnswerEntry {
  answer: string;
  answer_en: string;
}

/** An entry of the bundled corpus or of 60s's answer.json (`{id, answer, answer_en}`; its `id` is the position from 1). */
function answerEntry(v: unknown): AnswerEntry | undefined {
  const r = v as Partial<AnswerEntry> | null;
  const answer = text(r?.answer);
  const en = text(r?.answer_en);
  return answer && en ? { answer, answer_en: en } : undefined;
}

export const CORPUS = loadCorpus<AnswerEntry>('answer', answerEntry);

export interface Answer extends AnswerEntry, CorpusOrigin {
  /** The answer's number in the book, counted from 1, as text (60s's `id`). */
  id: string;
  /** 0-based position: the `id` parameter that returns this answer again. */
  index: number;
  total: number;
}

export default defineSource({
  id: 'answer',
  name: '答案之书',
  description: 'The book of answers: think of a yes/no question, get an answer in Chinese and English (text: the Chinese answer alone, as 60s). Random, or a given id (0-based, as 60s). The corpus is the dataset of 60s (the file src/modules/answer/answer.json of its repository), refreshed daily; a bundled corpus answers until the first fetch.',
  routes: [{ path: '/answer' }],
  params: { id: idParam('answer') },
  mode: 'local',
  feed: sixtyCorpusFeed('answer', answerEntry, 20, 35),
  compute(ctx, p): Answer {
    const { items, origin } = activeCorpus(ctx.feed, CORPUS, SIXTY_CORPUS);
    const { item, id } = pickItem(items, p.id, 'answer');
    return { id: String(id + 1), index: id, total: items.length, ...item, ...origin };
  },
  view: {
    title: () => '答案之书',
    // 60s's text is the answer alone.
    text: (d) => d.answer,
    markdown: (d) => `# 📖 答案之书\n\n## ${escapeMarkdown(d.answer)}\n\n_${escapeMarkdown(d.answer_en)}_\n`,
  },
  example: '/v2/apis/answer?encoding=text',
});
