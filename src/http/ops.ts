/**
 * The operator-facing parts (issue #7) assembled from configuration: metrics, the abuse limits
 * of /v2/apis, the key console, and their routers (docs, status page, metrics, console).
 */
import type { Router } from '@koa/router';
import type { Config } from '../config.ts';
import type { KeyStore } from '../gateway/keys.ts';
import type { Levels } from '../gateway/levels.ts';
import type { ProbeResult, UpstreamStatus } from '../gateway/upstream-pool.ts';
import type { UsageLog } from '../gateway/usage.ts';
import type { Registry } from '../kernel/registry.ts';
import type { Backfiller } from '../kernel/backfill.ts';
import type { Scheduler } from '../kernel/scheduler.ts';
import type { Store } from '../kernel/store.ts';
import { abuseSettings, keyVerifier, type AbuseSettings, type KeyVerifier, type LimiterFactory } from './abuse.ts';
import { createConsoleOffRouter, createConsoleRouter, type ConsoleDeps } from '../web/console.ts';
import { createDocsRouter } from '../web/docs.ts';
import { createMetricsRouter, type Metrics } from './metrics.ts';
import type { AppState } from './middleware.ts';
import { operatorCheck, type OperatorCheck } from './operator-view.ts';
import { createStatusPageRouter } from '../web/status-page.ts';

export interface OpsDeps {
  /** Prometheus metrics; undefined when METRICS_ENABLED=false. */
  metrics?: Metrics | undefined;
  /** Abuse limits of /v2/apis. */
  abuse?: { settings: AbuseSettings; limiters?: LimiterFactory | undefined; verifyKey?: KeyVerifier | undefined } | undefined;
  /** The key console; undefined = off (404). */
  console?: ConsoleDeps | undefined;
  /** The gateway's upstreams for /v2/status and /status. */
  upstreams?: (() => UpstreamStatus[]) | undefined;
  /** Who sees operator detail on /metrics, /v2/status and /status (loopback only when absent). */
  operator?: OperatorCheck | undefined;
}

/** Read the operations settings; `gateway` gives the key store shared with /v1 and `npm run keys`. */
export function opsFromConfig(opts: { config: Config; gateway?: { keys: KeyStore; levels: Levels; usage?: Pick<UsageLog, 'tokensByKey'>; upstreams?: () => UpstreamStatus[]; probeUpstreams?: (name?: string) => Promise<ProbeResult[]> } | undefined; metrics?: Metrics | undefined; limiters?: LimiterFactory | undefined; now?: () => number }): OpsDeps {
  const { config, gateway } = opts;
  const token = config.values.CONSOLE_ADMIN_TOKEN;
  return {
    metrics: opts.metrics,
    abuse: {
      settings: abuseSettings(config),
      limiters: opts.limiters,
      verifyKey: gateway ? keyVerifier(gateway.keys, opts.now) : undefined,
    },
    upstreams: gateway?.upstreams,
    operator: operatorCheck({
      metricsToken: typeof config.values.METRICS_TOKEN === 'string' ? config.values.METRICS_TOKEN : undefined,
      consoleToken: typeof token === 'string' ? token : undefined,
    }),
    console:
      typeof token === 'string' && token && gateway
        ? {
            adminToken: token,
            keys: gateway.keys,
            levels: gateway.levels,
            usage: gateway.usage ?? null,
            ...(opts.now ? { now: opts.now } : {}),
            upstreams: gateway.upstreams && gateway.probeUpstreams ? { status: gateway.upstreams, probe: gateway.probeUpstreams } : null,
          }
        : undefined,
  };
}

/** The routers of the operations pages, in mounting order. */
export function opsRouters(input: OpsDeps & { registry: Registry; store: Store; scheduler?: Scheduler | undefined; backfill?: Backfiller | undefined; now: () => number; startedAt: number }): Router<AppState>[] {
  const deps = { ...input, operator: input.operator ?? operatorCheck({}) };
  return [
    createDocsRouter({ registry: deps.registry }),
    createStatusPageRouter(deps),
    ...(deps.metrics ? [createMetricsRouter(deps.metrics, deps.operator)] : []),
    deps.console ? createConsoleRouter(deps.console) : createConsoleOffRouter(),
  ];
}
