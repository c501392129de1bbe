/**
 * OpenAI Responses (`POST /v1/responses`) as a client style, translated through chat
 * completions: `input` items and `instructions` become messages, function tools and calls and
 * their outputs carry over, freeform custom tools travel as a function with one string argument
 * `input`, web search becomes chat's `web_search_options`, other built-in tools are dropped
 * (reported) or refused. Answers become a Response object; chat chunks become the Responses
 * event sequence (created, in_progress, output_item.added, content_part.added,
 * output_text.delta …, function_call_arguments.delta/done, completed or incomplete).
 * Format: https://platform.openai.com/docs/api-reference/responses (create, streaming events).
 */
import { randomBytes } from 'node:crypto';
import { isObject, type JsonObject } from '../body.ts';
import { errorBody, upstreamInvalidResponse, type GatewayError } from '../errors.ts';
import { openaiCodec } from './openai.ts';
import { fitToOpenAiModel } from './openai-models.ts';
import { recallItem, rememberItem } from './item-memory.ts';
import { assistantMessage, chatText } from './chat-message.ts';
import { ChunkingDecoder, eventObject } from './stream-decoder.ts';
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
  type ChatToolChoice,
  type ChatUsage,
  type ChatToolCall,
  type ClientRequest,
  type SseEvent,
  type StreamDecoder,
  type StreamEncoder,
  type StyleCodec,
  type ToolDropper,
  type UpstreamRequest,
} from './types.ts';

/** Fields that change what the request means and that a chat upstream cannot carry. */
const UNCARRIED: Record<string, string> = {
  previous_response_id: 'a stored conversation (send the whole conversation in "input" instead)',
  conversation: 'a stored conversation (send the whole conversation in "input" instead)',
  prompt: 'a stored prompt template',
  background: 'background mode',
};

/** Built-in tools with an equivalent in chat completions: web search. */
const WEB_SEARCH = new Set(['web_search', 'web_search_preview', 'web_search_2025_08_26', 'web_search_preview_2025_03_11']);

const newId = (prefix: string): string => `${prefix}_${randomBytes(24).toString('hex')}`;

function fail(message: string, param: string): never {
  throw new TranslationError(message, param);
}

function text(x: unknown, param: string): string {
  if (typeof x !== 'string') fail(`${param} must be a string.`, param);
  return x;
}

/** One content part of an input message. */
function contentPart(p: unknown, param: string): ChatContentPart {
  if (typeof p === 'string') return { type: 'text', text: p };
  if (!isObject(p)) fail(`${param} must be an object such as {"type":"input_text","text":"…"}.`, param);
  switch (p.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return { type: 'text', text: text(p.text, `${param}.text`) };
    case 'refusal':
      return { type: 'text', text: text(p.refusal, `${param}.refusal`) };
    case 'input_image': {
      if (typeof p.image_url !== 'string') fail(`${param}: only images given by "image_url" (an https or data: URL) can be translated, not by "file_id".`, `${param}.image_url`);
      const detail = p.detail === 'low' || p.detail === 'high' ? p.detail : 'auto';
      return { type: 'image_url', image_url: { url: p.image_url, detail } };
    }
    case 'input_file': {
      if (typeof p.file_data === 'string') return { type: 'file', file: { file_data: p.file_data, ...(typeof p.filename === 'string' ? { filename: p.filename } : {}) } };
      if (typeof p.file_id === 'string') return { type: 'file', file: { file_id: p.file_id } };
      return fail(`${param}: a file must be given by "file_data" or "file_id".`, `${param}.file_data`);
    }
    case 'input_audio': {
      const a = isObject(p.input_audio) ? p.input_audio : p;
      return { type: 'input_audio', input_audio: { data: text(a.data, `${param}.input_audio.data`), format: text(a.format, `${param}.input_audio.format`) } };
    }
    default:
      return fail(`${param}.type "${String(p.type)}" is not a content type this gateway can translate (input_text, input_image, input_file, input_audio, output_text).`, `${param}.type`);
  }
}

function textOnly(parts: ChatContentPart[], param: string): ChatTextPart[] {
  return parts.map((p, i) => (p.type === 'text' ? p : fail(`${param}[${i}]: only text can be given in this role.`, `${param}[${i}].type`)));
}

/** The text of a function call output (a string, or parts of which text is kept). */
function outputText(x: unknown, param: string): string {
  if (typeof x === 'string') return x;
  if (!Array.isArray(x)) fail(`${param} must be a string or an array of content parts.`, param);
  return x.map((p, i) => {
    const part = contentPart(p, `${param}[${i}]`);
    return part.type === 'text' ? part.text : fail(`${param}[${i}]: only text outputs can be translated.`, `${param}[${i}].type`);
  }).join('');
}

