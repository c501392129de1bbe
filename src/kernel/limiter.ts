/**
 * Rate limiters for the whole service, from rate-limiter-flexible. One backend per service:
 * Redis when `REDIS_URL` is set (shared by every instance), else PostgreSQL when `DATABASE_URL`
 * is set (shared too), else SQLite (survives restarts) or memory (single process). Store-backed
 * limiters keep an in-memory insurance limiter, so an outage of the store degrades to
 * per-instance limits instead of failing requests.
 *
 *   const rpm = service.createLimiter({ keyPrefix: 'rpm', points: 60, duration: 60 });
 *   await rpm.consume(`acct:${id}`);   // rejects with a RateLimiterRes when over the limit
 */
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis, RateLimiterRes, RateLimiterSQLite, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Db, Migration } from './db.ts';
import { migrate } from './db.ts';
import { pgMigrate, type Pool } from './pg-store.ts';

export const LIMITS_TABLE = 'rate_limits';

const LIMITS_SQL = (bigint: string) => `
  CREATE TABLE ${LIMITS_TABLE} (
    key    TEXT PRIMARY KEY,
    points INTEGER NOT NULL DEFAULT 0,
    expire ${bigint}
  );
  CREATE INDEX ${LIMITS_TABLE}_by_expire ON ${LIMITS_TABLE} (expire);`;

/** The table layout rate-limiter-flexible expects, for SQLite and for PostgreSQL. */
export const limiterMigrations: readonly Migration[] = [{ name: 'limiter-001-rate-limits', sql: LIMITS_SQL('INTEGER') }];
export const pgLimiterMigrations: readonly Migration[] = [
  { name: 'limiter-001-rate-limits', sql: LIMITS_SQL('BIGINT') },
  // Counters of windows a day long at most: losing them in a crash is harmless, and without WAL a
  // consume commits without waiting for a disk flush (which cost about a millisecond per request).
  { name: 'limiter-002-unlogged', sql: `ALTER TABLE ${LIMITS_TABLE} SET UNLOGGED;` },
];

export type LimiterBackend =
  | { kind: 'memory' }
  | { kind: 'sqlite'; db: Db }
  | { kind: 'postgres'; pool: Pool }
  /** Keys get the client's own `keyPrefix` (REDIS_KEY_PREFIX), then `keyPrefix:`. */
  | { kind: 'redis'; client: Redis };

export interface LimiterOptions {
  /** Namespace of this limiter's counters, e.g. `rpm` or `apis-ip`; limiters with the same prefix share counters. */
  keyPrefix: string;
  /** Points allowed per window. */
  points: number;
  /** Window length in seconds. */
  duration: number;
  /** Once over the limit, refuse for this many seconds (default: until the window ends). */
  blockDuration?: number;
  /**
   * Backend when no shared engine (Redis, PostgreSQL) is configured: `memory` (default, fastest)
   * or `sqlite` (counters survive a restart). Ignored by `createLimiter(opts, backend)`.
   */
  local?: 'memory' | 'sqlite';
}

export type CreateLimiter = (opts: LimiterOptions) => RateLimiterAbstract;

/** Make the backend's tables (SQLite: synchronous). */
export function sqliteLimiterBackend(db: Db): LimiterBackend {
  migrate(db, limiterMigrations);
  return { kind: 'sqlite', db };
}

export async function pgLimiterBackend(pool: Pool): Promise<LimiterBackend> {
  await pgMigrate(pool, pgLimiterMigrations);
  return { kind: 'postgres', pool };
}

interface StoredWindow {
  points: number;
  expire: number | null;
}

/**
 * RateLimiterSQLite with its statements prepared once. The stock class prepares them on every
 * call and wraps each in a new transaction function, which cost about 0.2 ms per consume here;
 * the SQL (and so the table and the semantics) is the library's own.
 */
class PreparedSqliteLimiter extends RateLimiterSQLite {
  private readonly upsertStmt;
  private readonly replaceStmt;
  private readonly getStmt;

