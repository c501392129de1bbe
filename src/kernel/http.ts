/**
 * The one upstream HTTP client (got). Sources get a per-source instance carrying their default
 * headers and concurrency limit. Here live: timeouts, bounded retries for idempotent requests,
 * the response size cap, charset decoding, and `SOURCES_UPSTREAM_MIRROR`.
 */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { got, HTTPError, RequestError, type Got, type Method, type OptionsOfBufferResponseBody } from 'got';
import { SourceError } from './errors.ts';
import { classifyAddress, isIpAddress } from './net-address.ts';
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
  /**
   * The URL came from outside: chosen by the caller (the og endpoint) or named by an upstream's
   * data (the image-proxy and audio-proxy encodings, a font URL): see `UntrustedPolicy`.
   */
  untrusted?: boolean | UntrustedPolicy;
}

/**
 * Rules for fetching a URL chosen by the caller. Only http(s) is fetched; the host's addresses
 * are checked AFTER DNS resolution, on the first URL and on every redirect, and the connection
 * goes only to an address that passed (the check runs inside the socket's DNS lookup, so a
 * second resolution cannot swap in another address). Private, loopback, link-local (cloud
 * metadata), carrier-grade NAT, unique-local, multicast and reserved addresses are refused.
 * Refusals, unresolvable hosts, unaccepted media types and oversize bodies are `bad_input`
 * SourceErrors (the caller's concern); timeouts stay `transient`. No retries. The timeout is
 * `timeoutMs`, else the configured one capped at 8 s. Under SOURCES_UPSTREAM_MIRROR the
 * connection goes to the mirror (trusted configuration), so only the URL itself is checked.
 */
export interface UntrustedPolicy {
  /** Also allow loopback addresses (127.0.0.0/8, ::1, localhost). For tests and local demos only. */
  allowLoopback?: boolean;
  /** Accepted media types of the answer, e.g. `['text/html', 'application/xhtml+xml']`. */
  acceptTypes?: readonly string[];
  /** Stop reading once this text appears in the body (e.g. `</head>`); the part read is returned. */
  stopAfter?: string;
  /** Redirects followed, each checked like the first URL (default 5). */
  maxRedirects?: number;
}

const UNTRUSTED_TIMEOUT_MS = 8_000;
const UNTRUSTED_CODE = 'ERR_UNTRUSTED_ADDRESS';

const RANGE_WORDS: Record<string, string> = {
  private: 'a private (RFC 1918) address',
  loopback: 'a loopback address',
  linkLocal: 'a link-local address (this range holds cloud metadata services)',
  carrierGradeNat: 'a carrier-grade NAT (RFC 6598) address',
  uniqueLocal: 'a unique-local (fc00::/7) address',
  unspecified: 'the unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
};

/** Why an address may not be fetched under this policy, or undefined when it may. */
function addressRefusal(address: string, policy: UntrustedPolicy): string | undefined {
  const info = classifyAddress(address);
  if (!info) return 'not an IP address';
  if (info.isPublic) return undefined;
  if (info.range === 'loopback' && policy.allowLoopback) return undefined;
  return RANGE_WORDS[info.range] ?? `a special-purpose (${info.range}) address`;
}

function untrustedError(message: string): SourceError {
  return new SourceError('bad_input', message);
}

/**
 * Check a caller-chosen URL before any connection: scheme, credentials and literal addresses
 * (names are checked when they resolve). Returns the parsed URL; throws a `bad_input` SourceError.
 */