/** The assistant message that collects consecutive function calls (and the text before them). */
function lastAssistant(messages: ChatMessage[]): Extract<ChatMessage, { role: 'assistant' }> {
  const last = messages.at(-1);
  if (last?.role === 'assistant') return last;
  const m: Extract<ChatMessage, { role: 'assistant' }> = { role: 'assistant', content: null };
  messages.push(m);
  return m;
}

/** The item an `item_reference` names (one this gateway answered recently). */
function referenced(ref: JsonObject, at: string): JsonObject {
  const id = text(ref.id, `${at}.id`);
  return recallItem(id) ?? fail(`${at}: the item "${id}" is not known to this gateway (only items of its recent translated answers can be referenced); send the item itself.`, `${at}.id`);
}

function inputMessages(input: unknown, field = 'input'): ChatMessage[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  if (!Array.isArray(input)) fail(`Parameter "${field}" must be a string or an array of input items.`, field);
  const messages: ChatMessage[] = [];
  input.forEach((given: unknown, i) => {
    const at = `${field}[${i}]`;
    if (!isObject(given)) fail(`${at} must be an object.`, at);
    const item = given.type === 'item_reference' ? referenced(given, at) : given;
    const type = item.type ?? 'message';
    switch (type) {
      case 'message': {
        const role = item.role;
        const parts = typeof item.content === 'string' ? item.content : Array.isArray(item.content) ? item.content.map((p, j) => contentPart(p, `${at}.content[${j}]`)) : fail(`${at}.content must be a string or an array of content parts.`, `${at}.content`);
        if (role === 'user') messages.push({ role: 'user', content: parts });
        else if (role === 'system' || role === 'developer') messages.push({ role: 'system', content: typeof parts === 'string' ? parts : textOnly(parts, `${at}.content`) });
        else if (role === 'assistant') {
          const content = typeof parts === 'string' ? parts : textOnly(parts, `${at}.content`).map((p) => p.text).join('');
          messages.push({ role: 'assistant', content });
        } else fail(`${at}.role must be user, assistant, system or developer.`, `${at}.role`);
        return;
      }
      case 'function_call':
      case 'custom_tool_call': {
        const callId = text(item.call_id, `${at}.call_id`);
        const own = text(item.name, `${at}.name`);
        const name = typeof item.namespace === 'string' ? namespacedName(item.namespace, own) : own;
        const args = type === 'function_call' ? text(item.arguments, `${at}.arguments`) : JSON.stringify({ input: text(item.input, `${at}.input`) });
        const m = lastAssistant(messages);
        (m.tool_calls ??= []).push({ id: callId, type: 'function', function: { name, arguments: args } });
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output':
        messages.push({ role: 'tool', tool_call_id: text(item.call_id, `${at}.call_id`), content: outputText(item.output, `${at}.output`) });
        return;
      case 'reasoning':
        // The model's own earlier reasoning: chat upstreams take no reasoning input.
        return;
      case 'item_reference':
        return fail(`${at}: item references need the upstream's stored items; send the items themselves.`, `${at}.type`);
      default:
        return fail(`${at}.type "${String(type)}" cannot be translated for this model's upstream.`, `${at}.type`);
    }
  });
  return messages;
}

function functionTool(t: JsonObject, at: string): ChatFunctionTool {
  const name = text(t.name, `${at}.name`);
  return {
    type: 'function',
    function: {
      name,
      ...(typeof t.description === 'string' ? { description: t.description } : {}),
      ...(isObject(t.parameters) ? { parameters: t.parameters } : {}),
      ...(typeof t.strict === 'boolean' ? { strict: t.strict } : {}),
    },
  };
}

/** A freeform (custom) tool as a function taking its text in one argument. */
function customTool(t: JsonObject, at: string): ChatFunctionTool {
  return {
    type: 'function',
    function: {
      name: text(t.name, `${at}.name`),
      description: `${typeof t.description === 'string' ? t.description : ''}\nPass the tool's whole text input as the string argument "input".`.trim(),
      parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'], additionalProperties: false },
    },
  };
}

function toolChoice(x: unknown): ChatToolChoice | undefined {
  if (x === undefined || x === null) return undefined;
  if (x === 'auto' || x === 'none' || x === 'required') return x;
  if (isObject(x) && (x.type === 'function' || x.type === 'custom') && typeof x.name === 'string') return { type: 'function', function: { name: x.name } };
  if (isObject(x) && x.type === 'allowed_tools') return x.mode === 'required' ? 'required' : 'auto';
  // A built-in tool chosen by type (web_search_preview …): the model may use it.
  if (isObject(x)) return 'auto';
  return fail('Parameter "tool_choice" must be "auto", "none", "required" or {"type":"function","name":…}.', 'tool_choice');
}

function responseFormat(textOpts: unknown): ChatRequest['response_format'] | undefined {
  if (!isObject(textOpts) || !isObject(textOpts.format)) return undefined;
  const f = textOpts.format;
  if (f.type === 'text') return undefined;
  if (f.type === 'json_object') return { type: 'json_object' };
  if (f.type === 'json_schema')
    return {
      type: 'json_schema',
      json_schema: {
        name: typeof f.name === 'string' ? f.name : 'response',
        ...(isObject(f.schema) ? { schema: f.schema } : {}),
        ...(typeof f.strict === 'boolean' ? { strict: f.strict } : {}),
        ...(typeof f.description === 'string' ? { description: f.description } : {}),
      },
    };
  return fail(`text.format.type "${String(f.type)}" is not one of text, json_object, json_schema.`, 'text.format.type');
}

const num = (x: unknown, param: string): number | undefined => (x === undefined || x === null ? undefined : typeof x === 'number' && Number.isFinite(x) ? x : fail(`Parameter "${param}" must be a number.`, param));

/** A function of a tool namespace as one chat function (chat names allow letters, digits, "_" and "-"). */
const namespacedName = (namespace: string, name: string): string => `${namespace}__${name}`;

/** How the request's tools come back: custom (freeform) ones as custom_tool_call items, namespaced functions with their namespace. */
interface ToolNames {
  custom: ReadonlySet<string>;
  /** Chat function name -> its namespace and own name. */
  namespaced: ReadonlyMap<string, { namespace: string; name: string }>;
}

function toolNames(body: JsonObject): ToolNames {
  const custom = new Set<string>();
  const namespaced = new Map<string, { namespace: string; name: string }>();
  if (Array.isArray(body.tools))
    for (const t of body.tools) {
      if (isObject(t) && t.type === 'custom' && typeof t.name === 'string') custom.add(t.name);
      if (isObject(t) && t.type === 'namespace' && typeof t.name === 'string' && Array.isArray(t.tools))
        for (const f of t.tools) if (isObject(f) && f.type === 'function' && typeof f.name === 'string') namespaced.set(namespacedName(t.name, f.name), { namespace: t.name, name: f.name });
    }
  return { custom, namespaced };
}

export function responsesToChat(body: unknown, tools: ToolDropper): ChatRequest {
  if (!isObject(body)) fail('The request body must be a JSON object.', '');
  if (typeof body.model !== 'string' || body.model === '') throw new TranslationError('Missing required parameter "model".', 'model', 'missing_required_parameter');
  for (const [field, what] of Object.entries(UNCARRIED))
    if (body[field] !== undefined && body[field] !== null && body[field] !== false) fail(`Parameter "${field}" (${what}) cannot be carried to the upstream serving this model.`, field);
  if (body.stream !== undefined && typeof body.stream !== 'boolean') fail('Parameter "stream" must be true or false.', 'stream');
  const messages: ChatMessage[] = [];
  // Instructions: a string, or input items (as a stored prompt's answer echoes them).
  if (Array.isArray(body.instructions)) messages.push(...inputMessages(body.instructions, 'instructions'));
  else if (body.instructions !== undefined && body.instructions !== null) messages.push({ role: 'system', content: text(body.instructions, 'instructions') });
  if (body.input === undefined) fail('Missing required parameter "input".', 'input');
  messages.push(...inputMessages(body.input));
  if (messages.length === 0) fail('Parameter "input" holds no messages.', 'input');
  const chat: ChatRequest = { model: body.model, messages };
  if (body.stream === true) chat.stream = true;
  const maxOut = num(body.max_output_tokens, 'max_output_tokens');
  if (maxOut !== undefined) chat.max_tokens = maxOut;
  const temperature = num(body.temperature, 'temperature');
  if (temperature !== undefined) chat.temperature = temperature;
  const topP = num(body.top_p, 'top_p');
  if (topP !== undefined) chat.top_p = topP;
  if (typeof body.parallel_tool_calls === 'boolean') chat.parallel_tool_calls = body.parallel_tool_calls;
  if (typeof body.user === 'string') chat.user = body.user;
  if (isObject(body.metadata)) chat.metadata = body.metadata as Record<string, string>;
  const effort = isObject(body.reasoning) ? body.reasoning.effort : undefined;
  if (effort === 'minimal' || effort === 'low' || effort === 'medium' || effort === 'high') chat.reasoning_effort = effort;
  const format = responseFormat(body.text);
  if (format) chat.response_format = format;
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) fail('Parameter "tools" must be an array.', 'tools');
    const fns: ChatFunctionTool[] = [];
    body.tools.forEach((t: unknown, i) => {
      const at = `tools[${i}]`;
      if (!isObject(t) || typeof t.type !== 'string') fail(`${at} must be an object with a "type".`, at);
      if (t.type === 'function') fns.push(functionTool(t, at));
      else if (t.type === 'custom') fns.push(customTool(t, at));
      else if (t.type === 'namespace' && typeof t.name === 'string' && Array.isArray(t.tools)) {
        // A namespace groups functions (Codex sends its sub-agent tools so): each travels as "<namespace>__<name>".
        const ns = t.name;
        t.tools.forEach((f: unknown, j) => {
          if (isObject(f) && f.type === 'function') {
            const fn = functionTool(f, `${at}.tools[${j}]`);
            fns.push({ ...fn, function: { ...fn.function, name: namespacedName(ns, fn.function.name) } });
          } else tools.drop(isObject(f) && typeof f.type === 'string' ? f.type : 'unknown', `${at}.tools[${j}].type`);
        });
      }
      else if (WEB_SEARCH.has(t.type)) chat.web_search_options = t.search_context_size === 'low' || t.search_context_size === 'high' ? { search_context_size: t.search_context_size } : {};
      else tools.drop(t.type, `${at}.type`);
    });
    if (fns.length) chat.tools = fns;
  }
  const choice = toolChoice(body.tool_choice);
  if (choice !== undefined && chat.tools) chat.tool_choice = choice;
  return chat;
}

