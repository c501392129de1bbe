/**
 * A scriptable stand-in for the upstream model gateway, on a local port. Default answers cover
 * every route the gateway forwards; a test changes one with `script(method, path, handler)`.
 * Chat behaviour can also be set per request with an extra body field `mock` (unknown fields
 * reach the upstream unchanged, which the tests rely on):
 *   { chunks, delayMs, firstDelayMs, usage, errorAfter, hangAfter, status, retryAfter, completionTokens }
 * Every request is recorded (headers, query, body) and so is every response the client closed
 * before it ended.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import busboy from 'busboy';
import { LocalHttpServer } from '../support/local-http-server.ts';

export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export type Handler = (req: SeenRequest, res: http.ServerResponse) => void | Promise<void>;

export interface ChatMock {
  chunks?: number;
  delayMs?: number;
  firstDelayMs?: number;
  usage?: boolean;
  errorAfter?: number;
  hangAfter?: number;
  status?: number;
  retryAfter?: string;
  completionTokens?: number;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function parse(body: Buffer): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(body.toString('utf8'));
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export const SONG = (n: number) => ({
  id: `0b4c2b8e-1a2b-4c3d-8e9f-00000000000${n}`,
  tags: 'pop, upbeat',
  title: `Song ${n}`,
  prompt: '[Verse 1]\nla la la',
  audioUrl: `https://cdn.example/${n}.mp3`,
  duration: 123.45,
  imageUrl: `https://cdn.example/${n}.jpg`,
  modelName: 'chirp-v4',
  createTime: 1735689600000,
  sourceAudioUrl: `https://src.example/${n}.mp3`,
  sourceImageUrl: `https://src.example/${n}.jpg`,
  streamAudioUrl: `https://cdn.example/${n}.stream`,
  sourceStreamAudioUrl: `https://src.example/${n}.stream`,
});

export function taskEnvelope(taskId: string, status: string) {
  const done = status === 'SUCCESS' || status === 'FAILURE';
  return {
    code: 'success',
    message: '',
    data: {
      task_id: taskId,
      action: 'GENERATIONS',
      status,
      fail_reason: status === 'FAILURE' ? 'content policy' : '',
      submit_time: 1735689600,
      start_time: 0,
      finish_time: done ? 1735689700 : 0,
      progress: done ? '100%' : '40%',
      data: status === 'SUCCESS' ? [SONG(1), SONG(2)] : [],
    },
  };
}

/** A stand-in upstream that keeps the requests it saw and answers from scripts set by the test, newest first. */
export abstract class ScriptedUpstream extends LocalHttpServer {
  readonly requests: SeenRequest[] = [];
  private readonly scripts: { method: string; path: string | RegExp; handler: Handler }[] = [];

  /** Replace the answer for one method and path (the newest script wins). */
  script(method: string, path: string | RegExp, handler: Handler): this {
    this.scripts.unshift({ method, path, handler });
    return this;
  }

  reset(): void {
    this.scripts.length = 0;
    this.requests.length = 0;
  }

  last(pathPrefix: string): SeenRequest | undefined {
    return [...this.requests].reverse().find((r) => r.path.startsWith(pathPrefix));
  }

  /** The script set for this request, if any. */
  protected scriptFor(seen: SeenRequest): Handler | undefined {
    return this.scripts.find((s) => s.method === seen.method && (typeof s.path === 'string' ? s.path === seen.path : s.path.test(seen.path)))?.handler;
  }
}

export class ModelUpstream extends ScriptedUpstream {
  /** Paths of responses the client (the gateway) closed before they ended. */
  readonly aborted: string[] = [];
  private taskCounter = 0;
  private responseCounter = 0;
  private readonly storedResponses = new Map<string, { response: unknown; input: unknown[] }>();

  override reset(): void {
    super.reset();
    this.aborted.length = 0;
  }

