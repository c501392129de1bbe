/**
 * Anthropic Messages ⇄ chat completions, both sides, streams included. Field names and the
 * stream's event sequence (message_start, content_block_start/delta/stop with text_delta,
 * input_json_delta and thinking_delta, message_delta with stop_reason and usage, message_stop,
 * ping, error) follow Anthropic's Messages API reference.
 *
 * Usage: Anthropic's `input_tokens` leaves out cache reads and writes; chat's `prompt_tokens`
 * holds all three, with reads in `prompt_tokens_details.cached_tokens` and writes in
 * `cache_creation_input_tokens`, so billing sees each at its own price.
 */
import { randomBytes } from 'node:crypto';
import { isObject, type JsonObject } from '../body.ts';
import { errorBody, GatewayError, upstreamInvalidResponse } from '../errors.ts';
import { answerArgumentsObject } from './answer-arguments.ts';
import { dataUrl, isHttpUrl, parseDataUrl } from './media.ts';
import { assistantMessage, chatText } from './chat-message.ts';
import { ChunkingDecoder, eventObject, streamFailed } from './stream-decoder.ts';
import { upstreamErrorInfo } from './upstream-error.ts';
import { argumentsObjectAt, arrayAt, objectAt, optionalBooleanAt, optionalIntAt, optionalNumberAt, optionalStringAt, stringAt, untranslatable } from './narrow.ts';
import {
  TranslationError,
  type ChatChunk,
  type ChatContentPart,
  type ChatFinishReason,
  type ChatFunctionTool,
  type ChatMessage,
  type ChatRequest,
  type ChatResponse,
  type ChatTextPart,
  type ChatToolCall,
  type ChatToolChoice,
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

export const ANTHROPIC_VERSION = '2023-06-01';
/** Anthropic requires `max_tokens`; a chat request without one gets this (LiteLLM's choice too). */
export const DEFAULT_MAX_TOKENS = 4096;

type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | 'model_context_window_exceeded';

const TO_CHAT_FINISH: Record<string, ChatFinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

const FROM_CHAT_FINISH: Record<ChatFinishReason, StopReason> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
};

/** `{type: "error", error: {type, message}}`, Anthropic's error body. */
export function anthropicErrorBody(err: GatewayError): Record<string, unknown> {
  return errorBody(err, 'anthropic');
}

// --- client side: an Anthropic request read into chat ------------------------------------------

/** Fields read below; any other top-level field is refused unless listed as safe to leave out. */
// context_management only prunes old tool results server-side: without it the model sees more, not something else;
// metadata.user_id is Anthropic's abuse-tracking id (Claude Code's is longer than other vendors' user fields allow).
const IGNORED_FIELDS = new Set(['metadata', 'top_k', 'service_tier', 'speed', 'inference_geo', 'cache_control', 'diagnostics', 'user_profile_id', 'workspace_id', 'context_management']);
const READ_FIELDS = new Set(['model', 'max_tokens', 'messages', 'system', 'stop_sequences', 'stream', 'temperature', 'top_p', 'tools', 'tool_choice', 'thinking', 'output_config', 'output_format']);

function textOf(blocks: unknown, path: string): string {
  if (typeof blocks === 'string') return blocks;
  return arrayAt(blocks, path, 'a string or an array of text blocks')
    .map((b, i) => {
      const o = objectAt(b, `${path}[${i}]`, 'a text block');
      if (o.type !== 'text') throw new TranslationError(`"${path}[${i}].type" must be "text" here.`, `${path}[${i}].type`);
      return stringAt(o.text, `${path}[${i}].text`, 'a string');
    })
    .join('\n\n');
}

