/**
 * Issue 12, billing half: 429s a client should not sleep through (x-should-retry), media
 * counted by their own rules instead of as base64 text, keys without credit still able to see
 * why, credit reserved before forwarding and settled after (no overshoot, concurrency
 * included), the price table and its units, and per-key spend on /metrics. Through the
 * official openai and @google/genai clients against the local fake upstream.
 */
import { randomBytes } from 'node:crypto';
import { GoogleGenAI } from '@google/genai';
import OpenAI, { toFile } from 'openai';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.ts';
import { nextPeriodStart } from '../../src/gateway/credit.ts';
import { estimatePrompt, geminiImageTokens, imageSize, openAiImageTokens } from '../../src/gateway/estimate.ts';
import { loadPrices, NOTHING_CONSUMED } from '../../src/gateway/prices.ts';
import { bearer, CHAT, makeKey, postJson, startGateway, usageRows, type Harness } from './helpers.ts';

const LEVELS = JSON.stringify({ rpd1: { rpm: 0, rpd: 1, tpm: 0 }, rpm1: { rpm: 1, rpd: 0, tpm: 0 }, tpm100: { rpm: 0, rpd: 0, tpm: 100 } });
// Round prices so the expected costs below are exact.
const PRICES = JSON.stringify({
  'unit-chat': { input: 1, output: 2 },
  'img-model': { image: { '1024x1024/hd': 0.08, '1024x1024': 0.04, default: 0.02 } },
  'stt-model': { audio_in_second: 0.001 },
  'tts-model': { audio_out_second: 0.002 },
});

let h: Harness;

beforeAll(async () => {
  h = await startGateway({ env: { AI_LEVELS: LEVELS, AI_PRICES: PRICES } });
});
afterAll(() => h.close());
beforeEach(() => h.upstream.reset());

/** A PNG of random pixels: it does not compress, so its size is about width × height × 4 bytes. */
function noisePng(width: number, height: number): Buffer {
  const png = new PNG({ width, height });
  randomBytes(width * height * 4).copy(png.data);
  return PNG.sync.write(png);
}

const openai = (key: string, maxRetries?: number) => new OpenAI({ baseURL: `${h.base}/v1`, apiKey: key, ...(maxRetries === undefined ? {} : { maxRetries }) });

