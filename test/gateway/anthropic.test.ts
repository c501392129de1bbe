/**
 * Anthropic Messages through the gateway with the official clients at default settings
 * (@anthropic-ai/sdk with apiKey and with authToken, the Vercel AI SDK's @ai-sdk/anthropic):
 * natively to an Anthropic-only upstream, and translated to an OpenAI-only and a Gemini-only
 * upstream, streamed and not, with a tool call; count_tokens native and estimated; bad input
 * and broken streams answered in Anthropic's error shape, never a 500 or a hung client.
 */
import Anthropic from '@anthropic-ai/sdk';
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoredUsageRow } from '../../src/gateway/usage.ts';
import { makeKey, postJson, type Harness, usageRowWhere } from './helpers.ts';
import { ModelUpstream, sleep } from './model-upstream.ts';
import { resetStyledUpstreams, startStyledGateway, stopStyledGateway, UPSTREAM_KEY } from './styled-gateway.ts';
import { ANTHROPIC_USAGE, AnthropicUpstream, GeminiUpstream } from './vendor-upstreams.ts';

let anthropicUp: AnthropicUpstream;
let geminiUp: GeminiUpstream;
let openaiUp: ModelUpstream;
let h: Harness;
let key: string;
let keyId: string;
let client: Anthropic;

const rowWhere = (pred: (row: StoredUsageRow) => boolean): Promise<StoredUsageRow | undefined> => usageRowWhere(h.svc, keyId, pred);

beforeAll(async () => {
  ({ anthropicUp, geminiUp, openaiUp, h, key, keyId } = await startStyledGateway({ anthropic: ['claude-*'], gemini: ['gemini-*'], openai: ['gpt-*'] }));
  client = new Anthropic({ apiKey: key, baseURL: h.base, maxRetries: 0 });
});

afterAll(async () => {
  await stopStyledGateway({ anthropicUp, geminiUp, openaiUp, h });
});

beforeEach(() => resetStyledUpstreams({ anthropicUp, geminiUp, openaiUp }));

const textOf = (m: Anthropic.Message): string => m.content.map((b) => (b.type === 'text' ? b.text : '')).join('');

const WEATHER: Anthropic.Tool = { name: 'get_weather', description: 'Weather for a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

describe('@anthropic-ai/sdk: messages.create', () => {
  it('native: the body as sent, our upstream key in x-api-key, anthropic-version forwarded, billed with cache reads and writes', async () => {
    const m = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, system: 'Be brief.', messages: [{ role: 'user', content: 'Say hi' }] });
    expect(textOf(m)).toBe('Hello from claude-sonnet-4-6');
    expect(m.usage).toMatchObject(ANTHROPIC_USAGE);
    const seen = anthropicUp.last('/v1/messages')!;
    expect(seen.headers['x-api-key']).toBe(UPSTREAM_KEY);
    expect(seen.headers.authorization).toBeUndefined();
    // The client's own version is forwarded (this SDK's is newer than the gateway's default).
    expect(seen.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(seen.headers['anthropic-version']).not.toBe('2023-06-01');
    expect(JSON.parse(seen.body.toString())).toEqual({ model: 'claude-sonnet-4-6', max_tokens: 100, system: 'Be brief.', messages: [{ role: 'user', content: 'Say hi' }] });
    const row = await rowWhere((r) => r.route === 'messages' && !r.stream && r.model === 'claude-sonnet-4-6');
    expect(row).toMatchObject({ promptTokens: 16, completionTokens: 5, usageSource: 'upstream', endReason: 'completed', status: 200 });
  });

  it('with authToken (Authorization: Bearer) as Claude Code sends ANTHROPIC_AUTH_TOKEN; beta.messages with anthropic-beta forwarded', async () => {
    const bearer = new Anthropic({ apiKey: null, authToken: key, baseURL: h.base, maxRetries: 0 });
    const m = await bearer.beta.messages.create({ model: 'claude-haiku-4-5', max_tokens: 50, betas: ['interleaved-thinking-2025-05-14'], messages: [{ role: 'user', content: 'hi' }] });
    expect(m.content[0]).toMatchObject({ type: 'text', text: 'Hello from claude-haiku-4-5' });
    const seen = anthropicUp.last('/v1/messages')!;
    expect(seen.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
    expect(seen.headers['x-api-key']).toBe(UPSTREAM_KEY);
    expect(seen.headers.authorization).toBeUndefined();
  });

  it('Claude Code\'s ?beta=true reaches a native upstream; without anthropic-version the current one is sent', async () => {
    const res = await postJson(h.base, '/v1/messages?beta=true', { model: 'claude-sonnet-4-6', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }, { 'x-api-key': key });
    expect(res.status).toBe(200);
    const seen = anthropicUp.last('/v1/messages')!;
    expect(seen.query.get('beta')).toBe('true');
    expect(seen.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('translated to an OpenAI-only upstream: system, image and text reach chat completions; the answer is a Message', async () => {
    const m = await client.messages.create({
      model: 'gpt-4o-mini',
      max_tokens: 64,
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }, { type: 'text', text: 'What is this?' }] }],
    });
    expect(m.type).toBe('message');
    expect(m.role).toBe('assistant');
    expect(textOf(m)).toBe('Hello from gpt-4o-mini');
    expect(m.stop_reason).toBe('end_turn');
    expect(m.usage).toMatchObject({ input_tokens: 10, output_tokens: 5 });
    const sent = JSON.parse(openaiUp.last('/v1/chat/completions')!.body.toString());
    expect(sent).toMatchObject({
      model: 'gpt-4o-mini',
      max_tokens: 64,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }, { type: 'text', text: 'What is this?' }] },
      ],
    });
    expect(openaiUp.last('/v1/chat/completions')!.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
  });

  it('a tool round trip, natively and translated to OpenAI and to Gemini (2.5, and 3, which wants its calls signed)', async () => {
    for (const model of ['claude-sonnet-4-6', 'gpt-4o', 'gemini-3-pro-preview', 'gemini-2.5-flash']) {
      const first = await client.messages.create({ model, max_tokens: 200, tools: [WEATHER], messages: [{ role: 'user', content: 'Weather in Paris?' }] });
      expect(first.stop_reason, model).toBe('tool_use');
      const call = first.content.find((b) => b.type === 'tool_use');
      expect(call, model).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } });
      const second = await client.messages.create({
        model,
        max_tokens: 200,
        tools: [WEATHER],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: (call as Anthropic.ToolUseBlock).id, content: '18°C, sunny' }] },
        ],
      });
      expect(second.stop_reason, model).toBe('end_turn');
      expect(textOf(second), model).toContain('18°C, sunny');
    }
    const toGemini = geminiUp.lastJson('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(toGemini.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: '18°C, sunny' } } }] },
    ]);
  });
});

