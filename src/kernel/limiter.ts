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
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis, RateLimiterRes, RateLimiterSQLite, RLWrapperTimeouts, type RateLimiterAbstract } from 'rate-limiter-flexible';
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

/** How often the windows changed in memory are written to SQLite (and at close, see flushSqliteLimiters). */
const SQLITE_FLUSH_MS = 1_000;
const SQLITE_SWEEP_MS = 300_000;
/** A window loaded and found absent (or ended): the next consume starts a new one. */
const NO_WINDOW: Readonly<StoredWindow> = { points: 0, expire: 0 };

/**
 * The SQLite windows of one database, kept in memory and written behind: a window is read from
 * the `rate_limits` table the first time this process meets its key, then counted in memory;
 * the windows that changed are written in one transaction every second and when the service
 * closes, and windows that ended are forgotten. One commit per second instead of one per
 * consume (four per gateway request). A crash loses at most the last second of counts, which a
 * rate limit can afford (the PostgreSQL table is UNLOGGED for the same reason). SQLite is the
 * single-instance backend, so no other process counts in the same table meanwhile.
 */
class SqliteWindows {
  private readonly windows = new Map<string, StoredWindow>();
  private readonly dirty = new Set<string>();
  private readonly selectStmt;
  private readonly writeStmt;
  private readonly deleteStmt;
  private readonly flushAll;
  private lastSweep = Date.now();

  constructor(private readonly db: Db) {
    this.selectStmt = db.prepare(`SELECT points, expire FROM ${LIMITS_TABLE} WHERE key = ?`);
    this.writeStmt = db.prepare(`INSERT OR REPLACE INTO ${LIMITS_TABLE} (key, points, expire) VALUES (?, ?, ?)`);
    this.deleteStmt = db.prepare(`DELETE FROM ${LIMITS_TABLE} WHERE key = ?`);
    const sweepStmt = db.prepare(`DELETE FROM ${LIMITS_TABLE} WHERE expire < ?`);
    this.flushAll = db.transaction((now: number) => {
      for (const key of this.dirty) {
        const w = this.windows.get(key)!;
        this.writeStmt.run(key, w.points, w.expire);
      }
      // Rows of windows that ended an hour ago.
      if (now - this.lastSweep >= SQLITE_SWEEP_MS) {
        sweepStmt.run(now - 3_600_000);
        this.lastSweep = now;
      }
    });
    const timer = setInterval(() => {
      if (!db.open) return clearInterval(timer);
      try {
        this.flush();
      } catch {
        // A full disk or a busy database: the changed windows stay marked and are written next time.
      }
    }, SQLITE_FLUSH_MS);
    timer.unref();
  }

  private window(key: string): StoredWindow {
    let w = this.windows.get(key);
    if (!w) {
      w = (this.selectStmt.get(key) as StoredWindow | undefined) ?? { ...NO_WINDOW };
      this.windows.set(key, w);
    }
    return w;
  }

  /** rate-limiter-flexible's SQLite upsert, in memory: add to a running window, else start one. */
  upsert(key: string, points: number, msDuration: number, forceExpire: boolean): StoredWindow {
    const now = Date.now();
    const w = this.window(key);
    const running = w.expire === null || w.expire > now;
    if (forceExpire || !running) {
      w.points = points;
      w.expire = msDuration > 0 ? now + msDuration : null;
    } else w.points += points;
    this.dirty.add(key);
    return { points: w.points, expire: w.expire };
  }

  get(key: string): StoredWindow | null {
    const w = this.window(key);
    return w.expire === null || w.expire > Date.now() ? { points: w.points, expire: w.expire } : null;
  }

  delete(key: string): boolean {
    const existed = this.get(key) !== null;
    this.windows.set(key, { ...NO_WINDOW });
    this.dirty.delete(key);
    this.deleteStmt.run(key);
    return existed;
  }

  /** Write the changed windows; forget the ones that ended. */
  flush(): void {
    if (!this.db.open) return;
    const now = Date.now();
    if (this.dirty.size > 0 || now - this.lastSweep >= SQLITE_SWEEP_MS) this.flushAll(now);
    this.dirty.clear();
    for (const [key, w] of this.windows) if (w.expire !== null && w.expire <= now) this.windows.delete(key);
  }
}

const sqliteWindows = new WeakMap<Db, SqliteWindows>();

function windowsOf(db: Db): SqliteWindows {
  let w = sqliteWindows.get(db);
  if (!w) sqliteWindows.set(db, (w = new SqliteWindows(db)));
  return w;
}

/** Write the SQLite limiter windows counted in memory (the service calls it before closing the database). */
export function flushSqliteLimiters(db: Db): void {
  try {
    sqliteWindows.get(db)?.flush();
  } catch {
    // A full disk at shutdown: at most the last second of counts is lost, as in a crash.
  }
}

