/**
 * JavaScript 面试题: a question with code, options, the answer and an explanation, from
 * data/corpus/awesome-js.json (written for this project; every snippet's answer was checked by
 * running it on Node 20). Ids are 0-based like every corpus endpoint here.
 */
import { escapeMarkdown } from '../src/encoding/escape.ts';
import { defineSource } from '../src/kernel/source.ts';
import { idParam, loadCorpus, markdownBlock, pickItem, text } from './_shared/corpus.ts';

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

export const CORPUS = loadCorpus<JsQuestion>('awesome-js', (v) => {
  const r = v as Partial<JsQuestion> | null;
  const question = text(r?.question);
  const explanation = text(r?.explanation);
  const options = Array.isArray(r?.options) ? r.options.filter((o): o is string => typeof o === 'string' && o !== '') : [];
  if (!r || !question || !explanation || options.length < 2 || options.length > LETTERS.length || options.length !== r.options?.length) return undefined;
  const answer = typeof r.answer === 'string' ? r.answer : '';
  const at = LETTERS.indexOf(answer as (typeof LETTERS)[number]);
  if (at < 0 || at >= options.length) return undefined;
  return { question, code: typeof r.code === 'string' ? r.code.replace(/\s+$/, '') : '', options, answer, explanation };
});

export interface JsQuestionItem {
  id: number;
  /** Same as `id`. */
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
  description: 'A JavaScript quiz question (Chinese): code snippet, options, the answer and why. Random, or a given id (0-based).',
  routes: [{ path: '/awesome-js' }],
  params: { id: idParam('question') },
  mode: 'local',
  compute(_ctx, p): JsQuestionItem {
    const { item, id } = pickItem(CORPUS, p.id, 'question');
    const choices = item.options.map((o, i) => ({ label: LETTERS[i] as string, text: o }));
    return {
      id,
      index: id,
      total: CORPUS.length,
      question: item.question,
      code: item.code,
      options: choices.map((o) => `${o.label}: ${o.text}`),
      choices,
      answer: item.answer,
      answer_text: choices.find((o) => o.label === item.answer)?.text ?? '',
      explanation: item.explanation,
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
  example: '/v2/apis/awesome-js?id=0&encoding=markdown',
});
