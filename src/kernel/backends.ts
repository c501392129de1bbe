/**
 * Which engines hold the shared state, from configuration:
 *
 * | setting        | snapshot store | rate limits                 | job locks           |
 * |----------------|----------------|-----------------------------|---------------------|
 * | (none)         | SQLite         | memory or SQLite (per use)  | none (one instance) |
 * | DATABASE_URL   | PostgreSQL     | PostgreSQL                  | PostgreSQL advisory |
 * | + REDIS_URL    | PostgreSQL     | Redis                       | Redis SET NX PX     |
 *
 * (`JOB_LOCK` overrides the lock choice; the gateway's keys and usage follow the snapshot store,
 * see gateway/store.ts.) SQLite is always opened at DB_PATH: `Service.db` and the local limiter
 * backend are there whatever the deployment.
 */
import os from 'node:os';
import type { Redis } from 'ioredis';
import { ConfigError, type Config } from '../config.ts';
import { openDatabase, type Db } from './db.ts';
import { lazyModule } from './lazy-module.ts';
import { LocalJobLock, PgJobLock, RedisJobLock, type JobLock } from './job-lock.ts';
import { createLimiter, flushSqliteLimiters, pgLimiterBackend, sqliteLimiterBackend, type CreateLimiter, type LimiterBackend, type LimiterOptions } from './limiter.ts';
import type { Logger } from './log.ts';
import { openPgPool, PgStore, type Pool } from './pg-store.ts';
import { SqliteStore } from './sqlite-store.ts';
import type { Store } from './store.ts';

export interface DeploymentSettings {
  instanceId: string;
  databaseUrl: string | undefined;
  databasePoolMax: number;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  jobLock: 'local' | 'postgres' | 'redis';
  jobLockTtlMs: number;
}

function str(config: Config, name: string): string | undefined {
  const v = config.values[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function protocolOf(url: string): string | undefined {
  try {
    return new URL(url).protocol;
  } catch {
    return undefined;
  }
}

/** Read and check the deployment settings; throws one ConfigError listing every problem. */
export function deploymentSettings(config: Config): DeploymentSettings {
  const problems: string[] = [];
  const databaseUrl = str(config, 'DATABASE_URL');
  const redisUrl = str(config, 'REDIS_URL');
  if (databaseUrl && !['postgres:', 'postgresql:'].includes(protocolOf(databaseUrl) ?? ''))
    problems.push('DATABASE_URL must be a PostgreSQL URL such as postgres://user:password@127.0.0.1:5432/apis');
  if (redisUrl && !['redis:', 'rediss:'].includes(protocolOf(redisUrl) ?? '')) problems.push('REDIS_URL must be a Redis URL such as redis://127.0.0.1:6379/0 (rediss:// for TLS)');
  const wanted = str(config, 'JOB_LOCK') ?? 'auto';
  const jobLock = wanted === 'auto' ? (redisUrl ? 'redis' : databaseUrl ? 'postgres' : 'local') : (wanted as DeploymentSettings['jobLock']);
  if (jobLock === 'redis' && !redisUrl) problems.push('JOB_LOCK=redis needs REDIS_URL');
  if (jobLock === 'postgres' && !databaseUrl) problems.push('JOB_LOCK=postgres needs DATABASE_URL');
  if (problems.length) throw new ConfigError(problems);
  return {
    instanceId: str(config, 'INSTANCE_ID') ?? `${os.hostname()}-${process.pid}`,
    databaseUrl,
    databasePoolMax: Number(config.values.DATABASE_POOL_MAX ?? 10),
    redisUrl,
    redisKeyPrefix: str(config, 'REDIS_KEY_PREFIX') ?? 'apis:',
    jobLock,
    jobLockTtlMs: Number(config.values.JOB_LOCK_TTL_MS ?? 60_000),
  };
}

export interface Backends {
  instanceId: string;
  store: Store;
  /** The SQLite database at DB_PATH (the whole state without DATABASE_URL). */
  db: Db;
  /** The PostgreSQL pool when DATABASE_URL is set. */
  pg: Pool | undefined;
  /** The Redis client (keys prefixed with REDIS_KEY_PREFIX) when REDIS_URL is set. */
  redis: Redis | undefined;
  jobLock: JobLock;
  /** Limiters shared by every instance when Redis or PostgreSQL is configured (see limiter.ts). */
  createLimiter: CreateLimiter;
  /** Close everything opened here, the store last. */
  close(): Promise<void>;
}

/**
 * `createLimiter` for this deployment: on the shared engine when there is one, else on the
 * local backend the caller asks for (`local: 'sqlite'` to survive restarts, memory by default).
 */
export function deploymentLimiters(shared: LimiterBackend | undefined, db: Db): CreateLimiter {
  // Its table is made now, at start: a first request that made it could meet a full disk.
  const sqlite = shared ? undefined : sqliteLimiterBackend(db);
  return (opts: LimiterOptions) => {
    if (shared) return createLimiter(opts, shared);
    if (opts.local === 'sqlite' && sqlite) return createLimiter(opts, sqlite);
    return createLimiter(opts);
  };
}

/** Without DATABASE_URL and REDIS_URL: everything in this process and its SQLite file. */
export function openLocalBackends(config: Config, d: DeploymentSettings): Backends {
  if (d.databaseUrl || d.redisUrl) throw new ConfigError(['DATABASE_URL and REDIS_URL need the asynchronous createServiceAsync() (src/main.ts uses it)']);
  const db = openDatabase(config.dbPath);
  const store = new SqliteStore(db);
  return {
    instanceId: d.instanceId,
    store,
    db,
    pg: undefined,
    redis: undefined,
    jobLock: new LocalJobLock(),
    createLimiter: deploymentLimiters(undefined, db),
    close: () => {
      flushSqliteLimiters(db);
      return store.close();
    },
  };
}

const ioredis = lazyModule<typeof import('ioredis')>('ioredis');

async function connectRedis(url: string, prefix: string, instanceId: string, log: Logger): Promise<Redis> {
  const client = new (ioredis().Redis)(url, { keyPrefix: prefix, connectionName: instanceId, lazyConnect: true, connectTimeout: 5_000, maxRetriesPerRequest: 2 });
  let lastError = '';
  client.on('error', (err: Error) => {
    if (err.message !== lastError) log.warn({ err: err.message }, 'redis connection error');
    lastError = err.message;
  });
  client.on('ready', () => {
    if (lastError) log.info('redis connection ready');
    lastError = '';
  });
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    client.disconnect();
    throw new Error(`REDIS_URL: cannot reach Redis (${(err as Error).message})`, { cause: err });
  }
  return client;
}

/** QUIT (pending commands finish), then wait until the connection is gone; cut it after 2 s. */
async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
  const cut = setTimeout(() => client.disconnect(), 2_000);
  await client.quit().catch(() => client.disconnect());
  await ended;
  clearTimeout(cut);
}

