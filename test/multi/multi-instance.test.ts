/**
 * Three real service processes (`node --import tsx src/main.ts`, as `npm start` runs it) on one
 * fresh PostgreSQL database (and one Redis key prefix), with the upstream mirror in this process
 * and hot-microblog on a 3-second schedule (SCHEDULER_OVERRIDES). Two deployments:
 * PostgreSQL + Redis (limits and job locks in Redis), and PostgreSQL alone (limits in
 * PostgreSQL, advisory-lock job locks).
 * - each schedule slot is fetched once across the instances (job locks), and every instance
 *   serves the shared snapshot;
 * - the /v2/apis abuse limit is shared (one counter);
 * - a gateway key made with `npm run keys` (on PostgreSQL) works on every instance, the
 *   account's RPM is one window across them, usage adds up, and a revocation holds everywhere;
 * - kill -9 of the instance holding the job lock mid-fetch: another instance takes the job over
 *   (Redis: once the lock expires; PostgreSQL: as soon as the dead session is gone), and the
 *   survivors keep serving.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisLockKey } from '../../src/kernel/job-lock.ts';
import { advisoryKey } from '../../src/kernel/pg-store.ts';
import { ModelUpstream } from '../gateway/model-upstream.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';
import { createTestDatabase, dropRedisPrefix, randomSuffix, requireServices, TEST_REDIS_URL, waitFor } from './services.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const HOST = 'm.weibo.cn';
const UPSTREAM_PATH = '/api/container/getIndex';
const SOURCE = 'hot-microblog';
const SLOT_MS = 3_000;
const LOCK_TTL_MS = 2_000;
const JOB = `fetch:${SOURCE}|`;
const GATEWAY_RPM = 4;
const AI_LEVELS = JSON.stringify({ shared: { rpm: GATEWAY_RPM, rpd: 1000, tpm: 0 } });
const execFileAsync = promisify(execFile);

interface Instance {
  id: string;
  port: number;
  proc: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let ipSeq = 0;
/** A client address of its own (TRUST_PROXY is on), so the abuse limit counts only where a test wants it to. */
const freshIp = () => `198.18.${Math.floor(++ipSeq / 250)}.${(ipSeq % 250) + 1}`;

/** classid/objid of the session advisory lock of a job, as pg_locks shows them. */
function advisoryIds(job: string): { classid: string; objid: string } {
  const k = BigInt.asUintN(64, BigInt(advisoryKey(`job:${job}`)));
  return { classid: String(k >> 32n), objid: String(k & 0xffffffffn) };
}

interface Deployment {
  name: string;
  redis: boolean;
}

const avail = await requireServices({ postgres: true, redis: true });