function mediaSource(source: unknown, path: string, kind: 'image' | 'document'): ChatContentPart {
  const s = objectAt(source, path, `the ${kind}'s source object`);
  if (s.type === 'base64') {
    const mediaType = stringAt(s.media_type, `${path}.media_type`, 'a media type such as "image/png"');
    const data = stringAt(s.data, `${path}.data`, 'base64 text');
    const url = dataUrl({ mimeType: mediaType, data });
    return kind === 'image' ? { type: 'image_url', image_url: { url } } : { type: 'file', file: { file_data: url, filename: 'document.pdf' } };
  }
  if (s.type === 'url') {
    const url = stringAt(s.url, `${path}.url`, 'an http(s) URL');
    if (!isHttpUrl(url)) throw new TranslationError(`"${path}.url" must be an http(s) URL.`, `${path}.url`);
    if (kind === 'image') return { type: 'image_url', image_url: { url } };
    throw untranslatable(`${path}.url`, 'a document given by URL has no equivalent in chat completions; send it as base64');
  }
  if (s.type === 'text' && kind === 'document') return { type: 'text', text: stringAt(s.data, `${path}.data`, 'the document text') };
  if (s.type === 'file') throw untranslatable(`${path}.file_id`, 'a file uploaded to Anthropic exists only there');
  throw new TranslationError(`"${path}.type" must be "base64" or "url".`, `${path}.type`);
}

/**
 * A tool result's content: its text for the chat tool message, and its images and documents,
 * which a chat tool message cannot hold, for the user message that follows it.
 */
function toolResultContent(x: unknown, path: string): { text: string | ChatTextPart[]; media: ChatContentPart[] } {
  if (x === undefined || x === null) return { text: '', media: [] };
  if (typeof x === 'string') return { text: x, media: [] };
  const text: ChatTextPart[] = [];
  const media: ChatContentPart[] = [];
  arrayAt(x, path, 'a string or an array of content blocks').forEach((b, i) => {
    const o = objectAt(b, `${path}[${i}]`, 'a content block');
    if (o.type === 'text') text.push({ type: 'text', text: stringAt(o.text, `${path}[${i}].text`, 'a string') });
    else if (o.type === 'image' || o.type === 'document') media.push(mediaSource(o.source, `${path}[${i}].source`, o.type));
    else throw untranslatable(`${path}[${i}]`, `a tool result holding a ${String(o.type)} block cannot be sent as a chat tool message`);
  });
  if (media.length && text.length === 0) text.push({ type: 'text', text: `(${media.length === 1 ? 'the attachment follows' : `${media.length} attachments follow`} in the next message)` });
  return { text, media };
}

/** One Anthropic message as one or more chat messages (tool results become `tool` messages first). */
function readMessage(m: unknown, i: number, out: ChatMessage[]): void {
  const path = `messages[${i}]`;
  const o = objectAt(m, path, 'an object with "role" and "content"');
  const role = o.role;
  if (role !== 'user' && role !== 'assistant' && role !== 'system') throw new TranslationError(`"${path}.role" must be "user" or "assistant".`, `${path}.role`);
  if (role === 'system') {
    out.push({ role: 'system', content: textOf(o.content, `${path}.content`) });
    return;
  }
  if (typeof o.content === 'string') {
    out.push(role === 'user' ? { role: 'user', content: o.content } : { role: 'assistant', content: o.content });
    return;
  }
  const blocks = arrayAt(o.content, `${path}.content`, 'a string or an array of content blocks');
  const parts: ChatContentPart[] = [];
  const toolCalls: ChatToolCall[] = [];
  const toolMedia: ChatContentPart[] = [];
  let reasoning = '';
  blocks.forEach((b, j) => {
    const bp = `${path}.content[${j}]`;
    const block = objectAt(b, bp, 'a content block object');
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: stringAt(block.text, `${bp}.text`, 'a string') });
        return;
      case 'image':
      case 'document':
        if (role !== 'user') throw new TranslationError(`"${bp}": ${block.type} blocks belong in user messages.`, `${bp}.type`);
        parts.push(mediaSource(block.source, `${bp}.source`, block.type));
        return;
      case 'tool_use': {
        if (role !== 'assistant') throw new TranslationError(`"${bp}": tool_use blocks belong in assistant messages.`, `${bp}.type`);
        const input = block.input === undefined ? {} : objectAt(block.input, `${bp}.input`, 'an object');
        toolCalls.push({ id: stringAt(block.id, `${bp}.id`, 'the tool use id'), type: 'function', function: { name: stringAt(block.name, `${bp}.name`, 'the tool name'), arguments: JSON.stringify(input) } });
        return;
      }
      case 'tool_result': {
        if (role !== 'user') throw new TranslationError(`"${bp}": tool_result blocks belong in user messages.`, `${bp}.type`);
        const { text, media } = toolResultContent(block.content, `${bp}.content`);
        const isError = optionalBooleanAt(block.is_error, `${bp}.is_error`);
        out.push({ role: 'tool', tool_call_id: stringAt(block.tool_use_id, `${bp}.tool_use_id`, 'the id of the tool_use it answers'), content: isError && typeof text === 'string' ? `Error: ${text}` : text });
        toolMedia.push(...media);
        return;
      }
      case 'thinking':
        reasoning += typeof block.thinking === 'string' ? block.thinking : '';
        return;
      case 'redacted_thinking':
        // Opaque to every other model: nothing to carry.
        return;
      default:
        throw untranslatable(`${bp}.type`, `content blocks of type "${String(block.type)}" have no equivalent in chat completions`);
    }
  });
  if (role === 'user') {
    parts.unshift(...toolMedia);
    if (parts.length) out.push({ role: 'user', content: parts.every((p) => p.type === 'text') && parts.length === 1 ? (parts[0] as ChatTextPart).text : parts });
    return;
  }
  const text = parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
  out.push({ role: 'assistant', content: text || (toolCalls.length ? null : ''), ...(toolCalls.length ? { tool_calls: toolCalls } : {}), ...(reasoning ? { reasoning_content: reasoning } : {}) });
}

