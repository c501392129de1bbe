/**
 * The Responses codec on its own: requests into chat (custom tools, built-in tools dropped or
 * refused, uncarried fields), chat answers into Response objects (stop reasons, reasoning,
 * custom tool calls), and chat chunks into the Responses event sequence as OpenAI documents it
 * (https://platform.openai.com/docs/api-reference/responses-streaming).
 */
import { describe, expect, it } from 'vitest';
import { DroppedTools } from '../../src/gateway/translate/index.ts';
import { chatToResponse, responsesCodec, responsesToChat } from '../../src/gateway/translate/responses.ts';
import { TranslationError, type ChatChunk, type ChatResponse } from '../../src/gateway/translate/types.ts';

const chunk = (delta: ChatChunk['choices'][number]['delta'], finish: ChatChunk['choices'][number]['finish_reason'] = null): ChatChunk => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });

function events(sse: string): { event: string; data: Record<string, unknown> }[] {
  return sse
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const [ev, data] = block.split('\n');
      return { event: ev!.slice('event: '.length), data: JSON.parse(data!.slice('data: '.length)) as Record<string, unknown> };
    });
}

describe('Responses requests into chat', () => {
  it('carries a custom (freeform) tool as a function with one string argument, and its calls back', () => {
    const body = { model: 'm', input: [{ type: 'custom_tool_call', call_id: 'c1', name: 'apply_patch', input: '*** Begin Patch' }, { type: 'custom_tool_call_output', call_id: 'c1', output: 'done' }], tools: [{ type: 'custom', name: 'apply_patch', description: 'Apply a patch' }] };
    const chat = responsesToChat(body, new DroppedTools(false));
    expect(chat.tools?.[0]?.function.parameters).toEqual({ type: 'object', properties: { input: { type: 'string' } }, required: ['input'], additionalProperties: false });
    expect(chat.messages[0]).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' } }] });
    const answer: ChatResponse = { id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'c2', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"patch text"}' } }] }, finish_reason: 'tool_calls' }] };
    const r = chatToResponse(answer, { original: body, chat });
    expect((r.output as unknown[])[0]).toMatchObject({ type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: 'patch text' });
  });

  it('drops built-in tools without an equivalent, or refuses them when the operator says so', () => {
    const body = { model: 'm', input: 'hi', tools: [{ type: 'local_shell' }, { type: 'web_search', search_context_size: 'high' }] };
    const dropped = new DroppedTools(false);
    const chat = responsesToChat(body, dropped);
    expect(dropped.names).toEqual(['local_shell']);
    expect(chat.web_search_options).toEqual({ search_context_size: 'high' });
    let err: unknown;
    try {
      responsesToChat(body, new DroppedTools(true));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TranslationError);
    expect(err).toMatchObject({ status: 400, param: 'tools[0].type', code: 'unsupported_tool' });
  });

  it('maps text.format, reasoning effort and developer messages', () => {
    const chat = responsesToChat({ model: 'm', input: [{ role: 'developer', content: 'rules' }, { type: 'reasoning', id: 'rs_1', summary: [] }, { role: 'user', content: 'hi' }], text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } }, reasoning: { effort: 'low' } }, new DroppedTools(false));
    expect(chat.messages).toEqual([{ role: 'system', content: 'rules' }, { role: 'user', content: 'hi' }]);
    expect(chat.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } });
    expect(chat.reasoning_effort).toBe('low');
  });
});

