/** The Anthropic Messages codec on Anthropic's documented event sequences and request shapes (fixtures: test/fixtures/translate/README.md). */
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/gateway/errors.ts';
import { anthropicCodec } from '../../src/gateway/translate/anthropic.ts';
import { TranslationError, type ChatChunk, type ChatRequest, type ChatResponse } from '../../src/gateway/translate/types.ts';
import { caught, decodeWith, Dropped, events, fixture, joined } from './codec-support.ts';

const decode = (text: string): ChatChunk[] => decodeWith(anthropicCodec, text);

describe('Anthropic upstream stream → chat chunks', () => {
  it('text: the deltas in order, end_turn as stop, usage with cache reads and writes counted into the prompt', () => {
    const chunks = decode(fixture('anthropic-text.sse'));
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(joined(chunks, (d) => d.content)).toBe('Paris is the capital of France.');
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]!.finish_reason).toBe('stop');
    const usage = chunks.at(-1)!.usage!;
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(usage).toMatchObject({ prompt_tokens: 21 + 100 + 2000, completion_tokens: 9, total_tokens: 2121 + 9, prompt_tokens_details: { cached_tokens: 2000 }, cache_creation_input_tokens: 100 });
    expect(chunks.every((c) => c.id === 'msg_01VX7b4kFq8cDm3nTzQe2pLs' && c.model === 'claude-sonnet-4-5-20250929')).toBe(true);
  });

  it('tool use: one tool call whose argument pieces join into the JSON input, finish tool_calls', () => {
    const chunks = decode(fixture('anthropic-tool.sse'));
    expect(joined(chunks, (d) => d.content)).toBe('Let me check the weather.');
    const calls = chunks.flatMap((c) => c.choices.flatMap((x) => x.delta.tool_calls ?? []));
    expect(calls[0]).toMatchObject({ index: 0, id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', type: 'function', function: { name: 'get_weather', arguments: '' } });
    expect(JSON.parse(calls.map((c) => c.function?.arguments ?? '').join(''))).toEqual({ location: 'San Francisco, CA', unit: 'fahrenheit' });
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]!.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: 472, completion_tokens: 89 });
  });

  it('thinking: thinking deltas as reasoning_content, the signature left out, then the text', () => {
    const chunks = decode(fixture('anthropic-thinking.sse'));
    expect(joined(chunks, (d) => d.reasoning_content)).toBe('27 * 453: 27 * 400 = 10800, 27 * 53 = 1431. Sum: 12231.');
    expect(joined(chunks, (d) => d.content)).toBe('27 * 453 = 12,231');
    expect(JSON.stringify(chunks)).not.toContain('EqQBCgIYAhIM');
  });

  it('an error event fails the stream with a 502 naming the vendor error', () => {
    const decoder = anthropicCodec.toChatStream();
    const [start, error] = events(fixture('anthropic-error.sse'));
    expect(decoder.push(start!)).toHaveLength(1);
    const err = caught(() => decoder.push(error!));
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).status).toBe(502);
    expect((err as GatewayError).message).toContain('overloaded_error');
  });

  it('a stream cut before message_stop is an error, not a silent end', () => {
    const text = fixture('anthropic-text.sse');
    const cut = text.slice(0, text.indexOf('event: message_delta'));
    const decoder = anthropicCodec.toChatStream();
    for (const e of events(cut)) decoder.push(e);
    expect(() => decoder.end()).toThrow(/message_stop/);
  });
});

