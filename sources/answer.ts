/** 答案之书: an answer to the question you keep in mind, from data/corpus/answer.json (written for this project). */
import { escapeMarkdown } from '../src/encoding/escape.ts';
import { defineSource } from '../src/kernel/source.ts';
import { idParam, loadCorpus, pickItem, text } from './_shared/corpus.ts';

export interface AnswerEntry {
  answer: string;
  answer_en: string;
}

export const CORPUS = loadCorpus<AnswerEntry>('answer', (v) => {
  const r = v as Partial<AnswerEntry> | null;
  const answer = text(r?.answer);
  const en = text(r?.answer_en);
  return answer && en ? { answer, answer_en: en } : undefined;
});

export interface Answer extends AnswerEntry {
  /** The answer's number in the book, counted from 1, as text (60s's `id`). */
  id: string;
  /** 0-based position: the `id` parameter that returns this answer again. */
  index: number;
  total: number;
}

export default defineSource({
  id: 'answer',
  name: '答案之书',
  description: 'The book of answers: think of a yes/no question, get an answer in Chinese and English (text: the Chinese answer alone, as 60s). Random, or a given id (0-based).',
  routes: [{ path: '/answer' }],
  params: { id: idParam('answer') },
  mode: 'local',
  compute(_ctx, p): Answer {
    const { item, id } = pickItem(CORPUS, p.id, 'answer');
    return { id: String(id + 1), index: id, total: CORPUS.length, ...item };
  },
  view: {
    title: () => '答案之书',
    // 60s's text is the answer alone.
    text: (d) => d.answer,
    markdown: (d) => `# 📖 答案之书\n\n## ${escapeMarkdown(d.answer)}\n\n_${escapeMarkdown(d.answer_en)}_\n`,
  },
  example: '/v2/apis/answer?encoding=text',
});
