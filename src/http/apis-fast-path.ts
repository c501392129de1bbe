/**
 * GET and HEAD on a fixed /v2/apis path, answered without Koa's middleware chain. It runs the
 * same steps as the chain, through the same functions and in the same order (request id and
 * access log, metrics, CORS, abuse limits, the route's answer, writeBufferedAnswer), on a light
 * context of its own (`FastRequest`): Koa's context is made only when a step needs what Koa
 * alone provides (a proxied client address, a feed's absolute URL, validators to compare) and
 * for what Koa writes itself: errors (through the same errorHandler), redirects and streams.
 * An answer held in memory is written with one `writeHead` of its header block and counted in
 * the metrics at once; only answers handed to Koa are counted on their response's `close`.
 * Profiles of a cached answer showed Koa's chain, context, delegating getters and response
 * setters costing more than the answer itself; see BENCHMARKS.md.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import querystring, { type ParsedUrlQuery } from 'node:querystring';
import type { Router } from '@koa/router';
import type { Rendered } from '../encoding/index.ts';
import type { Logger } from '../kernel/log.ts';
import type { ApisRequest } from './apis-request.ts';
import { applyAnswer, writeBufferedAnswer, type Answer } from './apis-router.ts';
import { markRouted, type ExactRoute } from './exact-routes.ts';
import { UNMATCHED_ROUTE, type Metrics } from './metrics.ts';
import { allowCors, errorHandler, logRequest, sendRequestId, startRequest, type AppContext, type AppState } from './middleware.ts';

/** What the fast path needs of the Koa application: its contexts and its own request handling. */
export interface KoaInternals {
  readonly proxy: boolean;
  createContext(req: IncomingMessage, res: ServerResponse): AppContext;
  /** Koa's `handleRequest`: runs `chain` on the context, then writes the response as Koa does. */
  handleRequest(ctx: AppContext, chain: (ctx: AppContext) => Promise<void>): Promise<void>;
}

export interface FastPathDeps {
  app: KoaInternals;
  log: Logger;
  metrics?: Metrics | undefined;
  /** The abuse limits; a promise only when a limiter has to be asked (see apisAbuseCheck). */
  checkAbuse?: ((ctx: ApisRequest) => Promise<void> | undefined) | undefined;
  router: Router<AppState>;
  exact: ReadonlyMap<string, ReadonlyMap<string, ExactRoute>>;
  answers: ReadonlyMap<unknown, Answer>;
}

/** Answers the request and returns its promise, or returns undefined for requests it does not take. */
export type FastPath = (req: IncomingMessage, res: ServerResponse) => Promise<void> | undefined;

interface Taken {
  hit: ExactRoute;
  answer: Answer;
  /** What the router's `params` would be for this fixed path (read, never written). */
  params: Readonly<Record<string, string>>;
}