describe('Anthropic upstream message → chat response', () => {
  it('text, tool_use as a tool call, tool_use as tool_calls, usage', () => {
    const chat = anthropicCodec.toChatResponse(JSON.parse(fixture('anthropic-message.json')));
    expect(chat.choices[0]!.message.content).toBe("I'll look that up.");
    expect(chat.choices[0]!.message.tool_calls).toEqual([{ id: 'toolu_01A09q90qw90lq917835lq9', type: 'function', function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA"}' } }]);
    expect(chat.choices[0]!.finish_reason).toBe('tool_calls');
    expect(chat.usage).toMatchObject({ prompt_tokens: 4050, completion_tokens: 40, total_tokens: 4090, prompt_tokens_details: { cached_tokens: 3000 }, cache_creation_input_tokens: 1000 });
  });

  it('an answer without content is a 502 naming what it missed', () => {
    const err = caught(() => anthropicCodec.toChatResponse({ id: 'x', type: 'message' }));
    expect((err as GatewayError).status).toBe(502);
    expect((err as GatewayError).message).toContain('content');
  });
});

const IMAGE = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('Anthropic client request → chat', () => {
  it('system, images (base64 and URL), a tool round trip, tools, tool_choice, stop sequences', () => {
    const dropped = new Dropped();
    const chat = anthropicCodec.toChatRequest(
      {
        model: 'claude-sonnet-4-5',
        max_tokens: 1024,
        system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
        stop_sequences: ['END'],
        temperature: 0.3,
        top_k: 40,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: IMAGE } },
              { type: 'image', source: { type: 'url', url: 'https://img.example/cat.jpg' } },
              { type: 'text', text: 'What is the weather where this was taken?' },
            ],
          },
          { role: 'assistant', content: [{ type: 'text', text: 'Checking.' }, { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '18°C, sunny' }, { type: 'text', text: 'And tomorrow?' }] },
        ],
        tools: [
          { name: 'get_weather', description: 'Weather for a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
          { type: 'web_search_20250305', name: 'web_search', max_uses: 3, user_location: { type: 'approximate', city: 'Paris', country: 'FR' } },
          { type: 'bash_20250124', name: 'bash' },
        ],
        tool_choice: { type: 'any', disable_parallel_tool_use: true },
        stream: true,
      },
      dropped,
    );
    expect(chat).toMatchObject({ model: 'claude-sonnet-4-5', max_tokens: 1024, stop: ['END'], temperature: 0.3, stream: true, tool_choice: 'required', parallel_tool_calls: false });
    expect(chat.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: `data:image/png;base64,${IMAGE}` } },
          { type: 'image_url', image_url: { url: 'https://img.example/cat.jpg' } },
          { type: 'text', text: 'What is the weather where this was taken?' },
        ],
      },
      { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'toolu_1', content: '18°C, sunny' },
      { role: 'user', content: 'And tomorrow?' },
    ]);
    expect(chat.tools).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }]);
    expect(chat.web_search_options).toEqual({ user_location: { type: 'approximate', approximate: { city: 'Paris', country: 'FR' } } });
    expect(dropped.names).toEqual(['bash_20250124']);
  });

  it('a tool result holding an image (Claude Code reading a picture): the text in the tool message, the image in a user message after it', () => {
    const chat = anthropicCodec.toChatRequest(
      {
        model: 'm',
        max_tokens: 50,
        context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
        messages: [
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_r', name: 'Read', input: { file_path: '/tmp/a.png' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_r', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: IMAGE } }] }, { type: 'text', text: 'Describe it.' }] },
        ],
      },
      new Dropped(),
    );
    expect(chat.messages.slice(1)).toEqual([
      { role: 'tool', tool_call_id: 'toolu_r', content: [{ type: 'text', text: '(the attachment follows in the next message)' }] },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${IMAGE}` } }, { type: 'text', text: 'Describe it.' }] },
    ]);
  });

  it('the operator setting that refuses dropped tools makes the built-in tool a 400 naming it', () => {
    const err = caught(() => anthropicCodec.toChatRequest({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' }] }, new Dropped(true)));
    expect(err).toBeInstanceOf(TranslationError);
    expect((err as TranslationError).param).toBe('tools[0]');
  });

  it('bad input is a TranslationError naming the field', () => {
    const cases: [unknown, string][] = [
      [{ model: 'm', messages: [{ role: 'user', content: 'x' }] }, 'max_tokens'],
      [{ max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }, 'model'],
      [{ model: 'm', max_tokens: 5, messages: [] }, 'messages'],
      [{ model: 'm', max_tokens: 5, messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role'],
      [{ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png' } }] }] }, 'messages[0].content[0].source.data'],
      [{ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }], container: 'cntr_1' }, 'container'],
      [{ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }], temperature: 3 }, 'temperature'],
      [{ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'server_tool_use', id: 's', name: 'web_search', input: {} }] }] }, 'messages[0].content[0].type'],
    ];
    for (const [body, param] of cases) {
      const err = caught(() => anthropicCodec.toChatRequest(body, new Dropped()));
      expect(err, param).toBeInstanceOf(TranslationError);
      expect((err as TranslationError).param, JSON.stringify(body)).toBe(param);
      expect((err as TranslationError).status).toBe(400);
    }
  });

  it('errors are rendered in Anthropic\'s shape', () => {
    expect(anthropicCodec.errorBody(new TranslationError('bad', 'max_tokens'))).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'bad' } });
    expect(anthropicCodec.errorBody(new GatewayError(429, 'slow down', { type: 'requests', code: 'rate_limit_exceeded' }))).toMatchObject({ error: { type: 'rate_limit_error' } });
  });
});

const REQUEST = { original: { model: 'claude-x', max_tokens: 10, messages: [] }, chat: { model: 'claude-x', messages: [] } as ChatRequest };

describe('chat → Anthropic client answers', () => {
  it('a chat response as a Message: thinking, text, tool_use, stop reason, usage with cache reads left out of input_tokens', () => {
    const message = anthropicCodec.fromChatResponse(
      {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-4o',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Sure.', reasoning_content: 'hmm', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] }, finish_reason: 'tool_calls' }],
        usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, prompt_tokens_details: { cached_tokens: 60 } },
      },
      REQUEST,
    );
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [
        { type: 'thinking', thinking: 'hmm' },
        { type: 'text', text: 'Sure.' },
        { type: 'tool_use', id: 'call_1', name: 'f', input: { a: 1 } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 40, cache_read_input_tokens: 60, cache_creation_input_tokens: 0, output_tokens: 20 },
    });
    expect((message as { id: string }).id).toMatch(/^msg_/);
  });

  it('answers 502 naming the path when the upstream wrote tool-call arguments that are not a JSON object', () => {
    const answer = (args: string): ChatResponse => ({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: args } }] }, finish_reason: 'tool_calls' }] });
    for (const [args, what] of [['{"a":', 'is not JSON'], ['[1]', 'is not a JSON object']]) {
      const err = caught(() => anthropicCodec.fromChatResponse(answer(args!), REQUEST));
      expect(err).toBeInstanceOf(GatewayError);
      expect(err).toMatchObject({ status: 502, message: expect.stringContaining(`choices[0].message.tool_calls[0].function.arguments ${what}`) });
    }
    expect(anthropicCodec.fromChatResponse(answer(''), REQUEST)).toMatchObject({ content: [{ type: 'tool_use', input: {} }] });
  });

  it('chat chunks as the Anthropic event sequence, which decodes back to the same text, tool call and usage', () => {
    const encoder = anthropicCodec.fromChatStream(REQUEST);
    const base = { id: 'c', object: 'chat.completion.chunk' as const, created: 1, model: 'gpt-4o' };
    let sse = '';
    sse += encoder.push({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
    sse += encoder.push({ ...base, choices: [{ index: 0, delta: { content: 'Hel' }, finish_reason: null }] });
    sse += encoder.push({ ...base, choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: null }] });
    sse += encoder.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'lookup', arguments: '' } }] }, finish_reason: null }] });
    sse += encoder.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] }, finish_reason: null }] });
    sse += encoder.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"x"}' } }] }, finish_reason: null }] });
    sse += encoder.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
    sse += encoder.push({ ...base, choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } });
    sse += encoder.end();
    const names = events(sse).map((e) => e.event);
    expect(names).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const back = decode(sse);
    expect(joined(back, (d) => d.content)).toBe('Hello');
    const calls = back.flatMap((c) => c.choices.flatMap((x) => x.delta.tool_calls ?? []));
    expect(calls[0]).toMatchObject({ id: 'call_9', function: { name: 'lookup' } });
    expect(calls.map((c) => c.function?.arguments ?? '').join('')).toBe('{"q":"x"}');
    expect(back.find((c) => c.choices[0]?.finish_reason)?.choices[0]!.finish_reason).toBe('tool_calls');
    expect(back.at(-1)!.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3 });
  });

  it('a failure mid-stream is an Anthropic error event', () => {
    const encoder = anthropicCodec.fromChatStream(REQUEST);
    const text = encoder.error(new GatewayError(504, 'took too long', { type: 'upstream_error', code: 'upstream_timeout' }));
    expect(events(text)).toEqual([{ event: 'error', data: JSON.stringify({ type: 'error', error: { type: 'timeout_error', message: 'took too long' } }) }]);
  });
});

describe('chat → Anthropic upstream request', () => {
  it('system to the top, tool results into the user turn, images as sources, web search as its tool, effort as a thinking budget under max_tokens', () => {
    const dropped = new Dropped();
    const req = anthropicCodec.fromChatRequest(
      {
        model: 'claude-sonnet-4-5',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'Look:' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${IMAGE}` } }] },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: 'done' },
          { role: 'user', content: 'thanks' },
        ],
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'number' } } } } }],
        tool_choice: 'required',
        web_search_options: {},
        reasoning_effort: 'low',
        max_tokens: 500,
        stream: true,
      },
      dropped,
    );
    expect(req.path).toBe('/v1/messages');
    expect(req.headers['anthropic-version']).toBe('2023-06-01');
    expect(req.body).toMatchObject({
      model: 'claude-sonnet-4-5',
      system: 'Be brief.',
      stream: true,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Look:' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: IMAGE } }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'f', input: { a: 1 } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'done' }, { type: 'text', text: 'thanks' }] },
      ],
      tools: [{ name: 'f', input_schema: { type: 'object' } }, { type: 'web_search_20250305', name: 'web_search' }],
      tool_choice: { type: 'any' },
    });
    const plain = anthropicCodec.fromChatRequest({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'think' }], reasoning_effort: 'low', max_tokens: 500 }, dropped);
    expect(plain.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 1024 } });
    const body = plain.body as { max_tokens: number; thinking: { budget_tokens: number } };
    expect(body.max_tokens).toBeGreaterThan(body.thinking.budget_tokens);
  });

  it('thinking stays off while a tool loop is replayed (Anthropic would want the signed thinking block no other style carries)', () => {
    const req = anthropicCodec.fromChatRequest(
      {
        model: 'claude-sonnet-4-5',
        reasoning_effort: 'high',
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: 'done' },
        ],
      },
      new Dropped(),
    );
    expect((req.body as { thinking?: unknown }).thinking).toBeUndefined();
  });

  it('what Anthropic cannot carry is a 400 naming it', () => {
    const base = { model: 'claude-x', messages: [{ role: 'user' as const, content: 'x' }] };
    const audio = caught(() => anthropicCodec.fromChatRequest({ ...base, messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }] }, new Dropped()));
    expect((audio as TranslationError).param).toBe('messages[0].content[0]');
    expect((caught(() => anthropicCodec.fromChatRequest({ ...base, n: 2 }, new Dropped())) as TranslationError).param).toBe('n');
    const args = caught(() => anthropicCodec.fromChatRequest({ ...base, messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{oops' } }] }] }, new Dropped()));
    expect((args as TranslationError).param).toBe('messages[0].tool_calls[0].function.arguments');
  });

  it('upstream errors are read from Anthropic\'s error body', () => {
    expect(anthropicCodec.readError(429, { type: 'error', error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' } })).toMatchObject({ type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' });
    expect(anthropicCodec.authHeaders('sk-ant-x')).toEqual({ 'x-api-key': 'sk-ant-x' });
  });
});
