/**
 * The gateway store contract: one suite, run against SQLite (two connections to one file) and
 * PostgreSQL (two pools on one database) as two instances use them: one pepper, keys created on
 * one instance valid on the other, revocation seen at once everywhere, requests settled
 * atomically, usage rows and music tasks shared.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_PATTERN, type KeyStore, type NewKey } from '../../src/gateway/keys.ts';
import { openPgGatewayStore, openSqliteGatewayStore, type GatewayStore } from '../../src/gateway/store.ts';
import type { UsageRow } from '../../src/gateway/usage.ts';
import { migrate, openDatabase } from '../../src/kernel/db.ts';
import { openPgPool, pgMigrate } from '../../src/kernel/pg-store.ts';
import { pgGatewayMigrations } from '../../src/gateway/pg-stores.ts';
import { gatewayMigrations } from '../../src/gateway/schema.ts';
import { createTestDatabase, requireServices } from '../multi/services.ts';
import { settledRow } from './helpers.ts';

const newKey = (over: Partial<NewKey> = {}): NewKey => ({
  name: 'test',
  level: 'default',
  levelExplicit: false,
  quotaMicros: null,
  models: [],
  ips: [],
  expiresAt: null,
  ...over,
});

interface Backend {
  /** Two stores on one database, as two instances open it (no configured pepper). */
  openPair(): Promise<[GatewayStore, GatewayStore]>;
  /** A store on the same database with a configured pepper. */
  openWithPepper(pepper: string): Promise<GatewayStore>;
  close(): Promise<void>;
}

