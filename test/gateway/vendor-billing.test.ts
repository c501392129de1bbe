/**
 * Issue 21 item 4: billing that matches the vendors' rules. Each case is a usage object in the
 * vendor's documented shape (the page is named with the case), read by usage-reading.ts and priced
 * by the built-in table, and checked within 1% of the cost the vendor's rule gives by hand.
 */
import { GoogleGenAI } from '@google/genai';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPrices, NOTHING_CONSUMED, type Consumption } from '../../src/gateway/prices.ts';
import { normalizeUsage, readUsage, usageFields, type TokenUsage, type UsageStyle } from '../../src/gateway/usage-reading.ts';
import { makeKey, startGateway, usageRows, type Harness } from './helpers.ts';
import { openaiClient } from './openai-sdks.ts';

const prices = loadPrices({ json: undefined, file: undefined });

function consumption(u: TokenUsage): Consumption {
  return {
    ...NOTHING_CONSUMED,
    inputTokens: u.prompt,
    cachedInputTokens: u.cached ?? 0,
    cacheWriteTokens: u.cacheWrite ?? 0,
    cacheWrite1hTokens: u.cacheWrite1h ?? 0,
    audioInputTokens: u.audioIn ?? 0,
    imageInputTokens: u.imageIn ?? 0,
    outputTokens: u.completion,
    audioOutputTokens: u.audioOut ?? 0,
  };
}

/** USD of one answer of `model` whose body (or stream event) is `body`. */
function billed(style: UsageStyle, model: string, body: unknown): number {
  const usage = readUsage(style, body);
  expect(usage, 'the usage object is read').toBeDefined();
  return prices.cost(model, consumption(usage!));
}

/** Within 1% of the vendor's rule (per-million prices × tokens). */
function expectRule(actual: number, perMillion: [tokens: number, usd: number][]): void {
  const expected = perMillion.reduce((sum, [tokens, usd]) => sum + (tokens * usd) / 1_000_000, 0);
  expect(Math.abs(actual - expected) / expected).toBeLessThan(0.01);
}

describe('OpenAI (platform.openai.com/docs/pricing; usage objects: api-reference chat/object, responses/object)', () => {
  it('chat: cached prompt tokens at the cached-input price', () => {
    const cost = billed('openai', 'gpt-4o-mini', { usage: { prompt_tokens: 10_000, completion_tokens: 1000, total_tokens: 11_000, prompt_tokens_details: { cached_tokens: 8000, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } } });
    expectRule(cost, [[2000, 0.15], [8000, 0.075], [1000, 0.6]]);
  });

  it('Responses: cached input and reasoning tokens (reasoning is output), in the answer and in response.completed', () => {
    const usage = { input_tokens: 10_000, input_tokens_details: { cached_tokens: 4000 }, output_tokens: 2000, output_tokens_details: { reasoning_tokens: 1500 }, total_tokens: 12_000 };
    const rule: [number, number][] = [[6000, 1.25], [4000, 0.125], [2000, 10]];
    expectRule(billed('openai', 'gpt-5', { object: 'response', usage }), rule);
    expectRule(billed('openai', 'gpt-5', { type: 'response.completed', sequence_number: 9, response: { object: 'response', usage } }), rule);
    expect(readUsage('openai', { usage })).toMatchObject({ prompt: 10_000, completion: 2000, cached: 4000, reasoning: 1500 });
  });

  it('audio tokens at the audio prices (was 0.12× of the rule)', () => {
    const cost = billed('openai', 'gpt-4o-mini-audio-preview', {
      usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500, prompt_tokens_details: { audio_tokens: 800, cached_tokens: 0 }, completion_tokens_details: { audio_tokens: 400, reasoning_tokens: 0 } },
    });
    expectRule(cost, [[200, 0.15], [800, 10], [100, 0.6], [400, 20]]);
  });
});