describe.skipIf(!!avail.missing).each<Deployment>([
  { name: 'PostgreSQL + Redis', redis: true },
  { name: 'PostgreSQL only', redis: false },
])(`three instances, $name${avail.label}`, (deployment) => {
  const upstream = new Upstream();
  const models = new ModelUpstream();
  const prefix = `apis_test_${randomSuffix()}:`;
  const instances: Instance[] = [];
  /** Arrival times of the upstream fetches of the source. */
  const hits: number[] = [];
  let stall: { release(): void; arrived: boolean } | undefined;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let admin: pg.Client;
  let redis: Redis;
  let dataDir: string;

  const get = (inst: Instance, p: string, ip = freshIp()) => fetch(`http://127.0.0.1:${inst.port}${p}`, { headers: { 'x-forwarded-for': ip } });
  const alive = () => instances.filter((i) => i.proc.exitCode === null && i.proc.signalCode === null);
  /** The instance holding the job's lock (Redis: the lock value; PostgreSQL: the session's application_name). */
  const lockHolder = async (): Promise<string | undefined> => {
    if (deployment.redis) return (await redis.get(redisLockKey(JOB)))?.split(':')[0];
    const { classid, objid } = advisoryIds(JOB);
    const rows = await admin.query<{ application_name: string }>(
      `SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted AND l.classid::text = $1 AND l.objid::text = $2 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [classid, objid],
    );
    return rows.rows[0]?.application_name;
  };
  const lastChecked = async () => (await admin.query<{ checked_at: string }>('SELECT checked_at FROM snapshots WHERE source_id = $1 AND params_key = $2', [SOURCE, ''])).rows[0]?.checked_at;

  function start(i: number, port: number): Instance {
    const id = `multi-${i}`;
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      TZ: 'UTC',
      PORT: String(port),
      HOST: '127.0.0.1',
      DB_PATH: path.join(dataDir, `${id}.sqlite`),
      DATABASE_URL: db.url,
      DATABASE_POOL_MAX: '4',
      ...(deployment.redis ? { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix } : {}),
      INSTANCE_ID: id,
      JOB_LOCK_TTL_MS: String(LOCK_TTL_MS),
      SOURCES_UPSTREAM_MIRROR: upstream.url,
      SCHEDULER_OVERRIDES: `${SOURCE}=*/3 * * * * *`,
      SCHEDULER_JITTER_MS: '0',
      WARMUP_SPREAD_MS: '0',
      HTTP_RETRY: '0',
      HTTP_TIMEOUT_MS: '30000',
      TRUST_PROXY: 'true',
      APIS_RATE_LIMIT: '5',
      APIS_RATE_WINDOW_SEC: '600',
      LOG_LEVEL: 'warn',
      AI_UPSTREAM_BASE_URL: models.url,
      AI_UPSTREAM_API_KEY: 'upstream-credential',
      AI_LEVELS,
    };
    const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: string[] = [];
    const keep = (chunk: Buffer) => {
      output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      if (output.length > 200) output.splice(0, output.length - 200);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    return { id, port, proc, output, exited };
  }

  async function ready(inst: Instance): Promise<void> {
    await waitFor(
      `${inst.id} to answer /healthz`,
      async () => {
        if (inst.proc.exitCode !== null) throw new Error(`${inst.id} exited with ${inst.proc.exitCode}:\n${inst.output.slice(-20).join('\n')}`);
        return (await fetch(`http://127.0.0.1:${inst.port}/healthz`)).ok;
      },
      90_000,
      200,
    );
  }

  /** `npm run keys -- <args> --json` against the deployment's PostgreSQL database. */
  async function keysCommand(args: string[]): Promise<Record<string, unknown>> {
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), DATABASE_URL: db.url, DB_PATH: path.join(dataDir, 'cli.sqlite'), AI_LEVELS, LOG_LEVEL: 'silent' };
    const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', 'src/cli/keys.ts', ...args, '--json'], { cwd: ROOT, env });
    return JSON.parse(stdout) as Record<string, unknown>;
  }
  const chat = (inst: Instance, key: string) =>
    fetch(`http://127.0.0.1:${inst.port}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-forwarded-for': freshIp() },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });

  beforeAll(async () => {
    await upstream.start();
    await models.start();
    const fixture = fs.readFileSync(path.join(FIXTURE_DIR, HOST, `${UPSTREAM_PATH}.json`));
    upstream.serve(HOST, UPSTREAM_PATH, async () => {
      hits.push(Date.now());
      if (stall) {
        stall.arrived = true;
        const s = stall;
        // Hang until the test releases it (the caller is killed meanwhile).
        await new Promise<void>((resolve) => (s.release = resolve));
      }
      return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: fixture };
    });
    db = await createTestDatabase();
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    redis = new Redis(TEST_REDIS_URL, { keyPrefix: prefix });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apis-multi-'));
    const ports = [await freePort(), await freePort(), await freePort()];
    instances.push(...ports.map((port, i) => start(i, port)));
    await Promise.all(instances.map(ready));
  }, 120_000);

  afterAll(async () => {
    stall?.release();
    await Promise.all(
      instances.map(async (inst) => {
        if (inst.proc.exitCode !== null || inst.proc.signalCode !== null) return;
        inst.proc.kill('SIGTERM');
        const timer = setTimeout(() => inst.proc.kill('SIGKILL'), 10_000);
        await inst.exited;
        clearTimeout(timer);
      }),
    );
    await upstream.stop();
    await models.stop();
    await admin?.end();
    redis?.disconnect();
    await db?.drop();
    await dropRedisPrefix(prefix);
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('fetches each schedule slot once across the instances', async () => {
    // Warm-up done (one instance fetched), then watch several slots.
    await waitFor('the first fetch', () => hits.length > 0, 30_000);
    const from = Date.now();
    await waitFor('four schedule slots', () => Date.now() - from >= 4 * SLOT_MS + 500, 30_000, 250);
    const to = Date.now();
    const slots = Math.floor(to / SLOT_MS) - Math.floor(from / SLOT_MS);
    const seen = hits.filter((t) => t >= from && t <= to).length;
    // Without job locks each of the three instances fetches every slot (about 3 × slots).
    expect(seen, `hits ${seen} in ${slots} slots`).toBeLessThanOrEqual(slots + 1);
    expect(seen).toBeGreaterThanOrEqual(2);
    const runs = (await admin.query<{ n: string }>('SELECT count(*) AS n FROM runs WHERE source_id = $1 AND started_at BETWEEN $2 AND $3', [SOURCE, from, to])).rows[0];
    expect(Number(runs?.n)).toBeLessThanOrEqual(slots + 1);
  }, 60_000);

  it('every instance serves the shared snapshot', async () => {
    const bodies = await Promise.all(
      instances.map(async (inst) => {
        const res = await get(inst, `/v2/apis/${SOURCE}`);
        expect(res.status, inst.id).toBe(200);
        expect(['HIT', 'STALE']).toContain(res.headers.get('x-cache'));
        return (await res.json()) as { data: { title: string }[] };
      }),
    );
    const titles = bodies.map((b) => b.data.map((i) => i.title));
    expect(titles[0]?.length).toBeGreaterThan(5);
    expect(titles[1]).toEqual(titles[0]);
    expect(titles[2]).toEqual(titles[0]);
    const snapshots = await admin.query('SELECT status FROM snapshots WHERE source_id = $1', [SOURCE]);
    expect(snapshots.rows).toEqual([{ status: 'ok' }]);
  });

  it('shares the /v2/apis abuse limit across instances (one counter)', async () => {
    const ip = '203.0.113.50';
    const statuses: number[] = [];
    for (let n = 0; n < 5; n++) statuses.push((await get(instances[n % 3]!, '/v2/apis', ip)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    // Five requests spread over three instances used up the limit of 5 everywhere.
    for (const inst of instances) {
      const res = await get(inst, '/v2/apis', ip);
      expect(res.status, inst.id).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Other clients are not affected.
    expect((await get(instances[2]!, '/v2/apis')).status).toBe(200);
  });

  it('a gateway key from `npm run keys` works on every instance, with one RPM window and one usage count; its revocation holds everywhere', async () => {
    const created = await keysCommand(['create', '--name', 'multi', '--account', 'team-multi', '--level', 'shared']);
    const key = String(created.key);
    const id = String(created.id);

    const answers: number[] = [];
    for (let n = 0; n < GATEWAY_RPM; n++) {
      const res = await chat(instances[n % 3]!, key);
      answers.push(res.status);
      expect(res.headers.get('x-ratelimit-remaining-requests'), instances[n % 3]!.id).toBe(String(GATEWAY_RPM - 1 - n));
      await res.arrayBuffer();
    }
    expect(answers).toEqual([200, 200, 200, 200]);
    // The account's requests-per-minute window is used up on every instance, not only on the one that counted last.
    for (const inst of instances) {
      const res = await chat(inst, key);
      expect(res.status, inst.id).toBe(429);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
    }

    // Usage is settled in the shared database; the keys command sees every instance's requests.
    const shown = await waitFor(
      'the usage of all seven requests',
      async () => {
        const s = await keysCommand(['show', id]);
        return (s.recent_requests as unknown[]).length === 7 ? s : undefined;
      },
      10_000,
      200,
    );
    expect(shown).toMatchObject({ requests: 7, account: 'team-multi', level: 'shared' });
    expect(shown.used_tokens).toBeGreaterThan(0);
    expect((shown.recent_requests as { status: number }[]).map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 429, 429, 429]);

    expect(await keysCommand(['revoke', id])).toMatchObject({ id, revoked_at: expect.any(String) });
    for (const inst of instances) {
      const res = await chat(inst, key);
      expect(res.status, inst.id).toBe(401);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/revoked/);
    }
  }, 60_000);

  it('kill -9 of the lock holder mid-fetch: another instance takes the job over and the survivors keep serving', async () => {
    stall = { release: () => undefined, arrived: false };
    const s = stall;
    await waitFor('a scheduled fetch to hang at the upstream', () => s.arrived, 30_000, 50);
    const holderId = await waitFor('the job lock holder', () => lockHolder(), 5_000, 50);
    const holder = instances.find((i) => i.id === holderId);
    expect(holder, `lock holder ${holderId}`).toBeDefined();
    const before = Number(await lastChecked());

    holder!.proc.kill('SIGKILL');
    await holder!.exited;
    const killedAt = Date.now();
    stall = undefined;
    s.release();

    // A survivor takes the lock (once the dead holder's lock expires) and commits a fresh fetch.
    const taken = await waitFor(
      'a survivor to fetch and commit',
      async () => {
        const checked = Number(await lastChecked());
        return checked > before && checked > killedAt && hits.some((t) => t > killedAt) ? checked : undefined;
      },
      LOCK_TTL_MS + 6 * SLOT_MS + 10_000,
      100,
    );
    expect(taken).toBeGreaterThan(killedAt);
    expect(await lockHolder()).not.toBe(holderId);

    // The survivors keep serving.
    expect(alive()).toHaveLength(2);
    for (const inst of alive()) expect((await get(inst, `/v2/apis/${SOURCE}`)).status, inst.id).toBe(200);
  }, 90_000);
});
