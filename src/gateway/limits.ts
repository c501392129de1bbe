/**
 * Per-account rate limits from the account's level: RPM, RPD and TPM as three separate fixed
 * windows (rate-limiter-flexible) on the deployment's limiter engine: Redis or PostgreSQL when
 * several instances share them, else SQLite so a restart keeps them. Requests are counted
 * before the upstream call, failures included; tokens are reserved from an estimate before the
 * call and corrected to the charged amount after it.
 */
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { CreateLimiter } from '../kernel/limiter.ts';
import { GatewayError } from './errors.ts';
import type { Level } from './levels.ts';

type Kind = 'rpm' | 'rpd' | 'tpm';

const DURATION_SEC: Record<Kind, number> = { rpm: 60, rpd: 86_400, tpm: 60 };
const LABEL: Record<Kind, string> = { rpm: 'requests per min (RPM)', rpd: 'requests per day (RPD)', tpm: 'tokens per min (TPM)' };
/** The longest wait a client is invited to sleep through; beyond it `x-should-retry: false`. */
export const MAX_RETRY_WAIT_MS = 60_000;

const HEADER_SUFFIX: Record<Kind, string> = { rpm: 'requests', rpd: 'requests-day', tpm: 'tokens' };
/** Each window's three header names, made once (not per response). */
const HEADER_NAMES = Object.fromEntries(
  (Object.keys(HEADER_SUFFIX) as Kind[]).map((k) => [k, { limit: `x-ratelimit-limit-${HEADER_SUFFIX[k]}`, remaining: `x-ratelimit-remaining-${HEADER_SUFFIX[k]}`, reset: `x-ratelimit-reset-${HEADER_SUFFIX[k]}` }]),
) as Record<Kind, { limit: string; remaining: string; reset: string }>;

export interface WindowState {
  kind: Kind;
  limit: number;
  remaining: number;
  resetMs: number;
}

/** OpenAI's duration style: `20ms`, `1s`, `6m0s`, `1h0m0s`. */
export function formatReset(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  let s = Math.ceil(ms / 1000);
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (h) return `${h}h${m}m${s}s`;
  if (m) return `${m}m${s}s`;
  return `${s}s`;
}

export function rateLimitHeaders(states: readonly WindowState[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const st of states) {
    const names = HEADER_NAMES[st.kind];
    out[names.limit] = String(st.limit);
    out[names.remaining] = String(st.remaining);
    out[names.reset] = formatReset(st.resetMs);
  }
  return out;
}

function isRes(x: unknown): x is RateLimiterRes {
  return x instanceof RateLimiterRes;
}

export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(private readonly createLimiter: CreateLimiter) {}

  private limiter(kind: Kind, points: number): RateLimiterAbstract {
    const id = `${kind}:${points}`;
    let l = this.limiters.get(id);
    if (!l) {
      // Same key prefix whatever the level, so an account that changes level keeps its counters.
      l = this.createLimiter({ keyPrefix: `gateway-${kind}`, points, duration: DURATION_SEC[kind], local: 'sqlite' });
      this.limiters.set(id, l);
    }
    return l;
  }

  private state(kind: Kind, limit: number, res: RateLimiterRes): WindowState {
    return { kind, limit, remaining: Math.max(0, limit - res.consumedPoints), resetMs: res.msBeforeNext < 0 ? DURATION_SEC[kind] * 1000 : res.msBeforeNext };
  }

  private rejected(kind: Kind, limit: number, res: RateLimiterRes, accountId: string, asked: number, done: readonly WindowState[]): GatewayError {
    const waitMs = Math.max(1, res.msBeforeNext);
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    const over = kind === 'tpm' && asked > limit;
    const message = over
      ? `This request needs about ${asked} tokens, more than the ${LABEL[kind]} limit of ${limit} of account ${accountId}. Send a smaller request (or a lower max_tokens).`
      : `Rate limit reached for ${LABEL[kind]} on account ${accountId}: limit ${limit}. Please try again in ${seconds}s.`;
    return new GatewayError(429, message, {
      type: kind === 'tpm' ? 'tokens' : 'requests',
      code: 'rate_limit_exceeded',
      headers: {
        ...rateLimitHeaders([...done, { kind, limit, remaining: 0, resetMs: waitMs }]),
        'retry-after': String(seconds),
        'retry-after-ms': String(waitMs),
        // A request larger than the window can never pass, and a wait over a minute (RPD) is no
        // retry: the openai SDK would otherwise sleep that long (it honours x-should-retry first).
        ...(over || waitMs > MAX_RETRY_WAIT_MS ? { 'x-should-retry': 'false' } : {}),
      },
    });
  }

  /** Count one request in the RPM and RPD windows (0 = unlimited). Throws a 429 GatewayError. */
  async admitRequest(accountId: string, level: Level): Promise<WindowState[]> {
    const kinds = (['rpm', 'rpd'] as const).filter((k) => level[k] > 0);
    const pending = kinds.map((k) => this.limiter(k, level[k]).consume(accountId, 1));
    for (const p of pending) p.catch(() => undefined);
    const done: WindowState[] = [];
    for (let i = 0; i < kinds.length; i++) {
      const kind = kinds[i]!;
      try {
        done.push(this.state(kind, level[kind], await pending[i]!));
      } catch (err) {
        if (isRes(err)) throw this.rejected(kind, level[kind], err, accountId, 1, done);
        throw err;
      }
    }
    return done;
  }

  /** Reserve an estimate in the TPM window. Throws a 429 GatewayError. */
  async reserveTokens(accountId: string, level: Level, estimate: number, done: readonly WindowState[]): Promise<WindowState | undefined> {
    if (level.tpm <= 0) return undefined;
    const points = Math.max(0, Math.round(estimate));
    try {
      return this.state('tpm', level.tpm, await this.limiter('tpm', level.tpm).consume(accountId, points));
    } catch (err) {
      if (isRes(err)) throw this.rejected('tpm', level.tpm, err, accountId, points, done);
      throw err;
    }
  }

  /** Current TPM window, for the headers of requests that reserve no tokens. */
  async tokenState(accountId: string, level: Level): Promise<WindowState | undefined> {
    if (level.tpm <= 0) return undefined;
    const res = await this.limiter('tpm', level.tpm).get(accountId);
    return res ? this.state('tpm', level.tpm, res) : { kind: 'tpm', limit: level.tpm, remaining: level.tpm, resetMs: 60_000 };
  }

  /** Move the TPM window from the reserved estimate to the tokens actually charged. */
  async correctTokens(accountId: string, level: Level, delta: number): Promise<void> {
    if (level.tpm <= 0 || delta === 0) return;
    const l = this.limiter('tpm', level.tpm);
    if (delta > 0) {
      await l.penalty(accountId, Math.round(delta));
      return;
    }
    // A refund never reaches into a later window: that would hand out extra tokens.
    const used = (await l.get(accountId))?.consumedPoints ?? 0;
    const refund = Math.min(used, Math.round(-delta));
    if (refund > 0) await l.reward(accountId, refund);
  }
}