describe('Anthropic (platform.claude.com/docs/en/about-claude/pricing; usage: docs.claude.com/en/api/messages)', () => {
  it('cache reads, 5-minute and 1-hour cache writes, each at its price', () => {
    const cost = billed('anthropic', 'claude-sonnet-4-5-20250929', {
      type: 'message',
      usage: { input_tokens: 1000, cache_read_input_tokens: 50_000, cache_creation_input_tokens: 10_000, cache_creation: { ephemeral_5m_input_tokens: 6000, ephemeral_1h_input_tokens: 4000 }, output_tokens: 2000 },
    });
    expectRule(cost, [[1000, 3], [50_000, 0.3], [6000, 3.75], [4000, 6], [2000, 15]]);
  });

  it('Claude Opus has its own entry (was priced as the default model, 0.14×)', () => {
    expectRule(billed('anthropic', 'claude-opus-4-1-20250805', { usage: { input_tokens: 1000, output_tokens: 1000 } }), [[1000, 15], [1000, 75]]);
    expectRule(billed('anthropic', 'claude-opus-4-5-20251101', { usage: { input_tokens: 1000, output_tokens: 1000 } }), [[1000, 5], [1000, 25]]);
  });

  it('Sonnet 4.5 above 200K prompt tokens (cache reads and writes count) at the long-context prices', () => {
    const cost = billed('anthropic', 'claude-sonnet-4-5', { usage: { input_tokens: 150_000, cache_read_input_tokens: 100_000, output_tokens: 1000 } });
    expectRule(cost, [[150_000, 6], [100_000, 0.6], [1000, 22.5]]);
  });

  it('a stream: message_start brings the input counts, message_delta the running output count', () => {
    const start = usageFields('anthropic', { type: 'message_start', message: { usage: { input_tokens: 100, cache_read_input_tokens: 50, output_tokens: 1 } } });
    const delta = usageFields('anthropic', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 300 } });
    expect(normalizeUsage('anthropic', { ...start, ...delta })).toEqual({ prompt: 150, completion: 300, total: 450, cached: 50 });
  });
});

describe('Gemini (ai.google.dev/gemini-api/docs/pricing; usageMetadata: ai.google.dev/api/generate-content#UsageMetadata)', () => {
  it('thinking tokens billed as output (was 0.25×)', () => {
    const cost = billed('gemini', 'gemini-2.5-flash', { usageMetadata: { promptTokenCount: 1000, candidatesTokenCount: 500, thoughtsTokenCount: 3000, totalTokenCount: 4500 } });
    expectRule(cost, [[1000, 0.3], [3500, 2.5]]);
  });

  it('Gemini 2.5 Pro above 200k prompt tokens: every token at the higher tier (was 0.50×), cached ones at its cached price', () => {
    const cost = billed('gemini', 'gemini-2.5-pro', { usageMetadata: { promptTokenCount: 250_000, cachedContentTokenCount: 50_000, candidatesTokenCount: 1000, thoughtsTokenCount: 1000, totalTokenCount: 252_000 } });
    expectRule(cost, [[200_000, 2.5], [50_000, 0.25], [2000, 15]]);
    // At 200k exactly, the lower tier.
    expectRule(billed('gemini', 'gemini-2.5-pro', { usageMetadata: { promptTokenCount: 200_000, candidatesTokenCount: 1000, totalTokenCount: 201_000 } }), [[200_000, 1.25], [1000, 10]]);
  });

  it('tool-use prompt tokens are prompt; audio prompt tokens at the audio price', () => {
    expectRule(billed('gemini', 'gemini-2.5-flash', { usageMetadata: { promptTokenCount: 1000, toolUsePromptTokenCount: 500, candidatesTokenCount: 100, totalTokenCount: 1600 } }), [[1500, 0.3], [100, 2.5]]);
    const audio = billed('gemini', 'gemini-2.5-flash', {
      usageMetadata: { promptTokenCount: 1000, candidatesTokenCount: 100, totalTokenCount: 1100, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 200 }, { modality: 'AUDIO', tokenCount: 800 }] },
    });
    expectRule(audio, [[200, 0.3], [800, 1], [100, 2.5]]);
  });
});

describe('DeepSeek (api-docs.deepseek.com/quick_start/pricing; usage: api-docs.deepseek.com/guides/kv_cache)', () => {
  it('prompt_cache_hit_tokens at the cache-hit price (was 1.73×)', () => {
    const cost = billed('openai', 'deepseek-chat', { usage: { prompt_tokens: 10_000, prompt_cache_hit_tokens: 9000, prompt_cache_miss_tokens: 1000, completion_tokens: 500, total_tokens: 10_500 } });
    expectRule(cost, [[1000, 0.56], [9000, 0.07], [500, 1.68]]);
  });
});

