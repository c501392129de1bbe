/**
 * OpenAI Responses through the gateway with the official clients (openai, the Vercel AI SDK's
 * default OpenAI provider, @openai/agents): natively to an upstream that speaks Responses, and
 * translated through chat completions to one that speaks only chat; stored responses read back
 * from the upstream that made them; /v1/completions and /v1/moderations; model aliases and
 * fallbacks; bad input answered as a 4xx in the OpenAI shape, never a 500 or a hung client.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool as aiTool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinUpstreamPath } from '../../src/gateway/upstream.ts';
import type { StoredUsageRow } from '../../src/gateway/usage.ts';
import { bearer, makeKey, postJson, startGateway, type Harness, usageRowWhere, waitFor } from './helpers.ts';
import { keyedClient, openaiClient, runWeatherAgent } from './openai-sdks.ts';
import { ModelUpstream, sleep } from './model-upstream.ts';

let native: ModelUpstream;
let chatOnly: ModelUpstream;
let dead: http.Server;
let h: Harness;
let key: string;
let keyId: string;
let openai: OpenAI;

const responsesCount = (u: ModelUpstream) => u.requests.filter((r) => r.path.startsWith('/v1/responses')).length;

/** The usage row a request left, once it is written (after the answer went out). */
const rowWhere = (pred: (row: StoredUsageRow) => boolean): Promise<StoredUsageRow | undefined> => usageRowWhere(h.svc, keyId, pred);

beforeAll(async () => {
  native = await new ModelUpstream().start();
  chatOnly = await new ModelUpstream().start();
  // An upstream that accepts connections and answers every request with a 503.
  dead = http.createServer((_req, res) => res.writeHead(503).end('down'));
  await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
  h = await startGateway({
    upstream: native,
    env: {
      AI_UPSTREAM_BASE_URL: '',
      AI_UPSTREAMS: JSON.stringify([
        { name: 'native', url: native.url, models: ['gpt-native*'] },
        { name: 'responses-only', url: native.url, api: ['responses'], models: ['gpt-resp-only'] },
        { name: 'chat-only', url: chatOnly.url, api: ['openai'], models: { 'gpt-chat': 'gpt-chat', 'gpt-public': 'vendor-gpt-2024-11' } },
        { name: 'dead', url: `http://127.0.0.1:${(dead.address() as AddressInfo).port}`, models: ['gpt-dead'] },
      ]),
      AI_UPSTREAM_API_KEY: 'upstream-key',
      AI_MODEL_FALLBACKS: JSON.stringify({ 'gpt-dead': ['gpt-chat'] }),
      AI_UPSTREAM_ATTEMPTS: '1',
    },
  });
  ({ key, keyId, openai } = await keyedClient(h));
});

afterAll(async () => {
  await h?.close();
  await native?.stop();
  await chatOnly?.stop();
  await new Promise((r) => dead?.close(r));
});