describe('chat completions to an Anthropic upstream', () => {
  it('a reasoning request replaying a tool loop is sent without thinking (its signed thinking block cannot come back)', async () => {
    const res = await postJson(
      h.base,
      '/v1/chat/completions',
      {
        model: 'claude-sonnet-4-6',
        reasoning_effort: 'high',
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: WEATHER.input_schema } }],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
          { role: 'tool', tool_call_id: 'toolu_1', content: '18°C' },
        ],
      },
      { authorization: `Bearer ${key}` },
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toContain('18°C');
  });
});

describe('prompt estimate', () => {
  it('a base64 image counts by its pixels, not its length: 200 KB of image passes a 20,000-token TPM window', async () => {
    const png = Buffer.alloc(200_000);
    Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').copy(png, 0);
    png.writeUInt32BE(512, 16);
    png.writeUInt32BE(512, 20);
    const free = await makeKey(h.svc, { level: 'free' });
    const small = new Anthropic({ apiKey: free.key, baseURL: h.base, maxRetries: 0 });
    const m = await small.messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 50,
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } }, { type: 'text', text: 'What is this?' }] }],
    });
    expect(textOf(m)).toBe('Hello from claude-haiku-4-5');
  });
});

describe('built-in tools', () => {
  it('web search becomes the target\'s own search; a tool without an equivalent is left out and named', async () => {
    const tools = [{ type: 'web_search_20250305', name: 'web_search', max_uses: 2 }, { type: 'bash_20250124', name: 'bash' }] as unknown as Anthropic.ToolUnion[];
    const res = await client.messages.create({ model: 'gpt-4o-mini', max_tokens: 20, tools, messages: [{ role: 'user', content: 'news?' }] }).asResponse();
    expect(res.headers.get('x-gateway-dropped-tools')).toBe('bash_20250124');
    const sent = JSON.parse(openaiUp.last('/v1/chat/completions')!.body.toString()) as { web_search_options?: unknown; tools?: unknown };
    expect(sent.web_search_options).toEqual({});
    expect(sent.tools).toBeUndefined();
    await client.messages.create({ model: 'gemini-2.5-flash', max_tokens: 20, tools, messages: [{ role: 'user', content: 'news?' }] });
    expect(geminiUp.lastJson('/v1beta/models/gemini-2.5-flash:generateContent').tools).toEqual([{ googleSearch: {} }]);
  });
});

