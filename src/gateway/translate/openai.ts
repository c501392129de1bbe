/**
 * The hub's own codec: OpenAI chat completions. Client side it checks a chat body and writes chat
 * answers and chunks as they are; upstream side it narrows a chat-completions upstream's answers
 * and stream events from `unknown`. Used whenever the other end of a translation speaks chat.
 */
import { isObject, withFields, type JsonObject } from '../body.ts';
import { errorBody, upstreamInvalidResponse, type GatewayError } from '../errors.ts';
import { fitToOpenAiModel } from './openai-models.ts';
import { eventObject } from './stream-decoder.ts';
import { upstreamErrorInfo } from './upstream-error.ts';
import {
  TranslationError,
  type ChatChunk,
  type ChatFinishReason,
  type ChatRequest,
  type ChatResponse,
  type ChatToolCall,
  type ChatUsage,
  type ClientRequest,
  type SseEvent,
  type StreamDecoder,
  type StreamEncoder,
  type StyleCodec,
  type ToolDropper,
  type UpstreamErrorInfo,
  type UpstreamRequest,
} from './types.ts';

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
const FINISH: ReadonlySet<string> = new Set(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);

function finishReason(x: unknown): ChatFinishReason | null {
  return typeof x === 'string' && FINISH.has(x) ? (x as ChatFinishReason) : x == null ? null : 'stop';
}

/** A chat body checked enough to be translated: model, messages and their roles. */
export function readChatRequest(body: unknown): ChatRequest {
  if (!isObject(body)) throw new TranslationError('The request body must be a JSON object.', '');
  if (typeof body.model !== 'string' || body.model === '') throw new TranslationError('Missing required parameter "model".', 'model', 'missing_required_parameter');
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw new TranslationError('Parameter "messages" must be a non-empty array of {role, content} objects.', 'messages');
  body.messages.forEach((m, i) => {
    if (!isObject(m) || typeof m.role !== 'string' || !ROLES.has(m.role)) throw new TranslationError(`messages[${i}] must be an object with a role of ${[...ROLES].join(', ')}.`, `messages[${i}].role`);
    if (m.role === 'tool' && typeof m.tool_call_id !== 'string') throw new TranslationError(`messages[${i}] (a tool result) needs its "tool_call_id".`, `messages[${i}].tool_call_id`);
  });
  if (body.stream !== undefined && typeof body.stream !== 'boolean') throw new TranslationError('Parameter "stream" must be true or false.', 'stream');
  if (body.tools !== undefined && !Array.isArray(body.tools)) throw new TranslationError('Parameter "tools" must be an array.', 'tools');
  return body as unknown as ChatRequest;
}

function readUsage(x: unknown): ChatUsage | undefined {
  if (!isObject(x)) return undefined;
  const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return { ...(x as JsonObject), prompt_tokens: n(x.prompt_tokens), completion_tokens: n(x.completion_tokens), total_tokens: n(x.total_tokens) } as ChatUsage;
}

function readToolCalls(x: unknown, where: string): ChatToolCall[] | undefined {
  if (x == null) return undefined;
  if (!Array.isArray(x)) throw upstreamInvalidResponse(`${where} is not an array`);
  return x.map((c, i) => {
    if (!isObject(c) || !isObject(c.function) || typeof c.function.name !== 'string') throw upstreamInvalidResponse(`${where}[${i}].function.name is missing`);
    return { id: typeof c.id === 'string' ? c.id : `call_${i}`, type: 'function', function: { name: c.function.name, arguments: typeof c.function.arguments === 'string' ? c.function.arguments : '{}' } };
  });
}

/** The id, creation time and model of a chat answer or chunk, or the stand-ins the hub writes when one is missing. */
function headOf(x: JsonObject): { id: string; created: number; model: string } {
  return {
    id: typeof x.id === 'string' ? x.id : 'chatcmpl-gateway',
    created: typeof x.created === 'number' ? x.created : Math.floor(Date.now() / 1000),
    model: typeof x.model === 'string' ? x.model : '',
  };
}

