/**
 * Gemini generateContent ⇄ chat completions, both sides, streams included. Field names follow
 * Google's Gemini API reference (GenerateContentRequest, Content, Part, GenerationConfig, Tool,
 * GenerateContentResponse, UsageMetadata); the REST API reads its JSON fields in lowerCamelCase
 * or snake_case (`systemInstruction` or `system_instruction`), and so does this codec. A stream is
 * a series of whole GenerateContentResponse objects (SSE `data:` events with `alt=sse`), the
 * last one with `finishReason` and `usageMetadata`; function calls arrive whole, never in pieces.
 *
 * Usage: Gemini's `candidatesTokenCount` leaves out thinking (`thoughtsTokenCount`), and
 * `promptTokenCount` leaves out `toolUsePromptTokenCount`; chat's counts hold both, with the
 * thinking in `completion_tokens_details.reasoning_tokens` and cached input in
 * `prompt_tokens_details.cached_tokens`.
 */
import { randomBytes } from 'node:crypto';
import { isObject, type JsonObject } from '../body.ts';
import { errorBody, GatewayError, upstreamInvalidResponse } from '../errors.ts';
import { answerArgumentsObject } from './answer-arguments.ts';
import { audioFormat, dataUrl, isHttpUrl, mimeTypeOfUrl, parseDataUrl } from './media.ts';
import { assistantMessage, chatText } from './chat-message.ts';
import { ChunkingDecoder, eventObject, streamFailed } from './stream-decoder.ts';
import { upstreamErrorInfo } from './upstream-error.ts';
import { argumentsObjectAt, arrayAt, objectAt, optionalIntAt, optionalNumberAt, optionalStringAt, stringAt, untranslatable } from './narrow.ts';
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

/** A field of a Gemini JSON object under its lowerCamelCase name or its snake_case one. */
function field(o: JsonObject, camel: string): unknown {
  const v = o[camel];
  return v !== undefined ? v : o[camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];
}

const BLOCKED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION', 'LANGUAGE']);

function chatFinish(reason: string, calledTools: boolean): ChatFinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (BLOCKED.has(reason)) return 'content_filter';
  return calledTools ? 'tool_calls' : 'stop';
}

const GEMINI_FINISH: Record<ChatFinishReason, string> = { stop: 'STOP', length: 'MAX_TOKENS', tool_calls: 'STOP', function_call: 'STOP', content_filter: 'SAFETY' };

/**
 * Gemini's schema (an OpenAPI subset: `"type": "OBJECT"`, `nullable`) as JSON Schema, and back
 * untouched otherwise: type names lower-cased, `nullable` as a `"null"` type, Gemini-only keys dropped.
 */