// --- answers ----------------------------------------------------------------------------------

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export function responsesUsage(u: ChatUsage): ResponsesUsage {
  return {
    input_tokens: u.prompt_tokens,
    input_tokens_details: { cached_tokens: u.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: u.completion_tokens,
    output_tokens_details: { reasoning_tokens: u.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: u.total_tokens || u.prompt_tokens + u.completion_tokens,
  };
}

type OutputItem = JsonObject & { type: string; id: string };

function messageItem(id: string, text: string, status: 'in_progress' | 'completed'): OutputItem {
  return { type: 'message', id, status, role: 'assistant', content: status === 'in_progress' ? [] : [{ type: 'output_text', text, annotations: [], logprobs: [] }] };
}

function reasoningItem(id: string, text: string): OutputItem {
  return { type: 'reasoning', id, summary: text ? [{ type: 'summary_text', text }] : [] };
}

function callItem(id: string, call: { id: string; name: string; arguments: string }, names: ToolNames, status: 'in_progress' | 'completed'): OutputItem {
  if (names.custom.has(call.name)) {
    let input = call.arguments;
    try {
      const parsed: unknown = JSON.parse(call.arguments);
      if (isObject(parsed) && typeof parsed.input === 'string') input = parsed.input;
    } catch {
      // Arguments that are not the {"input": …} object: the text as sent.
    }
    return { type: 'custom_tool_call', id, call_id: call.id, name: call.name, input, status };
  }
  const ns = names.namespaced.get(call.name);
  if (ns) return { type: 'function_call', id, call_id: call.id, name: ns.name, namespace: ns.namespace, arguments: call.arguments, status };
  return { type: 'function_call', id, call_id: call.id, name: call.name, arguments: call.arguments, status };
}

function statusOf(finish: ChatFinishReason | null): { status: 'completed' | 'incomplete'; incomplete_details: { reason: string } | null } {
  if (finish === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/** The Response object around `output`, echoing the request's settings. */
function responseObject(id: string, createdAt: number, req: ClientRequest, fields: JsonObject): JsonObject {
  const o = req.original;
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status: 'in_progress',
    background: false,
    error: null,
    incomplete_details: null,
    instructions: o.instructions ?? null,
    max_output_tokens: o.max_output_tokens ?? null,
    model: req.chat.model,
    output: [],
    parallel_tool_calls: o.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: isObject(o.reasoning) ? (o.reasoning.effort ?? null) : null, summary: null },
    store: false,
    temperature: o.temperature ?? 1,
    text: isObject(o.text) ? o.text : { format: { type: 'text' } },
    tool_choice: o.tool_choice ?? 'auto',
    tools: Array.isArray(o.tools) ? o.tools : [],
    top_p: o.top_p ?? 1,
    truncation: o.truncation ?? 'disabled',
    usage: null,
    user: o.user ?? null,
    metadata: isObject(o.metadata) ? o.metadata : {},
    ...fields,
  };
}

export function chatToResponse(chat: ChatResponse, req: ClientRequest): JsonObject {
  const choice = chat.choices[0];
  const names = toolNames(req.original);
  const output: OutputItem[] = [];
  const m = choice?.message;
  if (m?.reasoning_content) output.push(reasoningItem(newId('rs'), m.reasoning_content));
  const content = m?.content ?? m?.refusal ?? '';
  if (content) output.push(messageItem(newId('msg'), content, 'completed'));
  for (const c of m?.tool_calls ?? []) output.push(callItem(newId('fc'), { id: c.id, name: c.function.name, arguments: c.function.arguments }, names, 'completed'));
  for (const item of output) rememberItem(item);
  return responseObject(newId('resp'), chat.created, req, {
    ...statusOf(choice?.finish_reason ?? null),
    output,
    usage: chat.usage ? responsesUsage(chat.usage) : null,
  });
}

// --- streams ----------------------------------------------------------------------------------

interface OpenCall {
  itemId: string;
  outputIndex: number;
  id: string;
  name: string;
  arguments: string;
}

/** Chat chunks as the Responses event sequence. */
class ResponsesEncoder implements StreamEncoder {
  private readonly id = newId('resp');
  private readonly createdAt = Math.floor(Date.now() / 1000);
  private readonly names: ToolNames;
  private seq = 0;
  private started = false;
  private readonly output: OutputItem[] = [];
  /** The open text item (its id, index and text so far). */
  private message: { id: string; index: number; text: string } | undefined;
  private reasoning: { id: string; index: number; text: string } | undefined;
  /** Open function calls by their chat tool-call index. */
  private readonly calls = new Map<number, OpenCall>();
  private finish: ChatFinishReason | null = null;
  private usage: ChatUsage | undefined;

  constructor(private readonly req: ClientRequest) {
    this.names = toolNames(req.original);
  }

  private event(type: string, fields: JsonObject): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.seq++, ...fields })}\n\n`;
  }

  private response(fields: JsonObject): JsonObject {
    return responseObject(this.id, this.createdAt, this.req, fields);
  }

  private start(): string {
    if (this.started) return '';
    this.started = true;
    const r = this.response({});
    return this.event('response.created', { response: r }) + this.event('response.in_progress', { response: r });
  }

  private closeReasoning(): string {
    const r = this.reasoning;
    if (!r) return '';
    this.reasoning = undefined;
    const item = reasoningItem(r.id, r.text);
    this.output[r.index] = item;
    rememberItem(item);
    const part = { type: 'summary_text', text: r.text };
    return (
      this.event('response.reasoning_summary_text.done', { item_id: r.id, output_index: r.index, summary_index: 0, text: r.text }) +
      this.event('response.reasoning_summary_part.done', { item_id: r.id, output_index: r.index, summary_index: 0, part }) +
      this.event('response.output_item.done', { output_index: r.index, item })
    );
  }

  private closeMessage(): string {
    const m = this.message;
    if (!m) return '';
    this.message = undefined;
    const item = messageItem(m.id, m.text, 'completed');
    this.output[m.index] = item;
    rememberItem(item);
    const part = { type: 'output_text', text: m.text, annotations: [], logprobs: [] };
    return (
      this.event('response.output_text.done', { item_id: m.id, output_index: m.index, content_index: 0, text: m.text, logprobs: [] }) +
      this.event('response.content_part.done', { item_id: m.id, output_index: m.index, content_index: 0, part }) +
      this.event('response.output_item.done', { output_index: m.index, item })
    );
  }

  private closeCall(key: number): string {
    const c = this.calls.get(key);
    if (!c) return '';
    this.calls.delete(key);
    const item = callItem(c.itemId, c, this.names, 'completed');
    this.output[c.outputIndex] = item;
    rememberItem(item);
    const done =
      item.type === 'custom_tool_call'
        ? this.event('response.custom_tool_call_input.done', { item_id: c.itemId, output_index: c.outputIndex, input: item.input })
        : this.event('response.function_call_arguments.done', { item_id: c.itemId, output_index: c.outputIndex, name: c.name, arguments: c.arguments });
    return done + this.event('response.output_item.done', { output_index: c.outputIndex, item });
  }

  private closeCalls(): string {
    let out = '';
    for (const key of [...this.calls.keys()]) out += this.closeCall(key);
    return out;
  }

  private reasoningDelta(delta: string): string {
    let out = '';
    if (!this.reasoning) {
      out += this.closeMessage() + this.closeCalls();
      this.reasoning = { id: newId('rs'), index: this.output.length, text: '' };
      this.output.push(reasoningItem(this.reasoning.id, ''));
      out += this.event('response.output_item.added', { output_index: this.reasoning.index, item: reasoningItem(this.reasoning.id, '') });
      out += this.event('response.reasoning_summary_part.added', { item_id: this.reasoning.id, output_index: this.reasoning.index, summary_index: 0, part: { type: 'summary_text', text: '' } });
    }
    this.reasoning.text += delta;
    return out + this.event('response.reasoning_summary_text.delta', { item_id: this.reasoning.id, output_index: this.reasoning.index, summary_index: 0, delta });
  }

  private textDelta(delta: string): string {
    let out = '';
    if (!this.message) {
      out += this.closeReasoning() + this.closeCalls();
      this.message = { id: newId('msg'), index: this.output.length, text: '' };
      this.output.push(messageItem(this.message.id, '', 'in_progress'));
      out += this.event('response.output_item.added', { output_index: this.message.index, item: messageItem(this.message.id, '', 'in_progress') });
      out += this.event('response.content_part.added', { item_id: this.message.id, output_index: this.message.index, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
    }
    this.message.text += delta;
    return out + this.event('response.output_text.delta', { item_id: this.message.id, output_index: this.message.index, content_index: 0, delta, logprobs: [] });
  }

  private toolDelta(d: NonNullable<ChatChunk['choices'][number]['delta']['tool_calls']>[number]): string {
    let out = '';
    let c = this.calls.get(d.index);
    if (!c) {
      out += this.closeReasoning() + this.closeMessage() + this.closeCalls();
      c = { itemId: newId('fc'), outputIndex: this.output.length, id: d.id ?? newId('call'), name: d.function?.name ?? '', arguments: '' };
      this.calls.set(d.index, c);
      const item = callItem(c.itemId, c, this.names, 'in_progress');
      this.output.push(item);
      out += this.event('response.output_item.added', { output_index: c.outputIndex, item: item.type === 'custom_tool_call' ? { ...item, input: '' } : item });
    }
    const args = d.function?.arguments;
    if (args) {
      c.arguments += args;
      // A custom tool's input is only known whole (it is inside the JSON arguments).
      if (!this.names.custom.has(c.name)) out += this.event('response.function_call_arguments.delta', { item_id: c.itemId, output_index: c.outputIndex, delta: args });
    }
    return out;
  }

  push(chunk: ChatChunk): string {
    let out = this.start();
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices.find((c) => c.index === 0);
    if (!choice) return out;
    const d = choice.delta;
    if (d.reasoning_content) out += this.reasoningDelta(d.reasoning_content);
    if (d.content) out += this.textDelta(d.content);
    if (d.refusal) out += this.textDelta(d.refusal);
    for (const t of d.tool_calls ?? []) out += this.toolDelta(t);
    if (choice.finish_reason) this.finish = choice.finish_reason;
    return out;
  }

  end(usage?: ChatUsage): string {
    const u = this.usage ?? usage;
    const out = this.start() + this.closeReasoning() + this.closeMessage() + this.closeCalls();
    const st = statusOf(this.finish);
    const response = this.response({ ...st, output: this.output, usage: u ? responsesUsage(u) : null });
    return out + this.event(st.status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
  }

  error(err: GatewayError): string {
    const response = this.response({ status: 'failed', error: { code: err.code, message: err.message }, output: this.output });
    return this.start() + this.event('error', { code: err.code, message: err.message, param: err.param }) + this.event('response.failed', { response });
  }
}


// --- upstream side: chat requests to an upstream that speaks only Responses ----------------------

/** Chat parts as Responses input content. */
function inputParts(content: string | ChatContentPart[]): string | JsonObject[] {
  if (typeof content === 'string') return content;
  return content.map((p) => {
    if (p.type === 'text') return { type: 'input_text', text: p.text };
    if (p.type === 'image_url') return { type: 'input_image', image_url: p.image_url.url, detail: p.image_url.detail ?? 'auto' };
    if (p.type === 'input_audio') return { type: 'input_audio', input_audio: p.input_audio };
    return { type: 'input_file', ...(p.file.file_data ? { file_data: p.file.file_data } : {}), ...(p.file.file_id ? { file_id: p.file.file_id } : {}), ...(p.file.filename ? { filename: p.file.filename } : {}) };
  });
}


/** A chat request for an upstream that speaks only Responses (every built-in tool chat has is carried). */
export function chatToResponses(translated: ChatRequest, tools: ToolDropper): UpstreamRequest {
  const chat = fitToOpenAiModel(translated, (field) => tools.dropField(field));
  if (chat.n !== undefined && chat.n !== 1) fail('Parameter "n" (several choices) cannot be carried to an upstream that speaks only Responses.', 'n');
  if (chat.stop !== undefined && chat.stop !== null && (typeof chat.stop === 'string' || chat.stop.length > 0)) fail('Parameter "stop" cannot be carried to an upstream that speaks only Responses.', 'stop');
  const input: JsonObject[] = [];
  let instructions: string | undefined;
  chat.messages.forEach((m, i) => {
    if (m.role === 'system' || m.role === 'developer') {
      if (i === 0) instructions = chatText(m.content);
      else input.push({ role: 'developer', content: chatText(m.content) });
    } else if (m.role === 'user') input.push({ role: 'user', content: inputParts(m.content) });
    else if (m.role === 'assistant') {
      const text = chatText(m.content);
      if (text) input.push({ role: 'assistant', content: text });
      for (const c of m.tool_calls ?? []) input.push({ type: 'function_call', call_id: c.id, name: c.function.name, arguments: c.function.arguments });
    } else if (m.role === 'tool') input.push({ type: 'function_call_output', call_id: m.tool_call_id, output: chatText(m.content) });
  });
  const body: JsonObject = { model: chat.model, input, store: false };
  if (instructions !== undefined) body.instructions = instructions;
  if (chat.stream) body.stream = true;
  const maxOut = chat.max_completion_tokens ?? chat.max_tokens;
  if (maxOut !== undefined) body.max_output_tokens = maxOut;
  for (const k of ['temperature', 'top_p', 'parallel_tool_calls', 'user', 'metadata'] as const) if (chat[k] !== undefined) body[k] = chat[k];
  if (chat.reasoning_effort) body.reasoning = { effort: chat.reasoning_effort };
  const f = chat.response_format;
  if (f?.type === 'json_object') body.text = { format: { type: 'json_object' } };
  if (f?.type === 'json_schema') body.text = { format: { type: 'json_schema', ...f.json_schema } };
  const out: JsonObject[] = (chat.tools ?? []).map((t) => ({ type: 'function', name: t.function.name, ...(t.function.description ? { description: t.function.description } : {}), parameters: t.function.parameters ?? { type: 'object', properties: {} }, strict: t.function.strict ?? false }));
  if (chat.web_search_options) out.push({ type: 'web_search', ...(chat.web_search_options.search_context_size ? { search_context_size: chat.web_search_options.search_context_size } : {}) });
  if (out.length) body.tools = out;
  const choice = chat.tool_choice;
  if (choice !== undefined) body.tool_choice = typeof choice === 'string' ? choice : { type: 'function', name: choice.function.name };
  return { path: '/v1/responses', body, headers: {} };
}

function chatUsageOf(u: unknown): ChatUsage | undefined {
  if (!isObject(u)) return undefined;
  const n = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) ? x : 0);
  const cached = isObject(u.input_tokens_details) ? n(u.input_tokens_details.cached_tokens) : 0;
  const reasoning = isObject(u.output_tokens_details) ? n(u.output_tokens_details.reasoning_tokens) : 0;
  return {
    prompt_tokens: n(u.input_tokens),
    completion_tokens: n(u.output_tokens),
    total_tokens: n(u.total_tokens) || n(u.input_tokens) + n(u.output_tokens),
    ...(cached ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
    ...(reasoning ? { completion_tokens_details: { reasoning_tokens: reasoning } } : {}),
  };
}

function finishOf(r: JsonObject, calls: boolean): ChatFinishReason {
  if (r.status === 'incomplete') return isObject(r.incomplete_details) && r.incomplete_details.reason === 'content_filter' ? 'content_filter' : 'length';
  return calls ? 'tool_calls' : 'stop';
}

/** A Response object as a chat completion (502 naming the path it missed). */
export function responsesToChatResponse(body: unknown): ChatResponse {
  if (!isObject(body)) throw upstreamInvalidResponse('the answer is not a JSON object');
  if (!Array.isArray(body.output)) throw upstreamInvalidResponse('output is missing');
  let text = '';
  let reasoning = '';
  const calls: ChatToolCall[] = [];
  body.output.forEach((item: unknown, i) => {
    if (!isObject(item)) throw upstreamInvalidResponse(`output[${i}] is not an object`);
    if (item.type === 'message' && Array.isArray(item.content))
      for (const c of item.content) if (isObject(c) && (c.type === 'output_text' || c.type === 'refusal')) text += String(c.text ?? c.refusal ?? '');
    if (item.type === 'reasoning' && Array.isArray(item.summary)) for (const s of item.summary) if (isObject(s) && typeof s.text === 'string') reasoning += s.text;
    if (item.type === 'function_call') {
      if (typeof item.name !== 'string') throw upstreamInvalidResponse(`output[${i}].name is missing`);
      calls.push({ id: typeof item.call_id === 'string' ? item.call_id : `call_${i}`, type: 'function', function: { name: item.name, arguments: typeof item.arguments === 'string' ? item.arguments : '{}' } });
    }
  });
  const usage = chatUsageOf(body.usage);
  return {
    id: typeof body.id === 'string' ? body.id : 'resp-gateway',
    object: 'chat.completion',
    created: typeof body.created_at === 'number' ? body.created_at : Math.floor(Date.now() / 1000),
    model: typeof body.model === 'string' ? body.model : '',
    choices: [{ index: 0, message: assistantMessage(text, calls, reasoning), finish_reason: finishOf(body, calls.length > 0) }],
    ...(usage ? { usage } : {}),
  };
}

/** The Responses event sequence as chat chunks. */
class ResponsesDecoder extends ChunkingDecoder {
  /** Function-call item ids -> their chat tool-call index. */
  private readonly callIndex = new Map<string, number>();

  constructor() {
    super('resp-gateway', 'its response.completed event');
  }

  push(event: SseEvent): ChatChunk[] {
    const ev = eventObject(event);
    const type = typeof ev.type === 'string' ? ev.type : event.event;
    switch (type) {
      case 'response.created': {
        const r = isObject(ev.response) ? ev.response : {};
        if (typeof r.id === 'string') this.id = r.id;
        if (typeof r.model === 'string') this.model = r.model;
        return [this.chunk({ role: 'assistant', content: '' })];
      }
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        return typeof ev.delta === 'string' ? [this.chunk({ content: ev.delta })] : [];
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        return typeof ev.delta === 'string' ? [this.chunk({ reasoning_content: ev.delta })] : [];
      case 'response.output_item.added': {
        const item = isObject(ev.item) ? ev.item : {};
        if (item.type !== 'function_call' || typeof item.id !== 'string') return [];
        const index = this.callIndex.size;
        this.callIndex.set(item.id, index);
        const args = typeof item.arguments === 'string' ? item.arguments : '';
        return [this.chunk({ tool_calls: [{ index, id: typeof item.call_id === 'string' ? item.call_id : item.id, type: 'function', function: { name: String(item.name ?? ''), arguments: args } }] })];
      }
      case 'response.function_call_arguments.delta': {
        const index = typeof ev.item_id === 'string' ? this.callIndex.get(ev.item_id) : undefined;
        return index !== undefined && typeof ev.delta === 'string' ? [this.chunk({ tool_calls: [{ index, function: { arguments: ev.delta } }] })] : [];
      }
      case 'response.completed':
      case 'response.incomplete': {
        this.finished = true;
        const r = isObject(ev.response) ? ev.response : {};
        const usage = chatUsageOf(r.usage);
        const last = this.chunk({}, finishOf(r, this.callIndex.size > 0));
        return usage ? [last, this.usageChunk(usage)] : [last];
      }
      case 'response.failed':
      case 'error': {
        const r = isObject(ev.response) ? ev.response : ev;
        const e = isObject(r.error) ? r.error : r;
        throw upstreamInvalidResponse(`the stream failed: ${typeof e.message === 'string' ? e.message.slice(0, 300) : type}`);
      }
      default:
        return [];
    }
  }
}

export const responsesCodec: StyleCodec = {
  style: 'responses',
  toChatRequest: responsesToChat,
  fromChatResponse: chatToResponse,
  fromChatStream: (request: ClientRequest): StreamEncoder => new ResponsesEncoder(request),
  errorBody: (err: GatewayError): unknown => errorBody(err, 'openai'),
  fromChatRequest: chatToResponses,
  toChatResponse: responsesToChatResponse,
  toChatStream: (): StreamDecoder => new ResponsesDecoder(),
  authHeaders: openaiCodec.authHeaders,
  readError: openaiCodec.readError,
};
