import { describe, expect, it } from 'vitest';
import { CORPUS, DEFAULT_NAME, MAX_NAME } from '../../sources/fabing.ts';
import { describeBundledCorpus, describeIdContract, getJson, useService } from './_corpus.ts';

describeBundledCorpus('fabing', CORPUS, 30, (s: string) => s);

describe('fabing', () => {
  const { svc } = useService();
  describeIdContract({ path: '/v2/apis/fabing', what: 'template', total: () => CORPUS.length, svc, extraParams: ['name'] });

  it('every template names its target', () => {
    for (const t of CORPUS) expect(t).toContain('{name}');
  });

  it(`fills in the name (${DEFAULT_NAME} by default) everywhere in the template`, async () => {
    const dflt = await getJson<{ name: string; content: string }>(svc(), '/v2/apis/fabing?id=1');
    const filled = CORPUS[1]!.split('{name}').join(DEFAULT_NAME);
    expect(dflt.body.data).toEqual({ id: 1, index: 1, total: CORPUS.length, name: DEFAULT_NAME, content: filled, saying: filled, source: 'bundled' });
    const named = await getJson<{ content: string }>(svc(), `/v2/apis/fabing?id=1&name=${encodeURIComponent('小明')}`);
    expect(named.body.data.content).toBe(CORPUS[1]!.split('{name}').join('小明'));
    expect(named.body.data.content).not.toContain('{name}');
    // A name with $ patterns is inserted literally.
    const odd = await getJson<{ content: string }>(svc(), `/v2/apis/fabing?id=1&name=${encodeURIComponent("$&$'")}`);
    expect(odd.body.data.content).toBe(CORPUS[1]!.split('{name}').join("$&$'"));
  });

  it('text is the message; markdown escapes the name', async () => {
    expect(await (await svc().get('/v2/apis/fabing?id=0&name=Bob&encoding=text')).text()).toBe(CORPUS[0]!.split('{name}').join('Bob'));
    const md = await (await svc().get(`/v2/apis/fabing?id=0&name=${encodeURIComponent('*x*')}&encoding=markdown`)).text();
    expect(md).toContain('献给：\\*x\\*');
  });

  it(`a name longer than ${MAX_NAME} characters is a 400 naming it`, async () => {
    const { status, body } = await getJson(svc(), `/v2/apis/fabing?name=${'a'.repeat(MAX_NAME + 1)}`);
    expect(status).toBe(400);
    expect(body.message).toContain('"name"');
  });
});