/** Open the engines the settings ask for: PostgreSQL and Redis are connected (and migrated) now. */
export async function openBackends(config: Config, d: DeploymentSettings, log: Logger): Promise<Backends> {
  if (!d.databaseUrl && !d.redisUrl) return openLocalBackends(config, d);
  const closers: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const c of closers.reverse()) await c().catch((err: Error) => log.warn({ err: err.message }, 'closing a backend failed'));
  };
  try {
    const db = openDatabase(config.dbPath);
    closers.push(async () => {
      flushSqliteLimiters(db);
      if (db.open) db.close();
    });
    let pool: Pool | undefined;
    let store: Store;
    if (d.databaseUrl) {
      const p = openPgPool(d.databaseUrl, { max: d.databasePoolMax, applicationName: d.instanceId });
      pool = p;
      p.on('error', (err) => log.warn({ err: err.message }, 'idle PostgreSQL connection failed'));
      closers.push(() => p.end());
      store = await PgStore.open(p);
    } else {
      store = new SqliteStore(db);
    }
    closers.push(() => store.close());
    const redis = d.redisUrl ? await connectRedis(d.redisUrl, d.redisKeyPrefix, d.instanceId, log) : undefined;
    if (redis) closers.push(() => closeRedis(redis));
    const jobLock: JobLock =
      d.jobLock === 'redis' && redis
        ? new RedisJobLock({ client: redis, owner: d.instanceId, ttlMs: d.jobLockTtlMs, log })
        : d.jobLock === 'postgres' && d.databaseUrl
          ? new PgJobLock({ url: d.databaseUrl, owner: d.instanceId, log })
          : new LocalJobLock();
    closers.push(() => jobLock.close());
    const shared: LimiterBackend | undefined = redis ? { kind: 'redis', client: redis } : pool ? await pgLimiterBackend(pool) : undefined;
    log.info({ instance: d.instanceId, store: pool ? 'postgres' : 'sqlite', limits: shared?.kind ?? 'local', jobLock: jobLock.kind }, 'backends ready');
    return { instanceId: d.instanceId, store, db, pg: pool, redis, jobLock, createLimiter: deploymentLimiters(shared, db), close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