describe('openai client: responses.create', () => {
  it('passes a request through unchanged to an upstream that speaks Responses (JSON and stream)', async () => {
    const r = await openai.responses.create({ model: 'gpt-native-1', input: 'hi', instructions: 'be brief' });
    expect(r.output_text).toBe('Hello from gpt-native-1');
    expect(r.id).toMatch(/^resp_/);
    const seen = native.last('/v1/responses')!;
    expect(JSON.parse(seen.body.toString())).toEqual({ model: 'gpt-native-1', input: 'hi', instructions: 'be brief' });
    const stream = await openai.responses.create({ model: 'gpt-native-1', input: 'hi', stream: true });
    const types: string[] = [];
    let text = '';
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === 'response.output_text.delta') text += ev.delta;
    }
    expect(text).toBe('Hello from gpt-native-1');
    expect(types.at(-1)).toBe('response.completed');
    expect(await rowWhere((row) => row.stream && row.route === 'responses.create')).toMatchObject({ promptTokens: 12, completionTokens: 6 });
  });

  it('translates to chat completions for an upstream that speaks only chat (JSON)', async () => {
    const before = responsesCount(chatOnly);
    const r = await openai.responses.create({
      model: 'gpt-chat',
      instructions: 'be brief',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'look' }, { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' }] }],
      max_output_tokens: 50,
    });
    expect(r.object).toBe('response');
    expect(r.status).toBe('completed');
    expect(r.output_text).toBe('Hello from gpt-chat');
    expect(r.usage).toMatchObject({ input_tokens: 10, output_tokens: 5, total_tokens: 15 });
    expect(responsesCount(chatOnly)).toBe(before);
    const sent = JSON.parse(chatOnly.last('/v1/chat/completions')!.body.toString());
    expect(sent.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' } }] },
    ]);
    expect(sent.max_tokens).toBe(50);
    expect(chatOnly.last('/v1/chat/completions')!.headers.authorization).toBe('Bearer upstream-key');
  });

  it('translates a stream into the Responses event sequence, billed by the upstream usage', async () => {
    const stream = await openai.responses.create({ model: 'gpt-chat', input: 'hi', stream: true });
    const types: string[] = [];
    let text = '';
    let final: OpenAI.Responses.Response | undefined;
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === 'response.output_text.delta') text += ev.delta;
      if (ev.type === 'response.completed') final = ev.response;
    }
    expect(text).toBe('c0c1c2c3c4');
    expect([...new Set(types)]).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(final?.usage).toMatchObject({ input_tokens: 10, output_tokens: 5 });
    const sent = JSON.parse(chatOnly.last('/v1/chat/completions')!.body.toString());
    expect(sent.stream_options).toEqual({ include_usage: true });
    expect(await rowWhere((row) => row.stream && row.model === 'gpt-chat')).toMatchObject({ promptTokens: 10, completionTokens: 5, usageSource: 'upstream' });
  });

  it('carries a function call and its output both ways, streamed and not', async () => {
    const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, strict: false }];
    const first = await openai.responses.create({ model: 'gpt-chat', input: 'weather in Paris?', tools });
    const call = first.output.find((o) => o.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', call_id: 'call_abc', name: 'weather', arguments: '{"city":"Paris"}' });
    const sentTools = JSON.parse(chatOnly.last('/v1/chat/completions')!.body.toString()).tools;
    expect(sentTools).toEqual([{ type: 'function', function: { name: 'weather', description: 'Weather of a city', parameters: tools[0]!.type === 'function' ? tools[0]!.parameters : {}, strict: false } }]);
    const second = await openai.responses.create({
      model: 'gpt-chat',
      tools,
      input: [{ role: 'user', content: 'weather in Paris?' }, call as OpenAI.Responses.ResponseFunctionToolCall, { type: 'function_call_output', call_id: 'call_abc', output: 'sunny' }],
    });
    expect(second.output_text).toBe('The tool said sunny');
    const sent = JSON.parse(chatOnly.last('/v1/chat/completions')!.body.toString());
    expect(sent.messages.slice(1)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_abc', content: 'sunny' },
    ]);
    const stream = await openai.responses.create({ model: 'gpt-chat', input: 'weather in Paris?', tools, stream: true });
    let args = '';
    let done: unknown;
    for await (const ev of stream) {
      if (ev.type === 'response.function_call_arguments.delta') args += ev.delta;
      if (ev.type === 'response.function_call_arguments.done') done = ev.arguments;
    }
    expect(args).toBe('{"city":"Paris"}');
    expect(done).toBe('{"city":"Paris"}');
  });

  it('maps web search, drops other built-in tools and names them in a header', async () => {
    const res = await postJson(h.base, '/v1/responses', { model: 'gpt-chat', input: 'hi', tools: [{ type: 'web_search_preview' }, { type: 'file_search', vector_store_ids: ['vs_1'] }, { type: 'code_interpreter', container: { type: 'auto' } }] }, bearer(key));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-dropped-tools')).toBe('file_search, code_interpreter');
    const sent = JSON.parse(chatOnly.last('/v1/chat/completions')!.body.toString());
    expect(sent.web_search_options).toEqual({});
    expect(sent.tools).toBeUndefined();
  });
});