describe('thinking and output budgets to an OpenAI chat upstream', () => {
  const sent = (): Record<string, unknown> => JSON.parse(openaiUp.last('/v1/chat/completions')!.body.toString()) as Record<string, unknown>;
  // Claude Code's main requests: streamed, thinking on, max_tokens 32,000, temperature 1.
  const claudeCode = { stream: true as const, max_tokens: 32_000, thinking: { type: 'enabled' as const, budget_tokens: 10_000 }, temperature: 1, messages: [{ role: 'user' as const, content: 'hi' }] };

  it('a model without reasoning: thinking left out and named, max_tokens brought down to the model\'s maximum output', async () => {
    const res = await client.messages.create({ model: 'gpt-4o', ...claudeCode }).withResponse();
    const types: string[] = [];
    for await (const event of res.data) types.push(event.type);
    expect(types.at(-1)).toBe('message_stop');
    expect(res.response.headers.get('x-gateway-dropped-fields')).toBe('reasoning_effort');
    expect(sent()).toMatchObject({ model: 'gpt-4o', max_tokens: 16_384, temperature: 1 });
    expect(sent()).not.toHaveProperty('reasoning_effort');
  });

  it('a reasoning model: thinking as reasoning_effort, the budget as max_completion_tokens, other sampling left out and named', async () => {
    const warmer = { ...claudeCode, temperature: 0.3 };
    const res = await client.messages.create({ model: 'gpt-5-mini', ...warmer }).withResponse();
    for await (const _ of res.data) void _;
    expect(res.response.headers.get('x-gateway-dropped-fields')).toBe('temperature');
    expect(sent()).toMatchObject({ model: 'gpt-5-mini', reasoning_effort: 'medium', max_completion_tokens: 32_000 });
    expect(sent()).not.toHaveProperty('max_tokens');
    expect(sent()).not.toHaveProperty('temperature');
    // A model of no OpenAI family (another vendor behind an OpenAI-compatible API) gets the request as translated.
    const plain = await client.messages.create({ model: 'gpt-oss-120b', ...claudeCode }).withResponse();
    for await (const _ of plain.data) void _;
    expect(plain.response.headers.get('x-gateway-dropped-fields')).toBeNull();
    expect(sent()).toMatchObject({ model: 'gpt-oss-120b', max_tokens: 32_000, reasoning_effort: 'medium' });
  });
});

describe('@anthropic-ai/sdk: messages.stream', () => {
  it('native: the upstream event sequence as it comes; usage from message_start and message_delta', async () => {
    const stream = client.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 100, messages: [{ role: 'user', content: 'Say hi' }] });
    const deltas: string[] = [];
    stream.on('text', (t) => deltas.push(t));
    const final = await stream.finalMessage();
    expect(deltas.join('')).toBe('Hello from claude-sonnet-4-6');
    expect(deltas.length).toBeGreaterThan(1);
    expect(final.usage).toMatchObject({ input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 4, cache_creation_input_tokens: 2 });
    const row = await rowWhere((r) => r.route === 'messages' && r.stream && r.model === 'claude-sonnet-4-6');
    expect(row).toMatchObject({ promptTokens: 16, completionTokens: 5, usageSource: 'upstream', endReason: 'completed' });
  });

  it('a limited key\'s native stream that outruns its reservation ends as a max_tokens stop the SDK finishes', async () => {
    anthropicUp.script('POST', '/v1/messages', async (_req, res) => {
      // An upstream that ignores max_tokens: it streams far more than the 1 token asked for.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = (name: string, data: object): boolean => res.write(`event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`);
      event('message_start', { message: { id: 'msg_long', type: 'message', role: 'assistant', content: [], model: 'claude-sonnet-4-6', stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } } });
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      for (let i = 0; i < 50; i++) {
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'word word word ' } });
        await sleep(1);
      }
      event('content_block_stop', { index: 0 });
      event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 150 } });
      event('message_stop', {});
      res.end();
    });
    const limited = await makeKey(h.svc, { quotaMicros: 1_000_000 });
    const sdk = new Anthropic({ apiKey: limited.key, baseURL: h.base, maxRetries: 0 });
    const final = await sdk.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] }).finalMessage();
    expect(final.stop_reason).toBe('max_tokens');
    expect(textOf(final).length).toBeLessThan(50 * 15);
  });

  it('translated streams (OpenAI and Gemini upstreams): text, tool_use with its input, stop reason and usage', async () => {
    const text = client.messages.stream({ model: 'gpt-4o-mini', max_tokens: 100, messages: [{ role: 'user', content: 'Say hi' }] });
    const final = await text.finalMessage();
    expect(textOf(final)).toBe('c0c1c2c3c4');
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage).toMatchObject({ input_tokens: 10, output_tokens: 5 });
    for (const model of ['gpt-4o', 'gemini-2.5-flash']) {
      const withTool = await client.messages.stream({ model, max_tokens: 100, tools: [WEATHER], messages: [{ role: 'user', content: 'Weather?' }] }).finalMessage();
      expect(withTool.stop_reason, model).toBe('tool_use');
      expect(withTool.content.find((b) => b.type === 'tool_use'), model).toMatchObject({ name: 'get_weather', input: { city: 'Paris' } });
    }
    const row = await rowWhere((r) => r.route === 'messages' && r.stream && r.model === 'gemini-2.5-flash');
    expect(row).toMatchObject({ promptTokens: 12, completionTokens: 9, usageSource: 'upstream', endReason: 'completed' });
  });
});