const SEARCH_TOOL = /^web_search_\d+$/;

function readTools(x: unknown, tools: ToolDropper, chat: ChatRequest): void {
  const list = arrayAt(x, 'tools', 'an array of tool definitions');
  const functions: ChatFunctionTool[] = [];
  list.forEach((t, i) => {
    const o = objectAt(t, `tools[${i}]`, 'a tool definition object');
    if (o.type === undefined || o.type === null || o.type === 'custom') {
      const schema = o.input_schema === undefined ? { type: 'object', properties: {} } : objectAt(o.input_schema, `tools[${i}].input_schema`, 'a JSON Schema object');
      const description = optionalStringAt(o.description, `tools[${i}].description`);
      functions.push({ type: 'function', function: { name: stringAt(o.name, `tools[${i}].name`, 'the tool name'), ...(description ? { description } : {}), parameters: schema } });
      return;
    }
    const type = stringAt(o.type, `tools[${i}].type`, 'a tool type');
    if (SEARCH_TOOL.test(type)) {
      const { type: _type, ...approximate } = isObject(o.user_location) ? o.user_location : {};
      chat.web_search_options = Object.keys(approximate).length ? { user_location: { type: 'approximate', approximate } } : {};
      return;
    }
    tools.drop(type, `tools[${i}]`);
  });
  if (functions.length) chat.tools = functions;
}

function readToolChoice(x: unknown, chat: ChatRequest): void {
  const o = objectAt(x, 'tool_choice', 'an object such as {"type":"auto"}');
  const parallel = optionalBooleanAt(o.disable_parallel_tool_use, 'tool_choice.disable_parallel_tool_use');
  if (parallel) chat.parallel_tool_calls = false;
  let choice: ChatToolChoice;
  if (o.type === 'auto') choice = 'auto';
  else if (o.type === 'any') choice = 'required';
  else if (o.type === 'none') choice = 'none';
  else if (o.type === 'tool') choice = { type: 'function', function: { name: stringAt(o.name, 'tool_choice.name', 'the name of the tool to use') } };
  else throw new TranslationError('"tool_choice.type" must be "auto", "any", "tool" or "none".', 'tool_choice.type');
  chat.tool_choice = choice;
}

/** Thinking budgets as chat's reasoning effort (the budgets Anthropic's docs give as typical). */
function effortOfBudget(budget: number): NonNullable<ChatRequest['reasoning_effort']> {
  if (budget < 4096) return 'low';
  if (budget < 16384) return 'medium';
  return 'high';
}

function readThinking(x: unknown, chat: ChatRequest): void {
  const o = objectAt(x, 'thinking', 'an object such as {"type":"enabled","budget_tokens":2048}');
  if (o.type === 'disabled') return;
  if (o.type === 'enabled') {
    chat.reasoning_effort = effortOfBudget(optionalIntAt(o.budget_tokens, 'thinking.budget_tokens', 1) ?? 4096);
    return;
  }
  if (o.type === 'adaptive' || o.type === 'between_tools') {
    chat.reasoning_effort = 'medium';
    return;
  }
  throw new TranslationError('"thinking.type" must be "enabled", "adaptive" or "disabled".', 'thinking.type');
}