export function checkUntrustedUrl(url: string, policy: UntrustedPolicy = {}): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw untrustedError(`"${url.slice(0, 200)}" is not a valid URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw untrustedError(`only http and https URLs can be fetched, not ${u.protocol}`);
  if (u.username || u.password) throw untrustedError('URLs with a user name or password are not accepted');
  // WHATWG URL parsing already turned 2130706433, 0x7f.1 and 127.1 into dotted quads.
  const host = u.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (isIpAddress(host)) {
    const why = addressRefusal(host, policy);
    const canonical = classifyAddress(host)?.address;
    if (why) throw untrustedError(`${host}${canonical && canonical !== host ? ` (${canonical})` : ''} is ${why}; only public addresses can be fetched`);
  }
  return u;
}

/** Under the mirror names are not resolved here, so loopback names are refused by name. */
function refuseLoopbackName(u: URL, policy: UntrustedPolicy): void {
  const host = u.hostname.replace(/\.$/, '').toLowerCase();
  if ((host === 'localhost' || host.endsWith('.localhost')) && !policy.allowLoopback) throw untrustedError(`${host} is a loopback name; only public addresses can be fetched`);
}

/** A DNS lookup for sockets that refuses the host when any of its addresses is not allowed. */
function guardedLookup(policy: UntrustedPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      if (!addresses.length) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      for (const a of addresses) {
        const why = addressRefusal(a.address, policy);
        if (why) return callback(Object.assign(new Error(`${hostname} resolves to ${a.address}, ${why}; only public addresses can be fetched`), { code: UNTRUSTED_CODE }), '');
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0] as dns.LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}

function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
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

/** An untrusted URL's answer after its checked redirects, before its body is read. */
interface UntrustedAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The URL that answered (as requested, before mirroring). */
  url: URL;
  body: Readable;
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
/** The XML declaration's encoding (`<?xml version="1.0" encoding="gbk"?>`), which a feed declares itself by whatever type it is served as. */
const ENCODING_IN_XML_DECLARATION = /^(?:\uFEFF|\xEF\xBB\xBF)?\s*<\?xml[^>]*?\sencoding\s*=\s*["']([\w.:-]+)["']/;

/**
 * The body as text, in the charset of (first found) `forced`, the Content-Type header, the XML
 * declaration, or for HTML and XML a `<meta charset>`; UTF-8 otherwise.
 */
export function decodeBody(body: Buffer, contentType: string | undefined, forced?: string): string {
  let charset = forced ?? /charset\s*=\s*["']?([\w-]+)/i.exec(contentType ?? '')?.[1];
  const head = charset ? '' : body.subarray(0, 2048).toString('latin1');
  charset ??= ENCODING_IN_XML_DECLARATION.exec(head)?.[1];
  if (!charset && /html|xml/i.test(contentType ?? '')) {
    charset = CHARSET_IN_META.exec(head)?.[1];
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

  function toSourceError(err: unknown, url: string, untrusted = false): SourceError {
    if (err instanceof SourceError) return err;
    if (untrusted && err instanceof RequestError) {
      if (err.code === UNTRUSTED_CODE) return untrustedError(err.message);
      if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return untrustedError(`the host ${new URL(url).hostname} could not be resolved`);
      if (err.code === 'ECONNREFUSED') return untrustedError(`${new URL(url).host} refused the connection`);
    }
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

  function responseOf(status: number, headers: HttpResponse['headers'], finalUrl: string, body: Buffer, opts: HttpOptions): HttpResponse {
    const contentType = typeof headers['content-type'] === 'string' ? headers['content-type'] : undefined;
    return {
      status,
      headers,
      url: finalUrl,
      body,
      text: () => decodeBody(body, contentType, opts.charset),
      json: () => {
        const text = decodeBody(body, contentType, opts.charset);
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw new SourceError('parse', `${new URL(finalUrl).host} did not answer JSON (starts with ${JSON.stringify(text.slice(0, 60))})`);
        }
      },
    };
  }

  /** One hop of an untrusted request: a redirect target, or the answer with its body unread. */
  function untrustedHop(u: URL, opts: HttpOptions, policy: UntrustedPolicy, timeoutMs: number): Promise<{ redirect: string } | { answer: UntrustedAnswer }> {
    if (settings.mirror) refuseLoopbackName(u, policy);
    const options = {
      ...gotOptions({ ...opts, method: opts.method ?? 'GET' }),
      responseType: undefined,
      isStream: true,
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { request: timeoutMs },
      // The mirror is a configured, trusted address; every other connection resolves through the guard.
      ...(settings.mirror ? {} : { dnsLookup: guardedLookup(policy) }),
    };
    return new Promise((resolve, reject) => {
      const s = base.stream(mirrorUrl(u.href, settings.mirror), options as never) as unknown as Readable & {
        once(event: 'response', l: (r: { statusCode: number; headers: Record<string, string | string[] | undefined> }) => void): unknown;
      };
      s.once('error', (err: unknown) => reject(err));
      s.once('response', (r) => {
        const status = r.statusCode;
        const location = r.headers.location;
        if (status >= 300 && status < 400 && typeof location === 'string') {
          s.destroy();
          return resolve({ redirect: location });
        }
        if (status >= 400 && !opts.allowStatus?.includes(status)) {
          s.destroy();
          return reject(new SourceError(classifyStatus(status), `${u.host} answered HTTP ${status}`, { httpStatus: status }));
        }
        const type = typeof r.headers['content-type'] === 'string' ? r.headers['content-type'] : undefined;
        if (policy.acceptTypes && status < 300 && !policy.acceptTypes.includes(mediaTypeOf(type))) {
          s.destroy();
          return reject(untrustedError(`${u.host} answered ${mediaTypeOf(type) || 'without a content type'}; only ${policy.acceptTypes.join(' or ')} is accepted`));
        }
        resolve({ answer: { status, headers: r.headers, url: u, body: s } });
      });
    });
  }

  /** The answer to an untrusted URL after its checked redirects, its body unread. */
  async function untrustedAnswer(url: string, opts: HttpOptions, policy: UntrustedPolicy): Promise<UntrustedAnswer> {
    const timeoutMs = opts.timeoutMs ?? Math.min(settings.timeoutMs, UNTRUSTED_TIMEOUT_MS);
    const maxRedirects = policy.maxRedirects ?? 5;
    let current = checkUntrustedUrl(url, policy);
    for (let hop = 0; ; hop++) {
      let step;
      try {
        step = await untrustedHop(current, opts, policy, timeoutMs);
      } catch (err) {
        throw toSourceError(err, current.href, true);
      }
      if ('answer' in step) return step.answer;
      if (hop >= maxRedirects) throw untrustedError(`more than ${maxRedirects} redirects, stopped at ${current.href}`);
      let next: string;
      try {
        next = new URL(step.redirect, current).href;
      } catch {
        throw untrustedError(`${current.host} redirected to an invalid URL`);
      }
      current = checkUntrustedUrl(next, policy);
    }
  }

  /** An untrusted answer's body read within the size limit (and up to `stopAfter`). */
  function readUntrusted(answer: UntrustedAnswer, opts: HttpOptions, policy: UntrustedPolicy, maxBytes: number): Promise<HttpResponse> {
    const { body: s, url: u } = answer;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let tail = '';
      const marker = policy.stopAfter?.toLowerCase();
      const finish = (cutAt?: string) => {
        let body = Buffer.concat(chunks);
        if (cutAt) body = body.subarray(0, body.toString('latin1').toLowerCase().indexOf(cutAt) + cutAt.length);
        resolve(responseOf(answer.status, answer.headers, u.href, body, opts));
      };
      s.once('error', (err: unknown) => reject(toSourceError(err, u.href, true)));
      s.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          s.destroy();
          return reject(untrustedError(`${u.host} sent more than ${maxBytes} bytes${marker ? ` before ${policy.stopAfter}` : ''}`));
        }
        chunks.push(chunk);
        if (marker) {
          const seen = tail + chunk.toString('latin1').toLowerCase();
          if (seen.includes(marker)) {
            s.destroy();
            return finish(marker);
          }
          tail = seen.slice(-marker.length);
        }
      });
      s.once('end', () => finish());
    });
  }

  function untrustedPolicy(opts: HttpOptions): UntrustedPolicy {
    return typeof opts.untrusted === 'object' ? opts.untrusted : {};
  }

  function untrustedRequest(url: string, opts: HttpOptions): Promise<HttpResponse> {
    const policy = untrustedPolicy(opts);
    return gate.run(async () => readUntrusted(await untrustedAnswer(url, opts, policy), opts, policy, opts.maxBytes ?? settings.maxBytes));
  }

  /** An untrusted answer streamed as it arrives, cut off (with an error on the stream) past the size limit. */
  async function untrustedStream(url: string, opts: HttpOptions): Promise<HttpStream> {
    const answer = await untrustedAnswer(url, opts, untrustedPolicy(opts));
    const maxBytes = opts.maxBytes ?? settings.maxBytes;
    let size = 0;
    answer.body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) answer.body.destroy(new Error(`response of ${answer.url.host} exceeds ${maxBytes} bytes`));
    });
    answer.body.pause();
    return { status: answer.status, headers: answer.headers, body: answer.body };
  }

  async function request(url: string, opts: HttpOptions = {}): Promise<HttpResponse> {
    if (opts.untrusted) return untrustedRequest(url, opts);
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
      if (opts.untrusted) return untrustedStream(url, opts);
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
