/**
 * The limiter factory on every backend (rate-limiter-flexible): the same window rules on memory,
 * SQLite, PostgreSQL and Redis; counters shared by two instances (two connections) on the shared
 * engines; the insurance limiter when Redis is down; the allow/deny adapter of the abuse limits.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentLimiters } from '../../src/kernel/backends.ts';
import { openDatabase } from '../../src/kernel/db.ts';
import { createLimiter, decisionLimiters, flushSqliteLimiters, LIMITS_TABLE, pgLimiterBackend, sqliteLimiterBackend, type LimiterBackend } from '../../src/kernel/limiter.ts';
import { openPgPool, type Pool } from '../../src/kernel/pg-store.ts';
import { createTestDatabase, dropRedisPrefix, randomSuffix, requireServices, TEST_REDIS_URL } from './services.ts';

/** Consume `n` points one at a time; the outcome of each. */
async function consumeN(rl: ReturnType<typeof createLimiter>, key: string, n: number): Promise<('ok' | 'limited')[]> {
  const out: ('ok' | 'limited')[] = [];
  for (let i = 0; i < n; i++) {
    try {
      await rl.consume(key);
      out.push('ok');
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      expect(err.msBeforeNext).toBeGreaterThan(0);
      out.push('limited');
    }
  }
  return out;
}

function windowRules(name: string, backend: () => LimiterBackend): void {
  it(`${name}: allows the points of a window, then refuses with the time to wait`, async () => {
    const rl = createLimiter({ keyPrefix: `w${randomSuffix()}`, points: 3, duration: 60 }, backend());
    expect(await consumeN(rl, 'acct:1', 4)).toEqual(['ok', 'ok', 'ok', 'limited']);
    expect(await consumeN(rl, 'acct:2', 1)).toEqual(['ok']);
    const res = await rl.get('acct:1');
    expect(res?.consumedPoints).toBe(4);
  });

  it(`${name}: penalty and reward move the window; a blocking limiter blocks past the window`, async () => {
    const rl = createLimiter({ keyPrefix: `p${randomSuffix()}`, points: 5, duration: 60 }, backend());
    await rl.consume('a', 2);
    expect((await rl.penalty('a', 2)).consumedPoints).toBe(4);
    expect((await rl.reward('a', 3)).consumedPoints).toBe(1);
    expect((await rl.get('a'))?.remainingPoints).toBe(4);
    expect(await rl.get('never')).toBeNull();
    const blocking = createLimiter({ keyPrefix: `b${randomSuffix()}`, points: 1, duration: 60, blockDuration: 120 }, backend());
    await blocking.consume('a');
    const refused: unknown = await blocking.consume('a').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimiterRes);
    expect((refused as RateLimiterRes).msBeforeNext).toBeGreaterThan(60_000);
  });
}

describe('limiter factory, local backends', () => {
  windowRules('memory', () => ({ kind: 'memory' }));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'limiter-'));
  const file = path.join(dir, 'app.sqlite');
  const db = openDatabase(file);
  afterAll(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  windowRules('sqlite', () => sqliteLimiterBackend(db));

  it('SQLite counters are written to the rate_limits table (every second and at close), and read back by a new process', async () => {
    const rl = createLimiter({ keyPrefix: 'persist', points: 5, duration: 60 }, sqliteLimiterBackend(db));
    await rl.consume('k', 2);
    flushSqliteLimiters(db);
    expect(db.prepare(`SELECT points FROM ${LIMITS_TABLE} WHERE key = ?`).get('persist:k')).toEqual({ points: 2 });
    // Another process on the same file (here: another connection) starts from the stored window.
    const other = openDatabase(file);
    const again = createLimiter({ keyPrefix: 'persist', points: 5, duration: 60 }, sqliteLimiterBackend(other));
    await again.consume('k', 2);
    await expect(again.consume('k', 2)).rejects.toBeInstanceOf(RateLimiterRes);
    expect((await again.get('k'))?.consumedPoints).toBe(6);
    other.close();
  });

  it('without a shared engine, a limiter asks for memory (default) or SQLite (`local: sqlite`)', async () => {
    const create = deploymentLimiters(undefined, db);
    await create({ keyPrefix: 'mem-only', points: 5, duration: 60 }).consume('k');
    await create({ keyPrefix: 'kept', points: 5, duration: 60, local: 'sqlite' }).consume('k');
    flushSqliteLimiters(db);
    expect(db.prepare(`SELECT key FROM ${LIMITS_TABLE} WHERE key IN ('mem-only:k', 'kept:k')`).all()).toEqual([{ key: 'kept:k' }]);
  });

  it('decisionLimiters adapts a limiter to the allow/deny shape of the /v2/apis abuse limits', async () => {
    const factory = decisionLimiters((o) => createLimiter(o));
    const perIp = factory({ name: 'apis-ip', points: 2, durationSec: 60 });
    expect((await perIp.consume('203.0.113.7')).allowed).toBe(true);
    expect(await perIp.consume('203.0.113.7')).toMatchObject({ allowed: true, remaining: 0 });
    const refused = await perIp.consume('203.0.113.7');
    expect(refused.allowed).toBe(false);
    expect(refused.msBeforeNext).toBeGreaterThan(0);
  });
});