function readOutputConfig(x: unknown, chat: ChatRequest): void {
  const o = objectAt(x, 'output_config', 'an object');
  if (typeof o.effort === 'string') chat.reasoning_effort = o.effort === 'low' ? 'low' : o.effort === 'medium' ? 'medium' : 'high';
  if (o.format !== undefined && o.format !== null) {
    const f = objectAt(o.format, 'output_config.format', 'an object such as {"type":"json_schema","schema":{…}}');
    if (f.type !== 'json_schema') throw new TranslationError('"output_config.format.type" must be "json_schema".', 'output_config.format.type');
    chat.response_format = { type: 'json_schema', json_schema: { name: 'output', schema: objectAt(f.schema, 'output_config.format.schema', 'a JSON Schema object') } };
  }
}

export function readAnthropicRequest(body: unknown, tools: ToolDropper): ChatRequest {
  const b = objectAt(body, '', 'a JSON object');
  for (const k of Object.keys(b)) if (!READ_FIELDS.has(k) && !IGNORED_FIELDS.has(k)) throw untranslatable(k, 'the field has no equivalent in chat completions');
  const model = stringAt(b.model, 'model', 'the model name, e.g. "claude-sonnet-4-5"');
  if (model === '') throw new TranslationError('"model" must not be empty.', 'model', 'missing_required_parameter');
  const maxTokens = optionalIntAt(b.max_tokens, 'max_tokens', 1);
  if (maxTokens === undefined) throw new TranslationError('Missing required parameter "max_tokens": the most tokens the answer may have.', 'max_tokens', 'missing_required_parameter');
  const messages: ChatMessage[] = [];
  if (b.system !== undefined && b.system !== null) {
    const system = textOf(b.system, 'system');
    if (system) messages.push({ role: 'system', content: system });
  }
  const list = arrayAt(b.messages, 'messages', 'a non-empty array of {role, content} messages');
  if (list.length === 0) throw new TranslationError('"messages" must be a non-empty array of {role, content} messages.', 'messages');
  list.forEach((m, i) => readMessage(m, i, messages));
  const chat: ChatRequest = { model, messages, max_tokens: maxTokens };
  const stream = optionalBooleanAt(b.stream, 'stream');
  if (stream) chat.stream = true;
  const temperature = optionalNumberAt(b.temperature, 'temperature', 0, 1);
  if (temperature !== undefined) chat.temperature = temperature;
  const topP = optionalNumberAt(b.top_p, 'top_p', 0, 1);
  if (topP !== undefined) chat.top_p = topP;
  if (b.stop_sequences !== undefined && b.stop_sequences !== null) {
    const stops = arrayAt(b.stop_sequences, 'stop_sequences', 'an array of strings').map((s, i) => stringAt(s, `stop_sequences[${i}]`, 'a string'));
    if (stops.length) chat.stop = stops;
  }
  if (b.tools !== undefined && b.tools !== null) readTools(b.tools, tools, chat);
  if (b.tool_choice !== undefined && b.tool_choice !== null) readToolChoice(b.tool_choice, chat);
  if (b.thinking !== undefined && b.thinking !== null) readThinking(b.thinking, chat);
  if (b.output_config !== undefined && b.output_config !== null) readOutputConfig(b.output_config, chat);
  // The structured-outputs beta's own field, before output_config held it.
  if (b.output_format !== undefined && b.output_format !== null) readOutputConfig({ format: b.output_format }, chat);
  return chat;
}

// --- client side: chat answers written as Anthropic messages ----------------------------------