describe('chat completions to an upstream that speaks only Responses', () => {
  it('translates chat to Responses and back, JSON, stream and a tool round trip', async () => {
    const r = await openai.chat.completions.create({ model: 'gpt-resp-only', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }], max_tokens: 40 });
    expect(r.choices[0]!.message.content).toBe('Hello from gpt-resp-only');
    expect(r.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 6, prompt_tokens_details: { cached_tokens: 2 } });
    const sent = JSON.parse(native.last('/v1/responses')!.body.toString());
    expect(sent).toEqual({ model: 'gpt-resp-only', instructions: 'be brief', input: [{ role: 'user', content: 'hi' }], store: false, max_output_tokens: 40 });
    const stream = await openai.chat.completions.create({ model: 'gpt-resp-only', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: unknown;
    for await (const c of stream) {
      text += c.choices[0]?.delta.content ?? '';
      if (c.usage) usage = c.usage;
    }
    expect(text).toBe('Hello from gpt-resp-only');
    expect(usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 6 });
    const tools: OpenAI.Chat.ChatCompletionTool[] = [{ type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const first = await openai.chat.completions.create({ model: 'gpt-resp-only', messages: [{ role: 'user', content: 'weather?' }], tools });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call).toMatchObject({ id: 'call_1', function: { name: 'weather', arguments: '{"city":"Paris"}' } });
    const second = await openai.chat.completions.create({ model: 'gpt-resp-only', tools, messages: [{ role: 'user', content: 'weather?' }, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'sunny' }] });
    expect(second.choices[0]!.message.content).toBe('The tool said sunny');
    const streamed = await openai.chat.completions.create({ model: 'gpt-resp-only', messages: [{ role: 'user', content: 'weather?' }], tools, stream: true });
    let args = '';
    for await (const c of streamed) args += c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
    expect(args).toBe('{"city":"Paris"}');
    const stop = await postJson(h.base, '/v1/chat/completions', { model: 'gpt-resp-only', messages: [{ role: 'user', content: 'hi' }], stop: ['\n'] }, bearer(key));
    expect(stop.status).toBe(400);
    expect((await stop.json()).error.param).toBe('stop');
  });
});

describe('stored responses', () => {
  it('reads, lists the input of and deletes a response on the upstream that made it, for its account only', async () => {
    const r = await openai.responses.create({ model: 'gpt-native-1', input: 'remember me' });
    const got = await openai.responses.retrieve(r.id);
    expect(got.id).toBe(r.id);
    const items = await openai.responses.inputItems.list(r.id);
    expect(items.data.length).toBe(1);
    const other = openaiClient(h.base, (await makeKey(h.svc)).key);
    await expect(other.responses.retrieve(r.id)).rejects.toMatchObject({ status: 404, code: 'response_not_found' });
    await openai.responses.delete(r.id);
    await expect(openai.responses.retrieve(r.id)).rejects.toMatchObject({ status: 404 });
    await expect(openai.responses.retrieve('resp_never_made_here')).rejects.toMatchObject({ status: 404, code: 'response_not_found' });
  });
});

describe('completions and moderations', () => {
  it('forwards both with the openai client and bills them', async () => {
    const c = await openai.completions.create({ model: 'gpt-native-instruct', prompt: 'Say', max_tokens: 5 });
    expect(c.choices[0]!.text).toBe(' completed: Say');
    const m = await openai.moderations.create({ input: 'I will kill the process' });
    expect(m.results[0]!.flagged).toBe(true);
    expect(await rowWhere((row) => row.route === 'completions')).toMatchObject({ promptTokens: 4, completionTokens: 3 });
    expect(await rowWhere((row) => row.route === 'moderations')).toBeDefined();
    const bad = await postJson(h.base, '/v1/completions', { model: 'gpt-native-instruct', prompt: 42 }, bearer(key));
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.param).toBe('prompt');
  });
});

