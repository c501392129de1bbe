/**
 * Responses clients (openai, the Vercel AI SDK's default OpenAI provider, @openai/agents) through
 * the gateway to upstreams that speak only Anthropic Messages or only Gemini: translated
 * Responses -> chat -> vendor and back, JSON and streams, with a tool call round trip, usage
 * billed from the vendor's counts, and the vendor's error answered in the OpenAI shape.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool as aiTool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredUsageRow } from '../../src/gateway/usage.ts';
import { bearer, postJson, startGateway, type Harness, usageRowWhere } from './helpers.ts';
import { keyedClient, runWeatherAgent } from './openai-sdks.ts';
import { AnthropicUpstream, GeminiUpstream } from './vendor-upstreams.ts';

let anthropic: AnthropicUpstream;
let gemini: GeminiUpstream;
let h: Harness;
let key: string;
let keyId: string;
let openai: OpenAI;

beforeAll(async () => {
  anthropic = await new AnthropicUpstream('anthropic-upstream-key').start();
  gemini = await new GeminiUpstream('gemini-upstream-key').start();
  h = await startGateway({
    withUpstream: false,
    env: {
      AI_UPSTREAMS: JSON.stringify([
        { name: 'anthropic', url: anthropic.url, key: 'anthropic-upstream-key', api: ['anthropic'], models: ['claude-*'] },
        { name: 'gemini', url: gemini.url, key: 'gemini-upstream-key', api: ['gemini'], models: ['gemini-*'] },
      ]),
    },
  });
  ({ key, keyId, openai } = await keyedClient(h));
});

afterAll(async () => {
  await h?.close();
  await anthropic?.stop();
  await gemini?.stop();
});

const rowWhere = (pred: (row: StoredUsageRow) => boolean): Promise<StoredUsageRow | undefined> => usageRowWhere(h.svc, keyId, pred);

const weatherTool: OpenAI.Responses.Tool = { type: 'function', name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, strict: false };

const vendors = [
  { model: 'claude-sonnet-4-5', upstream: () => anthropic, path: '/v1/messages' },
  { model: 'gemini-2.5-flash', upstream: () => gemini, path: '/v1beta/models/gemini-2.5-flash' },
] as const;

for (const v of vendors) {
  describe(`Responses to ${v.model} (translated)`, () => {
    it('answers JSON and streams, billed from the vendor usage', async () => {
      const r = await openai.responses.create({ model: v.model, instructions: 'be brief', input: 'hi', max_output_tokens: 100 });
      expect(r.output_text).toBe(`Hello from ${v.model}`);
      expect(r.usage?.input_tokens).toBeGreaterThan(0);
      expect(v.upstream().last(v.path)).toBeDefined();
      const stream = await openai.responses.create({ model: v.model, input: 'hi', stream: true });
      let text = '';
      const types: string[] = [];
      for await (const ev of stream) {
        types.push(ev.type);
        if (ev.type === 'response.output_text.delta') text += ev.delta;
      }
      expect(text).toBe(`Hello from ${v.model}`);
      expect(types[0]).toBe('response.created');
      expect(types.at(-1)).toBe('response.completed');
      const row = await rowWhere((x) => x.stream && x.model === v.model);
      expect(row).toMatchObject({ usageSource: 'upstream' });
      expect(row!.promptTokens).toBeGreaterThan(0);
    });

    it('carries a function call and its result, streamed and not', async () => {
      const first = await openai.responses.create({ model: v.model, input: 'weather in Paris?', tools: [weatherTool] });
      const call = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall | undefined;
      expect(call).toMatchObject({ name: 'get_weather' });
      expect(JSON.parse(call!.arguments)).toEqual({ city: 'Paris' });
      const second = await openai.responses.create({ model: v.model, tools: [weatherTool], input: [{ role: 'user', content: 'weather in Paris?' }, call!, { type: 'function_call_output', call_id: call!.call_id, output: 'sunny' }] });
      expect(second.output_text).toContain('sunny');
      const stream = await openai.responses.create({ model: v.model, input: 'weather in Paris?', tools: [weatherTool], stream: true });
      let args = '';
      for await (const ev of stream) if (ev.type === 'response.function_call_arguments.delta') args += ev.delta;
      expect(JSON.parse(args)).toEqual({ city: 'Paris' });
    });

    it('works with the AI SDK default provider and an @openai/agents run', async () => {
      const provider = createOpenAI({ baseURL: `${h.base}/v1`, apiKey: key });
      const weather = aiTool({ description: 'Weather of a city', inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }), execute: async () => 'sunny' });
      const r = await generateText({ model: provider(v.model), prompt: 'weather in Paris?', tools: { get_weather: weather }, stopWhen: stepCountIs(3) });
      expect(r.text).toContain('sunny');
      const s = streamText({ model: provider(v.model), prompt: 'hi' });
      let text = '';
      for await (const part of s.textStream) text += part;
      expect(text).toBe(`Hello from ${v.model}`);

      const { answer, streamed } = await runWeatherAgent(h.base, key, v.model);
      expect(answer).toContain('sunny');
      expect(streamed).toContain('sunny');
    });
  });
}

describe('routes no upstream here can take', () => {
  it('answer 400 unsupported_api_style (OpenAI-only routes with only Anthropic and Gemini upstreams)', async () => {
    const emb = await postJson(h.base, '/v1/embeddings', { model: 'claude-sonnet-4-5', input: 'x' }, bearer(key));
    expect(emb.status).toBe(400);
    expect((await emb.json()).error).toMatchObject({ code: 'unsupported_api_style', param: 'model' });
    const mod = await postJson(h.base, '/v1/moderations', { input: 'x' }, bearer(key));
    expect(mod.status).toBe(400);
    expect((await mod.json()).error).toMatchObject({ code: 'unsupported_api_style', param: null });
  });
});

describe('vendor errors through translation', () => {
  it('answers the vendor 4xx in the OpenAI shape', async () => {
    anthropic.script('POST', '/v1/messages', (_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'messages.0.content: too long' } }));
    });
    try {
      await expect(openai.responses.create({ model: 'claude-sonnet-4-5', input: 'hi' })).rejects.toMatchObject({ status: 400, message: expect.stringContaining('too long') });
    } finally {
      anthropic.reset();
    }
  });
});