/** The library's own hooks this limiter calls (not in its typings). */
interface StoreHooks {
  getKey(key: string | number): string;
  _getRateLimiterRes(rlKey: string, changedPoints: number, stored: StoredWindow): RateLimiterRes;
  execEvenly: boolean;
  inMemoryBlockOnConsumed: number;
}

/**
 * RateLimiterSQLite on the write-behind windows above: the library's window rules and table,
 * without a statement (or a transaction) per consume. Since the windows answer synchronously,
 * consume, penalty, reward and get answer at once, with the library's RateLimiterRes, instead of
 * through its four or five promises a call (about 3 µs each, four calls a gateway request);
 * what the gateway does not use (blocking, even execution, custom durations) and a failing store
 * (its insurance limiter answers) take the library's own path.
 */
class PreparedSqliteLimiter extends RateLimiterSQLite {
  private readonly windows: SqliteWindows;

  constructor(db: Db, opts: Omit<ConstructorParameters<typeof RateLimiterSQLite>[0], 'storeClient'>) {
    super({ ...opts, storeClient: db, storeType: 'better-sqlite3', tableName: LIMITS_TABLE, tableCreated: true, clearExpiredByTimeout: false });
    this.windows = windowsOf(db);
  }

  private get plain(): boolean {
    const self = this as unknown as StoreHooks;
    return this.blockDuration === 0 && !self.execEvenly && self.inMemoryBlockOnConsumed === 0;
  }

  /** Add `points` to the key's window; undefined when the store fails (the library's path then answers). */
  private add(key: string | number, points: number): RateLimiterRes | undefined {
    const self = this as unknown as StoreHooks;
    const rlKey = self.getKey(key);
    try {
      return self._getRateLimiterRes(rlKey, points, this.windows.upsert(rlKey, points, this.duration * 1000, false));
    } catch {
      return undefined;
    }
  }

  override consume(key: string | number, points = 1, options: { [key: string]: unknown } = {}): Promise<RateLimiterRes> {
    const res = this.plain && options.customDuration === undefined ? this.add(key, points) : undefined;
    if (!res) return super.consume(key, points, options);
    return res.consumedPoints > this.points ? Promise.reject(res) : Promise.resolve(res);
  }

  override penalty(key: string | number, points = 1, options: { [key: string]: unknown } = {}): Promise<RateLimiterRes> {
    const res = options.customDuration === undefined ? this.add(key, points) : undefined;
    return res ? Promise.resolve(res) : super.penalty(key, points, options);
  }

  override reward(key: string | number, points = 1, options: { [key: string]: unknown } = {}): Promise<RateLimiterRes> {
    const res = options.customDuration === undefined ? this.add(key, -points) : undefined;
    return res ? Promise.resolve(res) : super.reward(key, points, options);
  }

  override get(key: string | number, options: { [key: string]: unknown } = {}): Promise<RateLimiterRes | null> {
    const self = this as unknown as StoreHooks;
    const rlKey = self.getKey(key);
    let stored: StoredWindow | null;
    try {
      stored = this.windows.get(rlKey);
    } catch {
      return super.get(key, options);
    }
    return Promise.resolve(stored === null ? null : self._getRateLimiterRes(rlKey, 0, stored));
  }

  // Overrides of the store hooks RateLimiterStoreAbstract calls (not in the library's typings).
  _upsert(rlKey: string, points: number, msDuration: number, forceExpire = false): Promise<StoredWindow> {
    try {
      return Promise.resolve(this.windows.upsert(rlKey, points, msDuration, forceExpire));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  _get(rlKey: string): Promise<StoredWindow | null> {
    try {
      return Promise.resolve(this.windows.get(rlKey));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  _delete(rlKey: string): Promise<boolean> {
    try {
      return Promise.resolve(this.windows.delete(rlKey));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }
}

/** Longest wait for a PostgreSQL limiter's answer before its in-memory insurance answers. */
const POSTGRES_LIMIT_TIMEOUT_MS = 1_000;

/** A limiter on the given backend (memory when none is given). */
export function createLimiter(opts: LimiterOptions, backend: LimiterBackend = { kind: 'memory' }): RateLimiterAbstract {
  const base = { keyPrefix: opts.keyPrefix, points: opts.points, duration: opts.duration, ...(opts.blockDuration !== undefined ? { blockDuration: opts.blockDuration } : {}) };
  switch (backend.kind) {
    case 'memory':
      return new RateLimiterMemory(base);
    case 'sqlite':
      return new PreparedSqliteLimiter(backend.db, { ...base, insuranceLimiter: new RateLimiterMemory(base) });
    case 'postgres': {
      const insuranceLimiter = new RateLimiterMemory(base);
      const limiter = new RateLimiterPostgres({ ...base, storeClient: backend.pool, storeType: 'pool', tableName: LIMITS_TABLE, tableCreated: true, insuranceLimiter });
      // A PostgreSQL behind a network partition neither answers nor refuses: the insurance answers after a second.
      return new RLWrapperTimeouts({ ...base, limiter, insuranceLimiter, timeoutMs: POSTGRES_LIMIT_TIMEOUT_MS });
    }
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
