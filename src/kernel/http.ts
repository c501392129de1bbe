/**
 * The one upstream HTTP client (got). Sources get a per-source instance carrying their default
 * headers and concurrency limit. Here live: timeouts, bounded retries for idempotent requests,
 * the response size cap, charset decoding, and `SOURCES_UPSTREAM_MIRROR`.
 */
import type { Readable } from 'node:stream';
import { got, HTTPError, RequestError, type Got, type Method, type OptionsOfBufferResponseBody } from 'got';
import { SourceError } from './errors.ts';
import { Semaphore } from './semaphore.ts';

export interface HttpOptions {
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  headers?: Record<string, string | undefined>;
  searchParams?: Record<string, string | number | boolean>;
  /** Raw request body. */
  body?: string | Buffer;
  /** JSON request body. */
  json?: unknown;
  /** `application/x-www-form-urlencoded` request body. */
  form?: Record<string, string>;
  /** Force a charset for decoding text (e.g. `gbk`); otherwise from the header or the page. */
  charset?: string;
  timeoutMs?: number;
  /** Retries for this request (GET/HEAD only); the configured default otherwise. */
  retry?: number;
  /** Statuses returned instead of thrown (e.g. 404 when "not found" is an answer). */
  allowStatus?: readonly number[];
  /** Follow redirects (default true). */
  followRedirect?: boolean;
  signal?: AbortSignal;
  /** Largest body accepted for this request (bytes); the configured default otherwise. */
  maxBytes?: number;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Final URL after redirects (as requested, before mirroring). */
  url: string;
  body: Buffer;
  /** Body decoded with the response charset (or `charset` from the options). */
  text(): string;
  /** Body parsed as JSON; a SourceError of kind `parse` when it is not JSON. */
  json(): unknown;
}

export interface HttpStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
}

export interface HttpClient {
  request(url: string, opts?: HttpOptions): Promise<HttpResponse>;
  text(url: string, opts?: HttpOptions): Promise<string>;
  json(url: string, opts?: HttpOptions): Promise<unknown>;
  stream(url: string, opts?: HttpOptions): Promise<HttpStream>;
}

export interface HttpSettings {
  userAgent: string;
  timeoutMs: number;
  retry: number;
  maxBytes: number;
  mirror: string | undefined;
}

/** `http(s)://HOST/PATH?QUERY` → `<mirror>/HOST/PATH?QUERY` (DESIGN.md). */
export function mirrorUrl(url: string, mirror: string | undefined): string {
  if (!mirror) return url;
  const u = new URL(url);
  return `${mirror.replace(/\/+$/, '')}/${u.host}${u.pathname}${u.search}`;
}

/** Undo `mirrorUrl` for a URL on the mirror, so redirects and `url` read like the upstream's. */
function unmirrorUrl(url: string, mirror: string | undefined): string {
  if (!mirror) return url;
  const base = mirror.replace(/\/+$/, '');
  if (!url.startsWith(`${base}/`)) return url;
  return `https://${url.slice(base.length + 1)}`;
}

const CHARSET_IN_META = /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i;