export function jsonSchemaOf(schema: unknown, depth = 0): unknown {
  if (depth > 32) return schema;
  if (Array.isArray(schema)) return schema.map((s) => jsonSchemaOf(s, depth + 1));
  if (!isObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'nullable' || k === 'propertyOrdering' || k === 'property_ordering') continue;
    if (k === 'type' && typeof v === 'string') out.type = v.toLowerCase();
    else if (k === 'properties' && isObject(v)) out.properties = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, jsonSchemaOf(s, depth + 1)]));
    else if (k === 'items' || k === 'anyOf' || k === 'any_of' || k === 'oneOf' || k === 'allOf') out[k === 'any_of' ? 'anyOf' : k] = jsonSchemaOf(v, depth + 1);
    else out[k] = v;
  }
  if (schema.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

// --- client side: a Gemini request read into chat ----------------------------------------------

const IGNORED_FIELDS = new Set(['safetySettings', 'safety_settings', 'labels', 'model']);
const READ_FIELDS = new Set(['contents', 'systemInstruction', 'system_instruction', 'generationConfig', 'generation_config', 'tools', 'toolConfig', 'tool_config']);

/** Function call ids given to calls that came without one, so their responses can find them by name. */
class CallIds {
  private readonly pending = new Map<string, string[]>();
  private n = 0;
  called(name: string, id: string | undefined): string {
    const callId = id ?? `call_gw${this.n++}`;
    this.pending.set(name, [...(this.pending.get(name) ?? []), callId]);
    return callId;
  }
  answered(name: string, id: string | undefined, path: string): string {
    const queue = this.pending.get(name) ?? [];
    const callId = id ?? queue[0];
    if (callId === undefined) throw new TranslationError(`"${path}" answers a call of "${name}" that no earlier functionCall made.`, path);
    this.pending.set(
      name,
      queue.filter((x) => x !== callId),
    );
    return callId;
  }
}

function textOfContent(x: unknown, path: string): string {
  if (typeof x === 'string') return x;
  const c = objectAt(x, path, 'a Content object {parts:[{text}]}');
  return arrayAt(c.parts, `${path}.parts`, 'an array of parts')
    .map((p, i) => stringAt(objectAt(p, `${path}.parts[${i}]`, 'a part').text, `${path}.parts[${i}].text`, 'text'))
    .join('\n');
}

function inlinePart(media: JsonObject, path: string): ChatContentPart {
  const mimeType = stringAt(field(media, 'mimeType'), `${path}.mimeType`, 'a media type such as "image/png"').toLowerCase();
  const data = stringAt(media.data, `${path}.data`, 'base64 text');
  if (mimeType.startsWith('image/')) return { type: 'image_url', image_url: { url: dataUrl({ mimeType, data }) } };
  if (mimeType.startsWith('audio/')) {
    const format = audioFormat(mimeType);
    if (!format) throw untranslatable(`${path}.mimeType`, `audio as ${mimeType} cannot be sent in chat completions (wav and mp3 can)`);
    return { type: 'input_audio', input_audio: { data, format } };
  }
  if (mimeType.startsWith('video/')) throw untranslatable(`${path}.mimeType`, 'video input has no equivalent in chat completions');
  return { type: 'file', file: { file_data: dataUrl({ mimeType, data }), filename: mimeType === 'application/pdf' ? 'document.pdf' : 'file' } };
}

function readContent(c: unknown, i: number, ids: CallIds, out: ChatMessage[]): void {
  const path = `contents[${i}]`;
  const o = objectAt(c, path, 'a Content object {role, parts}');
  const role = o.role ?? 'user';
  if (role !== 'user' && role !== 'model' && role !== 'function' && role !== 'tool') throw new TranslationError(`"${path}.role" must be "user" or "model".`, `${path}.role`);
  const parts: ChatContentPart[] = [];
  const calls: ChatToolCall[] = [];
  let reasoning = '';
  arrayAt(o.parts, `${path}.parts`, 'an array of parts').forEach((p, j) => {
    const pp = `${path}.parts[${j}]`;
    const part = objectAt(p, pp, 'a Part object');
    const inline = field(part, 'inlineData');
    const file = field(part, 'fileData');
    const call = field(part, 'functionCall');
    const response = field(part, 'functionResponse');
    if (typeof part.text === 'string') {
      if (part.thought === true) reasoning += part.text;
      else parts.push({ type: 'text', text: part.text });
    } else if (inline !== undefined) parts.push(inlinePart(objectAt(inline, `${pp}.inlineData`, 'an object {mimeType, data}'), `${pp}.inlineData`));
    else if (file !== undefined) {
      const f = objectAt(file, `${pp}.fileData`, 'an object {mimeType, fileUri}');
      const uri = stringAt(field(f, 'fileUri'), `${pp}.fileData.fileUri`, 'a URL');
      const mimeType = optionalStringAt(field(f, 'mimeType'), `${pp}.fileData.mimeType`) ?? mimeTypeOfUrl(uri, '');
      if (!isHttpUrl(uri) || !mimeType.startsWith('image/')) throw untranslatable(`${pp}.fileData`, 'only images at http(s) URLs can be sent by reference in chat completions; send other files inline');
      parts.push({ type: 'image_url', image_url: { url: uri } });
    } else if (call !== undefined) {
      const fc = objectAt(call, `${pp}.functionCall`, 'an object {name, args}');
      const name = stringAt(fc.name, `${pp}.functionCall.name`, 'the function name');
      const args = fc.args === undefined || fc.args === null ? {} : objectAt(fc.args, `${pp}.functionCall.args`, 'an object');
      calls.push({ id: ids.called(name, optionalStringAt(fc.id, `${pp}.functionCall.id`)), type: 'function', function: { name, arguments: JSON.stringify(args) } });
    } else if (response !== undefined) {
      const fr = objectAt(response, `${pp}.functionResponse`, 'an object {name, response}');
      const name = stringAt(fr.name, `${pp}.functionResponse.name`, 'the function name');
      const id = ids.answered(name, optionalStringAt(fr.id, `${pp}.functionResponse.id`), `${pp}.functionResponse`);
      out.push({ role: 'tool', tool_call_id: id, content: JSON.stringify(fr.response ?? {}) });
    } else if (field(part, 'executableCode') !== undefined || field(part, 'codeExecutionResult') !== undefined) {
      throw untranslatable(pp, 'code execution parts have no equivalent in chat completions');
    } else if (field(part, 'thoughtSignature') === undefined) {
      throw new TranslationError(`"${pp}" must hold text, inlineData, fileData, functionCall or functionResponse.`, pp);
    }
  });
  if (role === 'model') {
    if (parts.length || calls.length || reasoning) {
      const text = parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
      out.push(assistantMessage(text, calls, reasoning));
    }
    return;
  }
  if (calls.length) throw new TranslationError(`"${path}": functionCall parts belong in "model" contents.`, `${path}.role`);
  if (parts.length) out.push({ role: 'user', content: parts.length === 1 && parts[0]!.type === 'text' ? (parts[0] as ChatTextPart).text : parts });
}

function effortOfBudget(budget: number): ChatRequest['reasoning_effort'] {
  if (budget === 0) return 'minimal';
  if (budget < 0) return 'medium';
  if (budget < 4096) return 'low';
  if (budget < 16384) return 'medium';
  return 'high';
}

function readGenerationConfig(x: unknown, chat: ChatRequest): void {
  const g = objectAt(x, 'generationConfig', 'an object');
  const p = (name: string): string => `generationConfig.${name}`;
  const temperature = optionalNumberAt(field(g, 'temperature'), p('temperature'), 0, 2);
  if (temperature !== undefined) chat.temperature = temperature;
  const topP = optionalNumberAt(field(g, 'topP'), p('topP'), 0, 1);
  if (topP !== undefined) chat.top_p = topP;
  const max = optionalIntAt(field(g, 'maxOutputTokens'), p('maxOutputTokens'), 1);
  if (max !== undefined) chat.max_tokens = max;
  const stops = field(g, 'stopSequences');
  if (stops !== undefined && stops !== null) chat.stop = arrayAt(stops, p('stopSequences'), 'an array of strings').map((s, i) => stringAt(s, `${p('stopSequences')}[${i}]`, 'a string'));
  const n = optionalIntAt(field(g, 'candidateCount'), p('candidateCount'), 1);
  if (n !== undefined && n !== 1) chat.n = n;
  const seed = optionalIntAt(field(g, 'seed'), p('seed'), -(2 ** 31));
  if (seed !== undefined) chat.seed = seed;
  const presence = optionalNumberAt(field(g, 'presencePenalty'), p('presencePenalty'));
  if (presence !== undefined) chat.presence_penalty = presence;
  const frequency = optionalNumberAt(field(g, 'frequencyPenalty'), p('frequencyPenalty'));
  if (frequency !== undefined) chat.frequency_penalty = frequency;
  const mime = optionalStringAt(field(g, 'responseMimeType'), p('responseMimeType'));
  const schema = field(g, 'responseJsonSchema') ?? field(g, 'responseSchema');
  if (schema !== undefined && schema !== null) {
    chat.response_format = { type: 'json_schema', json_schema: { name: 'response', schema: objectAt(jsonSchemaOf(schema), p('responseSchema'), 'a schema object') } };
  } else if (mime === 'application/json') chat.response_format = { type: 'json_object' };
  else if (mime !== undefined && mime !== 'text/plain') throw untranslatable(p('responseMimeType'), `answers as ${mime} have no equivalent in chat completions`);
  const modalities = field(g, 'responseModalities');
  if (Array.isArray(modalities) && modalities.some((m) => m !== 'TEXT')) throw untranslatable(p('responseModalities'), 'only text answers can be translated');
  if (field(g, 'speechConfig') !== undefined) throw untranslatable(p('speechConfig'), 'spoken answers have no equivalent in chat completions');
  const thinking = field(g, 'thinkingConfig');
  if (isObject(thinking)) {
    const budget = optionalIntAt(field(thinking, 'thinkingBudget'), p('thinkingConfig.thinkingBudget'), -1);
    const level = optionalStringAt(field(thinking, 'thinkingLevel'), p('thinkingConfig.thinkingLevel'));
    if (budget !== undefined) chat.reasoning_effort = effortOfBudget(budget);
    else if (level !== undefined) chat.reasoning_effort = level.toLowerCase() === 'low' || level.toLowerCase() === 'minimal' ? 'low' : level.toLowerCase() === 'medium' ? 'medium' : 'high';
  }
}

const SEARCH_TOOLS = new Set(['googleSearch', 'google_search', 'googleSearchRetrieval', 'google_search_retrieval']);

function readTools(x: unknown, tools: ToolDropper, chat: ChatRequest): void {
  const functions: ChatFunctionTool[] = [];
  arrayAt(x, 'tools', 'an array of Tool objects').forEach((t, i) => {
    const o = objectAt(t, `tools[${i}]`, 'a Tool object');
    for (const [kind, value] of Object.entries(o)) {
      if (kind === 'functionDeclarations' || kind === 'function_declarations') {
        arrayAt(value, `tools[${i}].functionDeclarations`, 'an array of function declarations').forEach((d, j) => {
          const dp = `tools[${i}].functionDeclarations[${j}]`;
          const decl = objectAt(d, dp, 'a function declaration {name, description, parameters}');
          const description = optionalStringAt(decl.description, `${dp}.description`);
          const params = field(decl, 'parametersJsonSchema') ?? decl.parameters;
          const parameters = params === undefined || params === null ? { type: 'object', properties: {} } : objectAt(jsonSchemaOf(params), `${dp}.parameters`, 'a schema object');
          functions.push({ type: 'function', function: { name: stringAt(decl.name, `${dp}.name`, 'the function name'), ...(description ? { description } : {}), parameters } });
        });
      } else if (SEARCH_TOOLS.has(kind)) chat.web_search_options = {};
      else tools.drop(kind, `tools[${i}].${kind}`);
    }
  });
  if (functions.length) chat.tools = functions;
}

function readToolConfig(x: unknown, chat: ChatRequest): void {
  const o = objectAt(x, 'toolConfig', 'an object {functionCallingConfig}');
  const fcc = field(o, 'functionCallingConfig');
  if (fcc === undefined || fcc === null) return;
  const f = objectAt(fcc, 'toolConfig.functionCallingConfig', 'an object {mode, allowedFunctionNames}');
  const mode = optionalStringAt(f.mode, 'toolConfig.functionCallingConfig.mode') ?? 'AUTO';
  const allowed = field(f, 'allowedFunctionNames');
  const names = allowed === undefined || allowed === null ? [] : arrayAt(allowed, 'toolConfig.functionCallingConfig.allowedFunctionNames', 'an array of function names').map((n, i) => stringAt(n, `toolConfig.functionCallingConfig.allowedFunctionNames[${i}]`, 'a name'));
  if (mode === 'NONE') chat.tool_choice = 'none';
  else if (mode === 'AUTO' || mode === 'VALIDATED' || mode === 'MODE_UNSPECIFIED') chat.tool_choice = 'auto';
  else if (mode === 'ANY') {
    if (names.length > 1) throw untranslatable('toolConfig.functionCallingConfig.allowedFunctionNames', 'chat completions can force one named function or any function, not a subset');
    chat.tool_choice = names.length === 1 ? { type: 'function', function: { name: names[0]! } } : 'required';
  } else throw new TranslationError('"toolConfig.functionCallingConfig.mode" must be AUTO, ANY, NONE or VALIDATED.', 'toolConfig.functionCallingConfig.mode');
}

/**
 * A Gemini body read into chat. The model and whether it streams are in the URL, not the body:
 * the route passes them as `model`, `stream` and `sse` (`alt=sse`) beside the body's own fields.
 */
export function readGeminiRequest(body: unknown, tools: ToolDropper): ChatRequest {
  const b = objectAt(body, '', 'a JSON object');
  for (const k of Object.keys(b)) {
    if (k === 'stream' || k === 'sse') continue;
    if (k === 'cachedContent' || k === 'cached_content') throw untranslatable(k, 'cached content lives at one Gemini upstream only');
    if (!READ_FIELDS.has(k) && !IGNORED_FIELDS.has(k)) throw untranslatable(k, 'the field has no equivalent in chat completions');
  }
  const model = (typeof b.model === 'string' ? b.model : '').replace(/^models\//, '');
  const messages: ChatMessage[] = [];
  const system = field(b, 'systemInstruction');
  if (system !== undefined && system !== null) {
    const text = textOfContent(system, 'systemInstruction');
    if (text) messages.push({ role: 'system', content: text });
  }
  const contents = arrayAt(b.contents, 'contents', 'a non-empty array of {role, parts:[{text}]} objects');
  if (contents.length === 0) throw new TranslationError('"contents" must be a non-empty array of {role, parts:[{text}]} objects.', 'contents');
  const ids = new CallIds();
  contents.forEach((c, i) => readContent(c, i, ids, messages));
  const chat: ChatRequest = { model, messages };
  if (b.stream === true) chat.stream = true;
  const gen = field(b, 'generationConfig');
  if (gen !== undefined && gen !== null) readGenerationConfig(gen, chat);
  if (b.tools !== undefined && b.tools !== null) readTools(b.tools, tools, chat);
  const toolConfig = field(b, 'toolConfig');
  if (toolConfig !== undefined && toolConfig !== null) readToolConfig(toolConfig, chat);
  return chat;
}

// --- client side: chat answers written as Gemini responses -----------------------------------

export interface GeminiUsageMetadata {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
}

export function geminiUsageMetadata(u: ChatUsage | undefined): GeminiUsageMetadata | undefined {
  if (!u) return undefined;
  const thoughts = u.completion_tokens_details?.reasoning_tokens ?? 0;
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    promptTokenCount: u.prompt_tokens,
    candidatesTokenCount: Math.max(0, u.completion_tokens - thoughts),
    totalTokenCount: u.total_tokens || u.prompt_tokens + u.completion_tokens,
    ...(cached ? { cachedContentTokenCount: cached } : {}),
    ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
  };
}

function functionCallPart(c: ChatToolCall, path: string): JsonObject {
  return { functionCall: { id: c.id, name: c.function.name, args: answerArgumentsObject(c.function.arguments, path) } };
}

const newResponseId = (): string => randomBytes(12).toString('base64url');

export function writeGeminiResponse(chat: ChatResponse, request: ClientRequest): unknown {
  const usageMetadata = geminiUsageMetadata(chat.usage);
  return {
    candidates: chat.choices.map((c) => {
      const parts: JsonObject[] = [];
      if (c.message.reasoning_content) parts.push({ text: c.message.reasoning_content, thought: true });
      const text = c.message.content ?? c.message.refusal;
      if (text) parts.push({ text });
      c.message.tool_calls?.forEach((t, i) => parts.push(functionCallPart(t, `choices[${c.index}].message.tool_calls[${i}].function.arguments`)));
      if (parts.length === 0) parts.push({ text: '' });
      return { content: { role: 'model', parts }, finishReason: GEMINI_FINISH[c.finish_reason ?? 'stop'], index: c.index };
    }),
    ...(usageMetadata ? { usageMetadata } : {}),
    modelVersion: request.chat.model,
    responseId: newResponseId(),
  };
}

/**
 * Chat chunks as Gemini stream chunks: text and thoughts as they come, function calls whole
 * (their arguments gathered until the call is complete), the finish reason and usage on the last.
 * `sse` (with `alt=sse`): one `data:` event per chunk; otherwise the chunks of one JSON array.
 */
export class GeminiEncoder implements StreamEncoder {
  readonly contentType: string | undefined;
  private readonly responseId = newResponseId();
  private readonly calls = new Map<number, { id: string; name: string; args: string }>();
  private finish: ChatFinishReason | undefined;
  private usage: ChatUsage | undefined;
  private written = 0;
  constructor(
    private readonly request: ClientRequest,
    private readonly sse = true,
  ) {
    this.contentType = sse ? undefined : 'application/json; charset=utf-8';
  }

  private write(candidate: JsonObject, extra: JsonObject = {}): string {
    const json = JSON.stringify({ candidates: [candidate], modelVersion: this.request.chat.model, responseId: this.responseId, ...extra });
    const first = this.written++ === 0;
    if (this.sse) return `data: ${json}\r\n\r\n`;
    return `${first ? '[' : ',\r\n'}${json}`;
  }

  push(chunk: ChatChunk): string {
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices.find((c) => c.index === 0);
    if (!choice) return '';
    const d = choice.delta;
    const parts: JsonObject[] = [];
    if (d.reasoning_content) parts.push({ text: d.reasoning_content, thought: true });
    const text = d.content || d.refusal;
    if (text) parts.push({ text });
    for (const t of d.tool_calls ?? []) {
      const call = this.calls.get(t.index) ?? { id: t.id ?? `call_gw${t.index}`, name: '', args: '' };
      if (t.function?.name) call.name += t.function.name;
      if (t.function?.arguments) call.args += t.function.arguments;
      this.calls.set(t.index, call);
    }
    if (choice.finish_reason) this.finish = choice.finish_reason;
    return parts.length ? this.write({ content: { role: 'model', parts }, index: 0 }) : '';
  }

  end(usage?: ChatUsage): string {
    const parts = [...this.calls.values()].map((c, i) => functionCallPart({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } }, `tool_calls[${i}].function.arguments`));
    const usageMetadata = geminiUsageMetadata(this.usage ?? usage);
    const last = this.write({ content: { role: 'model', parts: parts.length ? parts : [{ text: '' }] }, finishReason: GEMINI_FINISH[this.finish ?? 'stop'], index: 0 }, usageMetadata ? { usageMetadata } : {});
    return this.sse ? last : `${last}]`;
  }

  error(err: GatewayError): string {
    // As stream.ts ends a native Gemini stream: the bare {"error":…} object, not an SSE event. The
    // Google client raises ApiError for a network chunk that is one, and "Incomplete JSON segment"
    // when it arrives with other bytes; read as an event it would pass for an empty chunk.
    const body = JSON.stringify(errorBody(err, 'gemini'));
    if (this.sse) return body;
    return `${this.written++ === 0 ? '[' : ',\r\n'}${body}]`;
  }
}

