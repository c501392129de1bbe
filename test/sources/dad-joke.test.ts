import { describe, expect, it } from 'vitest';
import { CORPUS } from '../../sources/dad-joke.ts';
import { describeBundledCorpus, describeIdContract, getJson, useService } from './_corpus.ts';

describeBundledCorpus('dad-joke', CORPUS, 30, (s: string) => s);

describe('dad-joke', () => {
  const { svc } = useService();
  describeIdContract({ path: '/v2/apis/dad-joke', what: 'dad joke', total: () => CORPUS.length, svc });

  it('answers {id, total, content}; text is the joke alone', async () => {
    const { body } = await getJson(svc(), '/v2/apis/dad-joke?id=0');
    expect(body.data).toEqual({ id: 0, index: 0, total: CORPUS.length, content: CORPUS[0], source: 'bundled' });
    expect(await (await svc().get('/v2/apis/dad-joke?id=0&encoding=text')).text()).toBe(CORPUS[0]);
    expect(await (await svc().get('/v2/apis/dad-joke?id=0&encoding=markdown')).text()).toMatch(/^# 🥶 冷笑话\n/);
  });
});
