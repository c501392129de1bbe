/**
 * The AI gateway for `/v1` and `/v1beta`: authentication, key policy (expiry, revocation, IP
 * allowlist, quota), account rate limits, the routes, and one usage row per authenticated
 * request. Pipeline: auth → IP → route → quota → RPM/RPD → handler (model, TPM, upstream) →
 * accounting.
 */
import { performance } from 'node:perf_hooks';
import type { Config } from '../config.ts';
import type { CreateLimiter } from '../kernel/limiter.ts';
import type { Logger } from '../kernel/log.ts';
import { clientIp } from '../http/middleware.ts';
import { authFamilyOf, extractKey, unknownKey } from './auth.ts';
import { GatewayCall, type GatewayDeps } from './call.ts';
import type { GatewayExchange } from './exchange.ts';
import { errorBody, GatewayError, insufficientQuota, internalError, invalidApiKey, ipNotAllowed, storeUnavailable, unknownUrl, upstreamNotConfigured, type GatewayFamily } from './errors.ts';
import { KEY_PATTERN, type KeyRecord, type KeyStore } from './keys.ts';
import { levelsFromSettings, type Levels } from './levels.ts';
import { RateLimits } from './limits.ts';
import { creditLeft } from './credit.ts';
import { ipPermitted } from './policy.ts';
import { loadPrices, type PriceTable } from './prices.ts';
import { familyOf, matchRoute } from './routes/index.ts';
import { GATEWAY_HEADERS } from './response-headers.ts';
import { gatewaySettings } from './settings.ts';
import type { GatewayStore } from './store.ts';
import { ClientGone } from './upstream.ts';
import { UpstreamPool, type ProbeResult, type UpstreamAttempt, type UpstreamStatus } from './upstream-pool.ts';
import type { UsageLog, UsageRow } from './usage.ts';
import { settlement, type Ended } from './settlement.ts';
import { DurableUsageLog } from './settlement-journal.ts';
import { storeUnavailableError } from '../kernel/store-unavailable.ts';

export interface Gateway {
  /** Whether a path is the gateway's (`/v1`, `/v1beta`, and the API paths that lack their version). */
  owns(path: string): boolean;
  /** Answer one request of the gateway's; `exchange.finish()` then writes a buffered answer. */
  handle(exchange: GatewayExchange): Promise<void>;
  keys: KeyStore;
  usage: UsageLog;
  levels: Levels;
  prices: PriceTable;
  /** Each upstream's state, latency and errors (empty without upstreams). */
  upstreams(): UpstreamStatus[];
  /** Probe every upstream now (or the one named); empty without upstreams. */
  probeUpstreams(name?: string): Promise<ProbeResult[]>;
  close(): Promise<void>;
}

const EXPOSED_HEADERS = [
  'x-request-id',
  'retry-after',
  'retry-after-ms',
  'x-should-retry',
  'x-ratelimit-limit-requests',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-reset-requests',
  'x-ratelimit-limit-requests-day',
  'x-ratelimit-remaining-requests-day',
  'x-ratelimit-reset-requests-day',
  'x-ratelimit-limit-tokens',
  'x-ratelimit-remaining-tokens',
  'x-ratelimit-reset-tokens',
  ...GATEWAY_HEADERS,
].join(', ');

const CORS_HEADERS = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': EXPOSED_HEADERS };

export interface GatewayOptions {
  config: Config;
  /** Keys, usage and music tasks (see store.ts). */
  store: GatewayStore;
  /** The deployment's limiters (shared by the instances when Redis or PostgreSQL is configured). */
  createLimiter: CreateLimiter;
  log: Logger;
  /** Sees every usage row once it is written (the metrics count tokens and 429s with it). */
  onUsage?: ((row: UsageRow) => void) | undefined;
  /** Sees every attempt on an upstream (the metrics time them and count failures). */
  onUpstreamAttempt?: ((attempt: UpstreamAttempt) => void) | undefined;
}

