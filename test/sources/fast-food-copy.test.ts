import { beforeAll, describe, expect, it } from 'vitest';
import fastFoodCopy, { CORPUS, parseList } from '../../sources/fast-food-copy.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { serviceForSuite } from '../support/suite-service.ts';
import { describeBundledCorpus, describeIdContract, getJson, useService } from './_corpus.ts';

const HOST = 'cdn.jsdelivr.net';
const PATH = '/gh/vikiboss/v50@main/static/v50.json';

describeBundledCorpus('fast-food-copy', CORPUS, 30, (s: string) => s);

describe('fast-food-copy parse', () => {
  it('keeps non-blank strings, drops duplicates, blanks and non-strings', () => {
    expect(parseList(['a', ' a ', '', '  ', 42, null, 'b'])).toEqual({ items: ['a', 'b'] });
    expect(() => parseList({ list: [] })).toThrow(SourceError);
  });
});

describe('fast-food-copy with the bundled corpus (no fetch yet)', () => {
  const { svc, upstream } = useService();
  beforeAll(() => {
    upstream.serve(HOST, PATH, { status: 404, body: 'gone' });
  });
  describeIdContract({ path: '/v2/apis/fast-food-copy', what: 'copy', total: () => CORPUS.length, svc });

  it('answers {id, total, content, source: "bundled"}; text is the copy', async () => {
    const { body } = await getJson(svc(), '/v2/apis/fast-food-copy?id=1');
    expect(body.data).toEqual({ id: 1, index: 1, total: CORPUS.length, content: CORPUS[1], kfc: CORPUS[1], source: 'bundled' });
    expect(await (await svc().get('/v2/apis/fast-food-copy?id=1&encoding=text')).text()).toBe(CORPUS[1]);
    expect(await (await svc().get('/v2/apis/fast-food-copy?id=1&encoding=markdown')).text()).toMatch(/^# 🍗 疯狂星期四文案\n/);
  });
});

describe('fast-food-copy with the fetched v50 list', () => {
  const { svc, upstream } = serviceForSuite();

  it('a request starts the fetch in the background; later requests answer from the list', async () => {
    const first = await getJson<{ source: string }>(svc(), '/v2/apis/fast-food-copy');
    expect(first.status).toBe(200);
    let data: { source: string; total: number; content: string; updated_at?: number } | undefined;
    for (let i = 0; i < 100 && data?.source !== 'v50'; i++) {
      await new Promise((r) => setTimeout(r, 30));
      data = (await getJson<typeof data & object>(svc(), '/v2/apis/fast-food-copy?id=0')).body.data;
    }
    // The fixture has 15 distinct copies plus a blank, a duplicate and a number.
    expect(data).toMatchObject({ source: 'v50', total: 15, content: '测试文案第1条：今天是疯狂星期四，谁请我吃炸鸡，我就给谁讲第2个笑话。' });
    expect(String(data?.updated_at)).toMatch(/^\d{13}$/);
    expect(upstream.hits(HOST, PATH)).toHaveLength(1);
    expect(upstream.unmatched).toEqual([]);
    const { status, body } = await getJson(svc(), '/v2/apis/fast-food-copy?id=15');
    expect(status).toBe(404);
    expect(body.message).toContain('0 to 14');
  });

  it('rejects a too short list and keeps the last good one', async () => {
    upstream.serve(HOST, PATH, { body: ['only', 'three', 'items'] });
    await expect(svc().engine.run(svc().engine.feedSource(fastFoodCopy)!, {}, '')).rejects.toThrow(/only 3 copies/);
    const { body } = await getJson<{ source: string; total: number }>(svc(), '/v2/apis/fast-food-copy');
    expect(body.data).toMatchObject({ source: 'v50', total: 15 });
  });
});
