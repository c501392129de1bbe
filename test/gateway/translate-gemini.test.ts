/** The Gemini codec on Google's documented response shapes and stream (fixtures: test/fixtures/translate/README.md). */
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/gateway/errors.ts';
import { GeminiEncoder, geminiCodec, jsonSchemaOf } from '../../src/gateway/translate/gemini.ts';
import { TranslationError, type ChatChunk, type ChatRequest } from '../../src/gateway/translate/types.ts';
import { caught, decodeWith, Dropped, events, fixture, joined } from './codec-support.ts';

const decode = (text: string): ChatChunk[] => decodeWith(geminiCodec, text);

describe('Gemini upstream stream → chat chunks', () => {
  it('thought and text parts in order, STOP as stop, usage with thoughts as reasoning and the cached prompt', () => {
    const chunks = decode(fixture('gemini-text.sse'));
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(joined(chunks, (d) => d.reasoning_content)).toBe('The user wants a haiku about the sea.');
    expect(joined(chunks, (d) => d.content)).toBe('Waves fold into foam, salt wind hums the old refrain,\nthe tide keeps its time.');
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 1200, completion_tokens: 18 + 44, total_tokens: 1262, prompt_tokens_details: { cached_tokens: 1024 }, completion_tokens_details: { reasoning_tokens: 44 } });
    expect(chunks[1]!.id).toBe('mjNbaLrDOYfVz7IP8a2xoQk');
    expect(chunks[1]!.model).toBe('gemini-2.5-flash');
  });

  it('a stream that ends without a finishReason is an error', () => {
    const text = fixture('gemini-text.sse');
    const decoder = geminiCodec.toChatStream();
    for (const e of events(text).slice(0, 2)) decoder.push(e);
    expect(() => decoder.end()).toThrow(/finishReason/);
  });

  it('an error object in the stream fails it with a 502', () => {
    const decoder = geminiCodec.toChatStream();
    const err = caught(() => decoder.push({ data: JSON.stringify({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }) }));
    expect((err as GatewayError).status).toBe(502);
    expect((err as GatewayError).message).toContain('UNAVAILABLE');
  });
});

