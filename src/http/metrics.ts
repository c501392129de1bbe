/**
 * Prometheus metrics (prom-client), one registry per service: HTTP requests by route, status and
 * encoding with latency histograms, /v2/apis cache results, fetch runs per source (fed by the
 * engine's `onRun` hook), gateway tokens and limit rejections (from each usage row this
 * instance's gateway writes), /v2/apis abuse rejections, and the
 * default process metrics (event-loop delay included). Served at GET /metrics.
 */
import { performance } from 'node:perf_hooks';
import { Router } from '@koa/router';
import type Koa from 'koa';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RunEvent } from '../kernel/engine.ts';
import type { UsageRow } from '../gateway/usage.ts';
import { gatewayRouteTemplate } from './openapi.ts';
import { publicMetricsText, type OperatorCheck } from './operator-view.ts';
import { cacheHeaderOf, type AppContext, type AppState, type ServedRequest } from './middleware.ts';
import { BatchedHistogram } from './batched-histogram.ts';
import { CounterTally } from './counter-tally.ts';
import { RequestTally, type CacheResult } from './request-tally.ts';

export type ApisRejection = 'rate' | 'force_update' | 'deny' | 'key';

export interface GatewayCounts {
  requests: number;
  errors: number;
}

export interface Metrics {
  registry: Registry;
  /** The engine's `onRun` observer. */
  onRun(event: RunEvent): void;
  apisRejected(reason: ApisRejection): void;
  /** The gateway's `onUsage` observer: tokens and 429s of each settled request. */
  gatewayUsage(row: UsageRow): void;
  /** Requests to /v1 and /v1beta since start, and how many of them answered 4xx/5xx. */
  gatewayCounts(): Promise<GatewayCounts>;
  /** Count this request when its response ends (streamed answers are timed to their last byte). */
  track(ctx: AppContext): void;
  /**
   * Count a request now, under a route label known to the caller: for answers handed whole to the
   * socket (the /v2/apis fast path), which need no `close` listener to know they are done.
   */
  count(ctx: ServedRequest, route: string, started: number): void;
  /** Middleware that tracks every request Koa serves (the gateway's are counted by http/gateway-entry.ts). */
  requestMiddleware(): (ctx: AppContext, next: Koa.Next) => Promise<void>;
}

