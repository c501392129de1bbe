/**
 * One authenticated gateway request: its key, level and route, the accounting it accumulates
 * (model, upstream status, usage, how it ended), and the steps every route shares: the model
 * allowlist, the TPM reservation, the upstream request and the three ways to answer (a
 * buffered JSON body, a stream, or an upstream error).
 */
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import type { Logger } from '../kernel/log.ts';
import type { GatewayExchange } from './exchange.ts';
import { isObject, readWhole, tryParseJson, type JsonObject } from './body.ts';
import { NO_UNITS } from './billing.ts';
import { Cancel } from './cancel.ts';
import { EventBacklog } from './event-backlog.ts';
import { creditLimited } from './credit.ts';
import { nextId } from './ids.ts';
import { errorBody, GatewayError, creditRefused, modelNotAllowed, upstreamAuthFailed, upstreamBadGateway, upstreamInvalidResponse, upstreamNotConfigured, type GatewayFamily } from './errors.ts';
import type { KeyRecord } from './keys.ts';
import type { Level, Levels } from './levels.ts';
import { MAX_RETRY_WAIT_MS, rateLimitHeaders, type RateLimits, type WindowState } from './limits.ts';
import { modelPermitted } from './policy.ts';
import { NOTHING_CONSUMED, type Consumption, type PriceTable } from './prices.ts';
import type { GatewaySettings } from './settings.ts';
import { relayStream } from './stream.ts';
import type { TaskStore } from './tasks.ts';
import { ClientGone, classifyUpstreamFailure, headerValue, type UpstreamResponse } from './upstream.ts';
import type { PreparedAttempt, UpstreamPool } from './upstream-pool.ts';
import type { UpstreamSpec } from './upstream-settings.ts';
import type { ApiStyle } from './translate/types.ts';
import { cacheWriteKind, outputBound, withOutputCap, type OutputBound, type OutputStyle } from './output-bound.ts';
import { anthropicOutput, geminiOutput, openAiOutput, type EndReason, type TokenUsage, type UsageLog, type UsageRow } from './usage.ts';
import { lastGeminiFields, normalizeUsage, usageFields, type UsageFields, type UsageStyle } from './usage-reading.ts';
import type { KeyStore } from './keys.ts';

export interface GatewayDeps {
  settings: GatewaySettings;
  keys: KeyStore;
  levels: Levels;
  prices: PriceTable;
  limits: RateLimits;
  usage: UsageLog;
  tasks: TaskStore;
  upstream: UpstreamPool | undefined;
  log: Logger;
  onUsage: ((row: UsageRow) => void) | undefined;
}

export type { UsageStyle } from './usage-reading.ts';

const ERROR_BODY_LIMIT = 1024 * 1024;

export interface SendOptions {
  method?: string;
  body?: Buffer | Readable;
  contentType?: string | undefined;
  contentLength?: number | undefined;
  /** Path and query for the upstream; default: the incoming path and query (without `key`). */
  path?: string;
  /** Cancels only this upstream request (the call's own signal also does). */
  signal?: Cancel;
  /** Send to this upstream only (its URL), e.g. the one that created a music task. */
  upstream?: string | undefined;
  /** The request per upstream (translated or renamed; see PoolRequest.prepare). */
  prepare?: ((spec: UpstreamSpec) => PreparedAttempt) | undefined;
  /** Which upstreams can take it; default: those that speak the route family's style. */
  accepts?: ((spec: UpstreamSpec) => boolean) | undefined;
  /** The model to route by (a fallback model); default: the request's. */
  model?: string | undefined;
}

/** What a route expects a request to consume, reserved before it is forwarded. */
export interface Reservation {
  promptTokens: number;
  /** Whether the prompt may be written to the upstream's cache (priced at that write price). */
  cacheWrite?: 'none' | '5m' | '1h';
  /** The most output the request can generate (see output-bound.ts); none for routes that generate no tokens. */
  output?: OutputBound | undefined;
  /** Units billed instead of tokens (images, seconds, tasks, searches). */
  units?: Partial<Consumption>;
}