export function createGateway(opts: GatewayOptions): Gateway {
  const settings = gatewaySettings(opts.config);
  const levels = levelsFromSettings(settings);
  const prices = loadPrices({ json: settings.pricesJson, file: settings.pricesFile });
  const log = opts.log.child({ part: 'gateway' });
  const upstream = settings.upstreams.length
    ? new UpstreamPool({
        upstreams: settings.upstreams,
        firstByteTimeoutMs: settings.firstByteTimeoutMs,
        idleTimeoutMs: settings.idleTimeoutMs,
        attempts: settings.upstreamAttempts,
        cooldownMs: settings.upstreamCooldownMs,
        onAttempt: opts.onUpstreamAttempt,
        onFailover: (from, reason) => log.warn({ upstream: from, reason }, 'upstream failed; trying the next one'),
      })
    : undefined;
  const usage = new DurableUsageLog(opts.store.usage, { path: settings.settlementJournal, log });
  const deps: GatewayDeps = {
    settings,
    keys: opts.store.keys,
    levels,
    prices,
    limits: new RateLimits(opts.createLimiter),
    usage,
    tasks: opts.store.tasks,
    upstream,
    log,
    onUsage: opts.onUsage,
  };
  let closed = false;
  const probing = upstream && settings.upstreamProbeIntervalMs > 0 ? scheduleProbes(upstream, settings.upstreamProbeIntervalMs, log) : undefined;
  /** Accounting still being written; close() waits for it. */
  const accounting = new Set<Promise<void>>();
  const settle = (call: GatewayCall): void => {
    if (closed) return;
    const ended = { status: call.clientGone && !call.ctx.res.headersSent ? 499 : call.ctx.status, durationMs: performance.now() - call.started };
    // Written after the answer has gone out (finish() writes it once the handler returns).
    const done: Promise<void> = new Promise<void>((resolve) =>
      setImmediate(() => {
        void account(call, deps, ended).then(() => {
          accounting.delete(done);
          resolve();
        });
      }),
    );
    accounting.add(done);
  };

  const serve = async (ctx: GatewayExchange): Promise<void> => {
    const family = familyOf(ctx.path);
    if (!family) throw new Error(`not a gateway path: ${ctx.path}`);
    ctx.setAll(CORS_HEADERS);
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
      ctx.set('Access-Control-Allow-Headers', ctx.get('Access-Control-Request-Headers') || 'authorization, content-type, x-goog-api-key');
      ctx.set('Access-Control-Max-Age', '86400');
      ctx.status = 204;
      return;
    }
    await handle(ctx, family === 'unversioned' ? 'openai' : family, family === 'unversioned', deps, settle);
  };

  return {
    owns: (path) => familyOf(path) !== undefined,
    handle: serve,
    keys: deps.keys,
    usage: deps.usage,
    levels,
    prices,
    upstreams: () => upstream?.status() ?? [],
    probeUpstreams: async (name) => (upstream ? upstream.probe(name) : []),
    async close() {
      closed = true;
      if (probing) clearInterval(probing);
      await Promise.all(accounting);
      await usage.close();
      await upstream?.close();
    },
  };
}

/** Scheduled health probes of the upstreams; a failing one is logged when it goes out. */
function scheduleProbes(pool: UpstreamPool, intervalMs: number, log: Logger): NodeJS.Timeout {
  const timer = setInterval(() => {
    pool
      .probe()
      .then((results) => {
        for (const r of results) if (!r.ok) log.warn({ upstream: r.upstream, detail: r.detail }, 'upstream failed its health probe');
      })
      .catch((err: unknown) => log.error({ err: { message: (err as Error).message } }, 'upstream probes failed'));
  }, intervalMs);
  timer.unref();
  return timer;
}

const NO_QUERY = new URLSearchParams();

/** This server's address as the connection reached it; never from a header (Host, Origin) the caller sent. */
function serverBase(ctx: GatewayExchange): string {
  const { localAddress, localPort } = ctx.req.socket;
  const host = (localAddress ?? '127.0.0.1').replace(/^::ffff:(?=\d+\.)/, '');
  return `http://${host.includes(':') ? `[${host}]` : host}:${localPort ?? ''}`;
}

async function authenticate(ctx: GatewayExchange, family: GatewayFamily, deps: GatewayDeps): Promise<KeyRecord> {
  const presented = extractKey(ctx.req.headers, ctx.querystring ? new URLSearchParams(ctx.querystring) : NO_QUERY, authFamilyOf(ctx.path, family), ctx.req.rawHeaders);
  let key: KeyRecord | undefined;
  try {
    key = KEY_PATTERN.test(presented) ? await deps.keys.findByKey(presented) : undefined;
  } catch (err) {
    deps.log.error({ err: { message: (err as Error).message } }, 'key lookup failed');
    throw storeUnavailable();
  }
  if (!key) throw unknownKey(presented);
  if (key.revokedAt !== null) throw invalidApiKey('This API key has been revoked. Create a new key.');
  if (key.expiresAt !== null && key.expiresAt <= Date.now()) throw invalidApiKey(`This API key expired at ${new Date(key.expiresAt).toISOString()}. Create a new key.`);
  return key;
}

/**
 * One gateway request. Its accounting (`settle`) is not awaited: the answer leaves without
 * waiting for the usage row and the TPM correction to reach the database.
 */
