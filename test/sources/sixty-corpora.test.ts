/**
 * The corpus endpoints whose items are 60s's own dataset (answer, duanzi, dad-joke, fabing,
 * awesome-js): each fetches its file of 60s's repository through jsDelivr (fixtures in that
 * layout under test/fixtures/upstream/cdn.jsdelivr.net/gh/vikiboss/60s@main, see the README there)
 * and answers from it once fetched, with 60s's ids; the bundled corpus only until then.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import answer from '../../sources/answer.ts';
import awesomeJs from '../../sources/awesome-js.ts';
import dadJoke from '../../sources/dad-joke.ts';
import duanzi from '../../sources/duanzi.ts';
import fabing from '../../sources/fabing.ts';
import { parseCorpus, sixtyCorpusUrl, stringItem } from '../../sources/_shared/corpus.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import type { AnySource } from '../../src/kernel/source.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';
import { getJson } from './_corpus.ts';

const HOST = 'cdn.jsdelivr.net';
const pathOf = (name: string) => new URL(sixtyCorpusUrl(name)).pathname;
const fixture = <T>(name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, HOST, pathOf(name)), 'utf8')) as T[];

describe("60s's corpus files", () => {
  it('are read from the repository file its module imports, through jsDelivr', () => {
    expect(sixtyCorpusUrl('awesome-js')).toBe('https://cdn.jsdelivr.net/gh/vikiboss/60s@main/src/modules/awesome-js/awesome-js.json');
  });

  it('parse keeps the entries the endpoint can use, in order, and names what it missed', () => {
    expect(parseCorpus(['a', '', 3, ' b '], stringItem)).toEqual({ items: ['a', 'b'] });
    expect(() => parseCorpus({ list: [] }, stringItem)).toThrow(SourceError);
    expect(() => parseCorpus({ list: [] }, stringItem)).toThrow('the answer is not a JSON array: it is an object with keys list');
  });

  it('a file with too few usable entries is rejected (the last good corpus stays)', () => {
    const feed = (duanzi as AnySource & { feed: { validate(d: { items: string[] }): string | undefined } }).feed;
    expect(feed.validate({ items: ['一', '二'] })).toMatch(/only 2 usable entries in 60s's duanzi\.json/);
    expect(feed.validate({ items: fixture<string>('duanzi') })).toBeUndefined();
  });
});

describe('corpus endpoints answer from 60s’s dataset once fetched', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, sources: [answer, duanzi, dadJoke, fabing, awesomeJs] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  /** The answer at `query` once the fetch started by the first request has landed. */
  async function fetched<T extends { source: string }>(route: string, query: string): Promise<T> {
    await getJson(svc, route);
    let data: T | undefined;
    for (let i = 0; i < 100 && data?.source !== '60s'; i++) {
      await new Promise((r) => setTimeout(r, 30));
      data = (await getJson<T>(svc, `${route}${query}`)).body.data;
    }
    expect(data?.source).toBe('60s');
    return data as T;
  }

  it('answer: 60s’s entries by their 0-based index, with 60s’s id text; a blank entry is skipped', async () => {
    const file = fixture<{ id: string; answer: string; answer_en: string }>('answer');
    const d = await fetched<{ source: string; id: string; index: number; total: number; answer: string; answer_en: string; updated_at: number }>('/v2/apis/answer', '?id=2');
    expect(d).toMatchObject({ id: '3', index: 2, total: file.length - 1, answer: file[2]!.answer, answer_en: file[2]!.answer_en });
    expect(String(d.updated_at)).toMatch(/^\d{13}$/);
    expect(await (await svc.get('/v2/apis/answer?id=2&encoding=text')).text()).toBe(file[2]!.answer);
    expect(upstream.hits(HOST, pathOf('answer'))).toHaveLength(1);
  });

  it('duanzi and dad-joke: the strings of 60s’s files, by index', async () => {
    for (const name of ['duanzi', 'dad-joke']) {
      const file = fixture<string>(name);
      const d = await fetched<{ source: string; content: string; total: number; index: number }>(`/v2/apis/${name}`, '?id=5');
      expect(d).toMatchObject({ index: 5, total: file.length, content: file[5] });
    }
    const past = await getJson(svc, `/v2/apis/duanzi?id=${fixture('duanzi').length}`);
    expect(past.status).toBe(404);
    expect(past.body.message).toContain(`0 to ${fixture('duanzi').length - 1}`);
  });

  it('fabing: 60s’s [name] marks where the name goes', async () => {
    const file = fixture<string>('fabing');
    const d = await fetched<{ source: string; content: string; saying: string }>('/v2/apis/fabing', '?id=0&name=小明');
    expect(d.content).toBe(file[0]!.split('[name]').join('小明'));
    expect(d.content).not.toContain('[name]');
    expect(d.saying).toBe(d.content);
  });

  it('awesome-js: ids count from 1 as 60s’s do; options keep 60s’s "A: …" form', async () => {
    const file = fixture<{ id: number; question: string; code?: string; options: string[]; answer: string; explanation: string }>('awesome-js');
    const d = await fetched<{ source: string; id: number; index: number; total: number; question: string; code: string; options: string[]; answer: string; answer_text: string }>('/v2/apis/awesome-js', '?id=1');
    expect(d).toMatchObject({ id: 1, index: 0, total: file.length, question: file[0]!.question, code: file[0]!.code, options: file[0]!.options, answer: 'B', answer_text: '`1`' });
    const noCode = (await getJson<{ id: number; code: string; question: string }>(svc, '/v2/apis/awesome-js?id=4')).body.data;
    expect(noCode).toMatchObject({ id: 4, code: '', question: file[3]!.question });
    expect((await getJson(svc, '/v2/apis/awesome-js?id=0')).status).toBe(400);
    expect((await getJson(svc, `/v2/apis/awesome-js?id=${file.length + 1}`)).status).toBe(404);
    expect(upstream.unmatched).toEqual([]);
  });
});