// --- upstream side: chat requests sent to a Gemini upstream ---------------------------------

function geminiPart(p: ChatContentPart, path: string): JsonObject {
  switch (p.type) {
    case 'text':
      return { text: p.text };
    case 'image_url': {
      const media = parseDataUrl(p.image_url.url);
      if (media) return { inlineData: { mimeType: media.mimeType, data: media.data } };
      if (isHttpUrl(p.image_url.url)) return { fileData: { mimeType: mimeTypeOfUrl(p.image_url.url, 'image/jpeg'), fileUri: p.image_url.url } };
      throw new TranslationError(`"${path}.image_url.url" must be an http(s) URL or a data: URL.`, `${path}.image_url.url`);
    }
    case 'input_audio':
      return { inlineData: { mimeType: `audio/${p.input_audio.format}`, data: p.input_audio.data } };
    case 'file': {
      const media = p.file.file_data ? parseDataUrl(p.file.file_data) : undefined;
      if (!media) throw untranslatable(`${path}.file`, 'Gemini takes files inline as base64 data (file ids live at one vendor only)');
      return { inlineData: { mimeType: media.mimeType, data: media.data } };
    }
    default:
      throw new TranslationError(`"${path}.type" is not a content part type this gateway knows.`, `${path}.type`);
  }
}

