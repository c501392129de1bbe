import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { CORPUS } from '../../sources/awesome-js.ts';
import { describeBundledCorpus, describeIdContract, getJson, useService } from './_corpus.ts';

describeBundledCorpus('awesome-js', CORPUS, 15, (q: { question: string; code: string }) => `${q.question}\n${q.code}`);

describe('awesome-js corpus', () => {
  /** Run a snippet in a fresh context (sloppy mode, like a classic script); what it logs, or the error it throws. */
  async function run(code: string): Promise<{ printed: string; thrown?: string }> {
    const lines: string[] = [];
    const console = { log: (...args: unknown[]) => lines.push(args.map(String).join(' ')) };
    try {
      vm.runInNewContext(code, { console, setTimeout }, { timeout: 1_000 });
    } catch (err) {
      return { printed: lines.join(' '), thrown: (err as Error).name };
    }
    await new Promise((r) => setTimeout(r, 20));
    return { printed: lines.join(' ') };
  }

  it('every answer is what the snippet prints (or the error it throws)', async () => {
    const letters = 'ABCDEF';
    for (const [i, q] of CORPUS.entries()) {
      const { printed, thrown } = await run(q.code);
      const answer = q.options[letters.indexOf(q.answer)] as string;
      if (thrown) expect(answer, `question ${i}`).toContain(thrown);
      else expect([answer.replace(/^"|"$/g, ''), answer.replace(/^打印 /, '')], `question ${i}: printed ${printed}`).toContain(printed);
    }
  });
});

describe('awesome-js', () => {
  const { svc } = useService();
  // Counted from 1, as 60s numbers its questions.
  describeIdContract({ path: '/v2/apis/awesome-js', what: 'question', total: () => CORPUS.length, svc, base: 1 });

  it('answers the question with labelled options, the answer letter and text, and the explanation', async () => {
    const q = CORPUS[0]!;
    const { body } = await getJson<{ options: string[]; choices: { label: string; text: string }[]; answer: string; answer_text: string; code: string; explanation: string }>(svc(), '/v2/apis/awesome-js?id=1');
    expect(body.data).toMatchObject({ id: 1, index: 0, source: 'bundled', total: CORPUS.length, question: q.question, code: q.code, answer: q.answer, explanation: q.explanation });
    expect(body.data.choices.map((o) => o.label)).toEqual(['A', 'B', 'C', 'D'].slice(0, q.options.length));
    expect(body.data.options).toEqual(q.options.map((o, i) => `${'ABCDEF'[i]}: ${o}`));
    expect(body.data.answer_text).toBe(q.options['ABCDEF'.indexOf(q.answer)]);
  });

  it('text and markdown show code, options, answer and explanation', async () => {
    const q = CORPUS[6]!;
    const text = await (await svc().get('/v2/apis/awesome-js?id=7&encoding=text')).text();
    expect(text).toContain(q.code);
    expect(text).toContain(`答案：${q.answer}.`);
    expect(text).toContain(q.explanation);
    const md = await (await svc().get('/v2/apis/awesome-js?id=7&encoding=markdown')).text();
    expect(md).toContain('# JavaScript 面试题 #7');
    expect(md).toContain(`\`\`\`js\n${q.code}\n\`\`\``);
    expect(md).toContain(`**答案：${q.answer}**`);
  });
});
