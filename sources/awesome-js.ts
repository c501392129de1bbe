/**
 * JavaScript 面试题: a question with code, options, the answer and an explanation, from 60s's
 * dataset (fetched daily), or data/corpus/awesome-js.json (written for this project; every
 * snippet's answer was checked by running it on Node 20) until the first fetch. Ids count from 1,
 * as 60s numbers its questions.
 */
import { escapeMarkdown } from '../src/encoding/escape.ts';
import { defineSource } from '../src/kernel/source.ts';
import { activeCorpus, idParam, loadCorpus, markdownBlock, pickItem, SIXTY_CORPUS, sixtyCorpusFeed, text, type CorpusOrigin } from './_shared/corpus.ts';

const LETTERS = ['A', 'B', 'C', 'D', 'E', 'F'] as const;

export interface JsQuestion {
  question: string;
  /** May be empty when the question needs no code. */
  code: string;
  options: string[];
  /** Letter of the right option. */
  answer: string;
  explanation: string;
}

/**
 * A question of the bundled corpus, or of 60s's awesome-js.json (`{id, question, code?, options,
 * answer, explanation}` with each option written `A: text`): the option's letter is taken off.
 */
function jsQuestion(v: unknown): JsQuestion | undefined {
  const r = v as Partial<JsQuestion> | null;
  const question = text(r?.question);
  const explanation = text(r?.explanation);
  const options = Array.isArray(r?.options) ? r.options.filter((o): o is string => typeof o === 'string' && o !== '').map((o) => o.replace(/^[A-F]\s*[:：.]\s*/, '')) : [];
  if (!r || !question || !explanation || options.length < 2 || options.length > LETTERS.length || options.length !== r.options?.length) return undefined;
  const answer = typeof r.answer === 'string' ? r.answer : '';
  const at = LETTERS.indexOf(answer as (typeof LETTERS)[number]);
  if (at < 0 || at >= options.length) return undefined;
  return { question, code: typeof r.code === 'string' ? r.code.replace(/\s+$/, '') : '', options, answer, explanation };
}

export const CORPUS = loadCorpus<JsQuestion>('awesome-js', jsQuestion);

export interface JsQuestionItem extends CorpusOrigin {
  /** The question's number, counted from 1 (60s's `id`). */
  id: number;
  /** Its 0-based position in the corpus. */
  index: number;
  total: number;
  question: string;
  code: string;
  /** Each option as `A: text` (60s's form). */
  options: string[];
  /** The options with their letter apart. */
  choices: { label: string; text: string }[];
  answer: string;
  answer_text: string;
  explanation: string;
}

export default defineSource({
  id: 'awesome-js',
  name: 'JavaScript 面试题',
  description: 'A JavaScript quiz question (Chinese): code snippet, options, the answer and why. Random, or a given id (counted from 1, as 60s). The corpus is the dataset of 60s (the file src/modules/awesome-js/awesome-js.json of its repository), refreshed daily; a bundled corpus answers until the first fetch.',
  routes: [{ path: '/awesome-js' }],
  params: { id: idParam('question', 1) },
  mode: 'local',
  feed: sixtyCorpusFeed('awesome-js', jsQuestion, 20, 39),
  compute(ctx, p): JsQuestionItem {
    const { items, origin } = activeCorpus(ctx.feed, CORPUS, SIXTY_CORPUS);
    const { item, id, index } = pickItem(items, p.id, 'question', 1);
    const choices = item.options.map((o, i) => ({ label: LETTERS[i] as string, text: o }));
    return {
      id,
      index,
      total: items.length,
      question: item.question,
      code: item.code,
      options: choices.map((o) => `${o.label}: ${o.text}`),
      choices,
      answer: item.answer,
      answer_text: choices.find((o) => o.label === item.answer)?.text ?? '',
      explanation: item.explanation,
      ...origin,
    };
  },
  view: {
    title: (d) => `JavaScript 面试题 #${d.id}`,
    text: (d) =>
      [
        `JavaScript 面试题 #${d.id}`,
        '',
        d.question,
        ...(d.code ? ['', d.code] : []),
        '',
        ...d.choices.map((o) => `${o.label}. ${o.text}`),
        '',
        `答案：${d.answer}. ${d.answer_text}`,
        '',
        `解析：${d.explanation}`,
        '',
      ].join('\n'),
    markdown: (d) => {
      const fence = d.code.includes('```') ? '~~~~' : '```';
      return [
        `# JavaScript 面试题 #${d.id}`,
        '',
        markdownBlock(d.question),
        ...(d.code ? ['', `${fence}js`, d.code, fence] : []),
        '',
        ...d.choices.map((o) => `- **${o.label}**. ${escapeMarkdown(o.text)}`),
        '',
        `**答案：${d.answer}**`,
        '',
        `**解析：** ${markdownBlock(d.explanation)}`,
        '',
      ].join('\n');
    },
  },
  example: '/v2/apis/awesome-js?id=1&encoding=markdown',
});