/** The SSE event that ends a stream cut at its reservation, per family (none: the stream just ends). */
const STOP_TRAILER: Partial<Record<GatewayFamily, Buffer>> = {
  openai: Buffer.from('data: [DONE]\n\n'),
  // Anthropic's clients finish a message at message_stop; the cut reads as a max_tokens stop.
  anthropic: Buffer.from(
    'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":0}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n',
  ),
};

/** The billable units of a request, set by its route (`units` of a Reservation, then what the answer says). */
export type Units = Omit<Consumption, 'inputTokens' | 'cachedInputTokens' | 'cacheWriteTokens' | 'cacheWrite1hTokens' | 'audioInputTokens' | 'imageInputTokens' | 'outputTokens' | 'audioOutputTokens'>;

export interface JsonRelayOptions {
  usage: UsageStyle;
  /** Change the parsed answer before it is sent (the bytes are re-serialised only then). */
  rewrite?: (body: unknown) => unknown;
  /** See the parsed answer before it is sent (e.g. to remember a created task). */
  inspect?: (body: unknown) => void | Promise<void>;
  /** See each parsed event of a streamed answer as it passes. */
  inspectEvent?: (event: unknown) => void;
}

/** An upstream body, at most `limit` bytes (`truncated` beyond: the rest is dropped unread). */
async function readCapped(body: Readable, limit: number): Promise<{ buf: Buffer; truncated: boolean }> {
  let truncated = false;
  const buf = await readWhole(body, limit, () => {
    truncated = true;
    body.on('error', () => undefined);
  });
  return { buf, truncated };
}

