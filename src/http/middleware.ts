/** Cross-cutting middleware: request ids and access log, errors, CORS. Named factories. */
import { performance } from 'node:perf_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type Koa from 'koa';
import { AppError } from '../kernel/errors.ts';
import type { Logger } from '../kernel/log.ts';
import type { Encoding } from '../kernel/source.ts';
import { renderError } from '../encoding/index.ts';
import { requestHeader } from './request-headers.ts';
import { newRequestId } from './request-id.ts';
import { aliasAsked } from './sixty-aliases.ts';

export interface AppState {
  rid: string;
  log: Logger;
  /** Encoding the caller asked for, once known (errors render in it). */
  encoding?: Encoding;
  /**
   * The X-Cache of an answer written with its headers in one block (not kept in the response's
   * header map): what the access log and the metrics report.
   */
  cache?: string | undefined;
}

/** What the access log and the metrics read of a request: a Koa context or the /v2/apis fast path's. */
export interface ServedRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  readonly path: string;
  state: AppState;
}

export type AppContext = Koa.ParameterizedContext<AppState>;

const REQUEST_ID = /^[\w.-]{1,64}$/;

/** Per-request state. The child logger is made only when something logs (most requests log one line at most). */
class RequestState implements AppState {
  encoding?: Encoding;
  cache?: string | undefined;
  #log: Logger | undefined;

  constructor(
    readonly rid: string,
    private readonly root: Logger,
  ) {}

  get log(): Logger {
    return (this.#log ??= this.root.child({ rid: this.rid }));
  }
}

/**
 * Sets response headers straight on the Node response: Koa's `ctx.set` allocates arrays per call.
 * Only for string values, before the headers are sent (as every caller here is).
 */
export function setHeaders(ctx: { readonly res: ServerResponse }, headers: Readonly<Record<string, string>>): void {
  for (const name in headers) ctx.res.setHeader(name, headers[name] as string);
}

/**
 * Gives the request its id (the caller's X-Request-Id when well-formed) and its state; returns the
 * start time. The X-Request-Id header is the caller's to set (`sendRequestId`, or in a header block).
 */
export function startRequest(ctx: { readonly req: IncomingMessage; state: AppState }, log: Logger): number {
  const started = performance.now();
  const incoming = requestHeader(ctx.req, 'x-request-id');
  ctx.state = new RequestState(incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : newRequestId(), log);
  return started;
}

export function sendRequestId(ctx: { readonly res: ServerResponse; readonly state: AppState }): void {
  ctx.res.setHeader('X-Request-Id', ctx.state.rid);
}

/** The X-Cache of a request's answer (see AppState.cache). */
export function cacheHeaderOf(ctx: ServedRequest): string | undefined {
  return ctx.state.cache ?? ((ctx.res.getHeader('X-Cache') as string | undefined) || undefined);
}

/** The access log line of a finished request. */
export function logRequest(ctx: ServedRequest, log: Logger, started: number): void {
  if (!log.isLevelEnabled('info')) return;
  const ms = Math.round((performance.now() - started) * 10) / 10;
  ctx.state.log.info({ method: ctx.method, path: ctx.path, alias: aliasAsked(ctx.req), status: ctx.res.statusCode, ms, encoding: ctx.state.encoding, cache: cacheHeaderOf(ctx) }, 'request');
}

export function requestLog(log: Logger) {
  return async function requestLog(ctx: AppContext, next: Koa.Next): Promise<void> {
    const started = startRequest(ctx, log);
    sendRequestId(ctx);
    try {
      await next();
    } finally {
      logRequest(ctx, log, started);
    }
  };
}

/** Renders every error under /v2 and the meta routes in the negotiated encoding, with its real status. */
export function errorHandler() {
  return async function errorHandler(ctx: AppContext, next: Koa.Next): Promise<void> {
    try {
      await next();
    } catch (err) {
      const e = err instanceof AppError ? err : undefined;
      const status = e?.status ?? (typeof (err as { status?: unknown }).status === 'number' ? ((err as { status: number }).status) : 500);
      const exposed = e ? e.expose : status < 500 && (err as { expose?: boolean }).expose !== false;
      const message = exposed ? (err as Error).message : 'Internal server error. The failure was logged; please try again later.';
      if (status >= 500 && !e) ctx.state.log?.error({ err: { message: (err as Error).message, stack: (err as Error).stack }, status }, 'request failed');
      else if (status >= 500) ctx.state.log?.warn({ status, err: (err as Error).message }, 'request failed');
      const out = renderError(status, message, ctx.state.encoding);
      ctx.status = status;
      for (const [k, v] of Object.entries(e?.headers ?? {})) ctx.set(k, v);
      // The body was refused unread: the connection cannot carry another request.
      if (status === 413) ctx.set('Connection', 'close');
      ctx.type = out.type;
      ctx.body = out.body;
    }
  };
}

export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'X-Cache, X-Cache-Note, ETag, Last-Modified, X-Total-Count, Retry-After, X-Request-Id',
};

/** Open CORS for the read-only API (as the 60s project does). */
export function allowCors(ctx: { readonly res: ServerResponse }): void {
  setHeaders(ctx, CORS_HEADERS);
}

export function cors() {
  return function cors(ctx: AppContext, next: Koa.Next): Promise<void> {
    allowCors(ctx);
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Methods', 'GET, HEAD, POST, OPTIONS');
      ctx.set('Access-Control-Allow-Headers', ctx.get('Access-Control-Request-Headers') || '*');
      ctx.set('Access-Control-Max-Age', '86400');
      ctx.status = 204;
      return Promise.resolve();
    }
    return next();
  };
}

/** The caller's address: the socket's, or X-Forwarded-For when TRUST_PROXY is on (Koa's app.proxy). */
export function clientIp(ctx: { readonly ip: string; readonly socket: Socket }): string {
  const ip = ctx.ip || ctx.socket.remoteAddress || '';
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}
