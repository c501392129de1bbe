/**
 * Assembles the service from configuration: database, store, engine, scheduler, app. Used by
 * main.ts and by the tests, so both run the same wiring.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { DestinationStream } from 'pino';
import { sources } from '../sources/index.ts';
import { createApp } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { openDatabase, type Db } from './kernel/db.ts';
import { Engine } from './kernel/engine.ts';
import { createHttpBase, type HttpSettings } from './kernel/http.ts';
import { createLogger, type Logger } from './kernel/log.ts';
import { createRegistry, sourceSettings, type Registry } from './kernel/registry.ts';
import { startScheduler, type Scheduler } from './kernel/scheduler.ts';
import type { AnySource } from './kernel/source.ts';
import { SqliteStore } from './kernel/sqlite-store.ts';
import type { Store } from './kernel/store.ts';
import type { AppState } from './http/middleware.ts';

export interface Service {
  config: Config;
  registry: Registry;
  db: Db;
  store: Store;
  engine: Engine;
  log: Logger;
  scheduler: Scheduler | undefined;
  app: Koa<AppState>;
  server: http.Server;
  /** Start listening; resolves with the bound port. */
  listen(port?: number, host?: string): Promise<number>;
  /** Stop the scheduler, finish in-flight requests, close the database. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  env?: Record<string, string | undefined>;
  sources?: readonly AnySource[];
  now?: () => number;
  random?: () => number;
  logDestination?: DestinationStream;
}

export function createService(opts: ServiceOptions = {}): Service {
  const registry = createRegistry(opts.sources ?? sources);
  const config = loadConfig(opts.env ?? process.env, sourceSettings(registry));
  const log = createLogger(config.logLevel, opts.logDestination);
  const db = openDatabase(config.dbPath);
  const store = new SqliteStore(db);
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
  });
  const scheduler = config.schedulerEnabled
    ? startScheduler({
        engine,
        registry,
        store,
        log,
        jitterMs: config.schedulerJitterMs,
        warmupSpreadMs: config.warmupSpreadMs,
        historyRetentionDays: config.historyRetentionDays,
      })
    : undefined;
  const app = createApp({ config, registry, engine, store, log, ...(scheduler ? { scheduler } : {}) });
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65_000;

  let closed = false;
  return {
    config,
    registry,
    db,
    store,
    engine,
    log,
    scheduler,
    app,
    server,
    listen(port = config.port, host = config.host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      await scheduler?.stop();
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
      await store.close();
    },
  };
}
