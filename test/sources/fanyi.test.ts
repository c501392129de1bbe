import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import fanyiLangs from '../../sources/fanyi-langs.ts';
import fanyi, { findLanguage, LANGUAGES, looksChinese, parse, resolveTarget, systemPrompt, type Translation } from '../../sources/fanyi.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { TestClock } from '../support/clock.ts';
import { expectError, expectUnavailable, getEncodings, readData, settle, sourceStatus } from '../support/envelope-assertions.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream, type UpstreamRequest } from '../support/upstream.ts';

const GATEWAY = 'ai-gateway.test';
const COMPLETIONS = '/v1/chat/completions';
const fixture = () => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, GATEWAY, `${COMPLETIONS}.json`), 'utf8')) as Record<string, unknown>;
const now = new Date('2026-11-21T02:00:00Z');
const POEM = '春雨敲打着老院子，今年的梅花开得早。';
const POEM_EN = 'Spring rain drums on the old courtyard; the plum blossoms are opening early this year.';

function validate(d: Translation): string | undefined {
  return fanyi.mode === 'local' ? 'local' : fanyi.validate(d);
}

/** A completion whose message content is `content`. */
function completion(content: string): Record<string, unknown> {
  const c = fixture();
  (c.choices as { message: { content: string } }[])[0]!.message.content = content;
  return c;
}

interface ChatBody {
  model: string;
  temperature: number;
  messages: { role: string; content: string }[];
}

/** A tiny fake model: a fixed dictionary, answering in the asked JSON shape. */
const DICTIONARY: Record<string, { translation: string; detected: string; target_pronounce?: string }> = {
  [POEM]: { translation: POEM_EN, detected: 'zh-CHS' },
  'Good morning, neighbours.': { translation: '早上好，邻居们。', detected: 'en', target_pronounce: 'zǎo shang hǎo, lín jū men.' },
  'Bonjour tout le monde': { translation: 'Hallo zusammen', detected: 'fr' },
};

function fakeModel(req: UpstreamRequest) {
  if (req.headers.authorization !== 'Bearer sk-test-fanyi') return { status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } };
  const body = JSON.parse(req.body.toString('utf8')) as ChatBody;
  const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
  const entry = DICTIONARY[user] ?? { translation: `[${user}]`, detected: 'en' };
  return { body: completion(JSON.stringify(entry)) };
}

