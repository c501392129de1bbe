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
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';

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

export class ModelUpstream {
  readonly requests: SeenRequest[] = [];
  /** Paths of responses the client (the gateway) closed before they ended. */
  readonly aborted: string[] = [];
  private readonly scripts: { method: string; path: string | RegExp; handler: Handler }[] = [];
  private server: http.Server | undefined;
  private taskCounter = 0;
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  /** Replace the answer for one method and path (the newest script wins). */
  script(method: string, path: string | RegExp, handler: Handler): this {
    this.scripts.unshift({ method, path, handler });
    return this;
  }

  reset(): void {
    this.scripts.length = 0;
    this.requests.length = 0;
    this.aborted.length = 0;
  }

  last(pathPrefix: string): SeenRequest | undefined {
    return [...this.requests].reverse().find((r) => r.path.startsWith(pathPrefix));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
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
    const scripted = this.scripts.find((s) => s.method === seen.method && (typeof s.path === 'string' ? s.path === seen.path : s.path.test(seen.path)));
    try {
      await (scripted ? scripted.handler(seen, res) : this.defaults(seen, res));
    } catch {
      res.destroy();
    }
  }

  private async defaults(req: SeenRequest, res: http.ServerResponse): Promise<void> {
    const p = req.path;
    if (req.method === 'POST' && p === '/v1/chat/completions') return this.chat(req, res);
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

  private async chat(req: SeenRequest, res: http.ServerResponse): Promise<void> {
    const body = parse(req.body);
    const mock = (typeof body.mock === 'object' && body.mock !== null ? body.mock : {}) as ChatMock;
    const model = String(body.model ?? 'unknown');
    if (mock.status) return json(res, mock.status, { error: { message: `mock status ${mock.status}`, type: 'mock_error', param: null, code: `mock_${mock.status}` } }, mock.retryAfter ? { 'retry-after': mock.retryAfter } : {});
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