describe('Gemini upstream response → chat response', () => {
  it('a functionCall part as a tool call, finish tool_calls, tool-use prompt tokens in the prompt', () => {
    const chat = geminiCodec.toChatResponse(JSON.parse(fixture('gemini-function-call.json')));
    expect(chat.choices[0]!.message.content).toBeNull();
    expect(chat.choices[0]!.message.tool_calls).toEqual([{ id: 'call_gw0', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Boston, MA","unit":"celsius"}' } }]);
    expect(chat.choices[0]!.finish_reason).toBe('tool_calls');
    expect(chat.usage).toEqual({ prompt_tokens: 85, completion_tokens: 12, total_tokens: 97 });
    expect(chat.model).toBe('gemini-2.0-flash');
  });

  it('a blocked prompt (promptFeedback, no candidates) is content_filter; a body without either is a 502', () => {
    const chat = geminiCodec.toChatResponse({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 8, totalTokenCount: 8 } });
    expect(chat.choices[0]!.finish_reason).toBe('content_filter');
    expect((caught(() => geminiCodec.toChatResponse({ modelVersion: 'x' })) as GatewayError).status).toBe(502);
  });
});

const IMAGE = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('Gemini client request → chat', () => {
  it('system instruction, inline image and audio, a function round trip matched by name, tools, config (camelCase and snake_case)', () => {
    const dropped = new Dropped();
    const chat = geminiCodec.toChatRequest(
      {
        model: 'gemini-2.5-flash',
        stream: true,
        system_instruction: { parts: [{ text: 'Be brief.' }] },
        contents: [
          { role: 'user', parts: [{ text: 'Weather where this is?' }, { inline_data: { mime_type: 'image/png', data: IMAGE } }, { inlineData: { mimeType: 'audio/wav', data: 'UklGRg==' } }] },
          { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temp: 18 } } }] },
        ],
        tools: [
          { functionDeclarations: [{ name: 'get_weather', description: 'Weather for a city', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING', nullable: true } }, required: ['city'] } }] },
          { googleSearch: {} },
          { codeExecution: {} },
        ],
        toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
        generationConfig: { temperature: 0.5, maxOutputTokens: 256, stopSequences: ['END'], thinkingConfig: { thinkingBudget: 2048 }, responseMimeType: 'text/plain' },
        safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
      },
      dropped,
    );
    expect(chat).toMatchObject({ model: 'gemini-2.5-flash', stream: true, temperature: 0.5, max_tokens: 256, stop: ['END'], reasoning_effort: 'low', tool_choice: { type: 'function', function: { name: 'get_weather' } }, web_search_options: {} });
    expect(chat.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather where this is?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${IMAGE}` } },
          { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
        ],
      },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_gw0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_gw0', content: '{"temp":18}' },
    ]);
    expect(chat.tools).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: ['string', 'null'] } }, required: ['city'] } } }]);
    expect(dropped.names).toEqual(['codeExecution']);
  });

  it('bad input and what chat cannot carry are TranslationErrors naming the field', () => {
    const cases: [unknown, string][] = [
      [{ contents: [] }, 'contents'],
      [{ contents: 'hi' }, 'contents'],
      [{ contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png' } }] }] }, 'contents[0].parts[0].inlineData.data'],
      [{ contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'video/mp4', data: 'AAAA' } }] }] }, 'contents[0].parts[0].inlineData.mimeType'],
      [{ contents: [{ role: 'user', parts: [{ functionResponse: { name: 'never_called', response: {} } }] }] }, 'contents[0].parts[0].functionResponse'],
      [{ contents: [{ parts: [{ text: 'x' }] }], cachedContent: 'cachedContents/abc' }, 'cachedContent'],
      [{ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } }, 'generationConfig.responseModalities'],
      [{ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { temperature: 'hot' } }, 'generationConfig.temperature'],
    ];
    for (const [body, param] of cases) {
      const err = caught(() => geminiCodec.toChatRequest(body, new Dropped()));
      expect(err, param).toBeInstanceOf(TranslationError);
      expect((err as TranslationError).param, JSON.stringify(body)).toBe(param);
    }
  });

  it('Gemini schemas become JSON Schema', () => {
    expect(jsonSchemaOf({ type: 'ARRAY', items: { type: 'OBJECT', properties: { n: { type: 'INTEGER', format: 'int32' } }, propertyOrdering: ['n'] } })).toEqual({ type: 'array', items: { type: 'object', properties: { n: { type: 'integer', format: 'int32' } } } });
  });
});

const REQUEST = { original: { contents: [] }, chat: { model: 'gemini-2.5-flash', messages: [] } as ChatRequest };
const base = { id: 'c', object: 'chat.completion.chunk' as const, created: 1, model: 'gpt-4o' };

describe('chat → Gemini client answers', () => {
  it('a chat response as a GenerateContentResponse with usage split into candidates and thoughts', () => {
    const res = geminiCodec.fromChatResponse(
      {
        id: 'x',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-4o',
        choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] }, finish_reason: 'tool_calls' }],
        usage: { prompt_tokens: 50, completion_tokens: 30, total_tokens: 80, prompt_tokens_details: { cached_tokens: 20 }, completion_tokens_details: { reasoning_tokens: 10 } },
      },
      REQUEST,
    );
    expect(res).toMatchObject({
      candidates: [{ content: { role: 'model', parts: [{ functionCall: { id: 'call_1', name: 'f', args: { a: 1 } } }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 50, candidatesTokenCount: 20, thoughtsTokenCount: 10, cachedContentTokenCount: 20, totalTokenCount: 80 },
      modelVersion: 'gemini-2.5-flash',
    });
  });

  it('chat chunks as SSE chunks: text as it comes, the function call whole at the end with the finish reason and usage; decodes back', () => {
    const encoder = geminiCodec.fromChatStream(REQUEST);
    let sse = '';
    sse += encoder.push({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi ' }, finish_reason: null }] });
    sse += encoder.push({ ...base, choices: [{ index: 0, delta: { content: 'there' }, finish_reason: null }] });
    sse += encoder.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_7', type: 'function', function: { name: 'lookup', arguments: '{"q"' } }] }, finish_reason: null }] });
    sse += encoder.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: ':"x"}' } }] }, finish_reason: 'tool_calls' }] });
    sse += encoder.end({ prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 });
    const evs = events(sse);
    expect(evs).toHaveLength(3);
    const last = JSON.parse(evs[2]!.data) as { candidates: { content: { parts: unknown[] }; finishReason: string }[]; usageMetadata: unknown };
    expect(last.candidates[0]!.content.parts).toEqual([{ functionCall: { id: 'call_7', name: 'lookup', args: { q: 'x' } } }]);
    expect(last.usageMetadata).toEqual({ promptTokenCount: 5, candidatesTokenCount: 4, totalTokenCount: 9 });
    const back = decode(sse);
    expect(joined(back, (d) => d.content)).toBe('Hi there');
    expect(back.flatMap((c) => c.choices.flatMap((x) => x.delta.tool_calls ?? []))[0]).toMatchObject({ id: 'call_7', function: { name: 'lookup', arguments: '{"q":"x"}' } });
    expect(back.find((c) => c.choices[0]?.finish_reason)?.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('without alt=sse the chunks form one JSON array', () => {
    const encoder = new GeminiEncoder(REQUEST, false);
    const text = encoder.push({ ...base, choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] }) + encoder.push({ ...base, choices: [{ index: 0, delta: { content: 'b' }, finish_reason: 'stop' }] }) + encoder.end();
    const parsed = JSON.parse(text) as { candidates: { content: { parts: { text: string }[] } }[] }[];
    expect(parsed.map((c) => c.candidates[0]!.content.parts[0]!.text).join('')).toBe('ab');
  });
});

describe('chat → Gemini upstream request', () => {
  it('path by model and stream, system instruction, merged turns, function responses named by their call, Google Search, tool config', () => {
    const req = geminiCodec.fromChatRequest(
      {
        model: 'gemini-2.5-pro',
        stream: true,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'Look' }, { type: 'image_url', image_url: { url: 'https://img.example/a.png' } }] },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }, { id: 'call_2', type: 'function', function: { name: 'g', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: '{"ok":true}' },
          { role: 'tool', tool_call_id: 'call_2', content: 'plain text' },
        ],
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
        tool_choice: { type: 'function', function: { name: 'f' } },
        web_search_options: {},
        max_completion_tokens: 100,
        reasoning_effort: 'high',
      },
      new Dropped(),
    );
    expect(req.path).toBe('/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse');
    expect(req.body).toEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Look' }, { fileData: { mimeType: 'image/png', fileUri: 'https://img.example/a.png' } }] },
        { role: 'model', parts: [{ functionCall: { name: 'f', args: { a: 1 } } }, { functionCall: { name: 'g', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'f', response: { ok: true } } }, { functionResponse: { name: 'g', response: { result: 'plain text' } } }] },
      ],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      generationConfig: { maxOutputTokens: 100, thinkingConfig: { thinkingBudget: 24576 } },
      tools: [{ functionDeclarations: [{ name: 'f', parametersJsonSchema: { type: 'object' } }] }, { googleSearch: {} }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] } },
    });
    expect(geminiCodec.fromChatRequest({ model: 'models/gemini-2.0-flash', messages: [{ role: 'user', content: 'x' }] }, new Dropped()).path).toBe('/v1beta/models/gemini-2.0-flash:generateContent');
  });

  it('a replayed function call to Gemini 3 carries the documented skip signature (its own cannot come back through another style); to Gemini 2.5 none', () => {
    const messages = [
      { role: 'user' as const, content: 'weather?' },
      { role: 'assistant' as const, content: null, tool_calls: [{ id: 'call_1', type: 'function' as const, function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool' as const, tool_call_id: 'call_1', content: 'sunny' },
    ];
    const three = geminiCodec.fromChatRequest({ model: 'gemini-3-pro-preview', messages }, new Dropped()).body as { contents: { parts: Record<string, unknown>[] }[] };
    expect(three.contents[1]!.parts[0]).toEqual({ functionCall: { name: 'f', args: {} }, thoughtSignature: 'skip_thought_signature_validator' });
    const two = geminiCodec.fromChatRequest({ model: 'gemini-2.5-flash', messages }, new Dropped()).body as { contents: { parts: Record<string, unknown>[] }[] };
    expect(two.contents[1]!.parts[0]).toEqual({ functionCall: { name: 'f', args: {} } });
  });

  it('a tool result answering no known call is a 400 naming it', () => {
    const err = caught(() => geminiCodec.fromChatRequest({ model: 'g', messages: [{ role: 'tool', tool_call_id: 'nope', content: 'x' }] }, new Dropped()));
    expect((err as TranslationError).param).toBe('messages[0].tool_call_id');
  });

  it('errors: Google-shaped to the client, read from the upstream\'s body', () => {
    expect(geminiCodec.errorBody(new TranslationError('bad', 'contents'))).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT', message: 'bad' } });
    expect(geminiCodec.readError(429, { error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' } })).toMatchObject({ type: 'RESOURCE_EXHAUSTED', message: 'Resource has been exhausted' });
    expect(geminiCodec.authHeaders('AIza-x')).toEqual({ 'x-goog-api-key': 'AIza-x' });
  });
});