const pgAvailable = await requireServices({ postgres: true });

describe.skipIf(!!pgAvailable.missing)(`limiter factory on PostgreSQL${pgAvailable.label}`, () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let poolA: Pool;
  let poolB: Pool;
  let a: LimiterBackend;
  let b: LimiterBackend;
  beforeAll(async () => {
    db = await createTestDatabase();
    poolA = openPgPool(db.url, { max: 2 });
    poolB = openPgPool(db.url, { max: 2 });
    [a, b] = await Promise.all([pgLimiterBackend(poolA), pgLimiterBackend(poolB)]);
  });
  afterAll(async () => {
    await poolA?.end();
    await poolB?.end();
    await db?.drop();
  });

  windowRules('postgres', () => a);

  it('two instances share one counter', async () => {
    const prefix = `rpm${randomSuffix()}`;
    const onA = createLimiter({ keyPrefix: prefix, points: 3, duration: 60 }, a);
    const onB = createLimiter({ keyPrefix: prefix, points: 3, duration: 60 }, b);
    expect(await consumeN(onA, 'acct:1', 2)).toEqual(['ok', 'ok']);
    expect(await consumeN(onB, 'acct:1', 2)).toEqual(['ok', 'limited']);
    expect(await consumeN(onA, 'acct:1', 1)).toEqual(['limited']);
  });
});

const redisAvailable = await requireServices({ redis: true });

describe.skipIf(!!redisAvailable.missing)(`limiter factory on Redis${redisAvailable.label}`, () => {
  const prefix = `apis_test_${randomSuffix()}:`;
  let clientA: Redis;
  let clientB: Redis;
  beforeAll(async () => {
    clientA = new Redis(TEST_REDIS_URL, { keyPrefix: prefix });
    clientB = new Redis(TEST_REDIS_URL, { keyPrefix: prefix });
    // Limiters answer from their insurance limiter until the connection is ready (as the service waits for it).
    await Promise.all([clientA.ping(), clientB.ping()]);
  });
  afterAll(async () => {
    await dropRedisPrefix(prefix);
    clientA?.disconnect();
    clientB?.disconnect();
  });

  windowRules('redis', () => ({ kind: 'redis', client: clientA }));

  it('two instances share one counter, kept under the deployment key prefix', async () => {
    const onA = createLimiter({ keyPrefix: 'rpm', points: 3, duration: 60 }, { kind: 'redis', client: clientA });
    const onB = createLimiter({ keyPrefix: 'rpm', points: 3, duration: 60 }, { kind: 'redis', client: clientB });
    expect(await consumeN(onA, 'acct:1', 2)).toEqual(['ok', 'ok']);
    expect(await consumeN(onB, 'acct:1', 2)).toEqual(['ok', 'limited']);
    const raw = new Redis(TEST_REDIS_URL);
    try {
      expect(Number(await raw.get(`${prefix}rpm:acct:1`))).toBe(4);
      expect(await raw.pttl(`${prefix}rpm:acct:1`)).toBeGreaterThan(0);
    } finally {
      raw.disconnect();
    }
  });

  it('when Redis is down, the in-memory insurance limiter answers instead of failing requests', async () => {
    const dead = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
    dead.on('error', () => undefined);
    const rl = createLimiter({ keyPrefix: 'rpm', points: 2, duration: 60 }, { kind: 'redis', client: dead });
    expect(await consumeN(rl, 'acct:1', 3)).toEqual(['ok', 'ok', 'limited']);
    dead.disconnect();
  });
});