async function handle(ctx: GatewayExchange, family: GatewayFamily, unversioned: boolean, deps: GatewayDeps, settle: (call: GatewayCall) => void): Promise<void> {
  let call: GatewayCall | undefined;
  try {
    if (unversioned)
      throw invalidApiKey(`Invalid URL (${ctx.method} ${ctx.path}): the base URL lacks the version segment. Use ${serverBase(ctx)}/v1 (or /v1beta for the Gemini style) as the base URL.`);
    const key = await authenticate(ctx, family, deps);
    let level = deps.levels.get(key.level);
    if (!level) {
      deps.log.warn({ account: key.accountId, level: key.level }, 'account level is not configured; using the default level');
      level = deps.levels.get(deps.levels.defaultLevel)!;
    }
    const match = matchRoute(ctx.method, ctx.path);
    call = new GatewayCall(ctx, deps, family, key, level, match && 'route' in match ? match.route.name : 'unknown');
    const ip = clientIp(ctx);
    if (!ipPermitted(key.ips, ip)) throw ipNotAllowed(ip);
    if (!match) throw unknownUrl(ctx.method, ctx.path);
    if ('allowed' in match)
      throw new GatewayError(405, `Method ${ctx.method} is not allowed on ${ctx.path}; use ${match.allowed.join(' or ')}.`, {
        type: 'invalid_request_error',
        code: 'method_not_allowed',
        headers: { allow: match.allowed.join(', ') },
      });
    if (match.route.upstream && !deps.upstream) throw upstreamNotConfigured();
    // Calls that cost money need credit; listing models, billing views and GET polls stay open.
    const costs = match.route.billed && ctx.method === 'POST';
    if (costs) {
      const left = creditLeft(key, Date.now());
      if (left.micros !== null && left.micros <= 0) throw insufficientQuota(key, left);
    }
    // A call that costs money reserves tokens (and reads the TPM window then); the others read it
    // with the RPM and RPD windows, in parallel (one round trip on a shared engine).
    const admitting = deps.limits.admitRequest(key.accountId, level);
    const tokens = costs ? undefined : deps.limits.tokenState(key.accountId, level);
    tokens?.catch(() => undefined);
    const windows = await admitting;
    call.admitted(windows, tokens && ((await tokens) ?? null));
    await match.route.handle(call, match.params);
    await call.tokenHeaders();
  } catch (err) {
    call?.noteFailure(err);
    if (err instanceof ClientGone || call?.clientGone || ctx.respond === false || ctx.headerSent) return;
    await call?.tokenHeaders().catch(() => undefined);
    // A database that cannot answer (down, disk full, busy) is a 503 with Retry-After, never a 500.
    const unavailable = !(err instanceof GatewayError) && storeUnavailableError(err);
    const gerr = err instanceof GatewayError ? err : unavailable ? storeUnavailable() : internalError();
    if (unavailable) deps.log.warn({ err: { message: (err as Error).message }, route: call?.route }, 'gateway request refused: the database is unavailable');
    else if (!(err instanceof GatewayError)) deps.log.error({ err: { message: (err as Error).message, stack: (err as Error).stack }, route: call?.route }, 'gateway request failed');
    ctx.status = gerr.status;
    for (const [k, v] of Object.entries(gerr.headers)) ctx.set(k, v);
    // An upload refused part-way: close the connection rather than read the rest of it.
    if (gerr.status === 413) ctx.set('Connection', 'close');
    ctx.type = 'application/json';
    ctx.body = errorBody(gerr, family);
  } finally {
    if (call) settle(call);
  }
}

/** Settle one request: tokens charged to the key, the TPM window corrected, the usage row written. */
async function account(call: GatewayCall, deps: GatewayDeps, ended: Ended): Promise<void> {
  try {
    const { row, uncappedMicros } = settlement(call, deps.prices, ended);
    if (uncappedMicros > row.costMicros)
      deps.log.warn({ key: row.keyId, model: row.model, costMicros: uncappedMicros, chargedMicros: row.costMicros }, 'usage exceeded the credit reserved; the key is charged its reservation');
    const [tokens, recorded] = await Promise.allSettled([deps.limits.correctTokens(call.key.accountId, call.level, row.chargedTokens - call.reservedTokens), deps.usage.record(row)]);
    if (tokens.status === 'rejected') deps.log.warn({ err: { message: (tokens.reason as Error).message }, route: call.route }, 'TPM window correction failed');
    if (recorded.status === 'rejected') throw recorded.reason;
    deps.onUsage?.(row);
  } catch (err) {
    deps.log.error({ err: { message: (err as Error).message }, route: call.route }, 'gateway accounting failed');
  }
}