describe('tool namespaces', () => {
  it('carries each function of a namespace as "<namespace>__<name>", and its calls back with their namespace', () => {
    const body = {
      model: 'm',
      input: [{ type: 'function_call', call_id: 'c1', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{}' }, { type: 'function_call_output', call_id: 'c1', output: 'ok' }],
      tools: [{ type: 'namespace', name: 'multi_agent_v1', description: 'Sub-agents', tools: [{ type: 'function', name: 'spawn_agent', parameters: { type: 'object', properties: {} } }] }],
    };
    const dropped = new DroppedTools(false);
    const chat = responsesToChat(body, dropped);
    expect(dropped.names).toEqual([]);
    expect(chat.tools?.map((t) => t.function.name)).toEqual(['multi_agent_v1__spawn_agent']);
    expect(chat.messages[0]).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'c1', function: { name: 'multi_agent_v1__spawn_agent' } }] });
    const answer: ChatResponse = { id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'c2', type: 'function', function: { name: 'multi_agent_v1__spawn_agent', arguments: '{"task":"t"}' } }] }, finish_reason: 'tool_calls' }] };
    expect((chatToResponse(answer, { original: body, chat }).output as unknown[])[0]).toMatchObject({ type: 'function_call', name: 'spawn_agent', namespace: 'multi_agent_v1', call_id: 'c2' });
  });
});

describe('instructions', () => {
  it('may be a string or input items; a bad item is named under instructions', () => {
    const chat = responsesToChat({ model: 'm', instructions: [{ role: 'developer', content: [{ type: 'input_text', text: 'rules' }] }], input: 'hi' }, new DroppedTools(false));
    expect(chat.messages).toEqual([{ role: 'system', content: [{ type: 'text', text: 'rules' }] }, { role: 'user', content: 'hi' }]);
    expect(() => responsesToChat({ model: 'm', instructions: [{ role: 'robot', content: 'x' }], input: 'hi' }, new DroppedTools(false))).toThrow(expect.objectContaining({ param: 'instructions[0].role' }));
  });
});

describe('chat answers into Responses', () => {
  it('marks a length stop as incomplete and keeps reasoning as a reasoning item', () => {
    const body = { model: 'm', input: 'hi' };
    const chat = responsesToChat(body, new DroppedTools(false));
    const answer: ChatResponse = { id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'partial', reasoning_content: 'thinking' }, finish_reason: 'length' }], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7, completion_tokens_details: { reasoning_tokens: 2 } } };
    const r = chatToResponse(answer, { original: body, chat });
    expect(r).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: { input_tokens: 3, output_tokens: 4, output_tokens_details: { reasoning_tokens: 2 } } });
    expect((r.output as { type: string }[]).map((o) => o.type)).toEqual(['reasoning', 'message']);
  });

  it('streams text then a function call as the documented event sequence with rising sequence numbers', () => {
    const body = { model: 'm', input: 'hi', tools: [{ type: 'function', name: 'f', parameters: {} }] };
    const request = { original: body, chat: responsesToChat(body, new DroppedTools(false)) };
    const enc = responsesCodec.fromChatStream(request);
    let sse = enc.push(chunk({ role: 'assistant', content: 'He' }));
    sse += enc.push(chunk({ content: 'llo' }));
    sse += enc.push(chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }] }));
    sse += enc.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":1}' } }] }, 'tool_calls'));
    sse += enc.end({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 });
    const evs = events(sse);
    expect(evs.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(evs.map((e) => e.data.sequence_number)).toEqual(evs.map((_, i) => i));
    expect(evs.every((e) => e.data.type === e.event)).toBe(true);
    const completed = evs.at(-1)!.data.response as { output: { type: string }[]; usage: unknown; status: string };
    expect(completed.status).toBe('completed');
    expect(completed.output).toMatchObject([{ type: 'message', content: [{ type: 'output_text', text: 'Hello' }] }, { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{"a":1}' }]);
    expect(completed.usage).toMatchObject({ input_tokens: 1, output_tokens: 2, total_tokens: 3 });
  });
});

describe('Responses upstream refusals', () => {
  it('reads the message, type, code and parameter of the error object, and names the status when there is no message', () => {
    const body = { error: { message: "Invalid value for 'temperature'.", type: 'invalid_request_error', code: 'invalid_value', param: 'temperature' } };
    expect(responsesCodec.readError(400, body)).toEqual({ message: "Invalid value for 'temperature'.", type: 'invalid_request_error', code: 'invalid_value', param: 'temperature' });
    expect(responsesCodec.readError(404, 'not json')).toEqual({ message: 'The upstream refused the request (HTTP 404).', type: undefined, code: undefined, param: null });
  });
});
