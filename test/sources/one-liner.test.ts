import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import oneLiner, { CATEGORIES, CORPUS, categoriesFrom, parseBundle } from '../../sources/one-liner.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { hasRecordings, readRecordingJson, RECORDINGS_DIR } from '../support/recorded-upstream.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';
import { describeBundledCorpus, describeIdContract, getJson, useService } from './_corpus.ts';

const HOST = 'sentences-bundle.hitokoto.cn';
const fixture = (c: string) => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, HOST, 'sentences', `${c}.json`), 'utf8')) as unknown;
const feed = oneLiner.mode === 'local' ? oneLiner.feed! : undefined!;

interface OneLinerData {
  id: number;
  total: number;
  content: string;
  from: string;
  from_who: string;
  category: string;
  category_name: string;
  link?: string;
  source: string;
  updated_at?: number;
}

describeBundledCorpus('one-liner', CORPUS, 30, (i: { content: string }) => i.content);

describe('one-liner parse', () => {
  it('reads bundle records {id, uuid, hitokoto, type, from, from_who, ...}', () => {
    const items = parseBundle(fixture('a'), 'a');
    expect(items).toHaveLength(3);
    expect(items[0]).toEqual({ content: '梦想不会发光，发光的是追梦的你。', from: '星光小队', from_who: '晴子', category: 'a', uuid: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    // from_who null → ''
    expect(parseBundle(fixture('e'), 'e')[1]).toMatchObject({ from: '', from_who: '' });
  });

  it('skips records without a sentence and refuses a non-array', () => {
    expect(parseBundle([{ hitokoto: '' }, { id: 1 }, null, 'x', { hitokoto: ' ok ', type: 'zz' }], 'd')).toEqual([{ content: 'ok', from: '', from_who: '', category: 'd' }]);
    expect(() => parseBundle({ sentences: [] }, 'a')).toThrow(SourceError);
  });

  it('checks the categories setting', () => {
    expect(categoriesFrom(undefined)).toEqual(Object.keys(CATEGORIES));
    expect(categoriesFrom(' d, I ,d')).toEqual(['d', 'i']);
    expect(() => categoriesFrom('a,z')).toThrow(/SOURCE_ONE_LINER_CATEGORIES/);
    expect(() => categoriesFrom(' , ')).toThrow(SourceError);
  });

  it('rejects an implausibly small fetched corpus', () => {
    expect(feed.validate({ items: parseBundle(fixture('a'), 'a'), categories: ['a'] })).toMatch(/only 3 sentences/);
  });
});

describe('one-liner with the bundled corpus (no fetch yet)', () => {
  const { svc, upstream } = useService();
  beforeAll(() => {
    // The upstream is down: the feed fails, the bundled corpus answers.
    upstream.serve(HOST, /.*/, { status: 503, body: 'down' });
  });
  describeIdContract({ path: '/v2/apis/one-liner', what: 'sentence', total: () => CORPUS.length, svc });

  it('answers a bundled sentence with source "bundled"', async () => {
    const { body } = await getJson<OneLinerData>(svc(), '/v2/apis/one-liner?id=0');
    expect(body.data).toEqual({ id: 0, index: 0, total: CORPUS.length, content: CORPUS[0]!.content, hitokoto: CORPUS[0]!.content, from: '', from_who: '', category: 'e', category_name: '原创', source: 'bundled' });
    expect(await (await svc().get('/v2/apis/one-liner?id=0&encoding=text')).text()).toBe(CORPUS[0]!.content);
  });
});

describe('one-liner with the fetched bundle', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, env: { SOURCE_ONE_LINER_CATEGORIES: 'a,d,i,l' } });
    await svc.engine.run(svc.engine.feedSource(oneLiner)!, {}, '');
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('fetched only the configured categories, from the bundle host', () => {
    expect(upstream.hits(HOST).map((r) => r.path).sort()).toEqual(['/sentences/a.json', '/sentences/d.json', '/sentences/i.json', '/sentences/l.json']);
    expect(upstream.unmatched).toEqual([]);
  });

  it('answers from the fetched corpus, with a link and the fetch time', async () => {
    const { body } = await getJson<OneLinerData>(svc, '/v2/apis/one-liner?id=0');
    expect(body.data).toMatchObject({ id: 0, total: 12, content: '梦想不会发光，发光的是追梦的你。', from: '星光小队', from_who: '晴子', category: 'a', category_name: '动画', source: 'hitokoto' });
    expect(body.data.link).toMatch(/^https:\/\/hitokoto\.cn\/\?uuid=[0-9a-f-]{36}$/);
    expect(String(body.data.updated_at)).toMatch(/^\d{13}$/);
    expect(await (await svc.get('/v2/apis/one-liner?id=0&encoding=text')).text()).toBe('梦想不会发光，发光的是追梦的你。');
    const md = await (await svc.get('/v2/apis/one-liner?id=0&encoding=markdown')).text();
    expect(md).toContain('> 梦想不会发光，发光的是追梦的你。');
    expect(md).toContain('[出处](https://hitokoto.cn/?uuid=');
  });

  it('ids follow the fetched corpus: 404 past its end', async () => {
    const { status, body } = await getJson(svc, '/v2/apis/one-liner?id=12');
    expect(status).toBe(404);
    expect(body.message).toContain('0 to 11');
  });

  it('a failed refresh keeps the fetched corpus', async () => {
    upstream.serve(HOST, /.*/, { status: 500, body: 'oops' });
    await expect(svc.engine.run(svc.engine.feedSource(oneLiner)!, {}, '')).rejects.toThrow();
    const { body } = await getJson<OneLinerData>(svc, '/v2/apis/one-liner?id=11');
    expect(body.data.source).toBe('hitokoto');
  });
});

