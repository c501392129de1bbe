/**
 * Per-job locks, so that with several instances exactly one runs each scheduled fetch.
 *
 * - `local` (default): no lock; one process, whose engine already coalesces runs.
 * - `postgres`: session advisory locks (`pg_try_advisory_lock` on a hash of the job) on one
 *   dedicated connection. A holder that dies loses its connection, and PostgreSQL releases its
 *   locks at once.
 * - `redis`: `SET key token NX PX ttl`, renewed while the job runs and released only by its
 *   token's owner. A holder that dies stops renewing; the lock expires after `ttlMs`.
 *
 * `run` never waits for a lock: when another holder has the job, it is skipped (`ran: false`),
 * because that holder is doing the work.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { lazyModule } from './lazy-module.ts';
import type { Logger } from './log.ts';
import { advisoryKey } from './pg-store.ts';

// Loaded when PostgreSQL is configured (see lazy-module.ts).
const pgModule = lazyModule<typeof pg>('pg');

export type LockResult<T> = { ran: true; value: T } | { ran: false };

/** The lock engine could not be asked (connection down): the job neither ran nor was skipped. */
export class JobLockError extends Error {
  constructor(job: string, cause: unknown) {
    super(`job lock for ${job} unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'JobLockError';
  }
}

export interface JobLock {
  readonly kind: 'local' | 'postgres' | 'redis';
  /**
   * Run `fn` while holding the job's lock; `{ ran: false }` when another holder has it. Throws
   * a JobLockError when the lock engine is unreachable, or what `fn` throws.
   */
  run<T>(job: string, fn: () => Promise<T>): Promise<LockResult<T>>;
  close(): Promise<void>;
}

/** One process: every job runs (the engine's single-flight coalesces concurrent runs). */
export class LocalJobLock implements JobLock {
  readonly kind = 'local';
  async run<T>(_job: string, fn: () => Promise<T>): Promise<LockResult<T>> {
    return { ran: true, value: await fn() };
  }
  async close(): Promise<void> {}
}

export interface PgJobLockOptions {
  url: string;
  /** `application_name` of the lock connection (the instance id), visible in `pg_stat_activity`. */
  owner: string;
  log: Logger;
}

export class PgJobLock implements JobLock {
  readonly kind = 'postgres';
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private readonly held = new Set<string>();
  private closed = false;

  constructor(private readonly opts: PgJobLockOptions) {}

  /** The lock connection; a new one after the previous one failed. */
  private connection(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const c = new (pgModule().Client)({ connectionString: this.opts.url, application_name: this.opts.owner.slice(0, 63), connectionTimeoutMillis: 5_000 });
      c.on('error', (err) => {
        this.opts.log.warn({ err: err.message }, 'job lock connection lost; its locks are released');
        if (this.client === c) this.client = undefined;
      });
      try {
        await c.connect();
      } catch (err) {
        await c.end().catch(() => undefined);
        throw err;
      }
      this.client = c;
      return c;
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  async run<T>(job: string, fn: () => Promise<T>): Promise<LockResult<T>> {
    if (this.closed || this.held.has(job)) return { ran: false };
    // Session locks are re-entrant on one connection: keep this process from taking a job twice.
    this.held.add(job);
    try {
      const key = advisoryKey(`job:${job}`);
      let c: pg.Client;
      let got: boolean;
      try {
        c = await this.connection();
        got = (await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [key])).rows[0]?.ok === true;
      } catch (err) {
        throw new JobLockError(job, err);
      }
      if (!got) return { ran: false };
      try {
        return { ran: true, value: await fn() };
      } finally {
        // After a reconnect the lock is already gone with the old session.
        if (this.client === c) await c.query('SELECT pg_advisory_unlock($1::bigint)', [key]).catch((err: Error) => this.opts.log.warn({ job, err: err.message }, 'job unlock failed'));
      }
    } finally {
      this.held.delete(job);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }
}

export interface RedisJobLockOptions {
  client: Redis;
  /** Written into the lock value (`owner:random`), so operators see who holds a job. */
  owner: string;
  /** Expiry of a lock whose holder stopped renewing it (died); renewed every ttl/3 while running. */
  ttlMs: number;
  log: Logger;
}

const RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/** Key of a job's lock (under the client's REDIS_KEY_PREFIX). */
export const redisLockKey = (job: string): string => `lock:${job}`;

export class RedisJobLock implements JobLock {
  readonly kind = 'redis';
  private closed = false;
  /** Locks held now: key → token, and the renewal timer. */
  private readonly held = new Map<string, { token: string; renew: NodeJS.Timeout }>();

  constructor(private readonly opts: RedisJobLockOptions) {}

  async run<T>(job: string, fn: () => Promise<T>): Promise<LockResult<T>> {
    if (this.closed) return { ran: false };
    const { client, ttlMs, log } = this.opts;
    const key = redisLockKey(job);
    const token = `${this.opts.owner}:${randomBytes(8).toString('hex')}`;
    let got: boolean;
    try {
      got = (await client.set(key, token, 'PX', ttlMs, 'NX')) === 'OK';
    } catch (err) {
      throw new JobLockError(job, err);
    }
    if (!got) return { ran: false };
    const renew = setInterval(() => {
      client.eval(RENEW, 1, key, token, ttlMs).then(
        (n) => {
          if (n === 0) log.warn({ job }, 'job lock lost (expired before renewal); another instance may run this job');
        },
        (err: Error) => log.warn({ job, err: err.message }, 'job lock renewal failed'),
      );
    }, Math.max(50, Math.floor(ttlMs / 3)));
    renew.unref();
    this.held.set(key, { token, renew });
    try {
      return { ran: true, value: await fn() };
    } finally {
      clearInterval(renew);
      // Released already when close() ran first.
      if (this.held.get(key)?.token === token) {
        this.held.delete(key);
        await client.eval(RELEASE, 1, key, token).catch((err: Error) => log.warn({ job, err: err.message }, 'job unlock failed'));
      }
    }
  }

  /** Stop taking jobs and release the locks held now (the jobs themselves are aborted by the engine). */
  async close(): Promise<void> {
    this.closed = true;
    const held = [...this.held];
    this.held.clear();
    await Promise.all(
      held.map(([key, { token, renew }]) => {
        clearInterval(renew);
        return this.opts.client.eval(RELEASE, 1, key, token).catch((err: Error) => this.opts.log.warn({ key, err: err.message }, 'job unlock failed'));
      }),
    );
  }
}
