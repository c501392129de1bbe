/**
 * Reaching the optional engines in tests: PostgreSQL (TEST_DATABASE_URL, default the local
 * server) and Redis (TEST_REDIS_URL). When one is not reachable its tests skip with a clear
 * message, unless REQUIRE_SERVICES=1 (set by .ci/run), which turns the skip into a failure.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const REQUIRED = ['1', 'true', 'yes'].includes((process.env.REQUIRE_SERVICES ?? '').toLowerCase());

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

async function probePg(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (err) {
    return `PostgreSQL is not reachable at ${redact(TEST_DATABASE_URL)} (${(err as Error).message})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function probeRedis(): Promise<string | undefined> {
  const client = new Redis(TEST_REDIS_URL, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  let cause = '';
  client.on('error', (err: Error) => (cause ||= err.message));
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (err) {
    return `Redis is not reachable at ${redact(TEST_REDIS_URL)} (${cause || (err as Error).message})`;
  } finally {
    client.disconnect();
  }
}

export interface Availability {
  /** Why the tests cannot run, or undefined when they can. */
  missing: string | undefined;
  /** Title suffix for a describe block: empty, or the skip reason. */
  label: string;
}

/**
 * Probe the engines a test file needs. Unavailable: a warning and `missing` set (skip), or a
 * thrown error under REQUIRE_SERVICES=1.
 */
export async function requireServices(what: { postgres?: boolean; redis?: boolean }): Promise<Availability> {
  const problems = (await Promise.all([what.postgres ? probePg() : undefined, what.redis ? probeRedis() : undefined])).filter((p): p is string => !!p);
  if (problems.length === 0) return { missing: undefined, label: '' };
  const missing = problems.join('; ');
  if (REQUIRED) throw new Error(`REQUIRE_SERVICES=1 but ${missing}. Start the service (or unset REQUIRE_SERVICES to skip these tests).`);
  console.warn(`[skipped] ${missing}: these tests skip (REQUIRE_SERVICES=1 makes this a failure).`);
  return { missing, label: ` (skipped: ${missing})` };
}

export function randomSuffix(): string {
  return randomBytes(5).toString('hex');
}

/** A fresh, empty database `apis_test_<random>` on the test server; `drop()` removes it. */
export async function createTestDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `apis_test_${randomSuffix()}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      try {
        // pool.end() resolves before its connections are gone: let them close (FORCE would
        // terminate them, and the test's clients would report it), then drop.
        const deadline = Date.now() + 5_000;
        while (Date.now() < deadline) {
          const open = (await c.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1', [name])).rows[0]?.n;
          if (Number(open) === 0) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Delete every Redis key under a prefix (the per-run prefix of a test). */
export async function dropRedisPrefix(prefix: string): Promise<void> {
  const client = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}

/** Poll `check` until it returns a value other than undefined/false, or fail after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 10_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${(lastError as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