describe('count_tokens', () => {
  it('an Anthropic upstream counts; another style gets our own estimate', async () => {
    const params = { messages: [{ role: 'user' as const, content: 'How many tokens is this sentence?' }], system: 'Be brief.' };
    const native = await client.messages.countTokens({ model: 'claude-sonnet-4-6', ...params });
    expect(native.input_tokens).toBeGreaterThan(0);
    expect(anthropicUp.last('/v1/messages/count_tokens')).toBeDefined();
    const estimated = await client.messages.countTokens({ model: 'gpt-4o', ...params });
    expect(estimated.input_tokens).toBeGreaterThan(5);
    expect(estimated.input_tokens).toBeLessThan(60);
    expect(openaiUp.requests).toHaveLength(0);
  });

  // Claude's vision guide ("Evaluate image size", "Calculate image costs"): width × height / 750
  // tokens, after scaling down to a long edge of at most 1568 pixels and at most ~1,600 tokens.
  it('the estimate counts an image by Anthropic\'s rule, not OpenAI\'s tiles', async () => {
    const image = (width: number, height: number) => ({ type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: PNG.sync.write(new PNG({ width, height })).toString('base64') } });
    const count = async (content: Anthropic.ContentBlockParam[]) => (await client.messages.countTokens({ model: 'gpt-4o', messages: [{ role: 'user', content }] })).input_tokens;
    const text = await count([{ type: 'text', text: 'What is this?' }]);
    // What an image adds: its tokens, and a few for the JSON that wraps it.
    const added = async (width: number, height: number) => (await count([image(width, height), { type: 'text', text: 'What is this?' }])) - text;
    const near = (n: number) => ({ asymmetricMatch: (x: number) => x >= n && x <= n + 30, toString: () => `${n} to ${n + 30}` });
    // 1000×1000: 1,334 tokens by Anthropic's rule (OpenAI's tiles would say 765).
    expect(await added(1000, 1000)).toEqual(near(1334));
    // 200×200: 54; 3000×2000 is scaled down to the ~1,600-token limit.
    expect(await added(200, 200)).toEqual(near(54));
    expect(await added(3000, 2000)).toEqual(near(1600));
    // An image by URL (size unknown): the most an image can cost.
    expect((await count([{ type: 'image', source: { type: 'url', url: 'https://img.example/cat.png' } }, { type: 'text', text: 'What is this?' }])) - text).toBeGreaterThanOrEqual(1600);
    expect(openaiUp.requests).toHaveLength(0);
  });
});

