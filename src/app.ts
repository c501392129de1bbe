/** Builds the Koa application from its parts; never listens (tests and main.ts do). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import Koa from 'koa';
import type { Config } from './config.ts';
import type { Backfiller } from './kernel/backfill.ts';
import type { Engine } from './kernel/engine.ts';
import { AppError } from './kernel/errors.ts';
import type { Logger } from './kernel/log.ts';
import type { Registry } from './kernel/registry.ts';
import type { Scheduler } from './kernel/scheduler.ts';
import type { Store } from './kernel/store.ts';
import { createApisRouter } from './http/apis-router.ts';
import { createMetaRouter } from './http/meta-router.ts';
import { createDailyHotRouter } from './http/dailyhot.ts';
import { cors, errorHandler, requestLog, type AppState } from './http/middleware.ts';
import { apisAbuseCheck, limitApisRequests } from './http/abuse.ts';
import { apisFastPath, type FastPath, type KoaInternals } from './http/apis-fast-path.ts';
import { gatewayEntry } from './http/gateway-entry.ts';
import type { Gateway } from './gateway/index.ts';
import { exactPathIndex, routesWithExactPaths } from './http/exact-routes.ts';
import { methodNotAllowed } from './http/method-not-allowed.ts';
import { opsRouters, type OpsDeps } from './http/ops.ts';
import { operatorCheck } from './http/operator-view.ts';
import { createAliasResolver, rewriteAlias, type AliasResolver } from './http/sixty-aliases.ts';
import { createHomeRouter } from './web/home.ts';
import { setSiteNotice } from './web/shell.ts';
import { Snapshots } from './web/snapshots.ts';

export interface AppDeps {
  config: Config;
  registry: Registry;
  engine: Engine;
  store: Store;
  log: Logger;
  scheduler?: Scheduler;
  /** Backfill progress and gaps for /v2/status. */
  backfill?: Backfiller;
  /**
   * The `/v1` and `/v1beta` gateway (and its answers for unversioned API paths), which takes its
   * requests ahead of Koa (see http/gateway-entry.ts).
   */
  gateway?: Pick<Gateway, 'owns' | 'handle'>;
  startedAt?: number;
  /** Metrics, /v2/apis abuse limits and the key console (see src/http/ops.ts). */
  ops?: OpsDeps;
}

/**
 * Koa with the gateway's requests and the /v2/apis fast path ahead of its middleware chain (see
 * http/gateway-entry.ts and http/apis-fast-path.ts), and 60s's paths rewritten to our routes
 * ahead of the fast path (see http/sixty-aliases.ts).
 */
class ServiceApp extends Koa<AppState> {
  gatewayPath: FastPath | undefined;
  fastPath: FastPath | undefined;
  aliases: AliasResolver | undefined;

  override callback(): ReturnType<Koa<AppState>['callback']> {
    const handle = super.callback();
    const gateway = this.gatewayPath;
    const fast = this.fastPath;
    const aliases = this.aliases;
    // Our own paths, which no alias hides, go to the fast path before the aliases are looked up.
    return (req, res) => {
      const answered = gateway?.(req as IncomingMessage, res as ServerResponse) ?? fast?.(req as IncomingMessage, res as ServerResponse);
      if (answered) return answered;
      if (aliases && rewriteAlias(req as IncomingMessage, aliases)) return fast?.(req as IncomingMessage, res as ServerResponse) ?? handle(req, res);
      return handle(req, res);
    };
  }
}

export function createApp(deps: AppDeps): Koa<AppState> {
  const app = new ServiceApp({ proxy: deps.config.trustProxy });
  const notice = deps.config.values.SITE_NOTICE;
  setSiteNotice(typeof notice === 'string' ? notice : undefined);
  app.aliases = createAliasResolver(deps.registry);
  app.silent = true;
  app.use(requestLog(deps.log));
  if (deps.ops?.metrics) app.use(deps.ops.metrics.requestMiddleware());
  if (deps.gateway) app.gatewayPath = gatewayEntry({ gateway: deps.gateway, log: deps.log, metrics: deps.ops?.metrics, ipOf: (req, res) => (app.proxy ? app.createContext(req, res).ip : req.socket.remoteAddress || '') });
  app.use(errorHandler());
  app.use(cors());
  const checkAbuse = deps.ops?.abuse ? apisAbuseCheck({ ...deps.ops.abuse, metrics: deps.ops.metrics }) : undefined;
  if (checkAbuse) app.use(limitApisRequests(checkAbuse));
  // On the engine's clock, as every time the pages show (a demo's clock runs on another day).
  const startedAt = deps.startedAt ?? deps.engine.now();
  const apis = createApisRouter(deps);
  const operator = deps.ops?.operator ?? operatorCheck({});
  const meta = createMetaRouter({ ...deps, now: deps.engine.now, startedAt, upstreams: deps.ops?.upstreams, operator });
  const exact = exactPathIndex(apis.router);
  app.use(routesWithExactPaths(apis.router, exact));
  app.fastPath = apisFastPath({ app: app as unknown as KoaInternals, log: deps.log, metrics: deps.ops?.metrics, checkAbuse, router: apis.router, exact, answers: apis.answers });
  app.use(methodNotAllowed());
  app.use(createHomeRouter({ registry: deps.registry, engine: deps.engine, snapshots: new Snapshots({ engine: deps.engine, archive: deps.store.archive }) }).routes());
  app.use(meta.routes());
  app.use(createDailyHotRouter(deps).routes());
  for (const router of opsRouters({ ...deps.ops, operator, registry: deps.registry, store: deps.store, scheduler: deps.scheduler, backfill: deps.backfill, now: deps.engine.now, startedAt })) app.use(router.routes());
  app.use(async function notFoundFallback(ctx) {
    if (ctx.body !== undefined || ctx.status !== 404) return;
    throw new AppError(404, `No endpoint at ${ctx.path}. GET /v2/apis lists every endpoint with its parameters (paths need the version prefix, e.g. /v2/apis/60s).`);
  });
  return app;
}