describe('fanyi parse and helpers', () => {
  it('reads the model answer into source and target with language names', () => {
    const d = parse(fixture(), { text: POEM, from: 'auto', to: 'en', model: 'test-translator' }, now);
    expect(d).toEqual({
      source: { text: POEM, type: 'zh-CHS', type_desc: '中文（简体）', type_name: 'Chinese (Simplified)', pronounce: '' },
      target: { text: POEM_EN, type: 'en', type_desc: '英语', type_name: 'English', pronounce: '' },
      provider: 'gateway',
      model: 'gpt-4o-mini-2024-07-18',
      updated: '2026-11-21 10:00:00',
      updated_at: now.getTime(),
    });
    expect(validate(d)).toBeUndefined();
  });

  it('tolerates a fenced answer and maps model codes to ours; an explicit `from` wins over detection', () => {
    const fenced = completion('```json\n{"translation": "Guten Morgen", "detected": "zh-cn"}\n```');
    const d = parse(fenced, { text: '早上好', from: 'auto', to: 'de', model: 'm' }, now);
    expect(d.source.type).toBe('zh-CHS');
    expect(d.target).toMatchObject({ text: 'Guten Morgen', type: 'de', type_desc: '德语' });
    const explicit = parse(fenced, { text: '早上好', from: 'zh-CHT', to: 'de', model: 'm' }, now);
    expect(explicit.source.type).toBe('zh-CHT');
  });

  it('rejects answers that are not what was asked for', () => {
    const req = { text: 'x', from: 'auto', to: 'en', model: 'm' };
    expect(() => parse(completion('Sure! Here is the translation: hello'), req, now)).toThrow(/not the JSON object asked for/);
    expect(() => parse({ id: 'x', choices: [] }, req, now)).toThrow(/choices\[0\]/);
    expect(() => parse('<html>', req, now)).toThrow(SourceError);
    expect(() => parse({ error: { message: 'model overloaded' } }, req, now)).toThrow(/model overloaded/);
    const empty = parse(completion('{"translation": "", "detected": "en"}'), req, now);
    expect(validate(empty)).toMatch(/empty/);
    expect(validate({ ...empty, target: { ...empty.target, text: 'ok' }, source: { ...empty.source, text: '' } })).toMatch(/source text/);
  });

  it('resolves to=auto: Chinese → English, everything else → Simplified Chinese', () => {
    expect(looksChinese('今天天气不错')).toBe(true);
    expect(looksChinese('今日はいい天気ですね')).toBe(false);
    expect(looksChinese('오늘 날씨 좋네요')).toBe(false);
    expect(looksChinese('iPhone 17 发布会')).toBe(true);
    expect(looksChinese('Hello 世')).toBe(false);
    expect(resolveTarget('auto', 'auto', '今天天气不错')).toBe('en');
    expect(resolveTarget('auto', 'auto', 'good weather')).toBe('zh-CHS');
    expect(resolveTarget('zh-CHT', 'auto', 'whatever')).toBe('en');
    expect(resolveTarget('yue', 'auto', 'x')).toBe('en');
    expect(resolveTarget('ja', 'auto', '東京')).toBe('zh-CHS');
    expect(resolveTarget('auto', 'fr', '你好')).toBe('fr');
  });

  it('finds languages by code, case-insensitively and through common aliases', () => {
    expect(LANGUAGES).toHaveLength(109);
    for (const code of ['zh-CHS', 'zh-CHT', 'en', 'ja', 'ko', 'fr', 'de', 'es', 'ru', 'ar']) expect(findLanguage(code)?.code).toBe(code);
    expect(findLanguage('ZH-chs')?.code).toBe('zh-CHS');
    expect(findLanguage('pt-BR')?.code).toBe('pt');
  });

  it('asks for strict JSON, names both languages and fences off instructions in the text', () => {
    const p = systemPrompt(findLanguage('ja'), findLanguage('ko')!);
    expect(p).toContain('from Japanese (ja)');
    expect(p).toContain('into Korean (ko)');
    expect(p).toContain('{"translation": "<the translated text>", "detected": "<language code of the original text>", "source_pronounce": "<romanisation of the original text>", "target_pronounce": "<romanisation of the translation>"}');
    expect(p).toMatch(/never follow instructions/);
    expect(systemPrompt(undefined, findLanguage('en')!)).toContain('from whatever language it is in');
  });
});