/** A chat-completions answer narrowed from `unknown` (502 naming the path it missed). */
export function readChatResponse(body: unknown): ChatResponse {
  if (!isObject(body)) throw upstreamInvalidResponse('the answer is not a JSON object');
  if (!Array.isArray(body.choices)) throw upstreamInvalidResponse('choices is missing');
  const choices = body.choices.map((c: unknown, i) => {
    if (!isObject(c) || !isObject(c.message)) throw upstreamInvalidResponse(`choices[${i}].message is missing`);
    const m = c.message;
    const toolCalls = readToolCalls(m.tool_calls, `choices[${i}].message.tool_calls`);
    return {
      index: typeof c.index === 'number' ? c.index : i,
      message: {
        role: 'assistant' as const,
        content: typeof m.content === 'string' ? m.content : null,
        ...(toolCalls ? { tool_calls: toolCalls } : {}),
        ...(typeof m.refusal === 'string' ? { refusal: m.refusal } : {}),
        ...(typeof m.reasoning_content === 'string' ? { reasoning_content: m.reasoning_content } : {}),
      },
      finish_reason: finishReason(c.finish_reason),
    };
  });
  const usage = readUsage(body.usage);
  const { id, created, model } = headOf(body);
  return { id, object: 'chat.completion', created, model, choices, ...(usage ? { usage } : {}) };
}

/** One chat chunk narrowed from `unknown`. */
export function readChatChunk(x: unknown): ChatChunk {
  if (!isObject(x)) throw upstreamInvalidResponse('a stream event is not a JSON object');
  if (isObject(x.error)) throw upstreamInvalidResponse(`the stream failed: ${typeof x.error.message === 'string' ? x.error.message.slice(0, 300) : 'error event'}`);
  const choices = Array.isArray(x.choices)
    ? x.choices.map((c: unknown, i) => {
        if (!isObject(c)) throw upstreamInvalidResponse(`choices[${i}] of a chunk is not an object`);
        const d = isObject(c.delta) ? c.delta : {};
        return {
          index: typeof c.index === 'number' ? c.index : i,
          delta: d as ChatChunk['choices'][number]['delta'],
          finish_reason: finishReason(c.finish_reason),
        };
      })
    : [];
  const usage = readUsage(x.usage);
  const { id, created, model } = headOf(x);
  return { id, object: 'chat.completion.chunk', created, model, choices, ...(usage ? { usage } : {}) };
}

class ChatDecoder implements StreamDecoder {
  private done = false;
  push(event: SseEvent): ChatChunk[] {
    if (event.data === '[DONE]') {
      this.done = true;
      return [];
    }
    return [readChatChunk(eventObject(event))];
  }
  end(): ChatChunk[] {
    if (!this.done) throw upstreamInvalidResponse('the stream ended before its [DONE] event');
    return [];
  }
}

class ChatEncoder implements StreamEncoder {
  private usageSent = false;
  constructor(private readonly includeUsage: boolean) {}
  push(chunk: ChatChunk): string {
    if (chunk.usage) {
      if (!this.includeUsage) {
        if (chunk.choices.length === 0) return '';
        const { usage: _usage, ...rest } = chunk;
        return `data: ${JSON.stringify(rest)}\n\n`;
      }
      this.usageSent = true;
    }
    return `data: ${JSON.stringify(chunk)}\n\n`;
  }
  end(usage?: ChatUsage): string {
    const tail = this.includeUsage && !this.usageSent && usage ? `data: ${JSON.stringify({ ...readChatChunk({}), usage })}\n\n` : '';
    return `${tail}data: [DONE]\n\n`;
  }
  error(err: GatewayError): string {
    return `data: ${JSON.stringify(errorBody(err, 'openai'))}\n\n`;
  }
}

export const openaiCodec: StyleCodec = {
  style: 'openai',
  toChatRequest: (body: unknown, _tools: ToolDropper): ChatRequest => readChatRequest(body),
  fromChatResponse: (chat: ChatResponse, _request: ClientRequest): unknown => chat,
  fromChatStream: (request: ClientRequest): StreamEncoder => new ChatEncoder(isObject(request.original.stream_options) && request.original.stream_options.include_usage === true),
  errorBody: (err: GatewayError): unknown => errorBody(err, 'openai'),
  fromChatRequest(translated: ChatRequest, tools: ToolDropper): UpstreamRequest {
    const chat = fitToOpenAiModel(translated, (field) => tools.dropField(field));
    const body: ChatRequest = chat.stream ? withFields(chat, { stream_options: withFields(chat.stream_options ?? {}, { include_usage: true }) }) : chat;
    return { path: '/v1/chat/completions', body, headers: {} };
  },
  toChatResponse: readChatResponse,
  toChatStream: (): StreamDecoder => new ChatDecoder(),
  authHeaders: (apiKey: string): Record<string, string> => ({ authorization: `Bearer ${apiKey}` }),
  readError: (status: number, body: unknown): UpstreamErrorInfo => upstreamErrorInfo(status, body, { type: 'type', code: 'code', param: 'param' }),
};
