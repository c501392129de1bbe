/**
 * Assembles the service from configuration: database, store, engine, scheduler, app. Used by
 * main.ts and by the tests, so both run the same wiring.
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { Redis } from 'ioredis';
import type { DestinationStream } from 'pino';
import { sources } from '../sources/index.ts';
import { createApp } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { Backfiller } from './kernel/backfill.ts';
import { deploymentSettings, openBackends, openLocalBackends, type Backends } from './kernel/backends.ts';
import type { Db } from './kernel/db.ts';
import { Engine } from './kernel/engine.ts';
import type { ItemIndex } from './kernel/item-index.ts';
import { createListAccess } from './kernel/list-access.ts';
import { PgItemIndex } from './kernel/pg-item-index.ts';
import { SqliteItemIndex } from './kernel/sqlite-item-index.ts';
import { createHttpBase, type HttpSettings } from './kernel/http.ts';
import { createLogger, type Logger } from './kernel/log.ts';
import { createRegistry, sourceSettings, type Registry } from './kernel/registry.ts';
import type { JobLock } from './kernel/job-lock.ts';
import { decisionLimiters, type CreateLimiter } from './kernel/limiter.ts';
import type { Pool } from './kernel/pg-store.ts';
import { parseScheduleOverrides, startScheduler, type Scheduler } from './kernel/scheduler.ts';
import type { AnySource } from './kernel/source.ts';
import type { Store } from './kernel/store.ts';
import { guardStore } from './kernel/store-guard.ts';
import type { AppState } from './http/middleware.ts';
import type { LimiterFactory } from './http/abuse.ts';
import { createBoundedServer } from './http/connection-bounds.ts';
import { createMetrics } from './http/metrics.ts';
import { opsFromConfig } from './http/ops.ts';
import { upstreamMetrics } from './http/upstream-metrics.ts';
import { createGateway, type Gateway } from './gateway/index.ts';
import { gatewaySettings } from './gateway/settings.ts';
import { openPgGatewayStore, openSqliteGatewayStore, type GatewayStore } from './gateway/store.ts';

/** How long after the port opens the scheduler sets up its cron tasks and boot work. */
const SCHEDULER_START_DELAY_MS = 1_000;

export interface Service {
  config: Config;
  registry: Registry;
  db: Db;
  store: Store;
  /** Items of the scheduled lists over time (timelines), beside the store. */
  itemIndex: ItemIndex;
  engine: Engine;
  /** Fills missing past days of daily sources (passes run by the scheduler, or `runPass()`). */
  backfill: Backfiller;
  log: Logger;
  scheduler: Scheduler | undefined;
  app: Koa<AppState>;
  /** The `/v1` and `/v1beta` AI gateway (its key store and usage log included). */
  gateway: Gateway;
  server: http.Server;
  /** INSTANCE_ID (default `<hostname>-<pid>`). */
  instanceId: string;
  /** Per-job lock shared by the instances (a no-op lock without PostgreSQL or Redis). */
  jobLock: JobLock;
  /** Rate limiters on the deployment's shared engine (Redis, else PostgreSQL), else local: see kernel/limiter.ts. */
  createLimiter: CreateLimiter;
  /** The PostgreSQL pool (DATABASE_URL) and Redis client (REDIS_URL), when configured. */
  pg: Pool | undefined;
  redis: Redis | undefined;
  /** Start listening; resolves with the bound port. */
  listen(port?: number, host?: string): Promise<number>;
  /** Stop the scheduler, finish in-flight requests, close the database. */
  close(): Promise<void>;
}

/** Connections waiting to be accepted (see listen()). */
const LISTEN_BACKLOG = 4096;

export interface ServiceOptions {
  env?: Record<string, string | undefined>;
  sources?: readonly AnySource[];
  now?: () => number;
  random?: () => number;
  logDestination?: DestinationStream;
  /** Limiters of the /v2/apis abuse limits (default: in memory). */
  limiters?: LimiterFactory;
  /** Pause between two backfill requests (default 500 ms; tests use 0). */
  backfillPauseMs?: number;
}

/**
 * The service on SQLite, synchronously. With DATABASE_URL or REDIS_URL set it throws a
 * ConfigError: use `createServiceAsync` (main.ts does), which connects and migrates them first.
 */
export function createService(opts: ServiceOptions = {}): Service {
  const { registry, config, log, overrides } = prepare(opts);
  const backends = openLocalBackends(config, deploymentSettings(config));
  return assemble(opts, registry, config, log, overrides, backends, openSqliteGatewayStore(backends.db, gatewaySettings(config).keyPepper, opts.now), new SqliteItemIndex(backends.db));
}

/** The service on any backend: SQLite by default, PostgreSQL / Redis when configured. */
export async function createServiceAsync(opts: ServiceOptions = {}): Promise<Service> {
  const { registry, config, log, overrides } = prepare(opts);
  const backends = await openBackends(config, deploymentSettings(config), log);
  try {
    const keyPepper = gatewaySettings(config).keyPepper;
    const gatewayStore = backends.pg ? await openPgGatewayStore(backends.pg, keyPepper, opts.now) : openSqliteGatewayStore(backends.db, keyPepper, opts.now);
    const itemIndex = backends.pg ? await PgItemIndex.open(backends.pg) : new SqliteItemIndex(backends.db);
    return assemble(opts, registry, config, log, overrides, backends, gatewayStore, itemIndex);
  } catch (err) {
    await backends.close();
    throw err;
  }
}