describe('@ai-sdk/anthropic (ai 6)', () => {
  const weather = tool({
    description: 'Weather for a city',
    inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
    execute: async ({ city }) => `18°C in ${city}`,
  });

  it('generateText with a tool that runs, natively and translated to OpenAI and to Gemini', async () => {
    const anthropic = createAnthropic({ baseURL: `${h.base}/v1`, apiKey: key });
    for (const model of ['claude-sonnet-4-6', 'gpt-4o', 'gemini-2.5-pro']) {
      const result = await generateText({ model: anthropic(model), prompt: 'Weather in Paris?', tools: { get_weather: weather }, stopWhen: stepCountIs(3), maxRetries: 0 });
      expect(result.steps[0]!.toolCalls[0], model).toMatchObject({ toolName: 'get_weather', input: { city: 'Paris' } });
      expect(result.text, model).toContain('18°C in Paris');
    }
  });

  it('streamText, natively and translated', async () => {
    const anthropic = createAnthropic({ baseURL: `${h.base}/v1`, apiKey: key });
    for (const [model, expected] of [
      ['claude-sonnet-4-6', 'Hello from claude-sonnet-4-6'],
      ['gpt-4o-mini', 'c0c1c2c3c4'],
      ['gemini-2.5-flash', 'Hello from gemini-2.5-flash'],
    ] as const) {
      const result = streamText({ model: anthropic(model), prompt: 'hi', maxRetries: 0 });
      let text = '';
      for await (const t of result.textStream) text += t;
      expect(text, model).toBe(expected);
      expect((await result.usage).outputTokens, model).toBeGreaterThan(0);
    }
  });
});

describe('errors in Anthropic\'s shape', () => {
  it('a missing or wrong key, bad bodies and an untranslatable field: 4xx the SDK raises as its own error classes', async () => {
    const anon = new Anthropic({ apiKey: 'sk-wrong', baseURL: h.base, maxRetries: 0 });
    const unauth = await anon.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(unauth).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((unauth as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const missing = await fetch(`${h.base}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error', message: expect.stringContaining('x-api-key') } });

    const spaced = await postJson(h.base, '/v1/messages', { model: 'claude-sonnet-4-6', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }, { 'x-api-key': `${key} x` });
    expect(spaced.status).toBe(401);
    expect(await spaced.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error', message: expect.stringContaining('x-api-key') } });
    // x-api-key is read on the Anthropic routes only; elsewhere the strict Bearer rule holds.
    const elsewhere = await postJson(h.base, '/v1/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }, { 'x-api-key': key });
    expect(elsewhere.status).toBe(401);
    expect(await elsewhere.json()).toMatchObject({ error: { code: 'invalid_api_key' } });

    const noMax = await postJson(h.base, '/v1/messages', { model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'x' }] }, { 'x-api-key': key });
    expect(noMax.status).toBe(400);
    expect(await noMax.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('max_tokens') } });
    const notJson = await fetch(`${h.base}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: '{"model":' });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });

    const untranslatable = await client.messages
      .create({ model: 'gpt-4o', max_tokens: 5, messages: [{ role: 'user', content: 'x' }], container: 'container_1' } as Anthropic.MessageCreateParamsNonStreaming)
      .catch((e: unknown) => e);
    expect(untranslatable).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String((untranslatable as Error).message)).toContain('container');
    const badBlock = await client.messages.create({ model: 'gemini-2.5-flash', max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png' } } as never] }] }).catch((e: unknown) => e);
    expect(badBlock).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String((badBlock as Error).message)).toContain('messages[0].content[0].source.data');
    expect(openaiUp.requests).toHaveLength(0);
    expect(geminiUp.requests).toHaveLength(0);
  });

  it('an upstream 4xx keeps its Anthropic body; a translated upstream\'s 4xx is rendered in Anthropic\'s shape', async () => {
    const native = await postJson(h.base, '/v1/messages', { model: 'claude-sonnet-4-6', max_tokens: 5, messages: 'nope' }, { 'x-api-key': key });
    expect(native.status).toBe(400);
    openaiUp.script('POST', '/v1/chat/completions', (_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'context too long', type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } }));
    });
    const err = await client.messages.create({ model: 'gpt-4o', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect((err as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'context too long' } });
  });

  it('a stream cut mid-event (native and translated) ends in an error the client raises, never a hang', async () => {
    anthropicUp.script('POST', '/v1/messages', async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-6","usage":{"input_tokens":3,"output_tokens":1}}}\n\n');
      res.write('event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n');
      res.write('event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel');
      await sleep(20);
      res.socket?.destroy();
    });
    openaiUp.script('POST', '/v1/chat/completions', async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}\n\n');
      res.write('data: {"id":"c","object":"chat.compl');
      await sleep(20);
      res.socket?.destroy();
    });
    for (const model of ['claude-sonnet-4-6', 'gpt-4o']) {
      const err = await client.messages
        .stream({ model, max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
        .finalMessage()
        .catch((e: unknown) => e);
      expect(err, model).toBeInstanceOf(Error);
    }
    expect(await rowWhere((r) => r.route === 'messages' && r.stream && r.model === 'gpt-4o' && r.endReason === 'upstream_error')).toBeDefined();
  });
});
