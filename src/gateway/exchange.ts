/**
 * One gateway request and its response, without Koa: the few things the gateway reads and sets
 * (method, path, query, headers in and out, status, a body) with Koa's meaning, and `finish`,
 * which writes a buffered answer as Koa's `respond` would. A streamed answer writes to `res`
 * itself (its head with `outgoingHeaders`) and sets `respond = false`. Profiles of a forwarded
 * call showed Koa's context, its delegating getters, its middleware chain and its `respond`
 * costing more than the gateway's own steps; the gateway used nothing else of Koa.
 *
 * Response headers are kept here, by lower-case name, and given to `res.writeHead` in one object
 * with the status: `res.setHeader`, once per header (an answer has about fifteen), cost about a
 * microsecond each.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import querystring, { type ParsedUrlQuery } from 'node:querystring';
import type { AppState } from '../http/middleware.ts';

const EMPTY_QUERY: ParsedUrlQuery = Object.freeze(querystring.parse(''));
/** Statuses whose response has no body. */
const BODILESS = new Set([204, 205, 304]);
/** What `type` accepts here, with the charset Koa adds to it. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  'application/json': 'application/json; charset=utf-8',
};

/** A request target's path and query string (a `#fragment`, which clients do not send, is dropped). */
export function splitTarget(url: string): { path: string; querystring: string } {
  const q = url.indexOf('?');
  const hash = url.indexOf('#');
  if (q < 0) return { path: hash < 0 ? url : url.slice(0, hash), querystring: '' };
  if (hash >= 0 && hash < q) return { path: url.slice(0, hash), querystring: '' };
  return { path: url.slice(0, q), querystring: url.slice(q + 1, hash < 0 ? url.length : hash) };
}

export class GatewayExchange {
  state!: AppState;
  /** Set to false by an answer that writes `res` itself (a stream). */
  respond = true;
  /** The answer to write: bytes, text, or a JSON value. */
  body: unknown = undefined;
  readonly path: string;
  readonly querystring: string;
  #query: ParsedUrlQuery | undefined;
  #statusSet = false;
  readonly #headers: Record<string, string | number> = {};

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    /** The caller's address (X-Forwarded-For when the service trusts its proxy). */
    private readonly ipOf: (req: IncomingMessage, res: ServerResponse) => string,
    target = splitTarget(req.url ?? '/'),
  ) {
    this.path = target.path;
    this.querystring = target.querystring;
    res.statusCode = 404;
  }

  get method(): string {
    return this.req.method as string;
  }

  get socket(): Socket {
    return this.req.socket;
  }

  get ip(): string {
    return this.ipOf(this.req, this.res);
  }

  get query(): ParsedUrlQuery {
    return (this.#query ??= this.querystring ? querystring.parse(this.querystring) : EMPTY_QUERY);
  }

  get status(): number {
    return this.res.statusCode;
  }

  set status(code: number) {
    this.#statusSet = true;
    this.res.statusCode = code;
  }

  get headerSent(): boolean {
    return this.res.headersSent;
  }

  /** A request header ('' when absent), as Koa's `ctx.get`. */
  get(name: string): string {
    const v = this.req.headers[name.toLowerCase()];
    return v === undefined ? '' : Array.isArray(v) ? v.join(', ') : v;
  }

  /** Set a response header (after the head has gone out: throws, as `res.setHeader` does). */
  set(name: string, value: string): void {
    if (this.res.headersSent) this.res.setHeader(name, value);
    this.#headers[name.toLowerCase()] = value;
  }

  setAll(headers: Readonly<Record<string, string>>): void {
    for (const name in headers) this.set(name, headers[name] as string);
  }

  has(name: string): boolean {
    return name.toLowerCase() in this.#headers;
  }

  set type(type: string) {
    this.set('content-type', CONTENT_TYPES[type] ?? type);
  }

  /** The headers set so far, with `extra`: for an answer that writes its own head (`res.writeHead(status, x.outgoingHeaders(…))`). */
  outgoingHeaders(extra?: Readonly<Record<string, string | number>>): Record<string, string | number> {
    return extra ? Object.assign(this.#headers, extra) : this.#headers;
  }

  /** Write the buffered answer (unless the answer streamed itself, or the client is gone). */
  finish(): void {
    const { res } = this;
    if (!this.respond || res.writableEnded || res.destroyed) return;
    if (this.body !== undefined && !this.#statusSet) res.statusCode = 200;
    const headers = this.#headers;
    if (BODILESS.has(res.statusCode)) {
      delete headers['content-type'];
      delete headers['content-length'];
      res.writeHead(res.statusCode, headers).end();
      return;
    }
    let body: Buffer | string;
    let type: string;
    if (Buffer.isBuffer(this.body)) [body, type] = [this.body, 'application/octet-stream'];
    else if (typeof this.body === 'string') [body, type] = [this.body, 'text/plain; charset=utf-8'];
    else if (this.body === undefined || this.body === null) [body, type] = [STATUS_CODES[res.statusCode] ?? String(res.statusCode), 'text/plain; charset=utf-8'];
    else [body, type] = [JSON.stringify(this.body), CONTENT_TYPES['application/json']!];
    headers['content-type'] ??= type;
    headers['content-length'] = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    res.writeHead(res.statusCode, headers);
    if (this.req.method === 'HEAD') res.end();
    else res.end(body);
  }
}