export function decodeBody(body: Buffer, contentType: string | undefined, forced?: string): string {
  let charset = forced ?? /charset\s*=\s*["']?([\w-]+)/i.exec(contentType ?? '')?.[1];
  if (!charset && /html|xml/i.test(contentType ?? '')) {
    charset = CHARSET_IN_META.exec(body.subarray(0, 2048).toString('latin1'))?.[1];
  }
  const label = (charset ?? 'utf-8').toLowerCase();
  // GB2312 pages routinely contain GBK characters; decoding as the superset loses nothing.
  const normalised = label === 'gb2312' ? 'gbk' : label;
  try {
    return new TextDecoder(normalised).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

function classifyStatus(status: number): 'transient' | 'blocked' {
  return status === 401 || status === 403 ? 'blocked' : 'transient';
}

export function createHttpBase(settings: HttpSettings): Got {
  return got.extend({
    headers: { 'user-agent': settings.userAgent, accept: '*/*', 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8' },
    timeout: { request: settings.timeoutMs },
    retry: {
      limit: settings.retry,
      methods: ['GET', 'HEAD'],
      statusCodes: [408, 429, 500, 502, 503, 504, 521, 522, 524],
      backoffLimit: 5_000,
    },
    decompress: true,
    hooks: {
      beforeRedirect: [
        (options) => {
          // Under the mirror, an absolute redirect to the upstream host must go back through the mirror.
          if (settings.mirror && options.url) {
            const target = options.url.toString();
            if (!target.startsWith(settings.mirror)) options.url = new URL(mirrorUrl(target, settings.mirror));
          }
        },
      ],
    },
  });
}

/**
 * A client for one source: default headers merged under the request's, and at most
 * `concurrency` requests at once.
 */
export function createHttpClient(base: Got, settings: HttpSettings, defaults: { headers?: Record<string, string>; concurrency?: number; signal?: AbortSignal } = {}): HttpClient {
  const gate = new Semaphore(defaults.concurrency ?? 4);

  function gotOptions(opts: HttpOptions): OptionsOfBufferResponseBody {
    const headers: Record<string, string | undefined> = { ...defaults.headers, ...opts.headers };
    const o: OptionsOfBufferResponseBody = {
      method: (opts.method ?? 'GET') as Method,
      headers,
      responseType: 'buffer',
      followRedirect: opts.followRedirect ?? true,
      signal: opts.signal ?? defaults.signal,
    };
    if (opts.searchParams) o.searchParams = opts.searchParams;
    if (opts.body !== undefined) o.body = opts.body;
    if (opts.json !== undefined) o.json = opts.json;
    if (opts.form !== undefined) o.form = opts.form;
    if (opts.timeoutMs !== undefined) o.timeout = { request: opts.timeoutMs };
    if (opts.retry !== undefined) o.retry = { limit: opts.retry };
    return o;
  }

  function toSourceError(err: unknown, url: string): SourceError {
    if (err instanceof SourceError) return err;
    if (err instanceof HTTPError) {
      const status = err.response.statusCode;
      return new SourceError(classifyStatus(status), `upstream answered HTTP ${status} for ${new URL(url).host}`, { httpStatus: status, cause: err });
    }
    if (err instanceof RequestError) {
      const what = err.code === 'ETIMEDOUT' ? 'timed out' : `failed (${err.code})`;
      return new SourceError('transient', `request to ${new URL(url).host} ${what}`, { cause: err });
    }
    if (err instanceof Error && err.name === 'AbortError') return new SourceError('transient', `request to ${new URL(url).host} was aborted`, { cause: err });
    return new SourceError('transient', `request to ${new URL(url).host} failed: ${String(err)}`, { cause: err });
  }

  async function request(url: string, opts: HttpOptions = {}): Promise<HttpResponse> {
    const target = mirrorUrl(url, settings.mirror);
    const maxBytes = opts.maxBytes ?? settings.maxBytes;
    return gate.run(async () => {
      try {
        const promise = base(target, gotOptions(opts));
        let tooLarge = false;
        promise.on('downloadProgress', (p) => {
          if (p.transferred > maxBytes && !tooLarge) {
            tooLarge = true;
            promise.cancel();
          }
        });
        let res;
        try {
          res = await promise;
        } catch (err) {
          if (tooLarge) throw new SourceError('transient', `response of ${new URL(url).host} exceeds ${maxBytes} bytes`);
          if (err instanceof HTTPError && opts.allowStatus?.includes(err.response.statusCode)) res = err.response as typeof err.response & { body: Buffer };
          else throw err;
        }
        const body = Buffer.isBuffer(res.body) ? res.body : Buffer.from(res.rawBody ?? []);
        const contentType = res.headers['content-type'];
        const finalUrl = unmirrorUrl(res.url, settings.mirror);
        return {
          status: res.statusCode,
          headers: res.headers,
          url: finalUrl,
          body,
          text: () => decodeBody(body, contentType, opts.charset),
          json: () => {
            const text = decodeBody(body, contentType, opts.charset);
            try {
              return JSON.parse(text) as unknown;
            } catch {
              throw new SourceError('parse', `${new URL(url).host} did not answer JSON (starts with ${JSON.stringify(text.slice(0, 60))})`);
            }
          },
        };
      } catch (err) {
        throw toSourceError(err, url);
      }
    });
  }

  return {
    request,
    async text(url, opts) {
      return (await request(url, opts)).text();
    },
    async json(url, opts) {
      return (await request(url, opts)).json();
    },
    stream(url, opts = {}) {
      const target = mirrorUrl(url, settings.mirror);
      const maxBytes = opts.maxBytes ?? settings.maxBytes;
      return new Promise<HttpStream>((resolve, reject) => {
        const s = base.stream(target, { ...gotOptions(opts), responseType: undefined, isStream: true, retry: { limit: 0 } } as never) as unknown as Readable & {
          on(event: 'response', l: (r: { statusCode: number; headers: Record<string, string | string[] | undefined> }) => void): unknown;
          on(event: 'downloadProgress', l: (p: { transferred: number }) => void): unknown;
        };
        s.on('downloadProgress', (p) => {
          if (p.transferred > maxBytes) s.destroy(new Error(`response exceeds ${maxBytes} bytes`));
        });
        s.once('error', (err: unknown) => reject(toSourceError(err, url)));
        s.on('response', (r) => resolve({ status: r.statusCode, headers: r.headers, body: s }));
      });
    },
  };
}
