/** Service routes outside the catalogue: `/`, `/healthz` (readiness), `/livez` (liveness), `/health` and `/endpoints` (60s's root routes), `/v2/status`. */
import { Router } from '@koa/router';
import type { UpstreamStatus } from '../gateway/upstream-pool.ts';
import type { Backfiller, BackfillStatus } from '../kernel/backfill.ts';
import type { Registry } from '../kernel/registry.ts';
import type { Scheduler } from '../kernel/scheduler.ts';
import type { Store } from '../kernel/store.ts';
import { STORE_RETRY_AFTER_SEC, StoreUnavailableError } from '../kernel/errors.ts';
import { formatDateTime } from '../kernel/time.ts';
import { SERVICE_NAME } from './apis-router.ts';
import { SIXTY_ALIASES, SIXTY_PREFIX } from './sixty-aliases.ts';
import type { AppState } from './middleware.ts';
import { upstreamsFor, type OperatorCheck } from './operator-view.ts';

export interface SourceStatus {
  id: string;
  name: string;
  mode: string;
  /** fresh, stale, failing (has data, last refresh failed), down (no data, failing), idle (never fetched), local */
  state: 'fresh' | 'stale' | 'failing' | 'down' | 'idle' | 'local';
  keys: number;
  last_success: string | null;
  last_success_at: number | null;
  age_sec: number | null;
  last_error: string | null;
  fail_count: number;
  next_run: string | null;
  next_run_at: number | null;
  next_attempt_at: number | null;
  /** Sources that backfill past days: progress and gaps (null for the others). */
  backfill: BackfillStatus | null;
}

export async function sourceStatuses(deps: { registry: Registry; store: Store; scheduler?: Scheduler | undefined; backfill?: Backfiller | undefined; now: number }): Promise<SourceStatus[]> {
  const all = await deps.store.listSnapshots();
  const backfill = (await deps.backfill?.status()) ?? new Map<string, BackfillStatus>();
  const nextRuns = deps.scheduler?.nextRuns() ?? new Map<string, number | null>();
  return deps.registry.sources.map((s) => {
    const snaps = all.filter((x) => x.sourceId === s.id);
    const newest = snaps.reduce<(typeof snaps)[number] | undefined>((a, b) => ((b.fetchedAt ?? 0) > (a?.fetchedAt ?? 0) ? b : a), undefined);
    const worst = snaps.reduce((n, x) => Math.max(n, x.failCount), 0);
    const lastError = snaps.filter((x) => x.failCount > 0).sort((a, b) => b.checkedAt - a.checkedAt)[0]?.lastError ?? null;
    let state: SourceStatus['state'];
    if (s.mode === 'local') state = 'local';
    else if (!newest?.fetchedAt) state = worst > 0 ? 'down' : 'idle';
    else if (worst > 0) state = 'failing';
    else state = snaps.every((x) => !x.payload || (x.expiresAt ?? 0) > deps.now) ? 'fresh' : 'stale';
    const nextRun = nextRuns.get(s.id) ?? null;
    const nextAttempt = snaps.reduce<number | null>((m, x) => (x.nextAttemptAt && (!m || x.nextAttemptAt < m) ? x.nextAttemptAt : m), null);
    return {
      id: s.id,
      name: s.name,
      mode: s.mode,
      state,
      keys: snaps.length,
      last_success: newest?.fetchedAt ? formatDateTime(newest.fetchedAt) : null,
      last_success_at: newest?.fetchedAt ?? null,
      age_sec: newest?.fetchedAt ? Math.round((deps.now - newest.fetchedAt) / 1000) : null,
      last_error: lastError,
      fail_count: worst,
      next_run: nextRun ? formatDateTime(nextRun) : null,
      next_run_at: nextRun,
      next_attempt_at: nextAttempt,
      backfill: backfill.get(s.id) ?? null,
    };
  });
}

/** How long the readiness probe waits for the store. */
const STORE_PROBE_MS = 2_000;

