/**
 * Local upstreams that speak one vendor's API and nothing else, for the translation tests:
 * `AnthropicUpstream` (Messages API: POST /v1/messages, JSON or the SSE event sequence of
 * Anthropic's streaming reference, /v1/messages/count_tokens, GET /v1/models) and
 * `GeminiUpstream` (generateContent, streamGenerateContent with and without alt=sse,
 * countTokens, embedContent, batchEmbedContents, GET /v1beta/models and /v1beta/models/{model}). Each checks its own
 * credential header, answers other paths with its own 404, and records every request.
 *
 * Answers: when the request offers a function tool named `get_weather` and its last turn is not
 * a tool result, the model calls it with arguments made from its schema (a coding agent's own
 * tools, such as Claude Code's Bash, are never called); after a tool result it says
 * `The tool said: <result>`; asked for JSON (Gemini's `responseMimeType`), it answers a value of the
 * schema; otherwise `Hello from <model>`. Usage carries cache and thinking
 * counts so billing can be checked through translation.
 */
import http from 'node:http';
import { ScriptedUpstream, sleep, type SeenRequest } from './model-upstream.ts';

type Json = Record<string, unknown>;

/** The one tool the fake models call. */
export const WEATHER_TOOL = 'get_weather';

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function parse(body: Buffer): Json | undefined {
  try {
    const v: unknown = JSON.parse(body.toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}

/** Arguments a model could give a tool with this JSON schema (every property filled). */
export function argumentsFor(schema: unknown): Json {
  const props = typeof schema === 'object' && schema !== null ? (schema as Json).properties : undefined;
  if (typeof props !== 'object' || props === null) return {};
  const out: Json = {};
  for (const [name, s] of Object.entries(props as Json)) {
    const type = String((s as Json | undefined)?.type ?? 'string').toLowerCase();
    out[name] = type === 'number' || type === 'integer' ? 1 : type === 'boolean' ? true : name === 'city' || name === 'location' ? 'Paris' : 'x';
  }
  return out;
}

/** A value of a JSON schema (or Gemini's upper-case variant): what a model asked for JSON of it answers. */
export function valueFor(schema: unknown, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 8) return null;
  const s = schema as Json;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  switch (String(s.type ?? 'object').toLowerCase()) {
    case 'object':
      return Object.fromEntries(Object.entries((s.properties as Json | undefined) ?? {}).map(([k, v]) => [k, valueFor(v, depth + 1)]));
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 10;
    case 'boolean':
      return true;
    default:
      return 'A short greeting needs no planning.';
  }
}

abstract class VendorUpstream extends ScriptedUpstream {

  constructor(readonly key: string) {
    super();
  }

  lastJson(pathPrefix: string): Json {
    const seen = this.last(pathPrefix);
    if (!seen) throw new Error(`no request to ${pathPrefix}`);
    return parse(seen.body) ?? {};
  }

  protected async receive(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://upstream');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const seen: SeenRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks) };
    this.requests.push(seen);
    const scripted = this.scriptFor(seen);
    try {
      await (scripted ? scripted(seen, res) : this.handle(seen, res));
    } catch {
      res.destroy();
    }
  }

  protected abstract handle(req: SeenRequest, res: http.ServerResponse): Promise<void>;
}

// --- Anthropic ------------------------------------------------------------------------------------

const anthropicError = (res: http.ServerResponse, status: number, type: string, message: string): void => send(res, status, { type: 'error', error: { type, message } });

export const ANTHROPIC_USAGE = { input_tokens: 10, cache_creation_input_tokens: 2, cache_read_input_tokens: 4, output_tokens: 5 };

export class AnthropicUpstream extends VendorUpstream {
  readonly models = ['claude-sonnet-4-6', 'claude-haiku-4-5'];

  protected async handle(req: SeenRequest, res: http.ServerResponse): Promise<void> {
    if (req.headers['x-api-key'] !== this.key) return anthropicError(res, 401, 'authentication_error', 'invalid x-api-key');
    if (req.method === 'GET' && req.path === '/v1/models')
      return send(res, 200, { data: this.models.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-09-29T00:00:00Z' })), has_more: false, first_id: this.models[0], last_id: this.models.at(-1) });
    if (req.method !== 'POST' || (req.path !== '/v1/messages' && req.path !== '/v1/messages/count_tokens')) return anthropicError(res, 404, 'not_found_error', `Not found: ${req.method} ${req.path}`);
    if (typeof req.headers['anthropic-version'] !== 'string') return anthropicError(res, 400, 'invalid_request_error', 'anthropic-version: header is required');
    const body = parse(req.body);
    if (!body) return anthropicError(res, 400, 'invalid_request_error', 'The request body is not valid JSON.');
    if (typeof body.model !== 'string') return anthropicError(res, 400, 'invalid_request_error', 'model: Field required');
    if (!Array.isArray(body.messages) || body.messages.length === 0) return anthropicError(res, 400, 'invalid_request_error', 'messages: Field required');
    if (req.path === '/v1/messages/count_tokens') return send(res, 200, { input_tokens: Math.ceil(JSON.stringify([body.system ?? '', body.messages, body.tools ?? []]).length / 4) });
    if (typeof body.max_tokens !== 'number') return anthropicError(res, 400, 'invalid_request_error', 'max_tokens: Field required');
    // With thinking on, the last assistant turn's tool use must follow its (signed) thinking block.
    const lastAssistant = (body.messages as Json[]).filter((m) => m.role === 'assistant').at(-1);
    const blocks = Array.isArray(lastAssistant?.content) ? (lastAssistant.content as Json[]) : [];
    if ((body.thinking as Json | undefined)?.type === 'enabled' && blocks.some((b) => b.type === 'tool_use') && blocks[0]?.type !== 'thinking')
      return anthropicError(res, 400, 'invalid_request_error', 'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`.');
    const answer = this.answer(body);
    if (body.stream === true) return this.stream(body.model, answer, res);
    send(res, 200, {
      id: 'msg_01FakeUpstream0000000001',
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: answer.tool ? [{ type: 'text', text: answer.text }, { type: 'tool_use', id: 'toolu_01FakeUpstream', name: answer.tool.name, input: answer.tool.input }] : [{ type: 'text', text: answer.text }],
      stop_reason: answer.tool ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: ANTHROPIC_USAGE,
    });
  }

  private answer(body: Json): { text: string; tool?: { name: string; input: Json } } {
    const messages = body.messages as Json[];
    const last = messages[messages.length - 1];
    const blocks = Array.isArray(last?.content) ? (last.content as Json[]) : [];
    const result = blocks.find((b) => b.type === 'tool_result');
    if (result) return { text: `The tool said: ${typeof result.content === 'string' ? result.content : JSON.stringify(result.content)}` };
    const tools = Array.isArray(body.tools) ? (body.tools as Json[]).filter((t) => t.type === undefined || t.type === 'custom') : [];
    const weather = tools.find((t) => t.name === WEATHER_TOOL);
    if (weather) return { text: 'Let me check.', tool: { name: WEATHER_TOOL, input: argumentsFor(weather.input_schema) } };
    return { text: `Hello from ${String(body.model)}` };
  }

  private async stream(model: string, answer: { text: string; tool?: { name: string; input: Json } }, res: http.ServerResponse): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const event = (name: string, data: Json): void => void res.write(`event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`);
    const { output_tokens: _out, ...inputUsage } = ANTHROPIC_USAGE;
    event('message_start', { message: { id: 'msg_01FakeUpstream0000000002', type: 'message', role: 'assistant', content: [], model, stop_reason: null, stop_sequence: null, usage: { ...inputUsage, output_tokens: 1 } } });
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    event('ping', {});
    const words = answer.text.split(/(?<= )/);
    for (const w of words) {
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: w } });
      await sleep(2);
    }
    event('content_block_stop', { index: 0 });
    if (answer.tool) {
      event('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 'toolu_01FakeUpstream', name: answer.tool.name, input: {} } });
      const json = JSON.stringify(answer.tool.input);
      const cut = Math.floor(json.length / 2);
      for (const piece of ['', json.slice(0, cut), json.slice(cut)]) event('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: piece } });
      event('content_block_stop', { index: 1 });
    }
    event('message_delta', { delta: { stop_reason: answer.tool ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: ANTHROPIC_USAGE.output_tokens } });
    event('message_stop', {});
    res.end();
  }
}

// --- Gemini ---------------------------------------------------------------------------------------

const googleError = (res: http.ServerResponse, code: number, status: string, message: string): void => send(res, code, { error: { code, message, status } });

export const GEMINI_USAGE = { promptTokenCount: 12, candidatesTokenCount: 6, thoughtsTokenCount: 3, cachedContentTokenCount: 4, totalTokenCount: 21 };

export class GeminiUpstream extends VendorUpstream {
  readonly models = ['gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-3-pro-preview', 'text-embedding-004'];

  protected async handle(req: SeenRequest, res: http.ServerResponse): Promise<void> {
    const key = req.headers['x-goog-api-key'] ?? req.query.get('key');
    if (key !== this.key) return googleError(res, 403, 'PERMISSION_DENIED', 'Method doesn\'t allow unregistered callers.');
    const entry = (id: string): Json => ({
      name: `models/${id}`,
      version: '001',
      displayName: id,
      description: `${id} (fake)`,
      inputTokenLimit: 1048576,
      outputTokenLimit: 65536,
      supportedGenerationMethods: id.startsWith('text-embedding') ? ['embedContent'] : ['generateContent', 'countTokens'],
    });
    if (req.method === 'GET' && req.path === '/v1beta/models') return send(res, 200, { models: this.models.map(entry) });
    const one = /^\/v1beta\/models\/([^/:]+)$/.exec(req.path);
    if (req.method === 'GET' && one) {
      const id = decodeURIComponent(one[1]!);
      return this.models.includes(id) ? send(res, 200, entry(id)) : googleError(res, 404, 'NOT_FOUND', `models/${id} is not found for API version v1beta`);
    }
    const m = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens|embedContent|batchEmbedContents)$/.exec(req.path);
    if (req.method !== 'POST' || !m) return googleError(res, 404, 'NOT_FOUND', `Not found: ${req.method} ${req.path}`);
    const model = decodeURIComponent(m[1]!);
    const body = parse(req.body);
    if (!body) return googleError(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
    switch (m[2]) {
      case 'countTokens': {
        const request = (body.generateContentRequest as Json | undefined) ?? body;
        if (!Array.isArray(request.contents)) return googleError(res, 400, 'INVALID_ARGUMENT', '* contents: required');
        return send(res, 200, { totalTokens: Math.ceil(JSON.stringify(request.contents).length / 4), promptTokensDetails: [{ modality: 'TEXT', tokenCount: Math.ceil(JSON.stringify(request.contents).length / 4) }] });
      }
      case 'embedContent':
        if (typeof body.content !== 'object' || body.content === null) return googleError(res, 400, 'INVALID_ARGUMENT', '* content: required');
        return send(res, 200, { embedding: { values: this.embedding(body.content) } });
      case 'batchEmbedContents': {
        if (!Array.isArray(body.requests)) return googleError(res, 400, 'INVALID_ARGUMENT', '* requests: required');
        return send(res, 200, { embeddings: (body.requests as Json[]).map((r) => ({ values: this.embedding(r.content) })) });
      }
      default:
        if (!Array.isArray(body.contents) || body.contents.length === 0) return googleError(res, 400, 'INVALID_ARGUMENT', '* GenerateContentRequest.contents: contents is not specified');
        return this.generate(model, body, m[2] === 'streamGenerateContent', req.query.get('alt') === 'sse', res);
    }
  }

  /** A deterministic 4-value embedding of the content's text. */
  private embedding(content: unknown): number[] {
    const text = JSON.stringify(content);
    return [text.length / 100, (text.charCodeAt(10) || 0) / 100, 0.5, -0.5];
  }

  private answer(body: Json): { text: string; call?: { name: string; args: Json } } {
    const config = (body.generationConfig as Json | undefined) ?? {};
    if (config.responseMimeType === 'application/json') return { text: JSON.stringify(valueFor(config.responseJsonSchema ?? config.responseSchema ?? {})) };
    const contents = body.contents as Json[];
    const last = contents[contents.length - 1];
    const parts = Array.isArray(last?.parts) ? (last.parts as Json[]) : [];
    const response = parts.find((p) => p.functionResponse)?.functionResponse as Json | undefined;
    if (response) return { text: `The tool said: ${JSON.stringify(response.response)}` };
    const decls = Array.isArray(body.tools) ? (body.tools as Json[]).flatMap((t) => (Array.isArray(t.functionDeclarations) ? (t.functionDeclarations as Json[]) : [])) : [];
    const weather = decls.find((d) => d.name === WEATHER_TOOL);
    if (weather) return { text: '', call: { name: WEATHER_TOOL, args: argumentsFor(weather.parametersJsonSchema ?? weather.parameters) } };
    return { text: `Hello from ${typeof body.model === 'string' ? body.model : 'gemini'}` };
  }

  private async generate(model: string, body: Json, stream: boolean, sse: boolean, res: http.ServerResponse): Promise<void> {
    // Gemini 3 signs its function calls and refuses a replayed one without its signature.
    const signs = /^gemini-3/.test(model);
    const unsigned = (body.contents as Json[]).some((c) => Array.isArray(c.parts) && (c.parts as Json[]).some((p) => p.functionCall !== undefined && typeof p.thoughtSignature !== 'string'));
    if (signs && unsigned) return googleError(res, 400, 'INVALID_ARGUMENT', 'Function call is missing a thought_signature in functionCall parts.');
    const answer = this.answer({ ...body, model });
    const final = { finishReason: 'STOP', index: 0 };
    const callPart = answer.call ? [{ functionCall: { name: answer.call.name, args: answer.call.args }, ...(signs ? { thoughtSignature: 'CiQBjz1rX2Zha2Utc2lnbmF0dXJl' } : {}) }] : [];
    if (!stream) return send(res, 200, { candidates: [{ content: { role: 'model', parts: [...(answer.text ? [{ text: answer.text }] : []), ...callPart] }, ...final }], usageMetadata: GEMINI_USAGE, modelVersion: model, responseId: 'fakeGeminiResponse1' });
    const pieces = answer.text ? answer.text.split(/(?<= )/) : [];
    const chunks: Json[] = [
      { candidates: [{ content: { role: 'model', parts: [{ text: 'Thinking about it.', thought: true }] }, index: 0 }], usageMetadata: { promptTokenCount: 12, totalTokenCount: 12 }, modelVersion: model, responseId: 'fakeGeminiResponse2' },
      ...pieces.map((t) => ({ candidates: [{ content: { role: 'model', parts: [{ text: t }] }, index: 0 }], modelVersion: model, responseId: 'fakeGeminiResponse2' })),
    ];
    chunks.push({ candidates: [{ content: { role: 'model', parts: callPart.length ? callPart : [{ text: '' }] }, ...final }], usageMetadata: GEMINI_USAGE, modelVersion: model, responseId: 'fakeGeminiResponse2' });
    res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json' });
    if (!sse) res.write('[');
    for (let i = 0; i < chunks.length; i++) {
      res.write(sse ? `data: ${JSON.stringify(chunks[i])}\r\n\r\n` : `${i ? ',\r\n' : ''}${JSON.stringify(chunks[i])}`);
      await sleep(2);
    }
    res.end(sse ? '' : ']');
  }
}