describe('aliases and fallbacks', () => {
  it('sends an upstream its own name for a public model', async () => {
    const r = await openai.responses.create({ model: 'gpt-public', input: 'hi' });
    expect(JSON.parse(chatOnly.last('/v1/chat/completions')!.body.toString()).model).toBe('vendor-gpt-2024-11');
    expect(r.model).toBe('gpt-public');
    const chat = await openai.chat.completions.create({ model: 'gpt-public', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.choices[0]!.message.content).toBe('Hello from vendor-gpt-2024-11');
  });

  it('tries the fallback model when every upstream of the model fails before the first byte', async () => {
    const res = await postJson(h.base, '/v1/chat/completions', { model: 'gpt-dead', messages: [{ role: 'user', content: 'hi' }] }, bearer(key));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-fallback-model')).toBe('gpt-chat');
    expect((await res.json()).choices[0].message.content).toBe('Hello from gpt-chat');
  });

  it('lists the public model names on /v1/models', async () => {
    const ids = (await openai.models.list()).data.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['gpt-public', 'gpt-chat']));
    expect(ids).not.toContain('vendor-gpt-2024-11');
    expect((await openai.models.retrieve('gpt-public')).id).toBe('gpt-public');
  });
});

describe('bad input', () => {
  it('answers a 400 in the OpenAI shape naming the field, never a 500', async () => {
    const cases: [unknown, string | null][] = [
      [{ model: 'gpt-chat', input: 'hi', previous_response_id: 'resp_1' }, 'previous_response_id'],
      [{ model: 'gpt-chat', input: [{ type: 'computer_call_output', call_id: 'x' }] }, 'input[0].type'],
      [{ model: 'gpt-chat', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }] }, 'input[0].content[0].image_url'],
      [{ model: 'gpt-chat', input: [{ role: 'robot', content: 'hi' }] }, 'input[0].role'],
      [{ model: 'gpt-chat', input: [{ type: 'item_reference', id: 'msg_unknown' }] }, 'input[0].id'],
      [{ model: 'gpt-chat' }, 'input'],
      [{ input: 'hi' }, 'model'],
      [{ model: 'gpt-chat', input: 'hi', stream: 'yes' }, 'stream'],
    ];
    for (const [body, param] of cases) {
      const res = await postJson(h.base, '/v1/responses', body, bearer(key));
      expect(res.status, JSON.stringify(body)).toBe(400);
      const err = (await res.json()).error;
      expect(err.param, JSON.stringify(body)).toBe(param);
      expect(err.type).toBe('invalid_request_error');
    }
    const malformed = await fetch(`${h.base}/v1/responses`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: '{"model":' });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.code).toBe('invalid_json');
  });

  it('ends a translated stream whose upstream stops mid-event with error and response.failed events, not a hang', async () => {
    chatOnly.script('POST', '/v1/chat/completions', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'gpt-chat', choices: [{ index: 0, delta: { content: 'par' }, finish_reason: null }] })}\n\n`);
      res.end('data: {"id":"x","choi');
    });
    try {
      const stream = await openai.responses.create({ model: 'gpt-chat', input: 'hi', stream: true });
      const events: OpenAI.Responses.ResponseStreamEvent[] = [];
      for await (const ev of stream) events.push(ev);
      expect(events.filter((e) => e.type === 'response.output_text.delta').map((e) => (e as { delta: string }).delta)).toEqual(['par']);
      expect(events.map((e) => e.type).slice(-2)).toEqual(['error', 'response.failed']);
      const failed = events.at(-1) as OpenAI.Responses.ResponseFailedEvent;
      expect(failed.response.status).toBe('failed');
      expect(failed.response.error?.message).toMatch(/ended before/);
    } finally {
      chatOnly.reset();
    }
  });
});

/** Streams a Responses request and leaves (aborts) once what arrived is `enough`. */
async function leaveStream(body: Record<string, unknown>, enough: (seen: string) => boolean): Promise<void> {
  const abort = new AbortController();
  const res = await fetch(`${h.base}/v1/responses`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify(body), signal: abort.signal });
  const reader = res.body!.getReader();
  let seen = '';
  while (!enough(seen)) seen += new TextDecoder().decode((await reader.read()).value);
  abort.abort();
}

describe('a client that leaves a translated stream', () => {
  it('cancels the upstream stream and records the request as closed by the client', async () => {
    chatOnly.script('POST', '/v1/chat/completions', async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < 100 && !res.destroyed; i++) {
        res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'gpt-chat-slow', choices: [{ index: 0, delta: { content: `t${i} ` }, finish_reason: null }] })}\n\n`);
        await sleep(30);
      }
      res.end('data: [DONE]\n\n');
    });
    try {
      await leaveStream({ model: 'gpt-chat', input: 'slow please', stream: true, metadata: { run: 'leave' } }, (seen) => seen.includes('response.output_text.delta'));
      expect(await waitFor(() => chatOnly.aborted.includes('/v1/chat/completions'), 3000)).toBe(true);
      const row = await rowWhere((r) => r.route === 'responses.create' && r.endReason === 'client_closed');
      expect(row).toMatchObject({ stream: true, model: 'gpt-chat' });
      expect(row!.completionTokens).toBeGreaterThan(0);
    } finally {
      chatOnly.reset();
    }
  });
});