/** What the fast path returns for a request it answered in the same turn. */
const ANSWERED: Promise<void> = Promise.resolve();
const EMPTY_QUERY: ParsedUrlQuery = Object.freeze(querystring.parse(''));
/** Characters for which `parseurl` (Koa's `path` and `querystring`) stops splitting at `?` and parses the URL fully. */
const NOT_SIMPLE_URL = /[\t\n\f\r #\u00a0\ufeff]/;

/** The request's context on the fast path: what the steps read, most of it without Koa. */
class FastRequest implements ApisRequest {
  state!: AppState;
  respond?: boolean;
  #koa: AppContext | undefined;
  #query: ParsedUrlQuery | undefined;
  readonly originalUrl: string;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly path: string,
    readonly params: Record<string, string>,
    readonly querystring: string,
    private readonly app: KoaInternals,
  ) {
    this.originalUrl = req.url as string;
  }

  get method(): string {
    return this.req.method as string;
  }

  get socket(): Socket {
    return this.req.socket;
  }

  get query(): ParsedUrlQuery {
    return (this.#query ??= this.querystring ? querystring.parse(this.querystring) : EMPTY_QUERY);
  }

  get ip(): string {
    return this.app.proxy ? this.koa.ip : this.req.socket.remoteAddress || '';
  }

  get protocol(): string {
    return this.koa.protocol;
  }

  get host(): string {
    return this.koa.host;
  }

  get fresh(): boolean {
    return this.koa.fresh;
  }

  /** Koa's own context of this request, sharing its state. */
  get koa(): AppContext {
    if (!this.#koa) {
      this.#koa = this.app.createContext(this.req, this.res);
      this.#koa.state = this.state;
    }
    return this.#koa;
  }
}

export function apisFastPath(deps: FastPathDeps): FastPath {
  const { app, log, metrics, checkAbuse, router } = deps;
  const taken = new Map<string, Map<string, Taken>>();
  for (const [path, byMethod] of deps.exact) {
    if (!path.startsWith('/v2/apis/')) continue;
    for (const method of ['GET', 'HEAD']) {
      const hit = byMethod.get(method);
      const answer = hit && deps.answers.get(hit.handler);
      if (!hit || !answer) continue;
      let methods = taken.get(path);
      if (!methods) taken.set(path, (methods = new Map()));
      methods.set(method, { hit, answer, params: Object.freeze(hit.layer.params(path, hit.captures, {})) });
    }
  }
  const onError = errorHandler();

  /**
   * Koa writes the rest: the headers so far go on the response, the request is counted when it
   * closes (under its route once routed; the abuse limits refuse before the router runs).
   */
  function handOver(ctx: FastRequest, hit: ExactRoute, routed: boolean, started: number, chain: (ctx: AppContext) => Promise<void>): Promise<void> {
    const koa = ctx.koa;
    if (routed) markRouted(koa, router, hit);
    sendRequestId(ctx);
    allowCors(ctx);
    if (metrics) ctx.res.once('close', () => metrics.count(ctx, routed ? hit.path : UNMATCHED_ROUTE, started));
    return app.handleRequest(koa, chain);
  }

  /**
   * The steps of a request in order. An answer that is ready at once (remembered; see AnswerMemo)
   * with no limiter to ask is written in this turn; everything else continues in answerLater.
   */
  function answerDirectly(ctx: FastRequest, taken: Taken): Promise<void> {
    ctx.res.statusCode = 404; // where Koa's handleRequest starts
    const started = startRequest(ctx, log);
    let limited: Promise<void> | undefined;
    try {
      limited = checkAbuse?.(ctx);
    } catch (err) {
      return answerLater(ctx, taken, started, Promise.reject(err));
    }
    if (limited) return answerLater(ctx, taken, started, limited);
    let out: Rendered | Promise<Rendered>;
    try {
      out = taken.answer(ctx);
      if (out instanceof Promise || !writeBufferedAnswer(ctx, out)) return answerLater(ctx, taken, started, undefined, out);
      metrics?.count(ctx, taken.hit.path, started);
    } catch (err) {
      return answerLater(ctx, taken, started, undefined, Promise.reject(err));
    }
    logRequest(ctx, log, started);
    return ANSWERED;
  }

  /** The rest of answerDirectly: waits for the limits and the answer, or hands the request to Koa. */
  async function answerLater(ctx: FastRequest, { hit, answer }: Taken, started: number, limited: Promise<void> | undefined, answered?: Rendered | Promise<Rendered>): Promise<void> {
    let routed = false;
    try {
      if (limited) await limited;
      routed = true;
      const out = await (answered ?? answer(ctx));
      if (writeBufferedAnswer(ctx, out)) metrics?.count(ctx, hit.path, started);
      else await handOver(ctx, hit, routed, started, (c) => onError(c, async () => applyAnswer(c, out)));
    } catch (err) {
      await handOver(ctx, hit, routed, started, (c) => onError(c, () => Promise.reject(err)));
    } finally {
      logRequest(ctx, log, started);
    }
  }

  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
    const url = req.url as string;
    if (NOT_SIMPLE_URL.test(url)) return undefined;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const found = taken.get(path)?.get(req.method);
    return found ? answerDirectly(new FastRequest(req, res, path, found.params as Record<string, string>, q < 0 ? '' : url.slice(q + 1), app), found) : undefined;
  };
}
