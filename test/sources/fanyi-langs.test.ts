import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fanyiLangs, { type ListedLanguage } from '../../sources/fanyi-langs.ts';
import fanyi, { LANGUAGES } from '../../sources/fanyi.ts';
import { getEncodings, readData } from '../support/envelope-assertions.ts';
import { startService, type TestService } from '../support/service.ts';

describe('fanyi-langs data', () => {
  it('has 109 languages with unique codes, Chinese and English names', () => {
    expect(LANGUAGES).toHaveLength(109);
    expect(new Set(LANGUAGES.map((l) => l.code)).size).toBe(109);
    expect(new Set(LANGUAGES.map((l) => l.label)).size).toBe(109);
    for (const l of LANGUAGES) {
      expect(l.code).toMatch(/^[a-z]{2,3}(-[A-Za-z]{3,4})?$/);
      expect(l.label).toMatch(/\p{Script=Han}/u);
      expect(l.name).toMatch(/^[A-Z][A-Za-z ()]+$/);
    }
    expect(LANGUAGES.slice(0, 2).map((l) => l.code)).toEqual(['zh-CHS', 'zh-CHT']);
  });
});

describe('fanyi-langs through the server', () => {
  let svc: TestService;
  beforeAll(async () => {
    // No model gateway configured: the list is local and needs none.
    svc = await startService({ sources: [fanyi, fanyiLangs] });
  });
  afterAll(async () => {
    await svc.close();
  });

  it('lists the languages in json, text, markdown and html', async () => {
    // 60s's container: a bare array, each language with the pinyin initial of its Chinese name.
    const d = await readData<ListedLanguage[]>(await svc.get('/v2/apis/fanyi/langs'));
    expect(d).toHaveLength(109);
    expect(d[0]).toEqual({ code: 'zh-CHS', label: '中文（简体）', name: 'Chinese (Simplified)', alphabet: 'Z' });
    expect(d.find((l) => l.code === 'sr-Latn')).toEqual({ code: 'sr-Latn', label: '塞尔维亚语（拉丁文）', name: 'Serbian (Latin)', alphabet: 'S' });
    expect(Object.fromEntries(['ar', 'ru', 'ja', 'lb', 'lo', 'ny'].map((c) => [c, d.find((l) => l.code === c)?.alphabet]))).toEqual({ ar: 'A', ru: 'E', ja: 'R', lb: 'L', lo: 'L', ny: 'Q' });
    expect(d.every((l) => /^[A-Z]$/.test(l.alphabet))).toBe(true);
    const out = await getEncodings(svc, '/v2/apis/fanyi/langs');
    expect(out.text.split('\n')).toContain('ja\t日语\tJapanese');
    expect(out.text.trim().split('\n')).toHaveLength(109);
    expect(out.markdown).toContain('# 翻译支持的语言（109）');
    expect(out.markdown).toContain('| ko | 韩语 | Korean |');
    expect(out.html).toContain('<tr><td>fr</td><td>法语</td><td>French</td></tr>');
  });

  it('every listed code is accepted by /v2/apis/fanyi, and nothing else is', async () => {
    const cat = (await (await svc.get('/v2/apis')).json()) as { data: { endpoints: { path: string; params: { name: string; accepted: string }[] }[] } };
    const params = cat.data.endpoints.find((e) => e.path === '/v2/apis/fanyi')?.params ?? [];
    expect(params.find((p) => p.name === 'to')?.accepted).toMatch(/fanyi\/langs/);
    const spec = fanyi.params?.to;
    const pattern = spec && spec.type === 'string' ? spec.pattern : undefined;
    for (const l of LANGUAGES) expect(pattern?.test(l.code), l.code).toBe(true);
    expect(pattern?.test('auto')).toBe(true);
    expect(pattern?.test('xx')).toBe(false);
    expect(pattern?.test('en|ja')).toBe(false);
  });
});
