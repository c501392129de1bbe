/**
 * Abuse limits for /v2/apis, in this order: a deny list of IPs and CIDRs (403), a per-client-IP
 * request limit (429 + Retry-After), an optional gateway key (401/403), and a separate, tighter
 * limit on `force-update` (429). The client IP follows TRUST_PROXY (see `clientIp`). Limiters
 * come from a `LimiterFactory`, in memory by default, so another backend (Redis) can be swapped in.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type Koa from 'koa';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ConfigError, type Config } from '../config.ts';
import { AppError } from '../kernel/errors.ts';
import { extractKey } from '../gateway/auth.ts';
import { GatewayError } from '../gateway/errors.ts';
import { KEY_PATTERN, type KeyStore } from '../gateway/keys.ts';
import { ipPermitted, validateIpRule } from '../gateway/policy.ts';
import { FORCE_PARAM } from './apis-router.ts';
import type { Metrics } from './metrics.ts';
import type { ApisRequest } from './apis-request.ts';
import { clientIp, type AppContext } from './middleware.ts';

/** What the abuse checks read of a request. */
export type CheckedRequest = Pick<ApisRequest, 'ip' | 'socket' | 'req' | 'query' | 'querystring'>;

export interface LimitDecision {
  allowed: boolean;
  /** Time until the window resets. */
  msBeforeNext: number;
  remaining: number;
}

/** A fixed-window counter keyed by a string (here: the client IP). */
export interface Limiter {
  consume(key: string): Promise<LimitDecision>;
}

export type LimiterFactory = (opts: { name: string; points: number; durationSec: number }) => Limiter;

/** In-process limiters (rate-limiter-flexible's memory backend). */
export const memoryLimiterFactory: LimiterFactory = ({ name, points, durationSec }) => {
  const rl = new RateLimiterMemory({ keyPrefix: name, points, duration: durationSec });
  return {
    async consume(key) {
      try {
        const r = await rl.consume(key);
        return { allowed: true, msBeforeNext: r.msBeforeNext, remaining: r.remainingPoints };
      } catch (err) {
        if (err instanceof RateLimiterRes) return { allowed: false, msBeforeNext: err.msBeforeNext, remaining: 0 };
        throw err;
      }
    },
  };
};

export type KeyCheck = { ok: true } | { ok: false; status: number; message: string };

/**
 * Checks the caller's gateway key for /v2/apis (when APIS_REQUIRE_KEY is on). `rawHeaders` (the
 * request's) lets it refuse a request carrying several Authorization headers, as /v1 does.
 */
export type KeyVerifier = (headers: IncomingHttpHeaders, ip: string, rawHeaders?: readonly string[]) => Promise<KeyCheck>;

/**
 * The gateway's own key rules on its key store: the strict `Authorization: Bearer <key>` format
 * (`extractKey`), a known key, not revoked, not expired, and the key's IP allowlist. Quotas,
 * model lists and account rate limits are /v1 matters and do not apply to /v2/apis.
 */
export function keyVerifier(keys: KeyStore, now: () => number = Date.now): KeyVerifier {
  return async (headers, ip, rawHeaders) => {
    let presented: string;
    try {
      presented = extractKey(headers, new URLSearchParams(), 'openai', rawHeaders);
    } catch (err) {
      if (err instanceof GatewayError) return { ok: false, status: 401, message: `${err.message} This service requires a gateway key on /v2/apis (from \`npm run keys\` or the console).` };
      throw err;
    }
    let record;
    try {
      record = KEY_PATTERN.test(presented) ? await keys.findByKey(presented) : undefined;
    } catch {
      return { ok: false, status: 503, message: 'API keys cannot be checked right now (the key database is unavailable). Please retry shortly.' };
    }
    if (!record) return { ok: false, status: 401, message: 'The API key is not valid. Check it, or create a new one with `npm run keys` or the console.' };
    if (record.revokedAt !== null) return { ok: false, status: 401, message: 'This API key has been revoked. Create a new key.' };
    if (record.expiresAt !== null && record.expiresAt <= now()) return { ok: false, status: 401, message: 'This API key has expired. Create a new key.' };
    if (!ipPermitted(record.ips, ip)) return { ok: false, status: 403, message: `This API key may not be used from IP address ${ip}.` };
    return { ok: true };
  };
}

export interface AbuseSettings {
  rateLimit: number;
  rateWindowSec: number;
  forceUpdateLimit: number;
  denyIps: string[];
  requireKey: boolean;
}

/** Reads and checks the APIS_* settings (bad deny-list entries fail at boot). */
export function abuseSettings(config: Config): AbuseSettings {
  const v = config.values;
  const denyIps = Array.isArray(v.APIS_DENY_IPS) ? v.APIS_DENY_IPS : [];
  const problems = denyIps.map((rule) => validateIpRule(rule)).filter((p): p is string => !!p);
  if (problems.length) throw new ConfigError(problems.map((p) => `APIS_DENY_IPS: ${p}`));
  return {
    rateLimit: Number(v.APIS_RATE_LIMIT ?? 600),
    rateWindowSec: Number(v.APIS_RATE_WINDOW_SEC ?? 60),
    forceUpdateLimit: Number(v.APIS_FORCE_UPDATE_LIMIT ?? 10),
    denyIps,
    requireKey: v.APIS_REQUIRE_KEY === true,
  };
}