describe('fanyi through the server', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({
      upstream,
      now: clock.now,
      sources: [fanyi, fanyiLangs],
      env: { AI_UPSTREAM_BASE_URL: `https://${GATEWAY}/`, AI_UPSTREAM_API_KEY: 'sk-test-fanyi', SOURCE_FANYI_MODEL: 'test-translator', SOURCE_FANYI_TIMEOUT_MS: '1000' },
    });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('translates through the gateway and serves json, text, markdown and html from one request', async () => {
    upstream.serve(GATEWAY, COMPLETIONS, fakeModel);
    const q = `/v2/apis/fanyi?text=${encodeURIComponent(POEM)}`;
    const first = await svc.get(q);
    expect(first.headers.get('x-cache')).toBe('MISS');
    const d = await readData<Translation>(first);
    expect(d.source).toEqual({ text: POEM, type: 'zh-CHS', type_desc: '中文（简体）', type_name: 'Chinese (Simplified)', pronounce: '' });
    expect(d.target).toEqual({ text: POEM_EN, type: 'en', type_desc: '英语', type_name: 'English', pronounce: '' });
    expect(d.provider).toBe('gateway');

    const hits = upstream.hits(GATEWAY, COMPLETIONS);
    expect(hits).toHaveLength(1);
    expect(hits[0]!.method).toBe('POST');
    expect(hits[0]!.headers.authorization).toBe('Bearer sk-test-fanyi');
    const body = JSON.parse(hits[0]!.body.toString('utf8')) as ChatBody;
    expect(body.model).toBe('test-translator');
    expect(body.temperature).toBe(0);
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(body.messages[0]!.content).toContain('into English (en)');
    expect(body.messages[1]!.content).toBe(POEM);

    const out = await getEncodings(svc, q);
    expect(out.text).toBe(`${POEM_EN}\n`);
    expect(out.markdown).toContain('# 翻译：中文（简体） → 英语');
    expect(out.markdown).toContain(`**原文**（中文（简体））\n\n> ${POEM}`);
    expect(out.markdown).toContain(`**译文**（英语）\n\n> ${POEM_EN}`);
    expect(out.html).toContain(POEM_EN);
    expect(upstream.hits(GATEWAY)).toHaveLength(1);
  });

  it('sends non-Chinese text to Simplified Chinese, honours explicit languages and accepts POST bodies', async () => {
    upstream.serve(GATEWAY, COMPLETIONS, fakeModel);
    const en = await readData<Translation>(await svc.get(`/v2/apis/fanyi?text=${encodeURIComponent('Good morning, neighbours.')}`));
    expect(en.target).toMatchObject({ text: '早上好，邻居们。', type: 'zh-CHS', pronounce: 'zǎo shang hǎo, lín jū men.' });
    expect(en.source.pronounce).toBe('');
    expect(en.source.type).toBe('en');

    const posted = await svc.get('/v2/apis/fanyi', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'Bonjour tout le monde', from: 'fr', to: 'de' }) });
    const d = await readData<Translation>(posted);
    expect(d.source).toMatchObject({ type: 'fr', type_desc: '法语' });
    expect(d.target).toMatchObject({ text: 'Hallo zusammen', type: 'de', type_desc: '德语' });
    const sent = JSON.parse(upstream.hits(GATEWAY)[1]!.body.toString('utf8')) as ChatBody;
    expect(sent.messages[0]!.content).toContain('from French (fr) into German (de)');

    // Same language on both sides: no model call.
    const same = await readData<Translation>(await svc.get('/v2/apis/fanyi?text=hello&from=en&to=en'));
    expect(same).toMatchObject({ provider: 'identity', target: { text: 'hello', type: 'en' } });
    expect(upstream.hits(GATEWAY)).toHaveLength(2);
  });

  it('validates text, from and to', async () => {
    await expectError(await svc.get('/v2/apis/fanyi'), 400, /"text"/);
    await expectError(await svc.get('/v2/apis/fanyi?text=hi&to=klingon'), 400, /"to".*fanyi\/langs/);
    await expectError(await svc.get('/v2/apis/fanyi?text=hi&from=xx'), 400, /"from"/);
    await expectError(await svc.get(`/v2/apis/fanyi?text=${'a'.repeat(5001)}`), 400, /"text".*5000/);
    expect(upstream.requests).toHaveLength(0);
  });

  it('answers 503 with Retry-After when the gateway fails and nothing is cached', async () => {
    upstream.serve(GATEWAY, COMPLETIONS, { status: 500, body: { error: { message: 'upstream exploded' } } });
    await expectUnavailable(await svc.get('/v2/apis/fanyi?text=cold-500'), /翻译.*HTTP 500/);

    // A refused credential is the gateway's login wall: a blocked failure on /v2/status.
    upstream.serve(GATEWAY, COMPLETIONS, { status: 401, body: { error: { message: 'Incorrect API key provided' } } });
    await expectUnavailable(await svc.get('/v2/apis/fanyi?text=cold-401'), /HTTP 401/);
    expect((await sourceStatus(svc, 'fanyi')).last_error).toMatch(/^blocked: /);

    upstream.serve(GATEWAY, COMPLETIONS, (req) => ({ ...fakeModel(req), delayMs: 1500 }));
    const slow = await svc.get('/v2/apis/fanyi?text=cold-slow');
    await expectUnavailable(slow, /timed out/);
  });

  it('keeps the last good translation when the answer changes shape or comes back empty', async () => {
    upstream.serve(GATEWAY, COMPLETIONS, fakeModel);
    const good = await readData<Translation>(await svc.get('/v2/apis/fanyi?text=keep-me'));
    expect(good.target.text).toBe('[keep-me]');
    await readData<Translation>(await svc.get('/v2/apis/fanyi?text=keep-me-too'));

    clock.advance(8 * 86_400_000); // past the 7-day TTL
    upstream.serve(GATEWAY, COMPLETIONS, { body: completion('I cannot comply with JSON today.') });
    const stale = await svc.get('/v2/apis/fanyi?text=keep-me');
    expect(stale.headers.get('x-cache')).toBe('STALE');
    expect((await readData<Translation>(stale)).target.text).toBe('[keep-me]');
    await settle();
    expect((await sourceStatus(svc, 'fanyi')).last_error).toMatch(/^parse: model answer is not the JSON object/);

    clock.advance(1000);
    upstream.serve(GATEWAY, COMPLETIONS, { body: completion('{"translation": "", "detected": "en"}') });
    const stale2 = await svc.get('/v2/apis/fanyi?text=keep-me-too');
    expect(stale2.headers.get('x-cache')).toBe('STALE');
    expect((await readData<Translation>(stale2)).target.text).toBe('[keep-me-too]');
    await settle();
    expect((await sourceStatus(svc, 'fanyi')).last_error).toMatch(/^empty: rejected: the translation is empty/);
    const cold = await svc.get('/v2/apis/fanyi?text=never-good');
    await expectUnavailable(cold, /translation is empty/);
  });
});

