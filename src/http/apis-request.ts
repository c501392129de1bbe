/**
 * A /v2/apis request as the route steps read it (parameters, client address, validators), and the
 * headers of an answer held whole in memory written as one block. Koa's context is one; the fast
 * path's own lighter context (apis-fast-path.ts) is the other, so both run the same steps.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ParsedUrlQuery } from 'node:querystring';
import type { Rendered, RequestUrl } from '../encoding/index.ts';
import { CORS_HEADERS, type ServedRequest } from './middleware.ts';

/** Koa's context has every field here (some delegated to its request). */
export interface ApisRequest extends ServedRequest, RequestUrl {
  readonly query: ParsedUrlQuery;
  /** Koa's `querystring`: the URL's query string as sent, without its `?`. */
  readonly querystring: string;
  readonly params: Record<string, string>;
  /** Koa's `ip`: the socket's address, or X-Forwarded-For's first when the app trusts proxies. */
  readonly ip: string;
  readonly socket: Socket;
  /** Koa's `fresh`: whether the request's validators match the response headers already set. */
  readonly fresh: boolean;
  /** Koa's flag, cleared once the answer was written on the Node response here. */
  respond?: boolean;
}

/** A 200 answer whose body is in memory. */
export type BufferedAnswer = Rendered & { type: string; body: string | Buffer };

export function isBuffered(out: Rendered): out is BufferedAnswer {
  return out.status === 200 && !!out.type && (typeof out.body === 'string' || Buffer.isBuffer(out.body));
}

/** An answer's header block, kept on the answer itself (a WeakMap entry per computed answer cost more to collect). */
const BLOCK = Symbol('header block');
type WithBlock = BufferedAnswer & { [BLOCK]?: string[] };

/**
 * Every header of a buffered answer as the flat array `res.writeHead` takes: type, length, the
 * answer's own headers, CORS, and a last slot for the request id, filled in just before each
 * write (writeHead copies the values into the header text at once). Built once per answer
 * object: the encoding layer hands back the same object while a cached body and its freshness
 * headers stay the same, so a cached answer costs one writeHead instead of a dozen setHeader.
 */
export function headerBlock(out: WithBlock): string[] {
  let block = out[BLOCK];
  if (!block) {
    block = ['Content-Type', out.type, 'Content-Length', String(typeof out.body === 'string' ? Buffer.byteLength(out.body) : out.body.length)];
    for (const name in out.headers) block.push(name, out.headers[name] as string);
    for (const name in CORS_HEADERS) block.push(name, CORS_HEADERS[name] as string);
    block.push('X-Request-Id', '');
    out[BLOCK] = block;
  }
  return block;
}

/** Koa's `ctx.writable`: whether a body can still be sent. */
export function writable(res: ServerResponse): boolean {
  if (res.writableEnded) return false;
  const socket = res.socket;
  return !socket || socket.writable;
}
