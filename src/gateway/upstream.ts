/**
 * The one client of the upstream model gateway: an undici Pool. `headersTimeout` bounds the
 * wait for the first byte (504), `bodyTimeout` bounds the silence between body chunks, and the
 * caller's signal (a Cancel, see cancel.ts) cancels the upstream request when the client leaves.
 */
import type { Readable } from 'node:stream';
import { Pool, errors } from 'undici';
import type { Dispatcher } from 'undici';
import type { CancelSignal } from './cancel.ts';
import { GatewayError, upstreamTimeout, upstreamUnreachable } from './errors.ts';
import { API_STYLES, type ApiStyle } from './translate/types.ts';
import type { PreparedAttempt } from './upstream-pool.ts';

export type UpstreamHeaders = Record<string, string | string[] | undefined>;

export interface UpstreamResponse {
  status: number;
  headers: UpstreamHeaders;
  body: Readable;
  /** The URL of the upstream that answered (set by the pool). */
  upstream?: string;
  /** The version of the request that upstream got, when the caller prepared one per upstream (set by the pool). */
  attempt?: PreparedAttempt | undefined;
}

export interface UpstreamRequest {
  method: string;
  /** Incoming path and query, appended to the base URL's path. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer | Readable | undefined;
  signal: CancelSignal;
}

/** The caller went away; nothing can be sent to it any more. */
export class ClientGone extends Error {
  constructor() {
    super('client closed the connection');
    this.name = 'ClientGone';
  }
}

/** Drop a response body unread. (undici reports a body destroyed before its end as an 'error'.) */
export function discardBody(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

export function headerValue(headers: UpstreamHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Map an upstream transport failure to the caller's status (502 unreachable, 504 timeout). */
export function classifyUpstreamFailure(err: unknown, signal?: CancelSignal): Error {
  if (signal?.aborted) return new ClientGone();
  if (err instanceof GatewayError || err instanceof ClientGone) return err;
  if (err instanceof errors.HeadersTimeoutError || err instanceof errors.BodyTimeoutError) return upstreamTimeout(err);
  return upstreamUnreachable(err);
}

export interface UpstreamOptions {
  baseUrl: string;
  apiKey: string | undefined;
  firstByteTimeoutMs: number;
  idleTimeoutMs: number;
}

/** A version segment (`/v1`, `/v1beta`, `/v2alpha`) in a base URL's path. */
const VERSION_SEGMENT = /\/v\d+(?:alpha|beta)?\d*(?:\/|$)/;
/** The leading version segment of a request path. */
const LEADING_VERSION = /^\/v\d+(?:alpha|beta)?\d*(?=\/|$)/;

/**
 * The path to request: the base URL's path, then the request path, whose own version segment
 * is left out when the base path already holds one (`https://host/v1beta/openai` +
 * `/v1/chat/completions` -> `/v1beta/openai/chat/completions`).
 */
export function joinUpstreamPath(basePath: string, path: string): string {
  return VERSION_SEGMENT.test(basePath) ? `${basePath}${path.replace(LEADING_VERSION, '')}` : `${basePath}${path}`;
}

/** How an upstream of each style is given our credential. */
function credentialHeaders(style: ApiStyle, key: string): Record<string, string> {
  if (style === 'anthropic') return { 'x-api-key': key };
  if (style === 'gemini') return { authorization: `Bearer ${key}`, 'x-goog-api-key': key };
  return { authorization: `Bearer ${key}` };
}

export class UpstreamClient {
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly credentials: Record<ApiStyle, Readonly<Record<string, string>>>;

  constructor(private readonly opts: UpstreamOptions) {
    const key = opts.apiKey;
    this.credentials = Object.fromEntries(API_STYLES.map((s) => [s, key ? credentialHeaders(s, key) : {}])) as Record<ApiStyle, Readonly<Record<string, string>>>;
    const url = new URL(opts.baseUrl);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.pool = new Pool(url.origin, {
      headersTimeout: opts.firstByteTimeoutMs,
      bodyTimeout: opts.idleTimeoutMs,
      connectTimeout: Math.min(opts.firstByteTimeoutMs, 10_000),
      keepAliveTimeout: 10_000,
    });
  }

  /** Our credential for the upstream, in the header style of the API style it is spoken to in. */
  authHeaders(style: ApiStyle): Readonly<Record<string, string>> {
    return this.credentials[style];
  }

  async send(req: UpstreamRequest): Promise<UpstreamResponse> {
    const options: Dispatcher.RequestOptions = {
      method: req.method as Dispatcher.HttpMethod,
      path: joinUpstreamPath(this.basePath, req.path),
      headers: req.headers,
      body: req.body ?? null,
      signal: req.signal,
    };
    try {
      const res = await this.pool.request(options);
      return { status: res.statusCode, headers: res.headers, body: res.body };
    } catch (err) {
      throw classifyUpstreamFailure(err, req.signal);
    }
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
