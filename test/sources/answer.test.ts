import { describe, expect, it } from 'vitest';
import { CORPUS } from '../../sources/answer.ts';
import { describeBundledCorpus, describeIdContract, getJson, useService } from './_corpus.ts';

describeBundledCorpus('answer', CORPUS, 30, (a: { answer: string }) => a.answer);

describe('answer', () => {
  const { svc } = useService();
  describeIdContract({ path: '/v2/apis/answer', what: 'answer', total: () => CORPUS.length, svc });

  it('every answer has an English version', () => {
    for (const a of CORPUS) expect(a.answer_en).toMatch(/^[A-Z][\w ,'.-]*[.!?]$/);
  });

  it('answers {id, total, answer, answer_en}; text is the answer alone, as in 60s', async () => {
    const { body } = await getJson(svc(), '/v2/apis/answer?id=2');
    expect(body.data).toEqual({ id: '3', index: 2, total: CORPUS.length, ...CORPUS[2], source: 'bundled' });
    expect(await (await svc().get('/v2/apis/answer?id=2&encoding=text')).text()).toBe(CORPUS[2]!.answer);
    expect(await (await svc().get('/v2/apis/answer?id=2&encoding=markdown')).text()).toContain(`## ${CORPUS[2]!.answer}`);
  });
});