/** The wait an upstream 429 asks for (retry-after-ms, else retry-after in seconds or as a date); 0 if none. */
function upstreamWaitMs(up: UpstreamResponse): number {
  const ms = Number(headerValue(up.headers, 'retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const ra = headerValue(up.headers, 'retry-after');
  if (!ra) return 0;
  const secs = Number(ra);
  if (Number.isFinite(secs)) return secs * 1000;
  const at = Date.parse(ra);
  return Number.isNaN(at) ? 0 : at - Date.now();
}

/** The extra chunk `stream_options.include_usage` adds: no choices, only usage. */
function isUsageOnlyChunk(data: string): boolean {
  if (!data.includes('"usage"')) return false;
  const parsed = tryParseJson(data);
  return isObject(parsed) && Array.isArray(parsed.choices) && parsed.choices.length === 0 && isObject(parsed.usage);
}

export class GatewayCall {
  readonly abort = new Cancel();
  readonly started = performance.now();
  clientGone = false;

  model: string | null = null;
  stream = false;
  upstreamStatus: number | null = null;
  /** The URL of the upstream that answered. */
  upstreamUrl: string | undefined;
  usage: TokenUsage | undefined;
  /** The upstream's usage counters seen so far (a stream's events merged field by field). */
  private usageCounters: UsageFields | undefined;
  /** Characters of generated text delivered (estimates the bill of a cut stream). */
  outputChars = 0;
  /** Output tokens seen so far: the estimate from the text delivered, or the upstream's running count when larger. */
  outputTokens = 0;
  /** The output bound reserved (generating routes). */
  output: OutputBound | undefined;
  /** Whether the gateway ended the stream because its output reached what was reserved. */
  stoppedAtReservation = false;
  /** Units billed when the upstream succeeded (see Reservation.units). */
  units: Units = { ...NO_UNITS };
  /** The credit reservation of a limited key (released when the request is settled). */
  reservationId: string | null = null;
  reservedMicros = 0;
  /** Whether to drop the usage-only chunk the gateway asked for and the client did not. */
  hideUsageChunk = false;
  /** Estimated prompt tokens; 0 when the route is not billed by tokens. */
  promptEstimate = 0;
  /** Whether a missing upstream usage may be replaced by an estimate. */
  estimable = false;
  reservedTokens = 0;
  endReason: EndReason = 'completed';
  errorCode: string | null = null;
  ttfbMs: number | null = null;
  /** The RPM and RPD windows the request was counted in; `undefined` until it passed them. */
  windows: WindowState[] | undefined;
  /** Whether the TPM window's headers are settled (by the reservation, or read for an answer that reserved nothing). */
  private tokenHeadersDone = false;

  constructor(
    readonly ctx: GatewayExchange,
    readonly deps: GatewayDeps,
    readonly family: GatewayFamily,
    readonly key: KeyRecord,
    readonly level: Level,
    readonly route: string,
  ) {
    ctx.res.on('close', () => {
      if (!ctx.res.writableFinished) {
        this.clientGone = true;
        this.abort.abort();
      }
    });
  }

  get log(): Logger {
    return this.deps.log;
  }

  /** The key's model allowlist; remembers the model for the usage row. */
  permitModel(model: string): void {
    this.model = model;
    if (!modelPermitted(this.key.models, model)) throw modelNotAllowed(model);
  }

  /** Whether the key is limited to some models (then a request must name its model). */
  get modelRestricted(): boolean {
    return this.key.models.length > 0;
  }

  /**
   * Reserve what the request may cost: the key's credit (a limited key: the price of the prompt
   * estimate, the output limit and the units; 429 insufficient_quota when it cannot fit), then
   * the prompt estimate plus the output limit in the account's TPM window (429 beyond).
   */
  async reserve(r: Reservation): Promise<void> {
    this.units = { ...this.units, ...r.units };
    this.output = r.output;
    if (creditLimited(this.key)) {
      const outputTokens = r.output?.tokens ?? 0;
      const writes = r.cacheWrite && r.cacheWrite !== 'none' ? r.promptTokens : 0;
      const usd = this.deps.prices.cost(this.model, {
        ...NOTHING_CONSUMED,
        ...r.units,
        inputTokens: r.promptTokens,
        cacheWriteTokens: writes,
        cacheWrite1hTokens: r.cacheWrite === '1h' ? writes : 0,
        outputTokens,
        audioOutputTokens: r.output?.audio ? outputTokens : 0,
      });
      const micros = Math.ceil(usd * 1_000_000 - 1e-6);
      const id = `res_${nextId()}`;
      const decision = await this.deps.keys.reserve(this.key.id, id, micros);
      if (!decision.ok) throw creditRefused(this.key, micros, decision.left, decision.heldMicros, { model: this.model, promptTokens: r.promptTokens, outputTokens, outputLimitGiven: r.output?.given ?? false });
      this.reservationId = id;
      this.reservedMicros = micros;
    }
    await this.reserveTokens(r.promptTokens, r.output?.given ? r.output.tokens : 0);
  }

  /**
   * Reserve a generating request of this style: its prompt and the most output it can generate.
   * A limited key's request that names no output cap gets the reserved one
   * (AI_RESERVE_OUTPUT_TOKENS per answer): the body to forward instead is returned.
   */
  async reserveGeneration(style: OutputStyle, body: JsonObject, promptTokens: number): Promise<JsonObject | undefined> {
    const output = outputBound(style, body, this.deps.settings.reserveOutputTokens);
    await this.reserve({ promptTokens, output, cacheWrite: style === 'anthropic' ? cacheWriteKind(body) : 'none' });
    return !output.given && this.reservationId !== null ? withOutputCap(style, body, output.perAnswer) : undefined;
  }

  /** Reserve `promptEstimate + extra` tokens of the account's TPM window (429 beyond). */
  private async reserveTokens(promptEstimate: number, extra = 0): Promise<void> {
    this.promptEstimate = promptEstimate;
    this.estimable = true;
    const amount = promptEstimate + extra;
    // A refusal carries its own TPM headers.
    this.tokenHeadersDone = true;
    const st = await this.deps.limits.reserveTokens(this.key.accountId, this.level, amount, this.windows ?? []);
    if (st) {
      this.reservedTokens = amount;
      this.ctx.setAll(rateLimitHeaders([st]));
    }
  }

  /**
   * The request passed its RPM and RPD windows: their headers, and the TPM window's when it was
   * read with them (`null`: read, no TPM limit; `undefined`: not read).
   */
  admitted(windows: WindowState[], tpm?: WindowState | null): void {
    this.windows = windows;
    this.ctx.setAll(rateLimitHeaders(tpm ? [...windows, tpm] : windows));
    if (tpm !== undefined) this.tokenHeadersDone = true;
  }

  /**
   * Before an answer leaves: the TPM window's headers, read now when the request reserved no
   * tokens (so a request that does reserve reads the window once, when it reserves).
   */
  async tokenHeaders(): Promise<void> {
    if (this.tokenHeadersDone || !this.windows || this.ctx.headerSent) return;
    this.tokenHeadersDone = true;
    const st = await this.deps.limits.tokenState(this.key.accountId, this.level);
    if (st) this.ctx.setAll(rateLimitHeaders([st]));
  }

  /** The incoming query string without our own `key` parameter (it is never forwarded). */
  upstreamPath(): string {
    if (!this.ctx.querystring) return this.ctx.path;
    const params = new URLSearchParams(this.ctx.querystring);
    params.delete('key');
    const q = params.toString();
    return q ? `${this.ctx.path}?${q}` : this.ctx.path;
  }

  upstream(): UpstreamPool {
    if (!this.deps.upstream) throw upstreamNotConfigured();
    return this.deps.upstream;
  }

  async send(o: SendOptions = {}): Promise<UpstreamResponse> {
    const pool = this.upstream();
    const headers: Record<string, string> = {
      accept: this.ctx.get('accept') || '*/*',
      'accept-encoding': 'identity',
      'x-request-id': this.ctx.state.rid,
    };
    if (o.contentType) headers['content-type'] = o.contentType;
    if (o.contentLength !== undefined) headers['content-length'] = String(o.contentLength);
    const ua = this.ctx.get('user-agent');
    if (ua) headers['user-agent'] = ua;
    const signal = o.signal ? Cancel.any(this.abort, o.signal) : this.abort;
    const style = this.family as ApiStyle;
    const up = await pool.send({
      family: this.family,
      model: o.model ?? this.model,
      method: o.method ?? this.ctx.method,
      path: o.path ?? this.upstreamPath(),
      headers,
      body: o.body,
      signal,
      pinned: o.upstream,
      prepare: o.prepare,
      accepts: o.accepts ?? ((spec) => !spec.apiDeclared || spec.api.includes(style)),
    });
    this.upstreamStatus = up.status;
    this.upstreamUrl = up.upstream;
    this.ttfbMs = Math.round(performance.now() - this.started);
    return up;
  }

  /** Answer with the upstream's failure: 4xx as sent (OpenAI/Gemini-shaped), 401/403 and 5xx as 502. */
  async relayError(up: UpstreamResponse): Promise<void> {
    this.endReason = 'upstream_error';
    const { buf } = await readCapped(up.body, ERROR_BODY_LIMIT).catch(() => ({ buf: Buffer.alloc(0), truncated: true }));
    if (up.status === 401 || up.status === 403) throw upstreamAuthFailed(up.status);
    if (up.status >= 500 || up.status < 400) {
      this.log.warn({ upstreamStatus: up.status, route: this.route }, 'upstream failed');
      throw upstreamBadGateway(up.status);
    }
    const parsed = tryParseJson(buf);
    const shaped = isObject(parsed) && isObject(parsed.error);
    const upstreamCode = shaped && isObject(parsed.error) ? parsed.error.code ?? parsed.error.status : undefined;
    this.errorCode = typeof upstreamCode === 'string' ? upstreamCode : `upstream_${up.status}`;
    this.ctx.status = up.status;
    this.ctx.type = 'application/json';
    if (up.status === 429) {
      for (const h of ['retry-after', 'retry-after-ms', 'x-should-retry']) {
        const v = headerValue(up.headers, h);
        if (v) this.ctx.set(h, v);
      }
      if (!headerValue(up.headers, 'x-should-retry') && upstreamWaitMs(up) > MAX_RETRY_WAIT_MS) this.ctx.set('x-should-retry', 'false');
    }
    if (shaped) {
      this.ctx.body = buf;
      return;
    }
    const text = buf.toString('utf8').trim().slice(0, 1000);
    const err = new GatewayError(up.status, text || `The upstream model gateway refused the request (HTTP ${up.status}).`, {
      type: up.status === 429 ? 'upstream_rate_limited' : 'invalid_request_error',
      code: up.status === 429 ? 'upstream_rate_limited' : `upstream_${up.status}`,
    });
    this.ctx.body = errorBody(err, this.family);
  }

  private copyContentHeaders(up: UpstreamResponse): void {
    for (const h of ['content-type', 'content-disposition']) {
      const v = headerValue(up.headers, h);
      if (v) this.ctx.set(h, v);
    }
    const rid = headerValue(up.headers, 'x-request-id');
    if (rid) this.ctx.set('x-upstream-request-id', rid);
  }

  /** A whole upstream answer, at most AI_MAX_RESPONSE_BYTES (502 beyond). */
  async readAnswer(up: UpstreamResponse): Promise<Buffer> {
    let read: { buf: Buffer; truncated: boolean };
    try {
      read = await readCapped(up.body, this.deps.settings.maxResponseBytes);
    } catch (err) {
      this.endReason = this.abort.aborted ? 'client_closed' : 'upstream_error';
      throw classifyUpstreamFailure(err, this.abort);
    }
    if (read.truncated) {
      this.endReason = 'upstream_error';
      throw upstreamInvalidResponse(`answer larger than ${this.deps.settings.maxResponseBytes} bytes`);
    }
    return read.buf;
  }

  /** A whole JSON answer: read (capped), usage taken from it, then sent. */
  async relayJson(up: UpstreamResponse, o: JsonRelayOptions): Promise<void> {
    const buf = await this.readAnswer(up);
    let out: Buffer | string = buf;
    const parsed = tryParseJson(buf);
    if (parsed !== undefined) {
      this.takeUsage(parsed, o.usage, false);
      await o.inspect?.(parsed);
      if (o.rewrite) out = JSON.stringify(o.rewrite(parsed));
    }
    this.copyContentHeaders(up);
    this.ctx.status = up.status;
    if (!this.ctx.has('content-type')) this.ctx.type = 'application/json';
    this.ctx.body = out;
    this.endReason = 'completed';
  }

  /** Usage and generated characters from an answer or one stream event (`chunk`: added to the count). */
  takeUsage(body: unknown, style: UsageStyle, chunk: boolean): void {
    if (style === 'none') return;
    const fields = usageFields(style, body);
    const usage = fields && this.countUsage(style, fields, chunk);
    const seen = style === 'openai' ? openAiOutput(body) : style === 'anthropic' ? anthropicOutput(body) : geminiOutput(body);
    this.outputChars = chunk ? this.outputChars + seen.chars : seen.chars;
    this.outputTokens = Math.max(chunk ? this.outputTokens + seen.tokens : seen.tokens, usage?.completion ?? 0);
  }

  /** Merge the counters of one answer or stream event into what was seen; the usage they now make. */
  private countUsage(style: UsageStyle, fields: UsageFields, merge: boolean): TokenUsage | undefined {
    this.usageCounters = merge && this.usageCounters ? { ...this.usageCounters, ...fields } : fields;
    const usage = normalizeUsage(style, this.usageCounters);
    if (usage) this.usage = usage;
    return usage;
  }

  /** Whether a limited key's stream has generated all the output that was reserved for it. */
  reservationSpent(): boolean {
    return this.output !== undefined && this.reservationId !== null && this.outputTokens > 0 && this.outputTokens >= this.output.tokens;
  }

  /** Stream the upstream body to the client as it arrives (SSE or bytes). */
  async relayStreamed(up: UpstreamResponse, style: UsageStyle, inspectEvent?: (event: unknown) => void, stopTrailer = STOP_TRAILER[this.family]): Promise<void> {
    const ct = headerValue(up.headers, 'content-type') ?? 'application/octet-stream';
    const sse = /^text\/event-stream/i.test(ct);
    this.stream = true;
    this.copyContentHeaders(up);
    this.ctx.status = up.status;
    await this.tokenHeaders();
    this.ctx.respond = false;
    const headers = this.ctx.outgoingHeaders({ 'content-type': ct, 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    let tail = '';
    const read = (data: string): void => {
      const parsed = tryParseJson(data);
      if (parsed === undefined) return;
      this.takeUsage(parsed, style, true);
      inspectEvent?.(parsed);
    };
    const stops = this.output !== undefined && this.reservationId !== null;
    const readsEvents = style !== 'none' || inspectEvent !== undefined;
    // Each event is read as it passes when each one matters (a reservation to stop at, an inspector), else only if no usage comes.
    const backlog = readsEvents && !stops && !inspectEvent ? new EventBacklog(read) : undefined;
    // Every option named (no spread of optional parts: see withFields in body.ts).
    const result = await relayStream({
      res: this.ctx.res,
      up,
      headers,
      family: this.family,
      sse,
      keepAliveMs: this.deps.settings.keepAliveMs,
      signal: this.abort,
      onEvent: readsEvents
        ? (data) => {
            if (data === '[DONE]') return;
            if (backlog) backlog.push(data);
            else read(data);
          }
        : undefined,
      dropEvent: sse && this.hideUsageChunk ? isUsageOnlyChunk : undefined,
      stopWhen: stops ? () => this.reservationSpent() : undefined,
      stopTrailer: stops ? stopTrailer : undefined,
      onChunk: !sse && style === 'gemini' ? (chunk: Buffer) => (tail = (tail + chunk.toString('utf8')).slice(-16_384)) : undefined,
    });
    if (backlog && !this.usage) backlog.drain();
    if (!sse && style === 'gemini') {
      const fields = lastGeminiFields(tail);
      if (fields) this.countUsage(style, fields, false);
    }
    this.endReason = result.end;
    if (result.stopped) this.stoppedAtReservation = true;
    if (result.error) {
      this.errorCode = result.error.code;
      this.deps.upstream?.bodyFailed(this.upstreamUrl, `${result.error.code}: ${result.error.message}`);
    }
  }

  /** Answer from the upstream response however it came: error, stream, or whole JSON. */
  /**
   * `stopTrailer`: the last event of a stream the gateway ends at its reservation, in the route's
   * style (default: `data: [DONE]` on /v1, none on /v1beta).
   */
  async relay(up: UpstreamResponse, o: JsonRelayOptions & { streamJson?: boolean; stopTrailer?: Buffer }): Promise<void> {
    if (up.status >= 400 || up.status < 200) return this.relayError(up);
    const ct = headerValue(up.headers, 'content-type') ?? '';
    const isJson = /^application\/(?:[\w.+-]+\+)?json/i.test(ct);
    if (isJson && !o.streamJson) return this.relayJson(up, o);
    return this.relayStreamed(up, o.usage, o.inspectEvent, o.stopTrailer);
  }

  /** Turn any failure into what the usage row records. */
  noteFailure(err: unknown): void {
    if (err instanceof ClientGone || this.clientGone) {
      this.endReason = 'client_closed';
      return;
    }
    if (err instanceof GatewayError) {
      this.errorCode = err.code;
      if (err.type === 'upstream_error') this.endReason = 'upstream_error';
      else if (this.endReason === 'completed') this.endReason = 'rejected';
      return;
    }
    this.errorCode = 'internal_error';
    this.endReason = 'upstream_error';
  }
}