/** /v2/apis, and the DailyHotApi drop-in over the same lists (src/http/dailyhot.ts). */
function isApisPath(p: string): boolean {
  return p === '/v2/apis' || p.startsWith('/v2/apis/') || p.startsWith(DAILYHOT_PATH);
}

const DAILYHOT_PATH = '/dailyhot/';

function forceRequested(ctx: CheckedRequest): boolean {
  // The drop-in's refetch is DailyHotApi's `cache=false`.
  if (ctx.req.url?.startsWith(DAILYHOT_PATH)) return ctx.querystring.includes('cache=') && String(ctx.query.cache).trim().toLowerCase() === 'false';
  // A query string that neither names the parameter nor percent-encodes anything cannot hold it:
  // most requests are answered without parsing theirs (a remembered answer needs nothing else of it).
  const search = ctx.querystring;
  if (!search || (!search.includes(FORCE_PARAM) && !search.includes('%'))) return false;
  const raw = ctx.query[FORCE_PARAM];
  if (raw === undefined) return false;
  const v = (Array.isArray(raw) ? raw[0] : raw)?.trim().toLowerCase() ?? '';
  return !['0', 'false', 'no', 'off'].includes(v);
}

function tooMany(message: string, msBeforeNext: number): AppError {
  const wait = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new AppError(429, `${message} Try again in ${wait} s.`, { headers: { 'Retry-After': String(wait) } });
}

type AbuseOptions = { settings: AbuseSettings; limiters?: LimiterFactory; verifyKey?: KeyVerifier; metrics?: Metrics };

/** Middleware running `check` (see apisAbuseCheck) on every /v2/apis request. */
export function limitApisRequests(check: (ctx: CheckedRequest) => Promise<void> | undefined) {
  return async function apisAbuseLimits(ctx: AppContext, next: Koa.Next): Promise<void> {
    if (!isApisPath(ctx.path)) return next();
    await check(ctx);
    await next();
  };
}

/**
 * The checks of one /v2/apis request, in the order above; refuses with the AppError that refuses
 * it (thrown at once by the deny list, else a rejected promise). Returns a promise only when a
 * limiter or the key store has to be asked, so a request under no limit waits no turn.
 */
export function apisAbuseCheck(opts: AbuseOptions): (ctx: CheckedRequest) => Promise<void> | undefined {
  const { settings } = opts;
  const factory = opts.limiters ?? memoryLimiterFactory;
  const perIp = settings.rateLimit > 0 ? factory({ name: 'apis-ip', points: settings.rateLimit, durationSec: settings.rateWindowSec }) : undefined;
  const force = settings.forceUpdateLimit > 0 ? factory({ name: 'apis-force', points: settings.forceUpdateLimit, durationSec: 60 }) : undefined;
  if (settings.requireKey && !opts.verifyKey) throw new ConfigError(['APIS_REQUIRE_KEY=true needs the gateway key store, which is not available']);
  const verifyKey = settings.requireKey ? opts.verifyKey : undefined;

  async function limits(ctx: CheckedRequest, ip: string, forced: boolean): Promise<void> {
    if (perIp) {
      const d = await perIp.consume(ip);
      if (!d.allowed) {
        opts.metrics?.apisRejected('rate');
        throw tooMany(`Too many requests from ${ip}: at most ${settings.rateLimit} per ${settings.rateWindowSec} s on /v2/apis.`, d.msBeforeNext);
      }
    }
    if (verifyKey) {
      const check = await verifyKey(ctx.req.headers, ip, ctx.req.rawHeaders);
      if (!check.ok) {
        opts.metrics?.apisRejected('key');
        const headers: Record<string, string> = check.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : check.status === 503 ? { 'Retry-After': '2' } : {};
        throw new AppError(check.status, check.message, { headers, expose: true });
      }
    }
    if (force && forced) {
      const d = await force.consume(ip);
      if (!d.allowed) {
        opts.metrics?.apisRejected('force_update');
        throw tooMany(`Too many force-update requests from ${ip}: at most ${settings.forceUpdateLimit} per minute (drop force-update to read the cache).`, d.msBeforeNext);
      }
    }
  }

  const denies = settings.denyIps.length > 0;
  return function checkApisRequest(ctx: CheckedRequest): Promise<void> | undefined {
    const forced = !!force && forceRequested(ctx);
    // The client address is looked up only when a limit needs it.
    if (!denies && !perIp && !verifyKey && !forced) return undefined;
    const ip = clientIp(ctx);
    if (denies && ipPermitted(settings.denyIps, ip)) {
      opts.metrics?.apisRejected('deny');
      throw new AppError(403, `Requests from ${ip} are not allowed on /v2/apis. Contact the operator of this service if you think this is a mistake.`);
    }
    return perIp || verifyKey || forced ? limits(ctx, ip, forced) : undefined;
  };
}