function toolResponse(content: string | ChatTextPart[]): JsonObject {
  const text = chatText(content);
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObject(parsed)) return parsed;
  } catch {
    // plain text: wrapped below
  }
  return { result: text };
}

const THINKING_BUDGET = { minimal: 0, low: 1024, medium: 8192, high: 24576 } as const;

/**
 * Gemini 3 and later refuse a replayed functionCall part without the thoughtSignature they
 * attached to it, which no other style can carry back; Google documents this value for calls
 * whose signature is not known (https://ai.google.dev/gemini-api/docs/thought-signatures).
 */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';
const SIGNING_MODEL = /^(?:models\/)?gemini-(?:[3-9]|\d{2,})/;

export function writeGeminiRequest(chat: ChatRequest, tools: ToolDropper): UpstreamRequest {
  const signs = SIGNING_MODEL.test(chat.model);
  const system: string[] = [];
  const contents: { role: 'user' | 'model'; parts: JsonObject[] }[] = [];
  const names = new Map<string, string>();
  const append = (role: 'user' | 'model', parts: JsonObject[]): void => {
    const last = contents[contents.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  chat.messages.forEach((m, i) => {
    const path = `messages[${i}]`;
    if (m.role === 'system' || m.role === 'developer') system.push(chatText(m.content));
    else if (m.role === 'user') append('user', typeof m.content === 'string' ? [{ text: m.content }] : m.content.map((p, j) => geminiPart(p, `${path}.content[${j}]`)));
    else if (m.role === 'tool') {
      const name = names.get(m.tool_call_id);
      if (name === undefined) throw new TranslationError(`"${path}.tool_call_id" names no tool call of an earlier assistant message.`, `${path}.tool_call_id`);
      append('user', [{ functionResponse: { name, response: toolResponse(m.content) } }]);
    } else if (m.role === 'assistant') {
      const parts: JsonObject[] = [];
      const text = chatText(m.content);
      if (text) parts.push({ text });
      m.tool_calls?.forEach((c, j) => {
        names.set(c.id, c.function.name);
        const call: JsonObject = { functionCall: { name: c.function.name, args: argumentsObjectAt(c.function.arguments, `${path}.tool_calls[${j}].function.arguments`) } };
        if (signs) call.thoughtSignature = SKIP_THOUGHT_SIGNATURE;
        parts.push(call);
      });
      if (parts.length) append('model', parts);
    }
  });
  const generationConfig: JsonObject = {};
  if (chat.temperature !== undefined) generationConfig.temperature = chat.temperature;
  if (chat.top_p !== undefined) generationConfig.topP = chat.top_p;
  const max = chat.max_completion_tokens ?? chat.max_tokens;
  if (max !== undefined) generationConfig.maxOutputTokens = max;
  if (chat.stop !== undefined) generationConfig.stopSequences = typeof chat.stop === 'string' ? [chat.stop] : chat.stop;
  if (chat.n !== undefined && chat.n !== 1) generationConfig.candidateCount = chat.n;
  if (chat.seed !== undefined) generationConfig.seed = chat.seed;
  if (chat.presence_penalty !== undefined) generationConfig.presencePenalty = chat.presence_penalty;
  if (chat.frequency_penalty !== undefined) generationConfig.frequencyPenalty = chat.frequency_penalty;
  if (chat.response_format?.type === 'json_object') generationConfig.responseMimeType = 'application/json';
  if (chat.response_format?.type === 'json_schema') {
    generationConfig.responseMimeType = 'application/json';
    if (chat.response_format.json_schema.schema) generationConfig.responseJsonSchema = chat.response_format.json_schema.schema;
  }
  if (chat.reasoning_effort) generationConfig.thinkingConfig = { thinkingBudget: THINKING_BUDGET[chat.reasoning_effort] };
  const body: JsonObject = { contents };
  if (system.length) body.systemInstruction = { parts: [{ text: system.join('\n\n') }] };
  if (Object.keys(generationConfig).length) body.generationConfig = generationConfig;
  const geminiTools: JsonObject[] = [];
  const declarations = (chat.tools ?? []).flatMap((t, i) => {
    if (t.type !== 'function') {
      tools.drop(String((t as { type: unknown }).type), `tools[${i}]`);
      return [];
    }
    return [{ name: t.function.name, ...(t.function.description ? { description: t.function.description } : {}), ...(t.function.parameters ? { parametersJsonSchema: t.function.parameters } : {}) }];
  });
  if (declarations.length) geminiTools.push({ functionDeclarations: declarations });
  if (chat.web_search_options) geminiTools.push({ googleSearch: {} });
  if (geminiTools.length) body.tools = geminiTools;
  const choice = chat.tool_choice;
  if (choice !== undefined) {
    const config: JsonObject =
      choice === 'none' ? { mode: 'NONE' } : choice === 'required' ? { mode: 'ANY' } : typeof choice === 'object' ? { mode: 'ANY', allowedFunctionNames: [choice.function.name] } : { mode: 'AUTO' };
    body.toolConfig = { functionCallingConfig: config };
  }
  const model = encodeURIComponent(chat.model.replace(/^models\//, ''));
  return { path: chat.stream ? `/v1beta/models/${model}:streamGenerateContent?alt=sse` : `/v1beta/models/${model}:generateContent`, body, headers: {} };
}

// --- upstream side: Gemini answers read into chat ---------------------------------------------

function num(x: unknown): number {
  return typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : 0;
}

/** Gemini `usageMetadata` as chat usage. */
export function chatUsageOf(u: JsonObject): ChatUsage {
  const prompt = num(u.promptTokenCount) + num(u.toolUsePromptTokenCount);
  const thoughts = num(u.thoughtsTokenCount);
  const completion = num(u.candidatesTokenCount) + thoughts;
  const cached = num(u.cachedContentTokenCount);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: num(u.totalTokenCount) || prompt + completion,
    ...(cached ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
    ...(thoughts ? { completion_tokens_details: { reasoning_tokens: thoughts } } : {}),
  };
}

interface CandidateParts {
  text: string;
  reasoning: string;
  calls: { id: string | undefined; name: string; args: unknown }[];
}

function readParts(candidate: JsonObject, where: string): CandidateParts {
  const out: CandidateParts = { text: '', reasoning: '', calls: [] };
  const content = isObject(candidate.content) ? candidate.content : undefined;
  const parts = content && Array.isArray(content.parts) ? content.parts : [];
  parts.forEach((p: unknown, i) => {
    if (!isObject(p)) throw upstreamInvalidResponse(`${where}.content.parts[${i}] is not an object`);
    if (typeof p.text === 'string') {
      if (p.thought === true) out.reasoning += p.text;
      else out.text += p.text;
    }
    const fc = field(p, 'functionCall');
    if (fc !== undefined) {
      if (!isObject(fc) || typeof fc.name !== 'string') throw upstreamInvalidResponse(`${where}.content.parts[${i}].functionCall.name is missing`);
      out.calls.push({ id: typeof fc.id === 'string' ? fc.id : undefined, name: fc.name, args: fc.args ?? {} });
    }
  });
  return out;
}

export function readGeminiResponse(body: unknown): ChatResponse {
  if (!isObject(body)) throw upstreamInvalidResponse('the answer is not a JSON object');
  const candidates = Array.isArray(body.candidates) ? body.candidates : [];
  if (candidates.length === 0 && !isObject(body.promptFeedback)) throw upstreamInvalidResponse('candidates is missing');
  const usage = isObject(body.usageMetadata) ? chatUsageOf(body.usageMetadata) : undefined;
  const choices: ChatResponse['choices'] = candidates.map((c: unknown, i) => {
    if (!isObject(c)) throw upstreamInvalidResponse(`candidates[${i}] is not an object`);
    const parts = readParts(c, `candidates[${i}]`);
    const calls: ChatToolCall[] = parts.calls.map((fc, j) => ({ id: fc.id ?? `call_gw${j}`, type: 'function', function: { name: fc.name, arguments: JSON.stringify(fc.args) } }));
    return {
      index: typeof c.index === 'number' ? c.index : i,
      message: assistantMessage(parts.text, calls, parts.reasoning),
      finish_reason: chatFinish(typeof c.finishReason === 'string' ? c.finishReason : 'STOP', calls.length > 0),
    };
  });
  // A prompt Gemini blocked has no candidates, only its promptFeedback.
  if (choices.length === 0) choices.push({ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'content_filter' });
  return {
    id: typeof body.responseId === 'string' ? body.responseId : `gemini-${newResponseId()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: typeof body.modelVersion === 'string' ? body.modelVersion : '',
    choices,
    ...(usage ? { usage } : {}),
  };
}

/** Gemini's stream (whole responses, one per SSE event) as chat chunks. */
class GeminiDecoder extends ChunkingDecoder {
  private started = false;
  private calls = 0;
  private finish: ChatFinishReason | undefined;
  private usage: ChatUsage | undefined;

  constructor() {
    super(`gemini-${newResponseId()}`, 'a chunk with its finishReason');
  }

  push(event: SseEvent): ChatChunk[] {
    const data = eventObject(event);
    if (isObject(data.error)) throw streamFailed(String(data.error.status ?? data.error.code ?? 'error'), data.error.message);
    if (typeof data.responseId === 'string') this.id = data.responseId;
    if (typeof data.modelVersion === 'string') this.model = data.modelVersion;
    if (isObject(data.usageMetadata)) this.usage = chatUsageOf(data.usageMetadata);
    const out: ChatChunk[] = [];
    if (!this.started) {
      this.started = true;
      out.push(this.chunk({ role: 'assistant', content: '' }));
    }
    const candidate = Array.isArray(data.candidates) ? data.candidates.find((c: unknown) => isObject(c) && (c.index === undefined || c.index === 0)) : undefined;
    if (isObject(candidate)) {
      const parts = readParts(candidate, 'candidates[0]');
      if (parts.reasoning) out.push(this.chunk({ reasoning_content: parts.reasoning }));
      if (parts.text) out.push(this.chunk({ content: parts.text }));
      if (parts.calls.length) {
        out.push(
          this.chunk({
            tool_calls: parts.calls.map((fc) => {
              const index = this.calls++;
              return { index, id: fc.id ?? `call_gw${index}`, type: 'function' as const, function: { name: fc.name, arguments: JSON.stringify(fc.args) } };
            }),
          }),
        );
      }
      if (typeof candidate.finishReason === 'string') this.finish = chatFinish(candidate.finishReason, this.calls > 0);
    } else if (isObject(data.promptFeedback) && typeof data.promptFeedback.blockReason === 'string') this.finish = 'content_filter';
    return out;
  }

  override end(): ChatChunk[] {
    if (!this.finish) throw this.cutOff();
    const out = [this.chunk({}, this.finish)];
    if (this.usage) out.push(this.usageChunk(this.usage));
    return out;
  }
}

export const geminiCodec: StyleCodec = {
  style: 'gemini',
  toChatRequest: readGeminiRequest,
  fromChatResponse: writeGeminiResponse,
  fromChatStream: (request: ClientRequest): StreamEncoder => new GeminiEncoder(request, request.original.sse !== false),
  errorBody: (err: GatewayError): unknown => errorBody(err, 'gemini'),
  fromChatRequest: writeGeminiRequest,
  toChatResponse: readGeminiResponse,
  toChatStream: (): StreamDecoder => new GeminiDecoder(),
  authHeaders: (apiKey: string): Record<string, string> => ({ 'x-goog-api-key': apiKey }),
  readError: (status: number, body: unknown): UpstreamErrorInfo => upstreamErrorInfo(status, body, { type: 'status', code: 'status' }),
};
