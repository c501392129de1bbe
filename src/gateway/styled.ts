/**
 * The one request path for a request in an API style (chat completions, Responses, Anthropic
 * Messages, Gemini): each upstream gets it natively when it speaks the style (the bytes as they
 * came, renamed only when the upstream has its own name for the model), else translated through
 * chat completions by the codecs; the answer is relayed natively or translated back, streams
 * included, with usage recorded either way. When every upstream of the model fails before the
 * first byte, the model's fallbacks (AI_MODEL_FALLBACKS) are tried in order.
 */
import { tryParseJson, withFields, type JsonObject } from './body.ts';
import type { GatewayCall } from './call.ts';
import { GatewayError, upstreamAuthFailed, upstreamBadGateway, upstreamInvalidResponse } from './errors.ts';
import { MAX_RETRY_WAIT_MS } from './limits.ts';
import { flushHeadersSoon, KeepAlive, SseEvents, waitDrainOrClose } from './stream.ts';
import { clientCodec, DroppedTools, spokenStyles, upstreamRoute } from './translate/index.ts';
import { DROPPED_FIELDS_HEADER, DROPPED_TOOLS_HEADER, FALLBACK_MODEL_HEADER } from './response-headers.ts';
import type { ApiStyle, ChatChunk, ChatRequest, ChatUsage, ClientCodec, ClientRequest, UpstreamCodec } from './translate/types.ts';
import { ClientGone, classifyUpstreamFailure, discardBody, headerValue, type UpstreamResponse } from './upstream.ts';
import type { PreparedAttempt } from './upstream-pool.ts';
import type { UpstreamSpec } from './upstream-settings.ts';
import { openAiOutput } from './usage.ts';
import { readUsage } from './usage-reading.ts';

export interface StyledRequest {
  /** The client's style (the route's). */
  style: ApiStyle;
  /** The request body, parsed. */
  body: JsonObject;
  /** The bytes a native upstream gets (the body as sent, or as the route rewrote it). */
  raw: Buffer;
  /** The public model name asked for. */
  model: string;
  /** What the client codec reads, when not `body` (Gemini's: the body plus the model and stream its URL gives). */
  chatBody?: JsonObject;
  /** The path a native upstream gets, for the model name it knows (default: the incoming path). */
  nativePath?: (upstreamModel: string) => string;
  /** Headers a native upstream gets besides the usual ones (e.g. anthropic-version). */
  nativeHeaders?: Record<string, string>;
  /** Relay a native upstream's answer (the route's own relay). */
  relayNative: (up: UpstreamResponse) => Promise<void>;
}

type Attempt = { native: true } | { native: false; codec: UpstreamCodec; chat: ChatRequest };

/** The model a given upstream knows the public model by. */
function upstreamModel(spec: UpstreamSpec, model: string): string {
  return spec.aliases[model] ?? model;
}

function renamed(raw: Buffer, body: JsonObject, model: string, own: string): Buffer {
  return own === model ? raw : Buffer.from(JSON.stringify({ ...body, model: own }), 'utf8');
}

/** A translated upstream's error answer, in the gateway's terms (rendered in the route's style). */
async function translatedError(call: GatewayCall, up: UpstreamResponse, codec: UpstreamCodec): Promise<never> {
  call.endReason = 'upstream_error';
  const buf = await call.readAnswer(up).catch(() => Buffer.alloc(0));
  if (up.status === 401 || up.status === 403) throw upstreamAuthFailed(up.status);
  if (up.status >= 500 || up.status < 400) throw upstreamBadGateway(up.status);
  const info = codec.readError(up.status, tryParseJson(buf));
  const headers: Record<string, string> = {};
  if (up.status === 429) {
    const ra = headerValue(up.headers, 'retry-after');
    if (ra) headers['retry-after'] = ra;
    const secs = Number(ra);
    if (Number.isFinite(secs) && secs * 1000 > MAX_RETRY_WAIT_MS) headers['x-should-retry'] = 'false';
  }
  const code = info.code ?? (up.status === 429 ? 'upstream_rate_limited' : `upstream_${up.status}`);
  call.errorCode = code;
  throw new GatewayError(up.status, info.message, { type: up.status === 429 ? 'upstream_rate_limited' : 'invalid_request_error', code, param: info.param ?? null, headers });
}

