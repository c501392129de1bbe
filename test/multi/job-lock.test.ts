/**
 * Job locks on the real engines, as two instances would use them: mutual exclusion, skipping
 * (never waiting), fail-over when the holder's connection dies (PostgreSQL) or its lock expires
 * (Redis), release only by the holder, and JobLockError when the engine is unreachable.
 */
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobLockError, LocalJobLock, PgJobLock, RedisJobLock, redisLockKey } from '../../src/kernel/job-lock.ts';
import { createLogger } from '../../src/kernel/log.ts';
import { createTestDatabase, dropRedisPrefix, randomSuffix, requireServices, TEST_REDIS_URL, waitFor } from './services.ts';

const log = createLogger('silent');

/** A job body (`fn`) that runs until released; `started` resolves once the lock holder calls it. */
function gate(): { fn: () => Promise<string>; release(): void; started: Promise<void> } {
  let release!: () => void;
  let markStarted!: () => void;
  const started = new Promise<void>((r) => (markStarted = r));
  const done = new Promise<string>((resolve) => {
    release = () => resolve('done');
  });
  return {
    fn: () => {
      markStarted();
      return done;
    },
    release,
    started,
  };
}

describe('LocalJobLock', () => {
  it('always runs (one process: the engine coalesces runs)', async () => {
    const lock = new LocalJobLock();
    const results = await Promise.all([lock.run('a', async () => 1), lock.run('a', async () => 2)]);
    expect(results).toEqual([
      { ran: true, value: 1 },
      { ran: true, value: 2 },
    ]);
  });
});

const pgAvailable = await requireServices({ postgres: true });

describe.skipIf(!!pgAvailable.missing)(`PgJobLock (advisory locks)${pgAvailable.label}`, () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: PgJobLock;
  let b: PgJobLock;
  let admin: pg.Client;
  beforeAll(async () => {
    db = await createTestDatabase();
    a = new PgJobLock({ url: db.url, owner: `lock-a-${randomSuffix()}`, log });
    b = new PgJobLock({ url: db.url, owner: `lock-b-${randomSuffix()}`, log });
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await admin?.end();
    await db?.drop();
  });

  it('one holder per job: the other instance (and a second run in the same one) skips; other jobs run', async () => {
    const g = gate();
    const held = a.run('fetch:x|', g.fn);
    await g.started;
    expect(await b.run('fetch:x|', async () => 'b')).toEqual({ ran: false });
    expect(await a.run('fetch:x|', async () => 'again')).toEqual({ ran: false });
    expect(await b.run('fetch:y|', async () => 'y')).toEqual({ ran: true, value: 'y' });
    g.release();
    expect(await held).toEqual({ ran: true, value: 'done' });
    expect(await b.run('fetch:x|', async () => 'b')).toEqual({ ran: true, value: 'b' });
  });

  it('releases the lock when the job throws', async () => {
    await expect(a.run('fetch:throws|', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await b.run('fetch:throws|', async () => 'ok')).toEqual({ ran: true, value: 'ok' });
  });

  it('fail-over: when the holder dies, PostgreSQL drops its session and another instance takes the job', async () => {
    const owner = `lock-dying-${randomSuffix()}`;
    const dying = new PgJobLock({ url: db.url, owner, log });
    const g = gate();
    const held = dying.run('fetch:failover|', g.fn);
    await g.started;
    expect(await b.run('fetch:failover|', async () => 'b')).toEqual({ ran: false });
    // The holder's connection dies (as with kill -9 of its process).
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [owner]);
    const took = await waitFor('another instance to take the job', async () => {
      const r = await b.run('fetch:failover|', async () => 'b');
      return r.ran ? r : undefined;
    });
    expect(took).toEqual({ ran: true, value: 'b' });
    g.release();
    expect(await held).toEqual({ ran: true, value: 'done' });
    // The dead holder reconnects for its next job.
    expect(await dying.run('fetch:next|', async () => 'next')).toEqual({ ran: true, value: 'next' });
    await dying.close();
  });

  it('throws JobLockError when PostgreSQL cannot be reached', async () => {
    const url = new URL(db.url);
    url.port = '1';
    const broken = new PgJobLock({ url: url.toString(), owner: 'broken', log });
    await expect(broken.run('fetch:z|', async () => 'z')).rejects.toBeInstanceOf(JobLockError);
    await broken.close();
  });
});

