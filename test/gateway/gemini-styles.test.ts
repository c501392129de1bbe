/**
 * The Gemini routes with the official clients at default settings (@google/genai, the Vercel
 * AI SDK's @ai-sdk/google): natively to a Gemini-only upstream and translated to an OpenAI-only
 * and an Anthropic-only upstream, streamed and not, with a function call; countTokens,
 * embedContent / batchEmbedContents and models.list native and answered for other styles; bad
 * input and broken streams in Google's error shape, never a 500 or a hung client.
 */
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { ApiError, GoogleGenAI, type Content } from '@google/genai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoredUsageRow } from '../../src/gateway/usage.ts';
import { bearer, makeKey, postJson, startGateway, type Harness, usageRowWhere } from './helpers.ts';
import { ModelUpstream, sleep } from './model-upstream.ts';
import { resetStyledUpstreams, startStyledGateway, stopStyledGateway, UPSTREAM_KEY } from './styled-gateway.ts';
import { AnthropicUpstream, GeminiUpstream } from './vendor-upstreams.ts';

let anthropicUp: AnthropicUpstream;
let geminiUp: GeminiUpstream;
let openaiUp: ModelUpstream;
let h: Harness;
let openaiOnly: Harness;
let key: string;
let keyId: string;
let ai: GoogleGenAI;

const rowWhere = (pred: (row: StoredUsageRow) => boolean): Promise<StoredUsageRow | undefined> => usageRowWhere(h.svc, keyId, pred);

beforeAll(async () => {
  ({ anthropicUp, geminiUp, openaiUp, h, key, keyId } = await startStyledGateway({ anthropic: ['claude-*'], gemini: ['gemini-*', 'text-embedding-004'], openai: ['gpt-*', 'text-embedding-3-*'] }));
  openaiOnly = await startGateway({ upstream: openaiUp, env: { AI_UPSTREAM_BASE_URL: '', AI_UPSTREAM_API_KEY: UPSTREAM_KEY, AI_UPSTREAMS: JSON.stringify([{ url: openaiUp.url, api: ['openai'] }]) } });
  ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: h.base } });
});

afterAll(async () => {
  await openaiOnly?.close();
  await stopStyledGateway({ anthropicUp, geminiUp, openaiUp, h });
});

beforeEach(() => resetStyledUpstreams({ anthropicUp, geminiUp, openaiUp }));

