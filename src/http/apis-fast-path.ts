/**
 * GET and HEAD on a fixed /v2/apis path, answered without Koa's middleware chain. It runs the
 * same steps as the chain, through the same functions and in the same order (request id and
 * access log, metrics, CORS, abuse limits, the route's answer), and leaves to Koa itself only
 * what Koa writes: errors (through the same errorHandler), redirects and streams.
 * Profiles of a cached answer showed Koa's chain, delegating getters and response setters
 * costing more than the answer itself; see BENCHMARKS.md.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Router } from '@koa/router';
import { familyOf } from '../gateway/routes/index.ts';
import type { Logger } from '../kernel/log.ts';
import { applyAnswer, writeBufferedAnswer, type Answer } from './apis-router.ts';
import { markRouted, type ExactRoute } from './exact-routes.ts';
import type { Metrics } from './metrics.ts';
import { allowCors, errorHandler, logRequest, startRequest, type AppContext, type AppState } from './middleware.ts';

/** What the fast path needs of the Koa application: its contexts and its own request handling. */
export interface KoaInternals {
  createContext(req: IncomingMessage, res: ServerResponse): AppContext;
  /** Koa's `handleRequest`: runs `chain` on the context, then writes the response as Koa does. */
  handleRequest(ctx: AppContext, chain: (ctx: AppContext) => Promise<void>): Promise<void>;
}

export interface FastPathDeps {
  app: KoaInternals;
  log: Logger;
  metrics?: Metrics | undefined;
  checkAbuse?: ((ctx: AppContext) => Promise<void>) | undefined;
  router: Router<AppState>;
  exact: ReadonlyMap<string, ReadonlyMap<string, ExactRoute>>;
  answers: ReadonlyMap<unknown, Answer>;
}

/** Answers the request and returns its promise, or returns undefined for requests it does not take. */
export type FastPath = (req: IncomingMessage, res: ServerResponse) => Promise<void> | undefined;

interface Taken {
  hit: ExactRoute;
  answer: Answer;
}

export function apisFastPath(deps: FastPathDeps): FastPath {
  const { app, log, metrics, checkAbuse, router } = deps;
  const taken = new Map<string, Map<string, Taken>>();
  for (const [path, byMethod] of deps.exact) {
    // Paths the gateway middleware (ahead of the chain) would answer stay with the chain.
    if (!path.startsWith('/v2/apis/') || familyOf(path)) continue;
    for (const method of ['GET', 'HEAD']) {
      const hit = byMethod.get(method);
      const answer = hit && deps.answers.get(hit.handler);
      if (!hit || !answer) continue;
      let methods = taken.get(path);
      if (!methods) taken.set(path, (methods = new Map()));
      methods.set(method, { hit, answer });
    }
  }
  const onError = errorHandler();

  async function answerDirectly(ctx: AppContext, { hit, answer }: Taken): Promise<void> {
    ctx.res.statusCode = 404; // where Koa's handleRequest starts
    const started = startRequest(ctx, log);
    metrics?.track(ctx);
    allowCors(ctx);
    try {
      if (checkAbuse) await checkAbuse(ctx);
      markRouted(ctx, router, hit);
      const out = await answer(ctx as Parameters<Answer>[0]);
      if (!writeBufferedAnswer(ctx, out)) await app.handleRequest(ctx, (c) => onError(c, async () => applyAnswer(c, out)));
    } catch (err) {
      await app.handleRequest(ctx, (c) => onError(c, () => Promise.reject(err)));
    } finally {
      logRequest(ctx, log, started);
    }
  }

  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
    const ctx = app.createContext(req, res);
    const found = taken.get(ctx.path)?.get(req.method);
    return found ? answerDirectly(ctx, found) : undefined;
  };
}