async function sqliteBackend(): Promise<Backend> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-store-'));
  const file = path.join(dir, 'app.sqlite');
  const dbs: ReturnType<typeof openDatabase>[] = [];
  const open = (pepper: string | undefined) => {
    const db = openDatabase(file);
    dbs.push(db);
    return openSqliteGatewayStore(db, pepper);
  };
  return {
    openPair: async () => [open(undefined), open(undefined)],
    openWithPepper: async (pepper) => open(pepper),
    async close() {
      for (const db of dbs) db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function pgBackend(): Promise<Backend> {
  const db = await createTestDatabase();
  const pools: ReturnType<typeof openPgPool>[] = [];
  const open = (pepper: string | undefined) => {
    const pool = openPgPool(db.url, { max: 3 });
    pools.push(pool);
    return openPgGatewayStore(pool, pepper);
  };
  return {
    openPair: () => Promise.all([open(undefined), open(undefined)]),
    openWithPepper: open,
    async close() {
      for (const pool of pools) await pool.end();
      await db.drop();
    },
  };
}

const pgAvail = await requireServices({ postgres: true });

const backends = [
  { name: 'SQLite', open: sqliteBackend, skip: undefined },
  { name: 'PostgreSQL', open: pgBackend, skip: pgAvail.missing },
];

for (const { name, open, skip } of backends) describe.skipIf(!!skip)(`gateway store contract: ${name}, two instances${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let backend: Backend;
  let a: GatewayStore;
  let b: GatewayStore;
  let keysA: KeyStore;
  let keysB: KeyStore;
  beforeAll(async () => {
    backend = await open();
    [a, b] = await backend.openPair();
    keysA = a.keys;
    keysB = b.keys;
  });
  afterAll(async () => {
    await backend?.close();
  });

  it('instances opened together agree on one generated pepper; a configured pepper must be long enough', async () => {
    const { key } = await keysA.create(newKey());
    expect((await keysB.findByKey(key))?.name).toBe('test');
    const peppered = await backend.openWithPepper('p'.repeat(16));
    expect(await peppered.keys.findByKey(key)).toBeUndefined();
    await expect(backend.openWithPepper('short')).rejects.toThrow(/at least 16/);
  });

  it('a key created on one instance is valid on the other; a revocation holds everywhere at once', async () => {
    const { key, record } = await keysA.create(newKey({ name: 'shared', models: ['gpt-4o*'], ips: ['10.0.0.0/8'], quotaMicros: 1_000_000, expiresAt: Date.parse('2030-01-01T00:00:00Z') }));
    expect(key).toMatch(KEY_PATTERN);
    expect(record).toMatchObject({ name: 'shared', accountId: record.id, level: 'default', models: ['gpt-4o*'], ips: ['10.0.0.0/8'], quotaMicros: 1_000_000, spentMicros: 0, usedTokens: 0, revokedAt: null });
    expect(record.hint).toBe(`${key.slice(0, 7)}…${key.slice(-4)}`);
    expect(await keysB.findByKey(key)).toEqual(record);
    expect(await keysB.findByKey(`sk-${'A'.repeat(43)}`)).toBeUndefined();
    const revoked = await keysB.revoke(record.id);
    expect(revoked?.revokedAt).toEqual(expect.any(Number));
    expect((await keysA.findByKey(key))?.revokedAt).toBe(revoked?.revokedAt);
    expect((await keysA.revoke(record.id))?.revokedAt).toBe(revoked?.revokedAt);
    expect(await keysA.revoke('key_missing')).toBeUndefined();
  });

  it('keys of one account share its level; an explicit level updates it', async () => {
    const first = await keysA.create(newKey({ account: 'acct-1', level: 'free' }));
    const second = await keysB.create(newKey({ account: 'acct-1', level: 'pro' }));
    expect(second.record.level).toBe('free');
    await keysB.create(newKey({ account: 'acct-1', level: 'pro', levelExplicit: true }));
    expect(await keysA.accountLevel('acct-1')).toBe('pro');
    expect((await keysA.get(first.record.id))?.level).toBe('pro');
    expect(await keysA.accountLevel('nobody')).toBeUndefined();
    const listed = (await keysB.list()).map((k) => k.id);
    expect(listed).toEqual(expect.arrayContaining([first.record.id, second.record.id]));
  });

  const usageRow = (requestId: string, keyId = 'key_u'): UsageRow =>
    settledRow({ requestId, settleId: `settle-${requestId}`, keyId, accountId: 'acct_u', route: '/v1/chat/completions', model: 'gpt-4o-mini', cachedTokens: 4, reasoningTokens: 2, audioOutputTokens: 1, ttfbMs: 12.6, durationMs: 40.2 });

  it('requests settled on both instances at once all add to the key, each with its row', async () => {
    const { record } = await keysA.create(newKey());
    const logs = [a.usage, b.usage];
    await Promise.all(Array.from({ length: 10 }, (_, i) => logs[i % 2]!.record({ ...usageRow(`c${i}`, record.id), chargedTokens: 10 })));
    expect(await keysB.get(record.id)).toMatchObject({ usedTokens: 100, requestCount: 10, lastUsedAt: expect.any(Number) });
    expect(await logs[1]!.forKey(record.id)).toHaveLength(10);
  });

  it('a settlement replayed (from the journal, on either instance, at once) is charged once', async () => {
    const { record } = await keysA.create(newKey({ quotaMicros: 1_000 }));
    const settled = { ...usageRow('replayed', record.id), costMicros: 300 };
    await Promise.all([a.usage.record(settled, 1_000), b.usage.record(settled, 1_000), a.usage.record(settled, 1_000)]);
    await b.usage.record(settled);
    expect(await keysB.get(record.id)).toMatchObject({ spentMicros: 300, requestCount: 1 });
    const rows = await a.usage.forKey(record.id);
    expect(rows).toHaveLength(1);
    // The settlement's own time, not the replay's.
    expect(rows[0]!.createdAt).toBe(1_000);
  });

  it('usage rows written by either instance, newest first', async () => {
    const row = (requestId: string) => usageRow(requestId);
    await a.usage.record(row('r1'));
    await b.usage.record({ ...row('r2'), stream: false, ttfbMs: null, usageSource: 'estimated' });
    const rows = await a.usage.forKey('key_u');
    expect(rows.map((r) => [r.requestId, r.stream, r.ttfbMs, r.usageSource, r.durationMs])).toEqual([
      ['r2', false, null, 'estimated', 40],
      ['r1', true, 13, 'upstream', 40],
    ]);
    expect(rows[0]).toMatchObject({ id: expect.any(Number), createdAt: expect.any(Number), totalTokens: 15 });
    // The parts of the tokens, stored with the row (issue 21).
    expect(rows[1]).toMatchObject({ cachedTokens: 4, cacheWriteTokens: 0, reasoningTokens: 2, audioInputTokens: 0, audioOutputTokens: 1 });
  });

  it('credit: concurrent reservations on both instances never exceed the credit; settling releases them', async () => {
    const { record } = await keysA.create(newKey({ quotaMicros: 1000 }));
    const stores = [keysA, keysB];
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % 2]!.reserve(record.id, `res-${record.id}-${i}`, 150)));
    // 1000 / 150: six reservations fit, whichever instance made them.
    expect(results.filter((r) => r.ok)).toHaveLength(6);
    const refused = results.find((r) => !r.ok);
    expect(refused).toMatchObject({ ok: false, heldMicros: 900, left: { micros: 1000, limitedBy: 'quota' } });
    // Settling one (cost 100 of its 150) frees its hold and charges the key.
    await a.usage.record({ ...usageRow('settle-1', record.id), costMicros: 100, reservationId: `res-${record.id}-${results.findIndex((r) => r.ok)}` });
    expect(await keysB.get(record.id)).toMatchObject({ spentMicros: 100 });
    // Left: 1000 - 100 spent - 5 × 150 held = 150.
    expect((await keysB.reserve(record.id, `res-${record.id}-x`, 100)).ok).toBe(true);
    expect((await keysA.reserve(record.id, `res-${record.id}-y`, 51)).ok).toBe(false);
    expect((await keysA.reserve(record.id, `res-${record.id}-z`, 50)).ok).toBe(true);
    // An unlimited key always fits.
    const free = await keysA.create(newKey());
    expect((await keysB.reserve(free.record.id, 'res-free', 10 ** 12)).ok).toBe(true);
  });

  it('credit: budgets count per period, top-ups and edits are seen by both instances', async () => {
    const { record } = await keysA.create(newKey({ quotaMicros: 500, budgetMicros: 300, budgetPeriod: 'daily' }));
    await b.usage.record({ ...usageRow('b1', record.id), costMicros: 200 });
    let k = await keysA.get(record.id);
    expect(k).toMatchObject({ spentMicros: 200, budgetSpentMicros: 200, budgetPeriod: 'daily' });
    expect(k!.budgetPeriodStart).toBe(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()));
    // Budget left 100 is the limit (quota left 300).
    expect(await keysB.reserve(record.id, `r-${record.id}-1`, 150)).toMatchObject({ ok: false, left: { micros: 100, limitedBy: 'budget' } });
    k = await keysB.topUp(record.id, 1000);
    expect(k?.quotaMicros).toBe(1500);
    k = await keysA.update(record.id, { budgetMicros: null, budgetPeriod: null, models: ['gpt-*'], level: 'pro', expiresAt: Date.parse('2031-01-01T00:00:00Z') });
    expect(k).toMatchObject({ budgetMicros: null, budgetPeriod: null, budgetSpentMicros: 0, models: ['gpt-*'], level: 'pro', expiresAt: Date.parse('2031-01-01T00:00:00Z') });
    expect((await keysB.reserve(record.id, `r-${record.id}-2`, 1300)).ok).toBe(true);
    expect(await keysA.update('key_missing', { name: 'x' })).toBeUndefined();
    // An unlimited key stays unlimited on a top-up.
    const free = await keysA.create(newKey());
    expect((await keysB.topUp(free.record.id, 5))?.quotaMicros).toBeNull();
  });

  it('daily spend per model for the billing usage view', async () => {
    const { record } = await keysA.create(newKey());
    await a.usage.record({ ...usageRow('d1', record.id), costMicros: 30 });
    await b.usage.record({ ...usageRow('d2', record.id), costMicros: 12 });
    await b.usage.record({ ...usageRow('d3', record.id), model: 'other', costMicros: 5 });
    const day = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
    expect(await a.usage.dailySpend(record.id, day, day + 86_400_000)).toEqual([
      { day, model: 'gpt-4o-mini', costMicros: 42, tokens: { prompt: 20, completion: 10, cached: 8, cacheWrite: 0, reasoning: 4, audioIn: 0, audioOut: 2 } },
      { day, model: 'other', costMicros: 5, tokens: { prompt: 10, completion: 5, cached: 4, cacheWrite: 0, reasoning: 2, audioIn: 0, audioOut: 1 } },
    ]);
  });

  it('each key\'s tokens with their parts since a time, for the console', async () => {
    const one = await keysA.create(newKey());
    const two = await keysA.create(newKey());
    const idle = await keysA.create(newKey());
    const before = Date.now() - 1;
    await a.usage.record(usageRow('t1', one.record.id));
    await b.usage.record(usageRow('t2', one.record.id));
    await b.usage.record({ ...usageRow('t3', two.record.id), audioInputTokens: 7 });
    const totals = await b.usage.tokensByKey([one.record.id, two.record.id, idle.record.id], before);
    expect(Object.fromEntries(totals)).toEqual({
      [one.record.id]: { prompt: 20, completion: 10, cached: 8, cacheWrite: 0, reasoning: 4, audioIn: 0, audioOut: 2 },
      [two.record.id]: { prompt: 10, completion: 5, cached: 4, cacheWrite: 0, reasoning: 2, audioIn: 7, audioOut: 1 },
    });
    expect((await a.usage.tokensByKey([one.record.id], Date.now() + 60_000)).size).toBe(0);
  });

  it('music tasks: the owner (and upstream) recorded first stays; finished tasks are cached per account', async () => {
    await a.tasks.recordOwner('task-1', 'acct-a', 'http://upstream-a.example');
    await b.tasks.recordOwner('task-1', 'acct-b', 'http://upstream-b.example');
    expect(await b.tasks.owner('task-1')).toEqual({ accountId: 'acct-a', upstream: 'http://upstream-a.example' });
    await b.tasks.recordOwner('task-3', 'acct-b');
    expect(await a.tasks.owner('task-3')).toEqual({ accountId: 'acct-b', upstream: null });
    expect(await a.tasks.owner('task-2')).toBeUndefined();
    expect(await b.tasks.cached('acct-a', 'task-1')).toBeUndefined();
    await a.tasks.store('acct-a', 'task-1', 'IN_PROGRESS', '{"v":1}');
    await b.tasks.store('acct-a', 'task-1', 'SUCCESS', '{"v":2}');
    expect(await a.tasks.cached('acct-a', 'task-1')).toBe('{"v":2}');
    expect(await a.tasks.cached('acct-b', 'task-1')).toBeUndefined();
  });
});

describe('gateway-006-credits converts token quotas at 500,000 tokens per USD', () => {
  const OLD_KEY = `INSERT INTO gateway_accounts (id, level, created_at) VALUES ('acct', 'default', 1);
    INSERT INTO gateway_keys (id, key_hash, key_prefix, key_last4, name, account_id, quota_tokens, used_tokens, created_at)
    VALUES ('key_old', 'h1', 'sk-abcd', 'wxyz', 'old', 'acct', 1000000, 250000, 1), ('key_free', 'h2', 'sk-abcd', 'wxyz', 'free', 'acct', NULL, 10, 1);`;
  const expected = [
    { id: 'key_free', quota_micros: null, spent_micros: 20 },
    { id: 'key_old', quota_micros: 2_000_000, spent_micros: 500_000 },
  ];

  it('SQLite', () => {
    const db = openDatabase(':memory:');
    const before = gatewayMigrations.findIndex((m) => m.name === 'gateway-006-credits');
    migrate(db, gatewayMigrations.slice(0, before));
    db.exec(OLD_KEY);
    migrate(db, gatewayMigrations);
    expect(db.prepare('SELECT id, quota_micros, spent_micros FROM gateway_keys ORDER BY id').all()).toEqual(expected);
    db.close();
  });

  it.skipIf(!!pgAvail.missing)(`PostgreSQL${pgAvail.missing ? ` (skipped: ${pgAvail.missing})` : ''}`, async () => {
    const test = await createTestDatabase();
    const pool = openPgPool(test.url, { max: 2 });
    try {
      const before = pgGatewayMigrations.findIndex((m) => m.name === 'gateway-006-credits');
      await pgMigrate(pool, pgGatewayMigrations.slice(0, before));
      await pool.query(OLD_KEY);
      await pgMigrate(pool, pgGatewayMigrations);
      expect((await pool.query('SELECT id, quota_micros, spent_micros FROM gateway_keys ORDER BY id')).rows).toEqual(expected);
    } finally {
      await pool.end();
      await test.drop();
    }
  });
});

describe('SQLite key cache: a settlement drops only the keys it charged', () => {
  it('a key charged is read again (its new spend seen); another key stays cached; an edit drops them all', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-keycache-'));
    const db = openDatabase(path.join(dir, 'app.sqlite'));
    try {
      const store = openSqliteGatewayStore(db, undefined);
      const charged = await store.keys.create(newKey({ quotaMicros: 1_000 }));
      const other = await store.keys.create(newKey());
      const before = { charged: (await store.keys.findByKey(charged.key))!, other: (await store.keys.findByKey(other.key))! };
      await store.usage.record({
        requestId: 'r1', settleId: 's1', keyId: charged.record.id, accountId: charged.record.accountId, route: '/v1/chat/completions', method: 'POST',
        model: 'm', stream: false, status: 200, upstreamStatus: 200, errorCode: null, promptTokens: 1, completionTokens: 1, totalTokens: 2, chargedTokens: 2,
        cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, audioInputTokens: 0, audioOutputTokens: 0, costMicros: 300, usageSource: 'upstream',
        endReason: 'completed', ttfbMs: 1, durationMs: 2,
      });
      // The charge is seen by the next lookup of that key.
      expect((await store.keys.findByKey(charged.key))?.spentMicros).toBe(300);
      // The other key's record was not read again: the same object as before.
      expect(await store.keys.findByKey(other.key)).toBe(before.other);
      // An edit may touch any key (its account's level): every record is read again.
      await store.keys.update(charged.record.id, { name: 'renamed' });
      expect(await store.keys.findByKey(other.key)).not.toBe(before.other);
      expect(await store.keys.findByKey(other.key)).toEqual(before.other);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