const WEATHER = { name: 'get_weather', description: 'Weather for a city', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

describe('@google/genai: generateContent', () => {
  it('native, and translated to OpenAI and to Anthropic: text, finish reason, usageMetadata', async () => {
    for (const [model, text] of [
      ['gemini-2.5-flash', 'Hello from gemini-2.5-flash'],
      ['gpt-4o-mini', 'Hello from gpt-4o-mini'],
      ['claude-sonnet-4-6', 'Hello from claude-sonnet-4-6'],
    ] as const) {
      const res = await ai.models.generateContent({ model, contents: 'Say hi', config: { systemInstruction: 'Be brief.', maxOutputTokens: 64, temperature: 0.2 } });
      expect(res.text, model).toBe(text);
      expect(res.candidates?.[0]?.finishReason, model).toBe('STOP');
      expect(res.usageMetadata?.totalTokenCount, model).toBeGreaterThan(0);
    }
    expect(geminiUp.last('/v1beta/models/gemini-2.5-flash:generateContent')!.headers['x-goog-api-key']).toBe(UPSTREAM_KEY);
    expect(JSON.parse(openaiUp.last('/v1/chat/completions')!.body.toString())).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 64, temperature: 0.2, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say hi' }] });
    expect(anthropicUp.lastJson('/v1/messages')).toMatchObject({ model: 'claude-sonnet-4-6', max_tokens: 64, system: 'Be brief.', messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hi' }] }] });
    const row = await rowWhere((r) => r.route === 'gemini.generate' && r.model === 'claude-sonnet-4-6');
    expect(row).toMatchObject({ promptTokens: 16, completionTokens: 5, usageSource: 'upstream', endReason: 'completed' });
    // Billed as the Anthropic upstream counted: cache reads and writes at their own prices, the
    // same cost as the same answer to an Anthropic client (10×$3 + 2×$3.75 + 4×$0.30 + 5×$15 per 1M).
    await postJson(h.base, '/v1/messages', { model: 'claude-sonnet-4-6', max_tokens: 64, messages: [{ role: 'user', content: 'Say hi' }] }, { 'x-api-key': key });
    const native = await rowWhere((r) => r.route === 'messages' && r.model === 'claude-sonnet-4-6');
    expect(row!.costMicros).toBe(native!.costMicros);
    expect(row!.costMicros).toBeGreaterThanOrEqual(113);
    expect(row!.costMicros).toBeLessThanOrEqual(114);
  });

  it('a function call round trip, natively and translated to OpenAI and to Anthropic', async () => {
    for (const model of ['gemini-2.5-flash', 'gpt-4o', 'claude-sonnet-4-6']) {
      const config = { tools: [{ functionDeclarations: [WEATHER] }] };
      const first = await ai.models.generateContent({ model, contents: 'Weather in Paris?', config });
      const call = first.functionCalls?.[0];
      expect(call, model).toMatchObject({ name: 'get_weather', args: { city: 'Paris' } });
      const history: Content[] = [
        { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        first.candidates![0]!.content!,
        { role: 'user', parts: [{ functionResponse: { id: call!.id, name: 'get_weather', response: { output: '18°C, sunny' } } }] },
      ];
      const second = await ai.models.generateContent({ model, contents: history, config });
      expect(second.text, model).toContain('18°C, sunny');
    }
    const toAnthropic = anthropicUp.lastJson('/v1/messages');
    expect(toAnthropic.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Let me check.' }, { type: 'tool_use', id: 'toolu_01FakeUpstream', name: 'get_weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01FakeUpstream', content: '{"output":"18°C, sunny"}' }] },
    ]);
  });
});

describe('@google/genai: generateContentStream', () => {
  it('native and translated streams: text as it comes, the last chunk with finishReason and usage', async () => {
    for (const [model, text] of [
      ['gemini-2.5-flash', 'Hello from gemini-2.5-flash'],
      ['gpt-4o-mini', 'c0c1c2c3c4'],
      ['claude-sonnet-4-6', 'Hello from claude-sonnet-4-6'],
    ] as const) {
      const stream = await ai.models.generateContentStream({ model, contents: 'Say hi' });
      let out = '';
      let finish: string | undefined;
      let total: number | undefined;
      for await (const chunk of stream) {
        out += chunk.text ?? '';
        finish = chunk.candidates?.[0]?.finishReason ?? finish;
        total = chunk.usageMetadata?.totalTokenCount ?? total;
      }
      expect(out, model).toBe(text);
      expect(finish, model).toBe('STOP');
      expect(total, model).toBeGreaterThan(0);
    }
    expect(geminiUp.last('/v1beta/models/gemini-2.5-flash:streamGenerateContent')!.query.get('alt')).toBe('sse');
    const row = await rowWhere((r) => r.route === 'gemini.generate' && r.stream && r.model === 'gpt-4o-mini');
    expect(row).toMatchObject({ promptTokens: 10, completionTokens: 5, usageSource: 'upstream', endReason: 'completed' });
  });

  it('without alt=sse a translated stream is one JSON array, sent as JSON', async () => {
    const res = await postJson(h.base, '/v1beta/models/claude-sonnet-4-6:streamGenerateContent', { contents: [{ parts: [{ text: 'x' }] }] }, bearer(key));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const chunks = (await res.json()) as { candidates: { content: { parts: { text?: string }[] }; finishReason?: string }[]; usageMetadata?: unknown }[];
    expect(chunks.map((c) => c.candidates[0]!.content.parts.map((p) => p.text ?? '').join('')).join('')).toBe('Hello from claude-sonnet-4-6');
    expect(chunks.at(-1)).toMatchObject({ candidates: [{ finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 16, candidatesTokenCount: 5 } });
  });

  it('a translated stream with a function call: the call arrives whole', async () => {
    const stream = await ai.models.generateContentStream({ model: 'claude-sonnet-4-6', contents: 'Weather?', config: { tools: [{ functionDeclarations: [WEATHER] }] } });
    const calls = [];
    for await (const chunk of stream) calls.push(...(chunk.functionCalls ?? []));
    expect(calls).toEqual([{ id: 'toolu_01FakeUpstream', name: 'get_weather', args: { city: 'Paris' } }]);
  });

  it('a translated stream cut mid-event ends in an error the client raises, never a hang', async () => {
    openaiUp.script('POST', '/v1/chat/completions', async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}\n\n');
      res.write('data: {"id":"c","obj');
      await sleep(20);
      res.socket?.destroy();
    });
    const stream = await ai.models.generateContentStream({ model: 'gpt-4o', contents: 'x' });
    const err = await (async () => {
      for await (const _chunk of stream) {
        // read to the end
      }
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(await rowWhere((r) => r.route === 'gemini.generate' && r.stream && r.model === 'gpt-4o' && r.endReason === 'upstream_error')).toBeDefined();
  });
});

describe('@ai-sdk/google (ai 6)', () => {
  const weather = tool({
    description: 'Weather for a city',
    inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
    execute: async ({ city }) => `18°C in ${city}`,
  });

  it('generateText with a tool that runs and streamText: native and translated to OpenAI and to Anthropic', async () => {
    const google = createGoogleGenerativeAI({ baseURL: `${h.base}/v1beta`, apiKey: key });
    for (const model of ['gemini-2.5-pro', 'gpt-4o', 'claude-haiku-4-5']) {
      const result = await generateText({ model: google(model), prompt: 'Weather in Paris?', tools: { get_weather: weather }, stopWhen: stepCountIs(3), maxRetries: 0 });
      expect(result.steps[0]!.toolCalls[0], model).toMatchObject({ toolName: 'get_weather', input: { city: 'Paris' } });
      expect(result.text, model).toContain('18°C in Paris');
      const streamed = streamText({ model: google(model), prompt: 'hi', maxRetries: 0 });
      let text = '';
      for await (const t of streamed.textStream) text += t;
      expect(text.length, model).toBeGreaterThan(0);
      expect((await streamed.usage).totalTokens, model).toBeGreaterThan(0);
    }
  });
});

describe('countTokens, embedContent, models.list', () => {
  it('countTokens: a Gemini upstream counts; for another style the gateway estimates', async () => {
    const native = await ai.models.countTokens({ model: 'gemini-2.5-flash', contents: 'How many tokens is this sentence?' });
    expect(native.totalTokens).toBeGreaterThan(0);
    expect(geminiUp.last('/v1beta/models/gemini-2.5-flash:countTokens')).toBeDefined();
    const estimated = await ai.models.countTokens({ model: 'gpt-4o', contents: 'How many tokens is this sentence?' });
    expect(estimated.totalTokens).toBeGreaterThan(5);
    expect(estimated.totalTokens).toBeLessThan(40);
    expect(openaiUp.requests).toHaveLength(0);
  });

  it('embedContent: native (batchEmbedContents), and as OpenAI embeddings for an OpenAI-style upstream', async () => {
    const native = await ai.models.embedContent({ model: 'text-embedding-004', contents: ['first text', 'second text'] });
    expect(native.embeddings).toHaveLength(2);
    expect(native.embeddings![0]!.values).toHaveLength(4);
    expect(geminiUp.last('/v1beta/models/text-embedding-004:batchEmbedContents')).toBeDefined();
    openaiUp.script('POST', '/v1/embeddings', (req, res) => {
      const body = JSON.parse(req.body.toString()) as { input: string | string[] };
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: inputs.map((t, index) => ({ object: 'embedding', index, embedding: [t.length, 0.5, -0.5] })), model: 'text-embedding-3-small', usage: { prompt_tokens: 6, total_tokens: 6 } }));
    });
    const translated = await ai.models.embedContent({ model: 'text-embedding-3-small', contents: ['first text', 'second text'], config: { outputDimensionality: 3 } });
    expect(translated.embeddings!.map((e) => e.values)).toEqual([
      [10, 0.5, -0.5],
      [11, 0.5, -0.5],
    ]);
    expect(JSON.parse(openaiUp.last('/v1/embeddings')!.body.toString())).toEqual({ model: 'text-embedding-3-small', input: ['first text', 'second text'], encoding_format: 'float', dimensions: 3 });
    const single = await postJson(h.base, '/v1beta/models/text-embedding-3-small:embedContent', { content: { parts: [{ text: 'one' }] } }, { 'x-goog-api-key': key });
    expect(await single.json()).toEqual({ embedding: { values: [3, 0.5, -0.5] } });
    const row = await rowWhere((r) => r.route === 'gemini.embed' && r.model === 'text-embedding-3-small');
    expect(row).toMatchObject({ promptTokens: 6, usageSource: 'upstream' });
  });

  it('models.list and models.get: a Gemini upstream\'s list filtered by the key; another style\'s list in Gemini\'s shape', async () => {
    const limited = await makeKey(h.svc, { models: ['gemini-2.5-*'] });
    const names: string[] = [];
    for await (const m of await new GoogleGenAI({ apiKey: limited.key, httpOptions: { baseUrl: h.base } }).models.list()) names.push(m.name ?? '');
    expect(names).toEqual(['models/gemini-2.5-flash', 'models/gemini-2.5-pro']);
    const other = await makeKey(openaiOnly.svc);
    const listed = [];
    for await (const m of await new GoogleGenAI({ apiKey: other.key, httpOptions: { baseUrl: openaiOnly.base } }).models.list()) listed.push(m);
    expect(listed.map((m) => m.name)).toContain('models/gpt-4o-mini');
    expect(listed.find((m) => m.name === 'models/gpt-4o-mini')?.supportedActions).toContain('generateContent');
    const one = await new GoogleGenAI({ apiKey: other.key, httpOptions: { baseUrl: openaiOnly.base } }).models.get({ model: 'gpt-4o-mini' });
    expect(one).toMatchObject({ name: 'models/gpt-4o-mini', supportedActions: ['generateContent', 'countTokens'] });
    const missing = await new GoogleGenAI({ apiKey: other.key, httpOptions: { baseUrl: openaiOnly.base } }).models.get({ model: 'no-such-model' }).catch((e: unknown) => e);
    expect((missing as ApiError).status).toBe(404);
    const native = await ai.models.get({ model: 'gemini-2.5-pro' });
    expect(native).toMatchObject({ name: 'models/gemini-2.5-pro', inputTokenLimit: 1048576 });
    const refused = await new GoogleGenAI({ apiKey: limited.key, httpOptions: { baseUrl: h.base } }).models.get({ model: 'gpt-4o' }).catch((e: unknown) => e);
    expect((refused as ApiError).status).toBe(403);
  });
});

describe('errors in Google\'s shape', () => {
  it('bad bodies and what cannot be translated: 400 naming the field, nothing sent upstream', async () => {
    const empty = await postJson(h.base, '/v1beta/models/gpt-4o:generateContent', { contents: [] }, bearer(key));
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('contents') } });
    const cached = await ai.models.generateContent({ model: 'gpt-4o', contents: 'x', config: { cachedContent: 'cachedContents/abc' } }).catch((e: unknown) => e);
    expect(cached).toBeInstanceOf(ApiError);
    expect((cached as ApiError).status).toBe(400);
    expect((cached as ApiError).message).toContain('cachedContent');
    const video = await ai.models
      .generateContent({ model: 'claude-sonnet-4-6', contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'video/mp4', data: 'AAAA' } }] }] })
      .catch((e: unknown) => e);
    expect((video as ApiError).status).toBe(400);
    expect((video as ApiError).message).toContain('contents[0].parts[0].inlineData.mimeType');
    const image = await postJson(h.base, '/v1beta/models/text-embedding-3-small:embedContent', { content: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] } }, bearer(key));
    expect(image.status).toBe(400);
    expect(await image.json()).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('content.parts[0]') } });
    const noRequests = await postJson(h.base, '/v1beta/models/text-embedding-004:batchEmbedContents', { requests: 'x' }, bearer(key));
    expect(noRequests.status).toBe(400);
    expect(openaiUp.requests).toHaveLength(0);
    expect(anthropicUp.requests).toHaveLength(0);
    expect(geminiUp.requests).toHaveLength(0);
  });

  it('a translated upstream\'s refusal is rendered in Google\'s shape', async () => {
    anthropicUp.script('POST', '/v1/messages', (_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' } }));
    });
    const err = await ai.models.generateContent({ model: 'claude-sonnet-4-6', contents: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(429);
    expect((err as ApiError).message).toContain('per-minute rate limit');
  });
});