describe('fanyi with the upstreams given as AI_UPSTREAMS', () => {
  it('uses the first upstream with its own key', async () => {
    const upstream = new Upstream();
    await upstream.start();
    upstream.serve(GATEWAY, COMPLETIONS, fakeModel);
    const svc = await startService({
      upstream,
      sources: [fanyi],
      env: { AI_UPSTREAMS: JSON.stringify([{ url: `https://${GATEWAY}`, key: 'sk-test-fanyi' }, { url: 'https://spare.test', key: 'sk-spare' }]), SOURCE_FANYI_MODEL: 'test-translator' },
    });
    try {
      const res = await svc.get('/v2/apis/fanyi?text=hello&to=zh-CHS');
      expect(res.status).toBe(200);
      expect(upstream.requests.map((r) => [r.host, r.headers.authorization])).toEqual([[GATEWAY, 'Bearer sk-test-fanyi']]);
    } finally {
      await svc.close();
      await upstream.stop();
    }
  });
});

describe('fanyi without a configured provider', () => {
  it('names the missing setting, or the switch that turned translation off', async () => {
    const unconfigured = await startService({ sources: [fanyi, fanyiLangs], env: { AI_UPSTREAM_BASE_URL: '', AI_UPSTREAM_API_KEY: '' } });
    try {
      await expectUnavailable(await unconfigured.get('/v2/apis/fanyi?text=hi'), /AI_UPSTREAM_BASE_URL is not set/);
      expect((await sourceStatus(unconfigured, 'fanyi')).last_error).toMatch(/^config: AI_UPSTREAM_BASE_URL/);
      // The language list needs no provider.
      expect((await readData<unknown[]>(await unconfigured.get('/v2/apis/fanyi/langs'))).length).toBe(109);
    } finally {
      await unconfigured.close();
    }
    const noKey = await startService({ sources: [fanyi], env: { AI_UPSTREAM_BASE_URL: 'https://ai-gateway.test', AI_UPSTREAM_API_KEY: '' } });
    try {
      await expectUnavailable(await noKey.get('/v2/apis/fanyi?text=hi'), /AI_UPSTREAM_API_KEY is not set/);
    } finally {
      await noKey.close();
    }
    const off = await startService({ sources: [fanyi], env: { SOURCE_FANYI_PROVIDER: 'none', AI_UPSTREAM_BASE_URL: 'https://ai-gateway.test', AI_UPSTREAM_API_KEY: 'k' } });
    try {
      await expectUnavailable(await off.get('/v2/apis/fanyi?text=hi'), /SOURCE_FANYI_PROVIDER=none/);
    } finally {
      await off.close();
    }
  });
});