describe('defect 3: 429s with a long or endless wait carry x-should-retry: false', () => {
  it('the RPD 429 (a wait of hours): the openai client with default settings gives up at once', async () => {
    const k = await makeKey(h.svc, { level: 'rpd1' });
    expect((await postJson(h.base, '/v1/chat/completions', CHAT, bearer(k.key))).status).toBe(200);
    const raw = await postJson(h.base, '/v1/chat/completions', CHAT, bearer(k.key));
    expect(raw.status).toBe(429);
    expect(raw.headers.get('x-should-retry')).toBe('false');
    // retry-after stays truthful: the day window's real wait.
    expect(Number(raw.headers.get('retry-after'))).toBeGreaterThan(3600);
    expect(Number(raw.headers.get('retry-after-ms'))).toBeGreaterThan(3_600_000);
    const err = await openai(k.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    // Default maxRetries is 2: had it retried, there would be 5 rows.
    expect(await usageRows(h.svc, k.record.id, 3)).toHaveLength(3);
  });

  it('a request larger than the whole TPM window can never pass: x-should-retry: false', async () => {
    const k = await makeKey(h.svc, { level: 'tpm100' });
    const res = await postJson(h.base, '/v1/chat/completions', { ...CHAT, max_tokens: 1000 }, bearer(k.key));
    expect(res.status).toBe(429);
    expect(res.headers.get('x-should-retry')).toBe('false');
    const err = await openai(k.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 1000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(await usageRows(h.svc, k.record.id, 2)).toHaveLength(2);
  });

  it('a short wait (RPM) carries no x-should-retry and a retry-after of at most 60 s', async () => {
    const k = await makeKey(h.svc, { level: 'rpm1' });
    await postJson(h.base, '/v1/chat/completions', CHAT, bearer(k.key));
    const res = await postJson(h.base, '/v1/chat/completions', CHAT, bearer(k.key));
    expect(res.status).toBe(429);
    expect(res.headers.get('x-should-retry')).toBeNull();
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  });

  it('an upstream 429: a short wait is still retried by the client, an hour-long one is not', async () => {
    const k = await makeKey(h.svc);
    let wait = '10';
    h.upstream.script('POST', '/v1/chat/completions', (_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': wait });
      res.end(JSON.stringify({ error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' } }));
    });
    const short = await openai(k.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(short).toBeInstanceOf(OpenAI.RateLimitError);
    expect(h.upstream.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(3);
    h.upstream.requests.length = 0;
    wait = String(3_600_000);
    const long = await openai(k.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(long).toBeInstanceOf(OpenAI.RateLimitError);
    expect((long as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('x-should-retry')).toBe('false');
    expect((long as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after-ms')).toBe(String(3_600_000));
    expect(h.upstream.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(1);
  });
});

describe('defect 4: media are estimated by their own rules, not as base64 text', () => {
  it("OpenAI's tile rule, from the image header", () => {
    // The examples of OpenAI's vision guide.
    expect(openAiImageTokens({ width: 1024, height: 1024 }, 'high')).toBe(765);
    expect(openAiImageTokens({ width: 2048, height: 4096 }, 'high')).toBe(1105);
    expect(openAiImageTokens({ width: 4096, height: 8192 }, 'low')).toBe(85);
    expect(openAiImageTokens(undefined, 'auto')).toBe(765);
    expect(geminiImageTokens({ width: 300, height: 300 })).toBe(258);
    expect(geminiImageTokens({ width: 1000, height: 1000 })).toBe(258 * 4);
    expect(imageSize(noisePng(37, 21))).toEqual({ width: 37, height: 21 });
    const gif = Buffer.from('GIF89a\x40\x01\xf0\x00\x00\x00\x00', 'latin1');
    expect(imageSize(gif)).toEqual({ width: 320, height: 240 });
  });

  it('a ~1 MB vision request passes the default level and is charged by its image', async () => {
    const png = noisePng(512, 512);
    expect(png.length).toBeGreaterThan(1_000_000);
    const dataUrl = `data:image/png;base64,${png.toString('base64')}`;
    const k = await makeKey(h.svc, { level: 'default' });
    // The upstream answers without usage, so the bill is the gateway's estimate.
    h.upstream.script('POST', '/v1/chat/completions', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: 'unit-chat', choices: [{ index: 0, message: { role: 'assistant', content: 'A noisy square.' }, finish_reason: 'stop' }] }));
    });
    const answer = await openai(k.key, 0).chat.completions.create({
      model: 'unit-chat',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: dataUrl, detail: 'high' } }] }],
    });
    expect(answer.choices[0]?.message.content).toBe('A noisy square.');
    const [row] = await usageRows(h.svc, k.record.id);
    // 512×512 at high detail: one tile, 85 + 170 = 255 tokens, plus the JSON text around it.
    expect(row).toMatchObject({ usageSource: 'estimated', status: 200 });
    expect(row!.promptTokens).toBeGreaterThanOrEqual(255);
    expect(row!.promptTokens).toBeLessThan(255 + 60);
    expect(row!.completionTokens).toBe(Math.ceil('A noisy square.'.length / 4));
    // unit-chat: $1 / $2 per 1M tokens → one micro-dollar per prompt token, two per completion token.
    expect(row!.costMicros).toBe(row!.promptTokens + 2 * row!.completionTokens);
  });

  it('Gemini inlineData of ~1 MB passes the default level through @google/genai', async () => {
    const png = noisePng(512, 512);
    const body = { contents: [{ role: 'user', parts: [{ text: 'Describe' }, { inlineData: { mimeType: 'image/png', data: png.toString('base64') } }] }] };
    const estimate = estimatePrompt(JSON.stringify(body).length, body, 'gemini');
    expect(estimate.media).toBe(1);
    expect(estimate.tokens).toBeLessThan(258 + 40);
    const k = await makeKey(h.svc, { level: 'default' });
    const ai = new GoogleGenAI({ apiKey: k.key, httpOptions: { baseUrl: h.base } });
    const res = await ai.models.generateContent({ model: 'gemini-2.0-flash', contents: body.contents });
    expect(res.text).toBe('Hi from gemini-2.0-flash');
  });

  it('audio inline data: its duration at 10 tokens per second (OpenAI)', () => {
    // A WAV header says 32,000 bytes per second: 64,000 bytes of samples are 2 s → 20 tokens.
    const wav = Buffer.alloc(44 + 64_000);
    wav.write('RIFF', 0, 'latin1');
    wav.write('WAVEfmt ', 8, 'latin1');
    wav.writeUInt32LE(32_000, 28);
    const data = wav.toString('base64');
    const body = { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data, format: 'wav' } }] }] };
    const e = estimatePrompt(JSON.stringify(body).length, body, 'openai');
    expect(e.tokens - Math.ceil((JSON.stringify(body).length - data.length) / 4)).toBe(Math.ceil(((44 + 64_000) / 32_000) * 10));
  });
});