/** apis_cache_total's result label of each X-Cache value counted. */
const CACHE_RESULTS: ReadonlyMap<string, CacheResult> = new Map([
  ['HIT', 'hit'],
  ['STALE', 'stale'],
  ['MISS', 'miss'],
  ['HISTORY', 'history'],
]);

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const FETCH_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60];

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });

  const requests: Counter<'family' | 'route' | 'method' | 'status' | 'encoding'> = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by family (apis, gateway, service), route template, method, status and encoding.',
    labelNames: ['family', 'route', 'method', 'status', 'encoding'] as const,
    registers: [registry],
    collect: (): void => tally.flush(),
  });
  const latency = new BatchedHistogram<'family' | 'route' | 'method'>({
    name: 'http_request_duration_seconds',
    help: 'Time from the request to the end of the response (streams included), by family and route template.',
    labelNames: ['family', 'route', 'method'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
    collect: (): void => tally.flush(),
  });
  const cache: Counter<'route' | 'result'> = new Counter({
    name: 'apis_cache_total',
    help: '/v2/apis answers from cached data by route and X-Cache result (hit, stale, miss, history).',
    labelNames: ['route', 'result'] as const,
    registers: [registry],
    collect: (): void => tally.flush(),
  });
  const fetches = new Counter({
    name: 'source_fetch_total',
    help: 'Upstream fetch runs per source and outcome (ok, unchanged, failed) and failure kind.',
    labelNames: ['source', 'outcome', 'kind'] as const,
    registers: [registry],
  });
  const fetchDuration = new Histogram({
    name: 'source_fetch_duration_seconds',
    help: 'Duration of upstream fetch runs per source and outcome.',
    labelNames: ['source', 'outcome'] as const,
    buckets: FETCH_BUCKETS,
    registers: [registry],
  });
  // Counted on every gateway request: gathered in tallies, handed to prom-client when read.
  const tokensTally = new CounterTally<'model' | 'kind'>();
  const keySpendTally = new CounterTally<'key_id'>();
  const keyTokensTally = new CounterTally<'key_id' | 'kind'>();
  new Counter({
    name: 'gateway_tokens_total',
    help: 'Tokens charged by the AI gateway since start, by model and kind (prompt, completion).',
    labelNames: ['model', 'kind'] as const,
    registers: [registry],
    collect() {
      tokensTally.flushTo(this);
    },
  });
  const gatewayLimits: Counter<'code'> = new Counter({
    name: 'gateway_limit_rejections_total',
    help: 'AI gateway requests refused with 429 since start, by error code (rate_limit_exceeded = RPM/RPD/TPM, insufficient_quota).',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  for (const code of ['rate_limit_exceeded', 'insufficient_quota']) gatewayLimits.inc({ code }, 0);
  // Per key, for billing: label values are our own key ids (key_<hex>), never caller input.
  new Counter({
    name: 'gateway_key_spend_usd_total',
    help: 'US dollars charged per gateway key since start, by the price table.',
    labelNames: ['key_id'] as const,
    registers: [registry],
    collect() {
      keySpendTally.flushTo(this);
    },
  });
  new Counter({
    name: 'gateway_key_tokens_total',
    help: 'Tokens charged per gateway key since start, by kind (prompt, completion).',
    labelNames: ['key_id', 'kind'] as const,
    registers: [registry],
    collect() {
      keyTokensTally.flushTo(this);
    },
  });
  const modelLabel = (m: string | null) => (!m ? 'unknown' : m.length > 64 ? `${m.slice(0, 64)}…` : m);
  const apisLimits = new Counter({
    name: 'apis_rejections_total',
    help: '/v2/apis requests refused by the abuse limits (rate, force_update, deny, key).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  for (const reason of ['rate', 'force_update', 'deny', 'key'] as const) apisLimits.inc({ reason }, 0);

  const tally: RequestTally = new RequestTally({ requests, latency, cache });
  function count(ctx: ServedRequest, route: string, started: number, family = requestFamily(ctx.path)): void {
    const xCache = family === 'apis' ? cacheHeaderOf(ctx) : undefined;
    tally.add({
      family,
      route,
      method: ctx.method,
      status: ctx.res.statusCode,
      encoding: ctx.state.encoding ?? '',
      seconds: (performance.now() - started) / 1000,
      cache: xCache === undefined ? undefined : CACHE_RESULTS.get(xCache),
    });
  }
  function track(ctx: AppContext): void {
    const started = performance.now();
    ctx.res.on('close', () => {
      const family = requestFamily(ctx.path);
      count(ctx, routeLabel(ctx, family), started, family);
    });
  }

  return {
    registry,
    onRun(e) {
      fetches.inc({ source: e.sourceId, outcome: e.outcome, kind: e.kind ?? '' });
      fetchDuration.observe({ source: e.sourceId, outcome: e.outcome }, e.ms / 1000);
    },
    apisRejected(reason) {
      apisLimits.inc({ reason });
    },
    gatewayUsage(row) {
      const model = row.model ?? '';
      if (row.promptTokens > 0) tokensTally.add(`${model}\np`, () => ({ model: modelLabel(row.model), kind: 'prompt' }), row.promptTokens);
      if (row.completionTokens > 0) tokensTally.add(`${model}\nc`, () => ({ model: modelLabel(row.model), kind: 'completion' }), row.completionTokens);
      if (row.status === 429) gatewayLimits.inc({ code: row.errorCode ?? 'unknown' });
      if (row.costMicros > 0) keySpendTally.add(row.keyId, () => ({ key_id: row.keyId }), row.costMicros / 1_000_000);
      if (row.promptTokens > 0) keyTokensTally.add(`${row.keyId}\np`, () => ({ key_id: row.keyId, kind: 'prompt' }), row.promptTokens);
      if (row.completionTokens > 0) keyTokensTally.add(`${row.keyId}\nc`, () => ({ key_id: row.keyId, kind: 'completion' }), row.completionTokens);
    },
    async gatewayCounts() {
      const all = (await requests.get()).values.filter((v) => v.labels.family === 'gateway');
      return {
        requests: all.reduce((n, v) => n + v.value, 0),
        errors: all.filter((v) => Number(v.labels.status) >= 400).reduce((n, v) => n + v.value, 0),
      };
    },
    track,
    count: (ctx, route, started) => count(ctx, route, started),
    requestMiddleware() {
      return function requestMetrics(ctx: AppContext, next: Koa.Next): Promise<void> {
        track(ctx);
        return next();
      };
    },
  };
}

export function requestFamily(path: string): 'apis' | 'gateway' | 'service' {
  if (path === '/v2/apis' || path.startsWith('/v2/apis/')) return 'apis';
  if (/^\/v1(beta)?(\/|$)/.test(path)) return 'gateway';
  return 'service';
}

/** A bounded route label: the router's template, a known gateway route, or a catch-all. */
function routeLabel(ctx: AppContext, family: string): string {
  const matched = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
  if (typeof matched === 'string') return matched;
  if (family === 'gateway') return gatewayRouteLabel(ctx.path);
  return UNMATCHED_ROUTE;
}

/** The route label of a gateway request: its route's template, or `other` (the label stays bounded). */
export function gatewayRouteLabel(path: string): string {
  return gatewayRouteTemplate(path) ?? 'other';
}

/** The route label of a request no router matched (or refused before routing). */
export const UNMATCHED_ROUTE = 'unmatched';

/** `/metrics`; the operator series (per key, per upstream) only for an operator (see operator-view.ts). */
export function createMetricsRouter(metrics: Metrics, operator: OperatorCheck): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/metrics', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.type = metrics.registry.contentType;
    const text = await metrics.registry.metrics();
    ctx.body = operator(ctx) ? text : publicMetricsText(text);
  });
  return router;
}