describe.skipIf(!hasRecordings('hitokoto'))('one-liner against the real sentence bundle recordings', () => {
  const files = () => fs.readdirSync(path.join(RECORDINGS_DIR, 'hitokoto')).filter((f) => /^sentences-[a-l]-/.test(f));
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    for (const f of files()) {
      const c = /^sentences-([a-l])-/.exec(f)![1]!;
      upstream.serve(HOST, `/sentences/${c}.json`, { body: readRecordingJson(`hitokoto/${f}`) as object });
    }
    const cats = files().map((f) => /^sentences-([a-l])-/.exec(f)![1]!);
    svc = await startService({ upstream, env: { SOURCE_ONE_LINER_CATEGORIES: cats.join(',') } });
  });
  afterAll(async () => {
    await svc?.close();
    await upstream.stop();
  });

  it('parses every record of each recorded category', () => {
    for (const f of files()) {
      const raw = readRecordingJson(`hitokoto/${f}`) as { hitokoto: string; type: string; from: string; from_who: string | null; uuid: string }[];
      const c = /^sentences-([a-l])-/.exec(f)![1]!;
      const items = parseBundle(raw, c);
      expect(items).toHaveLength(raw.length);
      items.forEach((it, i) => {
        const r = raw[i]!;
        expect(it).toEqual({ content: r.hitokoto.trim(), from: (r.from ?? '').trim(), from_who: (r.from_who ?? '').trim(), category: r.type, uuid: r.uuid });
      });
    }
  });

  it('serves the recorded sentences through the feed', async () => {
    await svc.engine.run(svc.engine.feedSource(oneLiner)!, {}, '');
    const total = files().reduce((n, f) => n + (readRecordingJson(`hitokoto/${f}`) as unknown[]).length, 0);
    const { body } = await getJson<OneLinerData>(svc, '/v2/apis/one-liner');
    expect(body.data.source).toBe('hitokoto');
    expect(body.data.total).toBe(total);
    expect(body.data.content.length).toBeGreaterThan(0);
  });
});