describe('a client that leaves a native Responses stream', () => {
  it('is billed for the text it got (output_text.delta events count)', async () => {
    native.script('POST', '/v1/responses', async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let seq = 0;
      const send = (type: string, fields: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...fields })}\n\n`);
      send('response.created', { response: { id: 'resp_slow', object: 'response', created_at: 1, model: 'gpt-native-slow', status: 'in_progress', output: [] } });
      for (let i = 0; i < 100 && !res.destroyed; i++) {
        send('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: `word${i} ` });
        await sleep(30);
      }
      res.end();
    });
    try {
      await leaveStream({ model: 'gpt-native-slow', input: 'slow please', stream: true }, (seen) => (seen.match(/output_text\.delta/g) ?? []).length >= 6);
      const row = await rowWhere((r) => r.model === 'gpt-native-slow' && r.endReason === 'client_closed');
      expect(row).toBeDefined();
      expect(row!.completionTokens).toBeGreaterThan(0);
    } finally {
      native.reset();
    }
  });
});

describe('Vercel AI SDK (@ai-sdk/openai default provider: Responses)', () => {
  const provider = () => createOpenAI({ baseURL: `${h.base}/v1`, apiKey: key });
  const weather = aiTool({ description: 'Weather of a city', inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }), execute: async () => 'sunny' });

  for (const model of ['gpt-native-1', 'gpt-chat']) {
    it(`generates and streams text against ${model}`, async () => {
      const r = await generateText({ model: provider()(model), prompt: 'hi' });
      expect(r.text).toBe(`Hello from ${model}`);
      expect(r.usage.inputTokens).toBeGreaterThan(0);
      const s = streamText({ model: provider()(model), prompt: 'hi' });
      let text = '';
      for await (const part of s.textStream) text += part;
      expect(text).toBe(model === 'gpt-chat' ? 'c0c1c2c3c4' : `Hello from ${model}`);
    });

    it(`runs a tool call round trip against ${model}`, async () => {
      const r = await generateText({ model: provider()(model), prompt: 'weather in Paris?', tools: { weather }, stopWhen: stepCountIs(3) });
      expect(r.steps[0]!.toolCalls[0]).toMatchObject({ toolName: 'weather', input: { city: 'Paris' } });
      expect(r.text).toBe('The tool said sunny');
      const s = streamText({ model: provider()(model), prompt: 'weather in Paris?', tools: { weather }, stopWhen: stepCountIs(3) });
      let text = '';
      for await (const part of s.textStream) text += part;
      expect(text.trim()).toBe('The tool said sunny');
    });
  }
});

describe('@openai/agents run', () => {
  for (const model of ['gpt-native-1', 'gpt-chat']) {
    it(`runs an agent with a tool against ${model}, streamed and not`, async () => {
      const { answer, streamed } = await runWeatherAgent(h.base, key, model);
      expect(answer).toBe('The tool said sunny');
      expect(streamed).toBe('The tool said sunny');
    });
  }
});

describe('upstream URL with a path', () => {
  it('does not double the version segment', () => {
    expect(joinUpstreamPath('/v1beta/openai', '/v1/chat/completions')).toBe('/v1beta/openai/chat/completions');
    expect(joinUpstreamPath('/openai/v1', '/v1/responses')).toBe('/openai/v1/responses');
    expect(joinUpstreamPath('/proxy', '/v1/chat/completions')).toBe('/proxy/v1/chat/completions');
    expect(joinUpstreamPath('', '/v1beta/models/x:generateContent')).toBe('/v1beta/models/x:generateContent');
  });
});
