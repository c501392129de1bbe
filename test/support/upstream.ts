/**
 * A local stand-in for every upstream, reached through SOURCES_UPSTREAM_MIRROR: a request for
 * `http(s)://HOST/PATH?QUERY` arrives here as `/HOST/PATH?QUERY`.
 *
 * - `serve(host, path, handler)` answers one upstream path (exact, or a RegExp on the path).
 * - Otherwise a file `test/fixtures/upstream/<host><path>` is served (also tried with
 *   `.json` and `.html`; a path ending in `/` maps to `index`, `index.json` or `index.html`).
 * - Anything else is recorded in `unmatched` and answered 599, so a test can fail on it.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { LocalHttpServer } from './local-http-server.ts';

export interface UpstreamRequest {
  method: string;
  host: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface UpstreamReply {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer | object;
  /** Wait this long before answering (slow upstream). */
  delayMs?: number;
}

export type UpstreamHandler = (req: UpstreamRequest) => UpstreamReply | Promise<UpstreamReply>;

export const FIXTURE_DIR = path.resolve(import.meta.dirname, '../fixtures/upstream');

const TYPES: Record<string, string> = {
  '.json': 'application/json; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.png': 'image/png',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

export class Upstream extends LocalHttpServer {
  readonly requests: UpstreamRequest[] = [];
  readonly unmatched: string[] = [];
  private routes: { host: string; path: string | RegExp; handler: UpstreamHandler }[] = [];

  constructor(private readonly fixtureDir = FIXTURE_DIR) {
    super();
  }

  /** Answer requests for this host and path (the newest registration wins). */
  serve(host: string, pathOrPattern: string | RegExp, handler: UpstreamHandler | UpstreamReply): this {
    const h = typeof handler === 'function' ? handler : () => handler;
    this.routes.unshift({ host, path: pathOrPattern, handler: h });
    return this;
  }

  /** Serve a file from the fixture folder for this host and path. */
  serveFile(host: string, pathOrPattern: string | RegExp, file: string, headers: Record<string, string> = {}): this {
    return this.serve(host, pathOrPattern, () => this.fileReply(file, headers));
  }

  /** The answer of a file of the fixture folder, its type from its extension. */
  fileReply(file: string, headers: Record<string, string> = {}): UpstreamReply {
    const full = path.join(this.fixtureDir, file);
    return { status: 200, headers: { 'content-type': TYPES[path.extname(full)] ?? 'application/octet-stream', ...headers }, body: fs.readFileSync(full) };
  }

  /** Forget per-test routes and recorded requests. */
  reset(): void {
    this.routes = [];
    this.requests.length = 0;
    this.unmatched.length = 0;
  }

  /** Requests received for a host (and path prefix). */
  hits(host: string, pathPrefix = ''): UpstreamRequest[] {
    return this.requests.filter((r) => r.host === host && r.path.startsWith(pathPrefix));
  }

  protected async receive(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://mirror');
    const [, host = '', ...rest] = url.pathname.split('/');
    const upstreamPath = `/${rest.join('/')}`;
    const r: UpstreamRequest = { method: req.method ?? 'GET', host, path: upstreamPath, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks) };
    this.requests.push(r);
    const route = this.routes.find((x) => x.host === host && (typeof x.path === 'string' ? x.path === upstreamPath : x.path.test(upstreamPath)));
    let reply: UpstreamReply | undefined;
    if (route) reply = await route.handler(r);
    else reply = this.fromFile(host, upstreamPath);
    if (!reply) {
      this.unmatched.push(`${r.method} ${host}${upstreamPath}${url.search}`);
      res.writeHead(599, { 'content-type': 'text/plain' }).end('no fixture for this request');
      return;
    }
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (res.destroyed) return;
    const body = reply.body === undefined ? '' : Buffer.isBuffer(reply.body) || typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    const headers = { ...(typeof reply.body === 'object' && !Buffer.isBuffer(reply.body) ? { 'content-type': 'application/json; charset=utf-8' } : {}), ...reply.headers };
    res.writeHead(reply.status ?? 200, headers).end(body);
  }

  private fromFile(host: string, upstreamPath: string): UpstreamReply | undefined {
    const base = path.join(this.fixtureDir, host, upstreamPath.endsWith('/') ? `${upstreamPath}index` : upstreamPath);
    if (!base.startsWith(this.fixtureDir)) return undefined;
    for (const candidate of [base, `${base}.json`, `${base}.html`]) {
      if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) {
        return { status: 200, headers: { 'content-type': TYPES[path.extname(candidate)] ?? 'application/octet-stream' }, body: fs.readFileSync(candidate) };
      }
    }
    return undefined;
  }
}
