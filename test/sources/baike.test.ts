import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import baike, { parse, type BaikeEntry } from '../../sources/baike.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { TestClock } from '../support/clock.ts';
import { expectError, expectUnavailable, getEncodings, readData, settle, sourceStatus } from '../support/envelope-assertions.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const HOST = 'baike.baidu.com';
const PATH = '/api/openapi/BaikeLemmaCardApi';
const fixture = () => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, HOST, `${PATH}.json`), 'utf8')) as Record<string, unknown>;
const now = new Date('2026-11-21T02:00:00Z');

function validate(d: BaikeEntry): string | undefined {
  return baike.mode === 'local' ? 'local' : baike.validate(d);
}

describe('baike parse', () => {
  it('reads title, qualifier, abstract, cover, info box and an https link', () => {
    const d = parse(fixture(), '长城', now);
    expect(d.title).toBe('长城');
    expect(d.description).toBe('中国古代的军事防御工程');
    expect(d.abstract).toMatch(/^长城是中国古代为抵御北方游牧势力/);
    expect(d.cover).toBe('https://bkimg.cdn.bcebos.com/pic/5d6034a85edf8db1cb13a8c60123d154ad345982');
    expect(d.link).toBe('https://baike.baidu.com/subview/14251/3462716.htm');
    expect(d.has_other).toBe(true);
    expect(d.lemma_id).toBe(3462716);
    expect(d.basic_info).toEqual([
      { name: '中文名', value: '长城' },
      { name: '外文名', value: 'The Great Wall' },
      { name: '地理位置', value: '中国北方' },
      { name: '总长度', value: '21196.18千米' },
      { name: '遗产级别', value: '世界文化遗产、全国重点文物保护单位' },
    ]);
    expect(d.updated_at).toBe(now.getTime());
    expect(validate(d)).toBeUndefined();
  });

  it('falls back to an item link, and tells "no entry" from a changed shape', () => {
    const raw = fixture();
    delete raw.url;
    delete raw.image;
    raw.hasOther = 0;
    const d = parse(raw, '长城', now);
    expect(d.link).toBe('https://baike.baidu.com/item/%E9%95%BF%E5%9F%8E');
    expect(d.cover).toBe('');
    expect(d.has_other).toBe(false);

    for (const none of [{ errno: 2, errmsg: 'lemma not found' }, {}, []]) {
      expect(() => parse(none, '不存在的词条', now)).toThrow(expect.objectContaining({ kind: 'not_found' }));
    }
    expect(() => parse({ data: { lemma: { title: '长城' } } }, '长城', now)).toThrow(expect.objectContaining({ kind: 'parse' }));
    expect(() => parse('<html>', '长城', now)).toThrow(SourceError);
  });

  it('rejects an entry without abstract or qualifier', () => {
    const d = parse({ ...fixture(), abstract: '', desc: '' }, '长城', now);
    expect(validate(d)).toMatch(/neither an abstract nor a description/);
  });
});

describe('baike through the server', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, sources: [baike], env: { HTTP_TIMEOUT_MS: '800' } });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('serves an entry in json, text, markdown and html from one upstream request', async () => {
    const q = `/v2/apis/baike?word=${encodeURIComponent('长城')}`;
    const d = await readData<BaikeEntry>(await svc.get(q));
    expect(d).toMatchObject({ title: '长城', has_other: true, link: 'https://baike.baidu.com/subview/14251/3462716.htm' });
    const hit = upstream.hits(HOST, PATH)[0]!;
    expect(hit.query.get('bk_key')).toBe('长城');
    expect(hit.query.get('appid')).toBe('379020');

    const out = await getEncodings(svc, q);
    expect(out.text).toBe(`长城（中国古代的军事防御工程）：${d.abstract}\n详情：https://baike.baidu.com/subview/14251/3462716.htm\n`);
    expect(out.markdown).toContain('# 长城\n\n> 中国古代的军事防御工程');
    expect(out.markdown).toContain('| 外文名 | The Great Wall |');
    expect(out.markdown).toContain('![长城](https://bkimg.cdn.bcebos.com/pic/');
    expect(out.markdown).toContain('还有其他义项');
    expect(out.html).toContain('<th>遗产级别</th><td>世界文化遗产、全国重点文物保护单位</td>');
    expect(out.html).toContain('href="https://baike.baidu.com/subview/14251/3462716.htm"');
    expect(upstream.hits(HOST)).toHaveLength(1);
  });

  it('answers 404 for a word without an entry and 400 without a word', async () => {
    upstream.serve(HOST, PATH, { body: { errno: 2, errmsg: 'lemma not found' } });
    await expectError(await svc.get(`/v2/apis/baike?word=${encodeURIComponent('没有这个词条')}`), 404, /no entry for "没有这个词条"/);
    await expectError(await svc.get('/v2/apis/baike'), 400, /"word"/);
    await expectError(await svc.get(`/v2/apis/baike?word=${'字'.repeat(101)}`), 400, /"word"/);
    expect((await sourceStatus(svc, 'baike')).fail_count).toBe(0);
  });

  it('answers 503 with Retry-After for upstream errors, security pages and timeouts while nothing is cached', async () => {
    upstream.serve(HOST, PATH, { status: 502, body: 'bad gateway' });
    await expectUnavailable(await svc.get('/v2/apis/baike?word=cold-502'), /百度百科.*HTTP 502/);

    clock.advance(1000);
    upstream.serve(HOST, PATH, { headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<!DOCTYPE html><html><head><title>百度安全验证</title></head><body>请完成下方验证后继续操作</body></html>' });
    await expectUnavailable(await svc.get('/v2/apis/baike?word=cold-captcha'), /HTML page/);
    expect((await sourceStatus(svc, 'baike')).last_error).toMatch(/^blocked: /);

    upstream.serve(HOST, PATH, { body: fixture(), delayMs: 1500 });
    await expectUnavailable(await svc.get('/v2/apis/baike?word=cold-slow'), /timed out/);
  });

  it('keeps the last good entry, served as STALE, when the answer changes shape or is empty', async () => {
    await readData<BaikeEntry>(await svc.get('/v2/apis/baike?word=keep-a'));
    await readData<BaikeEntry>(await svc.get('/v2/apis/baike?word=keep-b'));
    clock.advance(86_400_000 + 1000);

    upstream.serve(HOST, PATH, { body: { data: { lemmaTitle: '长城', lemmaDesc: '改版后的结构' } } });
    const a = await svc.get('/v2/apis/baike?word=keep-a');
    expect(a.headers.get('x-cache')).toBe('STALE');
    expect((await readData<BaikeEntry>(a)).title).toBe('长城');
    await settle();
    expect((await sourceStatus(svc, 'baike')).last_error).toMatch(/^parse: answer has neither a title nor an errno/);

    clock.advance(1000);
    upstream.serve(HOST, PATH, { body: { ...fixture(), abstract: '', desc: '' } });
    const b = await svc.get('/v2/apis/baike?word=keep-b');
    expect(b.headers.get('x-cache')).toBe('STALE');
    expect((await readData<BaikeEntry>(b)).abstract).toMatch(/^长城是/);
    await settle();
    expect((await sourceStatus(svc, 'baike')).last_error).toMatch(/^empty: rejected: the entry has neither/);
  });
});