const redisAvailable = await requireServices({ redis: true });

describe.skipIf(!!redisAvailable.missing)(`RedisJobLock (SET NX PX)${redisAvailable.label}`, () => {
  const prefix = `apis_test_${randomSuffix()}:`;
  let client: Redis;
  let other: Redis;
  beforeAll(() => {
    client = new Redis(TEST_REDIS_URL, { keyPrefix: prefix });
    other = new Redis(TEST_REDIS_URL, { keyPrefix: prefix });
  });
  afterAll(async () => {
    await dropRedisPrefix(prefix);
    client?.disconnect();
    other?.disconnect();
  });

  it('one holder per job; the lock value names the holder; released after the job', async () => {
    const a = new RedisJobLock({ client, owner: 'instance-a', ttlMs: 5_000, log });
    const b = new RedisJobLock({ client: other, owner: 'instance-b', ttlMs: 5_000, log });
    const g = gate();
    const held = a.run('fetch:x|', g.fn);
    await g.started;
    expect(await other.get(redisLockKey('fetch:x|'))).toMatch(/^instance-a:[0-9a-f]{16}$/);
    expect(await b.run('fetch:x|', async () => 'b')).toEqual({ ran: false });
    expect(await b.run('fetch:y|', async () => 'y')).toEqual({ ran: true, value: 'y' });
    g.release();
    expect(await held).toEqual({ ran: true, value: 'done' });
    expect(await other.exists(redisLockKey('fetch:x|'))).toBe(0);
    expect(await b.run('fetch:x|', async () => 'b')).toEqual({ ran: true, value: 'b' });
  });

  it('renews the lock while the job runs longer than its ttl', async () => {
    const a = new RedisJobLock({ client, owner: 'instance-a', ttlMs: 300, log });
    const b = new RedisJobLock({ client: other, owner: 'instance-b', ttlMs: 300, log });
    const g = gate();
    const held = a.run('fetch:long|', g.fn);
    await g.started;
    const until = Date.now() + 1_000;
    while (Date.now() < until) {
      expect(await b.run('fetch:long|', async () => 'b')).toEqual({ ran: false });
      await new Promise((r) => setTimeout(r, 100));
    }
    g.release();
    await held;
  });

  it('fail-over: the lock of a holder that stopped renewing (died) expires, then another instance runs the job', async () => {
    const b = new RedisJobLock({ client: other, owner: 'instance-b', ttlMs: 5_000, log });
    // What a holder that was killed leaves behind: its lock, without renewals.
    await client.set(redisLockKey('fetch:dead|'), 'instance-dead:0000000000000000', 'PX', 400);
    expect(await b.run('fetch:dead|', async () => 'b')).toEqual({ ran: false });
    const took = await waitFor('the dead holder lock to expire', async () => {
      const r = await b.run('fetch:dead|', async () => 'b');
      return r.ran ? r : undefined;
    });
    expect(took).toEqual({ ran: true, value: 'b' });
  });

  it('a holder whose lock expired and was taken over does not release the new holder lock', async () => {
    const a = new RedisJobLock({ client, owner: 'instance-a', ttlMs: 5_000, log });
    const key = redisLockKey('fetch:stolen|');
    await a.run('fetch:stolen|', async () => {
      // Meanwhile the lock expired and instance b took it.
      await other.set(key, 'instance-b:1111111111111111', 'PX', 5_000);
    });
    expect(await other.get(key)).toBe('instance-b:1111111111111111');
  });

  it('throws JobLockError when Redis cannot be reached', async () => {
    const dead = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
    dead.on('error', () => undefined);
    const lock = new RedisJobLock({ client: dead, owner: 'x', ttlMs: 1_000, log });
    await expect(lock.run('fetch:z|', async () => 'z')).rejects.toBeInstanceOf(JobLockError);
    dead.disconnect();
  });
});
