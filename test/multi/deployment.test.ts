/**
 * Deployment settings and wiring: which backend each setting selects, the checks on
 * DATABASE_URL / REDIS_URL / JOB_LOCK / SCHEDULER_OVERRIDES, and the service (in process) on
 * PostgreSQL and Redis: store, limiter, job lock and schedule override wired.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { deploymentSettings } from '../../src/kernel/backends.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { parseScheduleOverrides } from '../../src/kernel/scheduler.ts';
import { defineSource, type AnySource } from '../../src/kernel/source.ts';
import { createService } from '../../src/service.ts';
import { asArray, asRecord, asString, hotListRows, validateHotList } from '../../sources/_shared/hot-list.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';
import { createTestDatabase, dropRedisPrefix, randomSuffix, requireServices, TEST_REDIS_URL, waitFor } from './services.ts';

function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('deployment settings', () => {
  it('select the job lock from what is configured, unless JOB_LOCK says otherwise', () => {
    const pgUrl = 'postgres://u:p@db:5432/apis';
    const redisUrl = 'redis://cache:6379/0';
    expect(deploymentSettings(loadConfig({})).jobLock).toBe('local');
    expect(deploymentSettings(loadConfig({ DATABASE_URL: pgUrl })).jobLock).toBe('postgres');
    expect(deploymentSettings(loadConfig({ DATABASE_URL: pgUrl, REDIS_URL: redisUrl })).jobLock).toBe('redis');
    expect(deploymentSettings(loadConfig({ DATABASE_URL: pgUrl, REDIS_URL: redisUrl, JOB_LOCK: 'postgres' })).jobLock).toBe('postgres');
    const d = deploymentSettings(loadConfig({ INSTANCE_ID: 'api-1' }));
    expect(d).toMatchObject({ instanceId: 'api-1', redisKeyPrefix: 'apis:', jobLockTtlMs: 60_000, databasePoolMax: 10 });
    expect(deploymentSettings(loadConfig({})).instanceId).toMatch(/-\d+$/);
  });

  it('list every bad value at once', () => {
    const found = problems(() => deploymentSettings(loadConfig({ DATABASE_URL: 'http://db/apis', REDIS_URL: 'cache:6379' })));
    expect(found).toEqual([expect.stringMatching(/^DATABASE_URL must be a PostgreSQL URL/), expect.stringMatching(/^REDIS_URL must be a Redis URL/)]);
    expect(problems(() => deploymentSettings(loadConfig({ JOB_LOCK: 'redis' })))).toEqual(['JOB_LOCK=redis needs REDIS_URL']);
    expect(problems(() => deploymentSettings(loadConfig({ JOB_LOCK: 'postgres' })))).toEqual(['JOB_LOCK=postgres needs DATABASE_URL']);
    expect(problems(() => loadConfig({ JOB_LOCK: 'zookeeper' }))).toEqual([expect.stringMatching(/JOB_LOCK must be one of auto, local, postgres, redis/)]);
  });

  it('SCHEDULER_OVERRIDES: id=cron pairs separated by ";", checked against the scheduled sources', () => {
    expect([...parseScheduleOverrides('a=*/10 * * * * *; b = 0,30 * * * *', ['a', 'b'])]).toEqual([
      ['a', '*/10 * * * * *'],
      ['b', '0,30 * * * *'],
    ]);
    expect(parseScheduleOverrides(undefined, ['a']).size).toBe(0);
    expect(problems(() => parseScheduleOverrides('a=not a cron;zz=* * * * *;nonsense', ['a']))).toEqual([
      expect.stringMatching(/"not a cron" \(for a\) is not a valid cron expression/),
      expect.stringMatching(/no scheduled source "zz"/),
      expect.stringMatching(/"nonsense" must look like id=cron/),
    ]);
  });

  it('the synchronous createService refuses DATABASE_URL and points to createServiceAsync', () => {
    expect(problems(() => createService({ env: { DB_PATH: ':memory:', DATABASE_URL: 'postgres://u@db/apis', LOG_LEVEL: 'silent' } }))).toEqual([
      expect.stringMatching(/createServiceAsync/),
    ]);
    expect(problems(() => createService({ env: { DB_PATH: ':memory:', LOG_LEVEL: 'silent', SCHEDULER_OVERRIDES: 'missing=* * * * *' } }))).toEqual([
      expect.stringMatching(/no scheduled source "missing"/),
    ]);
  });
});

const HOST = 'deploy.example.test';
const list = defineSource({
  id: 'deploy-list',
  name: 'Deploy list',
  description: 'A scheduled list for the deployment wiring test.',
  routes: [{ path: '/deploy-list' }],
  mode: 'scheduled',
  schedule: '0 0 1 1 *',
  freshness: { ttlSec: 600, timeoutMs: 2_000 },
  async fetch(ctx) {
    const items = asArray(asRecord(await ctx.http.json(`https://${HOST}/list`, { signal: ctx.signal }))?.items);
    if (!items) throw new SourceError('parse', 'no items');
    return items.map((x, i) => ({ rank: i + 1, title: asString(x) ?? '', link: `https://${HOST}/${i}` }));
  },
  validate: (d) => validateHotList(d, 2),
  view: { rows: hotListRows },
  example: '/v2/apis/deploy-list',
}) as AnySource;

const avail = await requireServices({ postgres: true, redis: true });

describe.skipIf(!!avail.missing)(`the service on PostgreSQL and Redis (in process)${avail.label}`, () => {
  const upstream = new Upstream();
  const prefix = `apis_test_${randomSuffix()}:`;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    upstream.serve(HOST, '/list', { body: { items: ['a', 'b', 'c'] } });
    db = await createTestDatabase();
    svc = await startService({
      upstream,
      sources: [list],
      env: {
        DATABASE_URL: db.url,
        REDIS_URL: TEST_REDIS_URL,
        REDIS_KEY_PREFIX: prefix,
        INSTANCE_ID: 'in-process',
        SCHEDULER_ENABLED: 'true',
        SCHEDULER_OVERRIDES: 'deploy-list=* * * * * *',
        SCHEDULER_JITTER_MS: '0',
        WARMUP_SPREAD_MS: '0',
      },
    });
  });
  afterAll(async () => {
    await svc?.close();
    await upstream.stop();
    await db?.drop();
    await dropRedisPrefix(prefix);
  });

  it('wires the PostgreSQL store, Redis limits and locks, and the schedule override', async () => {
    expect(svc.instanceId).toBe('in-process');
    expect(svc.jobLock.kind).toBe('redis');
    expect(svc.pg).toBeDefined();
    // Scheduled every second: the override replaced the yearly schedule.
    const next = svc.scheduler?.nextRuns().get('deploy-list');
    expect(next).toBeLessThanOrEqual(Date.now() + 1_500);
    await waitFor('two scheduled fetches', () => upstream.hits(HOST).length >= 2, 15_000);
    const res = await svc.get('/v2/apis/deploy-list');
    expect(res.status).toBe(200);
    const rows = (await svc.pg!.query<{ source_id: string; status: string }>('SELECT source_id, status FROM snapshots')).rows;
    expect(rows).toEqual([{ source_id: 'deploy-list', status: 'ok' }]);
    const rl = svc.createLimiter({ keyPrefix: 'wiring', points: 1, duration: 60 });
    await rl.consume('k');
    expect(await svc.redis!.exists('wiring:k')).toBe(1);
  });

  it('closes every connection it opened', async () => {
    await svc.close();
    expect(svc.redis!.status).toBe('end');
    expect(svc.pg!.ended).toBe(true);
  });
});