const newMessageId = (): string => `msg_gw${randomBytes(12).toString('hex')}`;

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export function anthropicUsage(u: ChatUsage | undefined): AnthropicUsage {
  if (!u) return { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const read = u.prompt_tokens_details?.cached_tokens ?? 0;
  const written = u.cache_creation_input_tokens ?? 0;
  return { input_tokens: Math.max(0, u.prompt_tokens - read - written), output_tokens: u.completion_tokens, cache_creation_input_tokens: written, cache_read_input_tokens: read };
}

export function writeAnthropicMessage(chat: ChatResponse, request: ClientRequest): unknown {
  const choice = chat.choices[0];
  const content: unknown[] = [];
  if (choice?.message.reasoning_content) content.push({ type: 'thinking', thinking: choice.message.reasoning_content, signature: '' });
  const text = choice?.message.content ?? choice?.message.refusal ?? '';
  if (text) content.push({ type: 'text', text });
  choice?.message.tool_calls?.forEach((c, i) => content.push({ type: 'tool_use', id: c.id, name: c.function.name, input: answerArgumentsObject(c.function.arguments, `choices[0].message.tool_calls[${i}].function.arguments`) }));
  return {
    id: newMessageId(),
    type: 'message',
    role: 'assistant',
    model: request.chat.model,
    content,
    stop_reason: choice?.finish_reason ? FROM_CHAT_FINISH[choice.finish_reason] : 'end_turn',
    stop_sequence: null,
    usage: anthropicUsage(chat.usage),
  };
}

const sse = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** Chat chunks as Anthropic's event sequence. Tool calls are written one after the other, as chat streams them. */
class AnthropicEncoder implements StreamEncoder {
  private started = false;
  /** The open content block: its index and what it holds (a tool call: chat's index of it). */
  private open: { index: number; kind: 'text' | 'thinking' | 'tool'; tool?: number } | undefined;
  private blocks = 0;
  private stopReason: StopReason | undefined;
  private usage: ChatUsage | undefined;
  constructor(private readonly request: ClientRequest) {}

  private start(): string {
    if (this.started) return '';
    this.started = true;
    const message = { id: newMessageId(), type: 'message', role: 'assistant', model: this.request.chat.model, content: [], stop_reason: null, stop_sequence: null, usage: anthropicUsage(undefined) };
    return sse('message_start', { type: 'message_start', message }) + sse('ping', { type: 'ping' });
  }

  private close(): string {
    if (!this.open) return '';
    const out = sse('content_block_stop', { type: 'content_block_stop', index: this.open.index });
    this.open = undefined;
    return out;
  }

  private openBlock(kind: 'text' | 'thinking' | 'tool', contentBlock: unknown, tool?: number): string {
    const out = this.close();
    this.open = { index: this.blocks++, kind, ...(tool !== undefined ? { tool } : {}) };
    return out + sse('content_block_start', { type: 'content_block_start', index: this.open.index, content_block: contentBlock });
  }

  push(chunk: ChatChunk): string {
    let out = this.start();
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices.find((c) => c.index === 0);
    if (!choice) return out;
    const d = choice.delta;
    if (d.reasoning_content) {
      if (this.open?.kind !== 'thinking') out += this.openBlock('thinking', { type: 'thinking', thinking: '', signature: '' });
      out += sse('content_block_delta', { type: 'content_block_delta', index: this.open!.index, delta: { type: 'thinking_delta', thinking: d.reasoning_content } });
    }
    const text = d.content || d.refusal;
    if (text) {
      if (this.open?.kind !== 'text') out += this.openBlock('text', { type: 'text', text: '' });
      out += sse('content_block_delta', { type: 'content_block_delta', index: this.open!.index, delta: { type: 'text_delta', text } });
    }
    for (const call of d.tool_calls ?? []) {
      if (this.open?.kind !== 'tool' || this.open.tool !== call.index) {
        out += this.openBlock('tool', { type: 'tool_use', id: call.id ?? `toolu_gw${call.index}`, name: call.function?.name ?? '', input: {} }, call.index);
      }
      const args = call.function?.arguments;
      if (args) out += sse('content_block_delta', { type: 'content_block_delta', index: this.open!.index, delta: { type: 'input_json_delta', partial_json: args } });
    }
    if (choice.finish_reason) this.stopReason = FROM_CHAT_FINISH[choice.finish_reason];
    return out;
  }

  end(usage?: ChatUsage): string {
    const u = anthropicUsage(this.usage ?? usage);
    return (
      this.start() +
      this.close() +
      sse('message_delta', { type: 'message_delta', delta: { stop_reason: this.stopReason ?? 'end_turn', stop_sequence: null }, usage: u }) +
      sse('message_stop', { type: 'message_stop' })
    );
  }

  error(err: GatewayError): string {
    return sse('error', anthropicErrorBody(err));
  }
}

// --- upstream side: chat requests sent to an Anthropic upstream ------------------------------

function imageBlock(url: string, path: string): JsonObject {
  const media = parseDataUrl(url);
  if (media) return { type: 'image', source: { type: 'base64', media_type: media.mimeType, data: media.data } };
  if (isHttpUrl(url)) return { type: 'image', source: { type: 'url', url } };
  throw new TranslationError(`"${path}.image_url.url" must be an http(s) URL or a data: URL.`, `${path}.image_url.url`);
}

function userBlocks(content: string | ChatContentPart[], path: string): JsonObject[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((p, j): JsonObject => {
    const pp = `${path}[${j}]`;
    switch (p.type) {
      case 'text':
        return { type: 'text', text: p.text };
      case 'image_url':
        return imageBlock(p.image_url.url, pp);
      case 'file': {
        const media = p.file.file_data ? parseDataUrl(p.file.file_data) : undefined;
        if (!media) throw untranslatable(`${pp}.file`, 'Anthropic takes documents as base64 data (file ids live at one vendor only)');
        return { type: 'document', source: { type: 'base64', media_type: media.mimeType, data: media.data } };
      }
      case 'input_audio':
        throw untranslatable(`${pp}`, 'Anthropic models take no audio input');
      default:
        throw new TranslationError(`"${pp}.type" is not a content part type this gateway knows.`, `${pp}.type`);
    }
  });
}

const THINKING_BUDGET = { minimal: 0, low: 1024, medium: 4096, high: 16384 } as const;

export function writeAnthropicRequest(chat: ChatRequest, tools: ToolDropper): UpstreamRequest {
  const system: string[] = [];
  const messages: { role: 'user' | 'assistant'; content: JsonObject[] }[] = [];
  const append = (role: 'user' | 'assistant', blocks: JsonObject[]): void => {
    const last = messages[messages.length - 1];
    // Anthropic wants the roles to alternate; tool results and the user's next words share one turn.
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  chat.messages.forEach((m, i) => {
    const path = `messages[${i}]`;
    if (m.role === 'system' || m.role === 'developer') system.push(chatText(m.content));
    else if (m.role === 'user') append('user', userBlocks(m.content, `${path}.content`));
    else if (m.role === 'tool') append('user', [{ type: 'tool_result', tool_use_id: m.tool_call_id, content: chatText(m.content) }]);
    else if (m.role === 'assistant') {
      const blocks: JsonObject[] = [];
      const text = chatText(m.content);
      if (text) blocks.push({ type: 'text', text });
      m.tool_calls?.forEach((c, j) => blocks.push({ type: 'tool_use', id: c.id, name: c.function.name, input: argumentsObjectAt(c.function.arguments, `${path}.tool_calls[${j}].function.arguments`) }));
      if (blocks.length) append('assistant', blocks);
    }
  });
  if (chat.n !== undefined && chat.n !== 1) throw untranslatable('n', 'Anthropic answers with one message per request');
  if (chat.response_format?.type === 'json_object') throw untranslatable('response_format', 'Anthropic has no JSON mode without a schema; give a json_schema');
  let maxTokens = chat.max_completion_tokens ?? chat.max_tokens ?? DEFAULT_MAX_TOKENS;
  const body: JsonObject = { model: chat.model, messages, max_tokens: maxTokens };
  if (system.length) body.system = system.join('\n\n');
  if (chat.temperature !== undefined) body.temperature = Math.min(1, chat.temperature);
  if (chat.top_p !== undefined) body.top_p = chat.top_p;
  if (chat.stop !== undefined) body.stop_sequences = typeof chat.stop === 'string' ? [chat.stop] : chat.stop;
  if (chat.stream) body.stream = true;
  if (chat.user) body.metadata = { user_id: chat.user };
  const anthropicTools: JsonObject[] = (chat.tools ?? []).map((t, i) => {
    if (t.type !== 'function') tools.drop(String((t as { type: unknown }).type), `tools[${i}]`);
    return { name: t.function.name, ...(t.function.description ? { description: t.function.description } : {}), input_schema: t.function.parameters ?? { type: 'object', properties: {} } };
  });
  if (chat.web_search_options) {
    const loc = chat.web_search_options.user_location;
    const approx = isObject(loc) && isObject(loc.approximate) ? loc.approximate : undefined;
    anthropicTools.push({ type: 'web_search_20250305', name: 'web_search', ...(approx ? { user_location: { type: 'approximate', ...approx } } : {}) });
  }
  if (anthropicTools.length) body.tools = anthropicTools;
  const choice = chat.tool_choice;
  if (choice !== undefined || chat.parallel_tool_calls === false) {
    const tc: JsonObject =
      choice === 'none' ? { type: 'none' } : choice === 'required' ? { type: 'any' } : typeof choice === 'object' ? { type: 'tool', name: choice.function.name } : { type: 'auto' };
    if (chat.parallel_tool_calls === false && tc.type !== 'none') tc.disable_parallel_tool_use = true;
    body.tool_choice = tc;
  }
  if (chat.response_format?.type === 'json_schema' && chat.response_format.json_schema.schema) body.output_config = { format: { type: 'json_schema', schema: chat.response_format.json_schema.schema } };
  const budget = chat.reasoning_effort ? THINKING_BUDGET[chat.reasoning_effort] : 0;
  // With thinking on, Anthropic wants the signed thinking block that preceded the last turn's tool
  // use, which no other style can carry back: such a request goes without thinking.
  const lastAssistant = [...chat.messages].reverse().find((m) => m.role === 'assistant');
  const midToolLoop = lastAssistant?.role === 'assistant' && (lastAssistant.tool_calls?.length ?? 0) > 0;
  if (budget > 0 && !midToolLoop) {
    // The budget must stay below max_tokens; the answer keeps the room it asked for.
    if (maxTokens <= budget) maxTokens = budget + (chat.max_completion_tokens ?? chat.max_tokens ?? DEFAULT_MAX_TOKENS);
    body.max_tokens = maxTokens;
    body.thinking = { type: 'enabled', budget_tokens: budget };
    delete body.temperature;
  }
  return { path: '/v1/messages', body, headers: { 'anthropic-version': ANTHROPIC_VERSION } };
}

// --- upstream side: Anthropic answers read into chat --------------------------------------------

function num(x: unknown): number {
  return typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : 0;
}

/** Anthropic usage (message or message_delta) as chat usage. */
export function chatUsageOf(u: JsonObject): ChatUsage {
  const input = num(u.input_tokens);
  const read = num(u.cache_read_input_tokens);
  const written = num(u.cache_creation_input_tokens);
  const output = num(u.output_tokens);
  const prompt = input + read + written;
  const thinking = isObject(u.output_tokens_details) ? num(u.output_tokens_details.thinking_tokens) : 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: output,
    total_tokens: prompt + output,
    ...(read ? { prompt_tokens_details: { cached_tokens: read } } : {}),
    ...(thinking ? { completion_tokens_details: { reasoning_tokens: thinking } } : {}),
    ...(written ? { cache_creation_input_tokens: written } : {}),
  };
}

export function readAnthropicMessage(body: unknown): ChatResponse {
  if (!isObject(body)) throw upstreamInvalidResponse('the answer is not a JSON object');
  if (!Array.isArray(body.content)) throw upstreamInvalidResponse('content is missing');
  let text = '';
  let reasoning = '';
  const calls: ChatToolCall[] = [];
  body.content.forEach((b: unknown, i) => {
    if (!isObject(b)) throw upstreamInvalidResponse(`content[${i}] is not an object`);
    if (b.type === 'text' && typeof b.text === 'string') text += b.text;
    else if (b.type === 'thinking' && typeof b.thinking === 'string') reasoning += b.thinking;
    else if (b.type === 'tool_use') {
      if (typeof b.id !== 'string' || typeof b.name !== 'string') throw upstreamInvalidResponse(`content[${i}] (tool_use) lacks its id or name`);
      calls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(isObject(b.input) ? b.input : {}) } });
    }
  });
  const stop = typeof body.stop_reason === 'string' ? body.stop_reason : 'end_turn';
  return {
    id: typeof body.id === 'string' ? body.id : newMessageId(),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: typeof body.model === 'string' ? body.model : '',
    choices: [
      {
        index: 0,
        message: assistantMessage(text, calls, reasoning),
        finish_reason: TO_CHAT_FINISH[stop] ?? 'stop',
      },
    ],
    ...(isObject(body.usage) ? { usage: chatUsageOf(body.usage) } : {}),
  };
}