  constructor(db: Db, opts: Omit<ConstructorParameters<typeof RateLimiterSQLite>[0], 'storeClient'>) {
    super({ ...opts, storeClient: db, storeType: 'better-sqlite3', tableName: LIMITS_TABLE, tableCreated: true, clearExpiredByTimeout: false });
    this.upsertStmt = db.prepare(`
      INSERT INTO ${LIMITS_TABLE} (key, points, expire) VALUES (?, ?, ?)
      ON CONFLICT(key) DO UPDATE SET
        points = CASE WHEN expire IS NULL OR expire > ? THEN points + excluded.points ELSE excluded.points END,
        expire = CASE WHEN expire IS NULL OR expire > ? THEN expire ELSE excluded.expire END
      RETURNING points, expire`);
    this.replaceStmt = db.prepare(`INSERT OR REPLACE INTO ${LIMITS_TABLE} (key, points, expire) VALUES (?, ?, ?) RETURNING points, expire`);
    this.getStmt = db.prepare(`SELECT points, expire FROM ${LIMITS_TABLE} WHERE key = ? AND (expire > ? OR expire IS NULL)`);
  }

  // Overrides of the store hooks RateLimiterStoreAbstract calls (not in the library's typings).
  _upsert(rlKey: string, points: number, msDuration: number, forceExpire = false): Promise<StoredWindow> {
    try {
      const now = Date.now();
      const expire = msDuration > 0 ? now + msDuration : null;
      const row = (forceExpire ? this.replaceStmt.get(rlKey, points, expire) : this.upsertStmt.get(rlKey, points, expire, now, now)) as StoredWindow;
      return Promise.resolve(row);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  _get(rlKey: string): Promise<StoredWindow | null> {
    try {
      return Promise.resolve((this.getStmt.get(rlKey, Date.now()) as StoredWindow | undefined) ?? null);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }
}

const SQLITE_SWEEP_MS = 300_000;
const sweeping = new WeakSet<Db>();

/** Delete windows that ended an hour ago (the library's own sweep would throw once the DB is closed). */
function sweepSqlite(db: Db): void {
  if (sweeping.has(db)) return;
  sweeping.add(db);
  const timer = setInterval(() => {
    if (!db.open) return clearInterval(timer);
    db.prepare(`DELETE FROM ${LIMITS_TABLE} WHERE expire < ?`).run(Date.now() - 3_600_000);
  }, SQLITE_SWEEP_MS);
  timer.unref();
}

/** A limiter on the given backend (memory when none is given). */
export function createLimiter(opts: LimiterOptions, backend: LimiterBackend = { kind: 'memory' }): RateLimiterAbstract {
  const base = { keyPrefix: opts.keyPrefix, points: opts.points, duration: opts.duration, ...(opts.blockDuration !== undefined ? { blockDuration: opts.blockDuration } : {}) };
  switch (backend.kind) {
    case 'memory':
      return new RateLimiterMemory(base);
    case 'sqlite':
      sweepSqlite(backend.db);
      return new PreparedSqliteLimiter(backend.db, { ...base, insuranceLimiter: new RateLimiterMemory(base) });
    case 'postgres':
      return new RateLimiterPostgres({
        ...base,
        storeClient: backend.pool,
        storeType: 'pool',
        tableName: LIMITS_TABLE,
        tableCreated: true,
        insuranceLimiter: new RateLimiterMemory(base),
      });
    case 'redis':
      return new RateLimiterRedis({
        ...base,
        storeClient: backend.client,
        // Answer from the insurance limiter at once while Redis is down, instead of queueing.
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory(base),
      });
  }
}

/** `createLimiter` bound to one backend. */
export function limiterFactory(backend: LimiterBackend): CreateLimiter {
  return (opts) => createLimiter(opts, backend);
}

/** A limiter's answer as allow/deny (rejections become `allowed: false`; store errors still throw). */
export interface LimitDecision {
  allowed: boolean;
  msBeforeNext: number;
  remaining: number;
}

/**
 * The `{ name, points, durationSec } → { consume(key) }` factory shape of the /v2/apis abuse
 * limits (src/http/abuse.ts `LimiterFactory`), on top of a `CreateLimiter`:
 * `apisAbuseCheck({ settings, limiters: decisionLimiters(service.createLimiter) })`.
 */
export function decisionLimiters(create: CreateLimiter) {
  return (opts: { name: string; points: number; durationSec: number }) => {
    const rl = create({ keyPrefix: opts.name, points: opts.points, duration: opts.durationSec });
    return {
      async consume(key: string): Promise<LimitDecision> {
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
}