describe('defect 5: a key without credit still sees why', () => {
  it('models and billing stay open; forwarding calls are refused', async () => {
    const k = await makeKey(h.svc, { quotaMicros: 0 });
    h.upstream.script('GET', '/v1/models/gpt-4o', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'gpt-4o', object: 'model', created: 1700000000, owned_by: 'upstream' }));
    });
    const client = openai(k.key, 0);
    expect((await client.models.list()).data.length).toBeGreaterThan(0);
    expect((await client.models.retrieve('gpt-4o')).id).toBe('gpt-4o');
    for (const p of ['/v1/dashboard/billing/subscription', '/v1/dashboard/billing/usage']) expect((await fetch(`${h.base}${p}`, { headers: bearer(k.key) })).status).toBe(200);
    const sub = (await (await fetch(`${h.base}/v1/dashboard/billing/subscription`, { headers: bearer(k.key) })).json()) as Record<string, unknown>;
    expect(sub).toMatchObject({ hard_limit_usd: 0, remaining_usd: 0, unlimited: false });
    const err = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('insufficient_quota');
  });
});

describe('defect 6: credit is reserved before forwarding and settled after', () => {
  it('a request that may cost more than is left is refused before it reaches the upstream', async () => {
    // unit-chat costs 1 µ$ per input token and 2 per output token; 100 µ$ of credit.
    const k = await makeKey(h.svc, { quotaMicros: 100 });
    const res = await postJson(h.base, '/v1/chat/completions', { model: 'unit-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 500 }, bearer(k.key));
    expect(res.status).toBe(429);
    expect(res.headers.get('x-should-retry')).toBe('false');
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('insufficient_quota');
    expect(body.error.message).toMatch(/may cost up to \$0\.001\d+ .* more than the \$0\.0001 this API key has left.*Lower max_tokens/);
    // Without max_tokens, AI_RESERVE_OUTPUT_TOKENS (4096) are reserved: too much as well.
    const noLimit = await postJson(h.base, '/v1/chat/completions', { model: 'unit-chat', messages: [{ role: 'user', content: 'hi' }] }, bearer(k.key));
    expect(noLimit.status).toBe(429);
    expect(((await noLimit.json()) as { error: { message: string } }).error.message).toMatch(/Set max_tokens/);
    expect(h.upstream.requests).toHaveLength(0);
    // What fits passes and is settled at its real cost (10 + 2×5 = 20 µ$), not the reservation.
    const ok = await postJson(h.base, '/v1/chat/completions', { model: 'unit-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }, bearer(k.key));
    expect(ok.status).toBe(200);
    await usageRows(h.svc, k.record.id, 3);
    expect(await h.svc.gateway.keys.get(k.record.id)).toMatchObject({ spentMicros: 20 });
  });

  it('concurrent requests never spend more than the credit', async () => {
    // Each request reserves ~(prompt estimate + 2×20) µ$ and costs 10 + 2×5 = 20 µ$.
    const k = await makeKey(h.svc, { quotaMicros: 200 });
    const req = { model: 'unit-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 };
    const results = await Promise.all(Array.from({ length: 12 }, () => postJson(h.base, '/v1/chat/completions', { ...req, mock: { delayMs: 0 } }, bearer(k.key))));
    const statuses = results.map((r) => r.status);
    await Promise.all(results.map((r) => r.text()));
    const passed = statuses.filter((s) => s === 200).length;
    expect(passed).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 200).every((s) => s === 429)).toBe(true);
    await usageRows(h.svc, k.record.id, 12);
    const after = await h.svc.gateway.keys.get(k.record.id);
    expect(after!.spentMicros).toBe(passed * 20);
    expect(after!.spentMicros).toBeLessThanOrEqual(200);
  });

  it('a budget per period: refused beyond it with a truthful retry-after (its reset), x-should-retry: false', async () => {
    // Each request reserves about 30 µ$ (its prompt estimate + 2×5) and costs 20 µ$.
    const k = await makeKey(h.svc, { quotaMicros: null, budgetMicros: 40, budgetPeriod: 'daily' });
    const req = { model: 'unit-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 };
    expect((await postJson(h.base, '/v1/chat/completions', req, bearer(k.key))).status).toBe(200);
    await usageRows(h.svc, k.record.id, 1);
    const res = await postJson(h.base, '/v1/chat/completions', req, bearer(k.key));
    expect(res.status).toBe(429);
    expect(res.headers.get('x-should-retry')).toBe('false');
    const reset = nextPeriodStart('daily', Date.now());
    expect(Math.abs(Number(res.headers.get('retry-after')) - (reset - Date.now()) / 1000)).toBeLessThan(5);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/daily budget of \$0\.00004/);
    const sub = (await (await fetch(`${h.base}/v1/dashboard/billing/subscription`, { headers: bearer(k.key) })).json()) as Record<string, unknown>;
    expect(sub).toMatchObject({ budget_usd: 0.00004, budget_period: 'daily', budget_spent_usd: 0.00002, remaining_usd: 0.00002, budget_resets_at: new Date(reset).toISOString() });
  });
});

describe('prices by unit', () => {
  it('images by count, size and quality; transcription by the seconds the answer reports; speech by its text', async () => {
    const k = await makeKey(h.svc);
    h.upstream.script('POST', '/v1/images/generations', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ created: 1, data: [{ url: 'https://img.example/1.png' }, { url: 'https://img.example/2.png' }] }));
    });
    await openai(k.key, 0).images.generate({ model: 'img-model', prompt: 'a cat', n: 2, size: '1024x1024', quality: 'hd' });
    h.upstream.script('POST', '/v1/audio/transcriptions', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ text: 'hello', usage: { type: 'duration', seconds: 42 } }));
    });
    await openai(k.key, 0).audio.transcriptions.create({ model: 'stt-model', file: await toFile(Buffer.alloc(8000), 'a.mp3') });
    const speech = await openai(k.key, 0).audio.speech.create({ model: 'tts-model', voice: 'alloy', input: 'x'.repeat(150) });
    await speech.arrayBuffer();
    const rows = await usageRows(h.svc, k.record.id, 3);
    const cost = (route: string) => rows.find((r) => r.route === route)?.costMicros;
    expect(cost('images.generations')).toBe(2 * 80_000);
    expect(cost('audio') !== undefined).toBe(true);
    expect(rows.filter((r) => r.route === 'audio').map((r) => r.costMicros).sort((a, b) => a - b)).toEqual([20_000, 42_000]);
  });

  it('the table: most specific pattern wins, missing fields come from "*", bad input is refused', () => {
    const t = loadPrices({ json: JSON.stringify({ 'acme-*': { input: 1 }, 'acme-big': { input: 3 }, '*': { input: 9, output: 9 } }), file: undefined });
    expect(t.lookup('acme-big').input).toBe(3);
    expect(t.lookup('acme-small')).toMatchObject({ input: 1, output: 9 });
    expect(t.lookup('gpt-4o-mini-2024-07-18').input).toBe(0.15);
    expect(t.cost('acme-small', { ...NOTHING_CONSUMED, inputTokens: 1_000_000, outputTokens: 1_000_000 })).toBe(10);
    expect(() => loadPrices({ json: '{"m":{"inptu":1}}', file: undefined })).toThrow(/unknown field "inptu"/);
    expect(() => loadPrices({ json: '{"m":{"input":-1}}', file: undefined })).toThrow(ConfigError);
    expect(() => loadPrices({ json: 'nope', file: undefined })).toThrow(/AI_PRICES is not valid JSON/);
    expect(() => loadPrices({ json: undefined, file: '/nonexistent/prices.json' })).toThrow(/AI_PRICES_FILE/);
  });
});

describe('metrics an operator bills by', () => {
  it('per-key spend and tokens on /metrics, labelled by our key ids', async () => {
    const k = await makeKey(h.svc);
    await postJson(h.base, '/v1/chat/completions', { model: 'unit-chat', messages: [{ role: 'user', content: 'hi' }] }, { ...bearer(k.key), 'x-key-id': 'evil"label' });
    await usageRows(h.svc, k.record.id, 1);
    const text = await (await fetch(`${h.base}/metrics`)).text();
    expect(text).toContain(`gateway_key_spend_usd_total{key_id="${k.record.id}"} 0.00002`);
    expect(text).toContain(`gateway_key_tokens_total{key_id="${k.record.id}",kind="prompt"} 10`);
    expect(text).not.toContain('evil');
  });
});