/** An `error` event or body as a GatewayError (502: the upstream failed while answering). */
function streamError(data: JsonObject): GatewayError {
  const e = isObject(data.error) ? data.error : {};
  return streamFailed(typeof e.type === 'string' ? e.type : 'error', e.message);
}

/** Anthropic's event sequence as chat chunks. */
class AnthropicDecoder extends ChunkingDecoder {
  private usage: JsonObject = {};
  private stopReason = 'end_turn';
  /** Content block index → chat tool call index. */
  private readonly tools = new Map<number, number>();

  constructor() {
    super('msg', 'message_stop');
  }

  push(event: SseEvent): ChatChunk[] {
    const data = eventObject(event, `the data of a ${event.event ?? 'stream'} event is not JSON`);
    const type = typeof data.type === 'string' ? data.type : event.event;
    switch (type) {
      case 'message_start': {
        const m = isObject(data.message) ? data.message : {};
        if (typeof m.id === 'string') this.id = m.id;
        if (typeof m.model === 'string') this.model = m.model;
        if (isObject(m.usage)) this.usage = { ...m.usage };
        return [this.chunk({ role: 'assistant', content: '' })];
      }
      case 'content_block_start': {
        const b = isObject(data.content_block) ? data.content_block : {};
        const index = num(data.index);
        if (b.type === 'tool_use') {
          if (typeof b.id !== 'string' || typeof b.name !== 'string') throw upstreamInvalidResponse(`content_block_start ${index} (tool_use) lacks its id or name`);
          const call = this.tools.size;
          this.tools.set(index, call);
          return [this.chunk({ tool_calls: [{ index: call, id: b.id, type: 'function', function: { name: b.name, arguments: '' } }] })];
        }
        if (b.type === 'text' && typeof b.text === 'string' && b.text) return [this.chunk({ content: b.text })];
        return [];
      }
      case 'content_block_delta': {
        const d = isObject(data.delta) ? data.delta : {};
        if (d.type === 'text_delta' && typeof d.text === 'string') return [this.chunk({ content: d.text })];
        if (d.type === 'thinking_delta' && typeof d.thinking === 'string') return [this.chunk({ reasoning_content: d.thinking })];
        if (d.type === 'input_json_delta' && typeof d.partial_json === 'string') {
          const call = this.tools.get(num(data.index));
          if (call === undefined) throw upstreamInvalidResponse(`input_json_delta for block ${num(data.index)}, which is no tool_use`);
          return d.partial_json ? [this.chunk({ tool_calls: [{ index: call, function: { arguments: d.partial_json } }] })] : [];
        }
        return [];
      }
      case 'message_delta': {
        if (isObject(data.delta) && typeof data.delta.stop_reason === 'string') this.stopReason = data.delta.stop_reason;
        if (isObject(data.usage)) for (const [k, v] of Object.entries(data.usage)) if (v !== null && v !== undefined) this.usage[k] = v;
        return [];
      }
      case 'message_stop': {
        this.finished = true;
        const usage = chatUsageOf(this.usage);
        return [this.chunk({}, TO_CHAT_FINISH[this.stopReason] ?? 'stop'), this.usageChunk(usage)];
      }
      case 'error':
        throw streamError(data);
      default:
        // ping, content_block_stop, and event types added later
        return [];
    }
  }
}

export const anthropicCodec: StyleCodec = {
  style: 'anthropic',
  toChatRequest: readAnthropicRequest,
  fromChatResponse: writeAnthropicMessage,
  fromChatStream: (request: ClientRequest): StreamEncoder => new AnthropicEncoder(request),
  errorBody: anthropicErrorBody,
  fromChatRequest: writeAnthropicRequest,
  toChatResponse: readAnthropicMessage,
  toChatStream: (): StreamDecoder => new AnthropicDecoder(),
  authHeaders: (apiKey: string): Record<string, string> => ({ 'x-api-key': apiKey }),
  readError: (status: number, body: unknown): UpstreamErrorInfo => upstreamErrorInfo(status, body, { type: 'type', code: 'type' }),
};