/** Why the store does not answer a read now, or undefined when it does. */
async function storeProblem(store: Store): Promise<string | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the data store did not answer within ${STORE_PROBE_MS} ms`), STORE_PROBE_MS);
  });
  try {
    return await Promise.race([
      store.getSnapshot('', '').then(
        () => undefined,
        (err: unknown) => (err instanceof StoreUnavailableError ? `the data store (${err.storeName}) is unreachable` : 'the data store failed a read'),
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function statusOutageNote(err: StoreUnavailableError): string {
  return `The data store (${err.storeName}) is unreachable: the source states are the last this instance read.`;
}

/**
 * The source statuses, remembered: while the store is unreachable, the last ones read here (with
 * the outage), else the StoreUnavailableError (a 503 with Retry-After).
 */
export function lastGoodStatuses(deps: { registry: Registry; store: Store; scheduler?: Scheduler | undefined; backfill?: Backfiller | undefined }) {
  let last: SourceStatus[] | undefined;
  return async (now: number): Promise<{ sources: SourceStatus[]; outage?: StoreUnavailableError }> => {
    try {
      last = await sourceStatuses({ ...deps, now });
      return { sources: last };
    } catch (err) {
      if (!(err instanceof StoreUnavailableError) || !last) throw err;
      return { sources: last, outage: err };
    }
  };
}

export function createMetaRouter(deps: {
  registry: Registry;
  store: Store;
  scheduler?: Scheduler | undefined;
  now: () => number;
  startedAt: number;
  upstreams?: (() => UpstreamStatus[]) | undefined;
  backfill?: Backfiller | undefined;
  /** Who sees the upstreams' addresses, counters and errors (others: names and states). */
  operator: OperatorCheck;
}): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/', (ctx) => {
    ctx.body = {
      code: 200,
      message: 'success',
      data: {
        name: SERVICE_NAME,
        catalogue: '/v2/apis',
        status: '/v2/status',
        status_page: '/status',
        docs: '/docs',
        openapi: '/openapi.json',
        health: '/healthz',
        liveness: '/livez',
        endpoints: deps.registry.sources.flatMap((s) => s.routes.map((r) => `/v2/apis${r.path}`)),
      },
    };
  });
  // 60s's root routes: `/health` answers the bare word, `/endpoints` every path it serves (60s's and ours).
  router.get('/health', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = 'ok';
  });
  const ownPaths = new Set(deps.registry.sources.flatMap((s) => s.routes.map((r) => r.path)));
  const endpoints = [
    ...SIXTY_ALIASES.filter((a) => ownPaths.has(a.route)).map((a) => `${SIXTY_PREFIX}${a.sixty}`),
    ...deps.registry.sources.flatMap((s) => s.routes.map((r) => `/v2/apis${r.path}`)),
  ];
  router.get('/endpoints', (ctx) => {
    ctx.body = endpoints;
  });
  const uptime = () => Math.round((deps.now() - deps.startedAt) / 1000);
  router.get('/livez', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok', uptime_sec: uptime() };
  });
  router.get('/healthz', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const problem = await storeProblem(deps.store);
    if (problem) {
      ctx.status = 503;
      ctx.set('Retry-After', String(STORE_RETRY_AFTER_SEC));
      ctx.body = { status: 'unavailable', store: 'unreachable', message: problem, uptime_sec: uptime() };
      return;
    }
    ctx.body = { status: 'ok', store: 'ok', uptime_sec: uptime() };
  });
  const lastSources = lastGoodStatuses(deps);
  router.get('/v2/status', async (ctx) => {
    const now = deps.now();
    const { sources, outage } = await lastSources(now);
    ctx.set('Cache-Control', 'no-store');
    if (outage) ctx.set('X-Cache', 'STALE');
    ctx.body = {
      code: 200,
      message: 'success',
      data: {
        updated: formatDateTime(now),
        updated_at: now,
        store: outage ? 'unreachable' : 'ok',
        ...(outage ? { note: statusOutageNote(outage) } : {}),
        scheduler: deps.scheduler ? 'running' : 'disabled',
        summary: Object.fromEntries(['fresh', 'stale', 'failing', 'down', 'idle', 'local'].map((k) => [k, sources.filter((s) => s.state === k).length])),
        sources,
        gateway: { upstreams: upstreamsFor(ctx, deps.operator, deps.upstreams?.()) },
      },
    };
  });
  return router;
}