function noteChatUsage(call: GatewayCall, usage: ChatUsage | null | undefined): void {
  const u = usage ? readUsage('openai', { usage }) : undefined;
  // Anthropic cache writes travel in chat usage under LiteLLM's name; billed at their own price.
  if (u && usage?.cache_creation_input_tokens) u.cacheWrite = Math.min(usage.cache_creation_input_tokens, u.prompt);
  if (u) call.usage = u;
}

async function relayTranslatedJson(call: GatewayCall, up: UpstreamResponse, codec: UpstreamCodec, client: ClientCodec, request: ClientRequest): Promise<void> {
  const buf = await call.readAnswer(up);
  const parsed = tryParseJson(buf);
  if (parsed === undefined) {
    call.endReason = 'upstream_error';
    throw upstreamInvalidResponse('the answer is not JSON');
  }
  const chat = codec.toChatResponse(parsed);
  noteChatUsage(call, chat.usage);
  const seen = openAiOutput(chat);
  call.outputChars = seen.chars;
  call.outputTokens = Math.max(seen.tokens, call.usage?.completion ?? 0);
  call.ctx.status = 200;
  call.ctx.type = 'application/json';
  call.ctx.body = JSON.stringify(client.fromChatResponse(chat, request));
  call.endReason = 'completed';
}