describe('the price table', () => {
  it('tiers and the new token prices are validated like the rest', () => {
    expect(() => loadPrices({ json: '{"m":{"tiers":[{"input":1}]}}', file: undefined })).toThrow(/tiers\[0\] must be an object with "above"/);
    expect(() => loadPrices({ json: '{"m":{"tiers":[{"above":10,"image":1}]}}', file: undefined })).toThrow(/tiers\[0\]\.image must be one of/);
    expect(() => loadPrices({ json: '{"m":{"cache_write":-1}}', file: undefined })).toThrow(/"m"\.cache_write must be a number/);
    const custom = loadPrices({ json: '{"m":{"input":1,"output":2,"tiers":[{"above":100,"input":3},{"above":10,"input":2}]}}', file: undefined });
    expect(custom.cost('m', { ...NOTHING_CONSUMED, inputTokens: 50, outputTokens: 1_000_000 })).toBeCloseTo((50 * 2) / 1e6 + 2, 9);
    expect(custom.cost('m', { ...NOTHING_CONSUMED, inputTokens: 101 })).toBeCloseTo((101 * 3) / 1e6, 12);
  });
});

describe('images (platform.openai.com/docs/pricing, image generation per quality and size)', () => {
  it('gpt-image-1-mini has its own prices (was priced as gpt-image-1, 4.6× at high)', () => {
    const image = (size: string, quality: string) => prices.cost('gpt-image-1-mini', { ...NOTHING_CONSUMED, images: { count: 1, size, quality } });
    expect(image('1024x1024', 'high')).toBe(0.036);
    expect(image('1536x1024', 'low')).toBe(0.006);
    expect(image('1024x1024', 'auto')).toBe(0.036);
  });

  it('gpt-image-1.5 has its own prices (was priced as gpt-image-1, 1.26× at medium)', () => {
    const image = (model: string, size: string, quality: string) => prices.cost(model, { ...NOTHING_CONSUMED, images: { count: 1, size, quality } });
    expect(image('gpt-image-1.5', '1024x1024', 'medium')).toBe(0.034);
    expect(image('gpt-image-1.5-2025-12-16', '1536x1024', 'high')).toBe(0.2);
    expect(image('gpt-image-1.5', '1024x1536', 'low')).toBe(0.013);
    expect(image('gpt-image-1', '1024x1024', 'medium')).toBe(0.042);
    expect(prices.cost('gpt-image-1.5', { ...NOTHING_CONSUMED, imageInputTokens: 1_000_000, inputTokens: 1_000_000 })).toBeCloseTo(8, 9);
  });
});