function prepare(opts: ServiceOptions) {
  const registry = createRegistry(opts.sources ?? sources);
  const config = loadConfig(opts.env ?? process.env, sourceSettings(registry));
  const scheduledIds = registry.sources.filter((s) => s.mode === 'scheduled' || (s.mode === 'local' && s.feed)).map((s) => s.id);
  const overrides = parseScheduleOverrides(typeof config.values.SCHEDULER_OVERRIDES === 'string' ? config.values.SCHEDULER_OVERRIDES : undefined, scheduledIds);
  const log = createLogger(config.logLevel, opts.logDestination);
  return { registry, config, log, overrides };
}

function assemble(
  opts: ServiceOptions,
  registry: Registry,
  config: Config,
  log: Logger,
  overrides: ReadonlyMap<string, string>,
  backends: Backends,
  gatewayStore: GatewayStore,
  itemIndex: ItemIndex,
): Service {
  const { db } = backends;
  // SQLite reads are synchronous: a deadline could not cut them short.
  const store = backends.pg ? guardStore(backends.store, 'PostgreSQL', config.values.STORE_READ_TIMEOUT_MS as number) : guardStore(backends.store, 'SQLite');
  const metrics = config.values.METRICS_ENABLED === false ? undefined : createMetrics();
  const httpSettings: HttpSettings = {
    userAgent: config.httpUserAgent,
    timeoutMs: config.httpTimeoutMs,
    retry: config.httpRetry,
    maxBytes: config.httpMaxBytes,
    mirror: config.upstreamMirror,
  };
  const engine = new Engine({
    store,
    log,
    httpBase: createHttpBase(httpSettings),
    httpSettings,
    env: config.env,
    concurrency: config.schedulerConcurrency,
    forceUpdateIntervalSec: config.forceUpdateIntervalSec,
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.random ? { random: opts.random } : {}),
    ...(metrics ? { onRun: metrics.onRun } : {}),
    itemIndex,
    lists: createListAccess({ registry, store, itemIndex, now: opts.now ?? Date.now }),
  });
  const backfill = new Backfiller({
    engine,
    registry,
    store,
    log,
    ...(opts.random ? { random: opts.random } : {}),
    ...(opts.backfillPauseMs !== undefined ? { pauseMs: opts.backfillPauseMs } : {}),
    lock: async (job, fn) => {
      await backends.jobLock.run(job, fn).catch((err: unknown) => log.warn({ job, err: (err as Error).message }, 'backfill pass skipped'));
    },
  });
  const scheduler = config.schedulerEnabled
    ? startScheduler({
        backfill,
        engine,
        registry,
        store,
        log,
        jitterMs: config.schedulerJitterMs,
        warmupSpreadMs: config.warmupSpreadMs,
        historyRetentionDays: config.historyRetentionDays,
        itemIndex,
        jobLock: backends.jobLock,
        scheduleOverrides: overrides,
        deferStart: true,
      })
    : undefined;
  const upstreamObserver = metrics ? upstreamMetrics(metrics.registry, config.aiUpstreams.map((u) => u.name), () => gateway.upstreams()) : undefined;
  const gateway = createGateway({ config, store: gatewayStore, createLimiter: backends.createLimiter, log, onUsage: metrics?.gatewayUsage, onUpstreamAttempt: upstreamObserver?.observe });
  const ops = opsFromConfig({ config, gateway, metrics, limiters: opts.limiters ?? decisionLimiters(backends.createLimiter), ...(opts.now ? { now: opts.now } : {}) });
  const app = createApp({ config, registry, engine, store, log, backfill, gateway, ops, ...(scheduler ? { scheduler } : {}) });
  const server = createBoundedServer(app.callback(), config.values.SERVER_HEADERS_TIMEOUT_MS as number);
  server.keepAliveTimeout = 65_000;

  let closed = false;
  return {
    config,
    registry,
    db,
    store,
    itemIndex,
    engine,
    backfill,
    log,
    scheduler,
    app,
    gateway,
    server,
    instanceId: backends.instanceId,
    jobLock: backends.jobLock,
    createLimiter: backends.createLimiter,
    pg: backends.pg,
    redis: backends.redis,
    listen(port = config.port, host = config.host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        // Node's default accept queue (511) overflows when a burst of clients connects at once (1,000
        // streams opening together waited 1-3 s for SYN retries); the kernel caps it at somaxconn.
        server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
          // The cron set-up and boot work (~35 ms of CPU) wait until the first requests of a start are answered.
          if (scheduler) setTimeout(() => scheduler.start(), SCHEDULER_START_DELAY_MS).unref();
          resolve((server.address() as AddressInfo).port);
        });
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      await scheduler?.stop();
      backfill.stop();
      await new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        // Keep-alive connections that finish their request after close() must be closed too.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        const deadline = setTimeout(() => server.closeAllConnections(), 10_000);
        server.close(() => {
          clearInterval(sweep);
          clearTimeout(deadline);
          resolve();
        });
        server.closeIdleConnections();
      });
      engine.stop();
      await gateway.close();
      await backends.close();
    },
  };
}