/** An upstream stream decoded into chat chunks and encoded in the client's style as it arrives. */
async function relayTranslatedStream(call: GatewayCall, up: UpstreamResponse, codec: UpstreamCodec, client: ClientCodec, request: ClientRequest): Promise<void> {
  const { res } = call.ctx;
  call.stream = true;
  await call.tokenHeaders();
  call.ctx.status = 200;
  call.ctx.respond = false;
  const encoder = client.fromChatStream(request);
  res.writeHead(200, call.ctx.outgoingHeaders({ 'content-type': encoder.contentType ?? 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' }));
  flushHeadersSoon(res);
  const decoder = codec.toChatStream();
  let pending = '';
  let usage: ChatUsage | undefined;
  let last: ChatChunk | undefined;
  /** Set once a limited key's stream has generated what was reserved: the rest of the upstream's is not read. */
  let stopped = false;
  const take = (chunks: ReturnType<typeof decoder.push>): void => {
    for (const chunk of chunks) {
      if (stopped) return;
      last = chunk;
      if (chunk.usage) usage = chunk.usage;
      const seen = openAiOutput(chunk);
      call.outputChars += seen.chars;
      call.outputTokens += seen.tokens;
      pending += encoder.push(chunk);
      stopped = call.reservationSpent();
    }
  };
  const events = new SseEvents();
  const keepAlive = new KeepAlive(res, call.deps.settings.keepAliveMs);
  try {
    for await (const piece of up.body) {
      for (const ev of events.push(piece as Buffer)) {
        if (stopped) break;
        take(decoder.push(ev));
      }
      if (pending) {
        const out = pending;
        pending = '';
        keepAlive.touch();
        if (!res.write(out)) await waitDrainOrClose(res);
      }
      if (call.clientGone || stopped) break;
    }
    if (stopped && !call.clientGone) {
      // Ended like an answer that reached its output cap, in the client's style; billed the reservation.
      const cut = encoder.push({ id: last?.id ?? 'chatcmpl-gateway', object: 'chat.completion.chunk', created: last?.created ?? Math.floor(Date.now() / 1000), model: last?.model ?? '', choices: [{ index: 0, delta: {}, finish_reason: 'length' }] });
      call.stoppedAtReservation = true;
      res.end(pending + cut + encoder.end(usage));
      call.endReason = 'completed';
      return;
    }
    if (call.clientGone || call.abort.aborted) {
      call.endReason = 'client_closed';
      return;
    }
    take(decoder.end());
    noteChatUsage(call, usage);
    res.end(pending + encoder.end(usage));
    call.endReason = 'completed';
  } catch (err) {
    const f = classifyUpstreamFailure(err, call.abort);
    if (call.clientGone || f instanceof ClientGone) {
      call.endReason = 'client_closed';
      return;
    }
    const gerr = f instanceof GatewayError ? f : upstreamInvalidResponse('the stream could not be read');
    noteChatUsage(call, usage);
    call.endReason = 'upstream_error';
    call.errorCode = gerr.code;
    res.end(pending + encoder.error(gerr));
  } finally {
    keepAlive.stop();
    if (!up.body.readableEnded) discardBody(up.body);
  }
}

/** A failure before the first byte that lets the next fallback model be tried. */
function fallbackWorthy(err: unknown): boolean {
  return err instanceof GatewayError && err.type === 'upstream_error';
}

export async function forwardStyled(call: GatewayCall, req: StyledRequest): Promise<void> {
  const client = clientCodec(req.style);
  const dropped = new DroppedTools(call.deps.settings.refuseDroppedTools);
  let chat: ChatRequest | undefined;
  const chatRequest = (): ChatRequest => (chat ??= client.toChatRequest(req.chatBody ?? req.body, dropped));
  const native: Attempt = { native: true };
  /** Each upstream's version of the request for `model` (one translation per upstream style and model name). */
  const preparer = (model: string): ((spec: UpstreamSpec) => PreparedAttempt) => {
    const translations = new Map<string, PreparedAttempt>();
    return (spec) => {
      const route = upstreamRoute(req.style, spokenStyles(spec))!;
      const own = upstreamModel(spec, model);
      if (route.native)
        return { style: req.style, path: req.nativePath ? req.nativePath(own) : call.upstreamPath(), headers: withFields(req.nativeHeaders ?? {}, { 'content-type': 'application/json' }), body: renamed(req.raw, req.body, req.model, own), tag: native };
      const key = `${route.codec.style}\n${own}`;
      const cached = translations.get(key);
      if (cached) return cached;
      const translated: ChatRequest = withFields(chatRequest(), { model: own });
      const out = route.codec.fromChatRequest(translated, dropped);
      const tag: Attempt = { native: false, codec: route.codec, chat: translated };
      const attempt: PreparedAttempt = { style: route.codec.style, path: out.path, headers: withFields(out.headers, { 'content-type': 'application/json' }), body: Buffer.from(JSON.stringify(out.body), 'utf8'), tag };
      translations.set(key, attempt);
      return attempt;
    };
  };
  const accepts = (spec: UpstreamSpec): boolean => upstreamRoute(req.style, spokenStyles(spec)) !== undefined;
  const models = [req.model, ...(call.deps.settings.modelFallbacks[req.model] ?? [])];
  let up: UpstreamResponse | undefined;
  for (let i = 0; i < models.length && !up; i++) {
    const model = models[i]!;
    const last = i === models.length - 1;
    let answer: UpstreamResponse;
    try {
      answer = await call.send({ model, accepts, prepare: preparer(model) });
    } catch (err) {
      if (last || !fallbackWorthy(err)) throw err;
      call.log.warn({ model, fallback: models[i + 1] }, 'every upstream of the model failed; trying its fallback');
      continue;
    }
    if (!last && (answer.status >= 500 || answer.status === 429)) {
      discardBody(answer.body);
      call.log.warn({ model, status: answer.status, fallback: models[i + 1] }, 'every upstream of the model failed; trying its fallback');
      continue;
    }
    if (model !== req.model) {
      // Billed at the model that answered.
      call.model = model;
      call.ctx.set(FALLBACK_MODEL_HEADER, model);
    }
    up = answer;
  }
  if (!up) throw upstreamBadGateway(502);
  if (dropped.names.length) call.ctx.set(DROPPED_TOOLS_HEADER, dropped.names.join(', '));
  if (dropped.fields.length) call.ctx.set(DROPPED_FIELDS_HEADER, dropped.fields.join(', '));
  const tag = up.attempt?.tag as Attempt | undefined;
  if (!tag || tag.native) return req.relayNative(up);
  if (up.status >= 400 || up.status < 200) return translatedError(call, up, tag.codec);
  const request: ClientRequest = { original: req.chatBody ?? req.body, chat: withFields(tag.chat, { model: call.model ?? req.model }) };
  const ct = headerValue(up.headers, 'content-type') ?? '';
  if (tag.chat.stream && !/^application\/(?:[\w.+-]+\+)?json/i.test(ct)) return relayTranslatedStream(call, up, tag.codec, client, request);
  return relayTranslatedJson(call, up, tag.codec, client, request);
}
