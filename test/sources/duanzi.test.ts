import { describe, expect, it } from 'vitest';
import { CORPUS } from '../../sources/duanzi.ts';
import { describeBundledCorpus, describeIdContract, getJson, useService } from './_corpus.ts';

describeBundledCorpus('duanzi', CORPUS, 30, (s: string) => s);

describe('duanzi', () => {
  const { svc } = useService();
  describeIdContract({ path: '/v2/apis/duanzi', what: 'joke', total: () => CORPUS.length, svc });

  it('answers {id, total, content}; text is the joke, markdown a titled page', async () => {
    const { body } = await getJson(svc(), '/v2/apis/duanzi?id=4');
    expect(body.data).toEqual({ id: 4, index: 4, total: CORPUS.length, content: CORPUS[4], duanzi: CORPUS[4], source: 'bundled' });
    expect(await (await svc().get('/v2/apis/duanzi?id=4&encoding=text')).text()).toBe(CORPUS[4]);
    const md = await (await svc().get('/v2/apis/duanzi?id=4&encoding=markdown')).text();
    expect(md).toMatch(/^# 😄 段子\n/);
    expect(md).toContain(`第 4 条，共 ${CORPUS.length} 条`);
  });
});