  protected async receive(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://upstream');
    const chunks: Buffer[] = [];
    try {
      for await (const c of req) chunks.push(c as Buffer);
    } catch {
      this.aborted.push(url.pathname);
      return;
    }
    const seen: SeenRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks) };
    this.requests.push(seen);
    res.on('close', () => {
      if (!res.writableFinished) this.aborted.push(url.pathname);
    });
    const scripted = this.scriptFor(seen);
    try {
      await (scripted ? scripted(seen, res) : this.defaults(seen, res));
    } catch {
      res.destroy();
    }
  }

  private async defaults(req: SeenRequest, res: http.ServerResponse): Promise<void> {
    const p = req.path;
    if (req.method === 'POST' && p === '/v1/chat/completions') return this.chat(req, res);
    if (req.method === 'POST' && p === '/v1/responses') return this.responses(req, res);
    const stored = /^\/v1\/responses\/([^/]+)(\/input_items)?$/.exec(p);
    if (stored) {
      const r = this.storedResponses.get(stored[1]!);
      if (!r) return json(res, 404, { error: { message: `No response found with id '${stored[1]}'.`, type: 'invalid_request_error', param: null, code: null } });
      if (req.method === 'DELETE') {
        this.storedResponses.delete(stored[1]!);
        return json(res, 200, { id: stored[1], object: 'response.deleted', deleted: true });
      }
      if (stored[2]) return json(res, 200, { object: 'list', data: r.input, first_id: null, last_id: null, has_more: false });
      return json(res, 200, r.response);
    }
    if (req.method === 'POST' && p === '/v1/completions') {
      const body = parse(req.body);
      return json(res, 200, { id: 'cmpl-1', object: 'text_completion', created: 1735689600, model: String(body.model), choices: [{ text: ` completed: ${String(body.prompt)}`, index: 0, logprobs: null, finish_reason: 'stop' }], usage: { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 } });
    }
    if (req.method === 'POST' && p === '/v1/moderations') {
      const body = parse(req.body);
      return json(res, 200, { id: 'modr-1', model: 'omni-moderation-latest', results: [{ flagged: String(body.input).includes('kill'), categories: { violence: String(body.input).includes('kill') }, category_scores: { violence: 0.9 } }] });
    }
    if (req.method === 'GET' && p === '/v1/models')
      return json(res, 200, { object: 'list', data: ['gpt-4o', 'gpt-4o-mini', 'gemini-2.0-flash', 'rerank-1', 'gpt-image-1', 'suno-v4'].map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'upstream' })) });
    const gem = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(p);
    if (req.method === 'POST' && gem) return this.gemini(gem[1]!, gem[2] === 'streamGenerateContent', req, res);
    if (req.method === 'POST' && p === '/v1/rerank') {
      const body = parse(req.body);
      const docs = Array.isArray(body.documents) ? body.documents : [];
      const q = String(body.query ?? '').toLowerCase();
      // Deliberately in request order, not sorted: the gateway orders them.
      const results = docs.map((d, index) => ({ index, relevance_score: String(d).toLowerCase().includes(q) ? 0.9 - index * 0.01 : 0.1 + index * 0.01 }));
      return json(res, 200, { id: 'rr-1', results, usage: { prompt_tokens: 20, total_tokens: 20 } });
    }
    if (req.method === 'POST' && (p === '/v1/images/edits' || p === '/v1/audio/transcriptions')) return this.multipartEcho(req, res);
    const task = /^\/v1\/music\/tasks\/([^/]+)$/.exec(p);
    if (req.method === 'GET' && task) {
      const id = task[1]!;
      const status = id.startsWith('task-success') ? 'SUCCESS' : id.startsWith('task-fail') ? 'FAILURE' : id.startsWith('task-running') || id.startsWith('task-new') ? 'IN_PROGRESS' : undefined;
      if (!status) return json(res, 404, { error: { message: `task ${id} does not exist`, type: 'invalid_request_error', param: null, code: 'task_not_exist' } });
      return json(res, 200, taskEnvelope(id, status));
    }
    if (req.method === 'POST' && p === '/v1/music/generations') return json(res, 200, { code: 'success', message: '', data: `task-new-${++this.taskCounter}` });
    if (req.method === 'POST' && p === '/v1/embeddings') return json(res, 200, { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }], model: 'emb', usage: { prompt_tokens: 3, total_tokens: 3 } });
    if (req.method === 'POST' && p === '/v1/audio/speech') {
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      for (let i = 0; i < 4; i++) {
        res.write(Buffer.alloc(1024, i));
        await sleep(5);
      }
      res.end();
      return;
    }
    json(res, 404, { error: { message: `no mock for ${req.method} ${p}`, type: 'invalid_request_error', param: null, code: 'unknown_url' } });
  }

  /**
   * OpenAI Responses as OpenAI documents it (https://platform.openai.com/docs/api-reference/responses):
   * the first function tool is called when the input holds no function_call_output yet; otherwise a
   * text answer (that quotes the tool's output). Streams send the documented event sequence.
   */
  private async responses(req: SeenRequest, res: http.ServerResponse): Promise<void> {
    const body = parse(req.body);
    const model = String(body.model ?? 'unknown');
    const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body.input) ? (body.input as Record<string, unknown>[]) : [];
    const tool = Array.isArray(body.tools) ? (body.tools as Record<string, unknown>[]).find((t) => t.type === 'function') : undefined;
    const toolOutput = input.find((i) => i.type === 'function_call_output');
    const id = `resp_${String(++this.responseCounter).padStart(8, '0')}`;
    const usage = { input_tokens: 12, input_tokens_details: { cached_tokens: 2 }, output_tokens: 6, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 18 };
    const text = toolOutput ? `The tool said ${String(toolOutput.output)}` : `Hello from ${model}`;
    const item: Record<string, unknown> =
      tool && !toolOutput
        ? { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: tool.name, arguments: '{"city":"Paris"}', status: 'completed' }
        : { type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] };
    const base = { id, object: 'response', created_at: 1735689600, error: null, incomplete_details: null, instructions: body.instructions ?? null, model, parallel_tool_calls: true, tools: body.tools ?? [], tool_choice: 'auto', text: { format: { type: 'text' } }, metadata: {} };
    const done = { ...base, status: 'completed', output: [item], usage };
    if (body.store !== false) this.storedResponses.set(id, { response: done, input });
    if (body.stream !== true) return json(res, 200, done);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    let seq = 0;
    const send = (type: string, fields: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...fields })}\n\n`);
    const started = { ...base, status: 'in_progress', output: [], usage: null };
    send('response.created', { response: started });
    send('response.in_progress', { response: started });
    if (item.type === 'function_call') {
      send('response.output_item.added', { output_index: 0, item: { ...item, arguments: '', status: 'in_progress' } });
      for (const delta of ['{"city":', '"Paris"}']) send('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 0, delta });
      send('response.function_call_arguments.done', { item_id: 'fc_1', output_index: 0, arguments: item.arguments });
    } else {
      send('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
      send('response.content_part.added', { item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      for (const delta of text.split(/(?= )/)) send('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta, logprobs: [] });
      send('response.output_text.done', { item_id: 'msg_1', output_index: 0, content_index: 0, text, logprobs: [] });
      send('response.content_part.done', { item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text, annotations: [] } });
    }
    send('response.output_item.done', { output_index: 0, item });
    send('response.completed', { response: done });
    res.end();
  }

  private async chat(req: SeenRequest, res: http.ServerResponse): Promise<void> {
    const body = parse(req.body);
    const mock = (typeof body.mock === 'object' && body.mock !== null ? body.mock : {}) as ChatMock;
    const model = String(body.model ?? 'unknown');
    if (mock.status) return json(res, mock.status, { error: { message: `mock status ${mock.status}`, type: 'mock_error', param: null, code: `mock_${mock.status}` } }, mock.retryAfter ? { 'retry-after': mock.retryAfter } : {});
    const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
    const tool = Array.isArray(body.tools) ? (body.tools as { function?: { name?: string } }[])[0]?.function?.name : undefined;
    if (tool || messages.at(-1)?.role === 'tool') return this.chatWithTools(body, model, tool, messages, res);
    const completionTokens = mock.completionTokens ?? 5;
    const usage = { prompt_tokens: 10, completion_tokens: completionTokens, total_tokens: 10 + completionTokens };
    if (body.stream !== true) {
      return json(res, 200, {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1735689600,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: `Hello from ${model}` }, finish_reason: 'stop' }],
        usage,
      });
    }
    const chunks = mock.chunks ?? 5;
    const includeUsage = mock.usage ?? (typeof body.stream_options === 'object' && body.stream_options !== null && (body.stream_options as Record<string, unknown>).include_usage === true);
    if (mock.firstDelayMs) await sleep(mock.firstDelayMs);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const event = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1735689600, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
    for (let i = 0; i < chunks; i++) {
      if (res.destroyed) return;
      if (mock.errorAfter !== undefined && i === mock.errorAfter) {
        res.socket?.destroy();
        return;
      }
      if (mock.hangAfter !== undefined && i === mock.hangAfter) return; // stays open, silent
      res.write(event(i === 0 ? { role: 'assistant', content: `c${i}` } : { content: `c${i}` }, null));
      if (mock.delayMs) await sleep(mock.delayMs);
    }
    res.write(event({}, 'stop'));
    if (includeUsage) res.write(`data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1735689600, model, choices: [], usage })}\n\n`);
    res.end('data: [DONE]\n\n');
  }

  /** Chat with tools: the first tool is called until a tool result comes back, then it is quoted. */
  private chatWithTools(body: Record<string, unknown>, model: string, tool: string | undefined, messages: Record<string, unknown>[], res: http.ServerResponse): void {
    const result = messages.at(-1)?.role === 'tool' ? messages.at(-1) : undefined;
    const usage = { prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 };
    const call = { id: 'call_abc', type: 'function', function: { name: tool, arguments: '{"city":"Paris"}' } };
    const text = result ? `The tool said ${String(result.content)}` : '';
    const message = result || !tool ? { role: 'assistant', content: text } : { role: 'assistant', content: null, tool_calls: [call] };
    const finish = result || !tool ? 'stop' : 'tool_calls';
    if (body.stream !== true) return json(res, 200, { id: 'chatcmpl-t', object: 'chat.completion', created: 1735689600, model, choices: [{ index: 0, message, finish_reason: finish }], usage });
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    const event = (delta: Record<string, unknown>, finishReason: string | null, extra: Record<string, unknown> = {}) =>
      res.write(`data: ${JSON.stringify({ id: 'chatcmpl-t', object: 'chat.completion.chunk', created: 1735689600, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`);
    if (finish === 'tool_calls') {
      event({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_abc', type: 'function', function: { name: tool, arguments: '' } }] }, null);
      for (const part of ['{"city":', '"Paris"}']) event({ tool_calls: [{ index: 0, function: { arguments: part } }] }, null);
    } else for (const part of text.split(/(?= )/)) event({ content: part }, null);
    event({}, finish);
    const so = body.stream_options as Record<string, unknown> | undefined;
    if (so?.include_usage === true) res.write(`data: ${JSON.stringify({ id: 'chatcmpl-t', object: 'chat.completion.chunk', created: 1735689600, model, choices: [], usage })}\n\n`);
    res.end('data: [DONE]\n\n');
  }

  private async gemini(model: string, stream: boolean, req: SeenRequest, res: http.ServerResponse): Promise<void> {
    const candidate = (text: string, finish?: string) => ({ content: { role: 'model', parts: [{ text }] }, ...(finish ? { finishReason: finish } : {}), index: 0 });
    const usageMetadata = { promptTokenCount: 4, candidatesTokenCount: 3, totalTokenCount: 7 };
    if (!stream) return json(res, 200, { candidates: [candidate(`Hi from ${model}`, 'STOP')], usageMetadata, modelVersion: model });
    const parts = ['Hi', ' from', ` ${model}`];
    if (req.query.get('alt') === 'sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < parts.length; i++) {
        const last = i === parts.length - 1;
        res.write(`data: ${JSON.stringify({ candidates: [candidate(parts[i]!, last ? 'STOP' : undefined)], ...(last ? { usageMetadata } : {}), modelVersion: model })}\r\n\r\n`);
        await sleep(5);
      }
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[');
    for (let i = 0; i < parts.length; i++) {
      const last = i === parts.length - 1;
      res.write(`${i ? ',\r\n' : ''}${JSON.stringify({ candidates: [candidate(parts[i]!, last ? 'STOP' : undefined)], ...(last ? { usageMetadata } : {}) })}`);
      await sleep(5);
    }
    res.end(']');
  }

  private multipartEcho(req: SeenRequest, res: http.ServerResponse): Promise<void> {
    return new Promise((resolve) => {
      const fields: Record<string, string> = {};
      const files: { field: string; filename: string; size: number; sha256: string; mimeType: string }[] = [];
      let bb: busboy.Busboy;
      try {
        bb = busboy({ headers: req.headers });
      } catch (err) {
        json(res, 400, { error: { message: (err as Error).message, type: 'invalid_request_error', param: null, code: 'bad_multipart' } });
        return resolve();
      }
      bb.on('field', (name, value) => (fields[name] = value));
      bb.on('file', (name, stream, info) => {
        const hash = createHash('sha256');
        let size = 0;
        stream.on('data', (d: Buffer) => {
          size += d.length;
          hash.update(d);
        });
        stream.on('end', () => files.push({ field: name, filename: info.filename ?? '', size, sha256: hash.digest('hex'), mimeType: info.mimeType }));
      });
      bb.on('close', () => {
        json(res, 200, { created: 1735689600, data: [{ url: 'https://img.example/edited.png' }], text: 'transcribed', echo: { fields, files, contentType: req.headers['content-type'] } });
        resolve();
      });
      bb.on('error', (err: Error) => {
        json(res, 400, { error: { message: err.message, type: 'invalid_request_error', param: null, code: 'bad_multipart' } });
        resolve();
      });
      bb.end(req.body);
    });
  }
}