describe('through the gateway: the official clients, the usage row and the key\'s spend', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGateway();
  });
  afterAll(() => h.close());

  it('DeepSeek cache hits on /v1/chat/completions (streamed), Gemini thinking above 200k on /v1beta', async () => {
    const k = await makeKey(h.svc);
    h.upstream.script('POST', '/v1/chat/completions', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'deepseek-chat', choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: 'stop' }] })}\n\n`);
      const usage = { prompt_tokens: 10_000, completion_tokens: 500, total_tokens: 10_500, prompt_cache_hit_tokens: 9000, prompt_cache_miss_tokens: 1000 };
      res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'deepseek-chat', choices: [], usage })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
    const openai = openaiClient(h.base, k.key);
    const stream = await openai.chat.completions.create({ model: 'deepseek-chat', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    for await (const _ of stream) void _;
    const [chat] = await usageRows(h.svc, k.record.id, 1);
    expect(chat).toMatchObject({ promptTokens: 10_000, completionTokens: 500, cachedTokens: 9000, usageSource: 'upstream' });
    const chatRule = (1000 * 0.56 + 9000 * 0.07 + 500 * 1.68) / 1e6;
    expect(Math.abs(chat!.costMicros / 1e6 - chatRule) / chatRule).toBeLessThan(0.01);

    h.upstream.script('POST', /^\/v1beta\/models\/gemini-2\.5-pro:generateContent$/, (_req, res) => {
      const body = { candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 250_000, cachedContentTokenCount: 50_000, candidatesTokenCount: 1000, thoughtsTokenCount: 1000, totalTokenCount: 252_000 } };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
    const genai = new GoogleGenAI({ apiKey: k.key, httpOptions: { baseUrl: h.base } });
    const answer = await genai.models.generateContent({ model: 'gemini-2.5-pro', contents: 'hi' });
    expect(answer.text).toBe('ok');
    const rows = await usageRows(h.svc, k.record.id, 2);
    expect(rows[0]).toMatchObject({ promptTokens: 250_000, completionTokens: 2000, cachedTokens: 50_000, reasoningTokens: 1000 });
    const geminiRule = (200_000 * 2.5 + 50_000 * 0.25 + 2000 * 15) / 1e6;
    expect(Math.abs(rows[0]!.costMicros / 1e6 - geminiRule) / geminiRule).toBeLessThan(0.01);
    expect((await h.svc.gateway.keys.get(k.record.id))!.spentMicros).toBe(chat!.costMicros + rows[0]!.costMicros);
  });

  // platform.openai.com/docs/pricing (image generation: gpt-image-1 output image tokens per quality
  // and size at $40/M, text input at $5/M; DALL·E 3 per image) and api-reference/images (`quality`
  // `auto` is the default; GPT image answers report the `quality` and `size` they made).
  it('images: quality "auto" priced as the quality the vendor made, or documents as the default', async () => {
    const k = await makeKey(h.svc);
    const openai = openaiClient(h.base, k.key);
    const answers: Record<string, unknown>[] = [
      { quality: 'high', size: '1024x1024', usage: { input_tokens: 20, input_tokens_details: { text_tokens: 20, image_tokens: 0 }, output_tokens: 4160, total_tokens: 4180 } },
      { quality: 'medium', size: '1536x1024', usage: { input_tokens: 20, input_tokens_details: { text_tokens: 20, image_tokens: 0 }, output_tokens: 1584, total_tokens: 1604 } },
      {},
      {},
    ];
    let i = 0;
    h.upstream.script('POST', '/v1/images/generations', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ created: 1, data: [{ b64_json: 'iVBORw0KGgo=' }], ...answers[i++] }));
    });
    await openai.images.generate({ model: 'gpt-image-1', prompt: 'a lighthouse at dusk', quality: 'auto', size: '1024x1024' });
    await openai.images.generate({ model: 'gpt-image-1', prompt: 'a lighthouse at dusk' });
    await openai.images.generate({ model: 'dall-e-3', prompt: 'a lighthouse at dusk', quality: 'auto', size: '1792x1024' });
    await openai.images.generate({ model: 'gpt-image-1', prompt: 'a lighthouse at dusk', quality: 'auto', size: 'auto' });
    const rows = (await usageRows(h.svc, k.record.id, 4)).sort((a, b) => a.id - b.id).map((r) => r.costMicros / 1e6);
    expectRule(rows[0]!, [[20, 5], [4160, 40]]);
    expectRule(rows[1]!, [[20, 5], [1584, 40]]);
    // DALL·E 3 answers do not say: its documented default quality, standard ($0.08 at 1792x1024).
    expect(rows[2]).toBeCloseTo(0.08, 6);
    // A GPT image answer that does not say: "auto selects the best quality" (high), at the dearest size auto may pick.
    expectRule(rows[3]!, [[6240, 40]]);
  });

  // platform.openai.com/docs/pricing (gpt-image-1: text input $5/M, image input $10/M, image output
  // $40/M) and api-reference/images (the answer's `usage.input_tokens_details` splits the prompt).
  it("images: an edit's input pictures and text billed at their own token prices beside the image made", async () => {
    const k = await makeKey(h.svc);
    const openai = openaiClient(h.base, k.key);
    const usage = { input_tokens: 1_523, input_tokens_details: { text_tokens: 23, image_tokens: 1_500 }, output_tokens: 4_160, total_tokens: 5_683 };
    h.upstream.script('POST', '/v1/images/edits', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ created: 1, data: [{ b64_json: 'iVBORw0KGgo=' }], quality: 'high', size: '1024x1024', usage }));
    });
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0e1d6e30000000049454e44ae426082', 'hex');
    await openai.images.edit({ model: 'gpt-image-1', image: await toFile(png, 'room.png', { type: 'image/png' }), prompt: 'add a reading lamp by the sofa' });
    const [row] = await usageRows(h.svc, k.record.id, 1);
    expectRule(row!.costMicros / 1e6, [[23, 5], [1_500, 10], [4_160, 40]]);
    // DALL·E has no token prices: its images alone are billed, whatever the prompt.
    expect(prices.cost('dall-e-2', { ...NOTHING_CONSUMED, inputTokens: 5_000, images: { count: 1, size: '1024x1024' } })).toBeCloseTo(0.02, 9);
  });
});
