/**
 * The gateway's PostgreSQL stores as two instances use them (two pools on one database): one
 * pepper, keys created on one instance valid on the other, revocation seen at once everywhere,
 * usage charged atomically, usage rows and music tasks shared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_PATTERN, type NewKey } from '../../src/gateway/keys.ts';
import { migrateGateway, PgKeyStore, PgTaskStore, PgUsageLog, resolvePgPepper } from '../../src/gateway/pg-stores.ts';
import type { UsageRow } from '../../src/gateway/usage.ts';
import { openPgPool, type Pool } from '../../src/kernel/pg-store.ts';
import { createTestDatabase, requireServices } from './services.ts';

const avail = await requireServices({ postgres: true });

const newKey = (over: Partial<NewKey> = {}): NewKey => ({
  name: 'test',
  level: 'default',
  levelExplicit: false,
  quotaTokens: null,
  models: [],
  ips: [],
  expiresAt: null,
  ...over,
});

describe.skipIf(!!avail.missing)(`gateway stores on PostgreSQL, two instances${avail.label}`, () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let poolA: Pool;
  let poolB: Pool;
  let keysA: PgKeyStore;
  let keysB: PgKeyStore;
  beforeAll(async () => {
    db = await createTestDatabase();
    poolA = openPgPool(db.url, { max: 3 });
    poolB = openPgPool(db.url, { max: 3 });
    const applied = await Promise.all([migrateGateway(poolA), migrateGateway(poolB)]);
    expect(applied.flat().sort()).toEqual(['gateway-001-keys', 'gateway-002-usage', 'gateway-004-music-tasks']);
    const [pepperA, pepperB] = await Promise.all([resolvePgPepper(poolA, undefined), resolvePgPepper(poolB, undefined)]);
    expect(pepperA).toBe(pepperB);
    keysA = new PgKeyStore(poolA, pepperA);
    keysB = new PgKeyStore(poolB, pepperB);
  });
  afterAll(async () => {
    await poolA?.end();
    await poolB?.end();
    await db?.drop();
  });

  it('a configured pepper wins and must be long enough', async () => {
    expect(await resolvePgPepper(poolA, 'p'.repeat(16))).toBe('p'.repeat(16));
    await expect(resolvePgPepper(poolA, 'short')).rejects.toThrow(/at least 16/);
  });

  it('a key created on one instance is valid on the other; a revocation holds everywhere at once', async () => {
    const { key, record } = await keysA.create(newKey({ name: 'shared', models: ['gpt-4o*'], ips: ['10.0.0.0/8'], quotaTokens: 1000, expiresAt: Date.parse('2030-01-01T00:00:00Z') }));
    expect(key).toMatch(KEY_PATTERN);
    expect(record).toMatchObject({ name: 'shared', accountId: record.id, level: 'default', models: ['gpt-4o*'], ips: ['10.0.0.0/8'], quotaTokens: 1000, usedTokens: 0, revokedAt: null });
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

  const usageRow = (requestId: string, keyId = 'key_u'): UsageRow => ({
    requestId,
    keyId,
    accountId: 'acct_u',
    route: '/v1/chat/completions',
    method: 'POST',
    model: 'gpt-4o-mini',
    stream: true,
    status: 200,
    upstreamStatus: 200,
    errorCode: null,
    promptTokens: 10,
    completionTokens: 5,
    totalTokens: 15,
    chargedTokens: 15,
    usageSource: 'upstream',
    endReason: 'completed',
    ttfbMs: 12.6,
    durationMs: 40.2,
  });

  it('requests settled on both instances at once all add to the key, each with its row', async () => {
    const { record } = await keysA.create(newKey());
    const logs = [new PgUsageLog(poolA), new PgUsageLog(poolB)];
    await Promise.all(Array.from({ length: 10 }, (_, i) => logs[i % 2]!.record({ ...usageRow(`c${i}`, record.id), chargedTokens: 10 })));
    expect(await keysB.get(record.id)).toMatchObject({ usedTokens: 100, requestCount: 10, lastUsedAt: expect.any(Number) });
    expect(await logs[1]!.forKey(record.id)).toHaveLength(10);
  });

  it('usage rows written by either instance, newest first', async () => {
    const row = (requestId: string) => usageRow(requestId);
    await new PgUsageLog(poolA).record(row('r1'));
    await new PgUsageLog(poolB).record({ ...row('r2'), stream: false, ttfbMs: null, usageSource: 'estimated' });
    const rows = await new PgUsageLog(poolA).forKey('key_u');
    expect(rows.map((r) => [r.requestId, r.stream, r.ttfbMs, r.usageSource, r.durationMs])).toEqual([
      ['r2', false, null, 'estimated', 40],
      ['r1', true, 13, 'upstream', 40],
    ]);
    expect(rows[0]).toMatchObject({ id: expect.any(Number), createdAt: expect.any(Number), totalTokens: 15 });
  });

  it('music tasks: the owner recorded first stays; finished tasks are cached per account', async () => {
    const a = new PgTaskStore(poolA);
    const b = new PgTaskStore(poolB);
    await a.recordOwner('task-1', 'acct-a');
    await b.recordOwner('task-1', 'acct-b');
    expect(await b.owner('task-1')).toBe('acct-a');
    expect(await a.owner('task-2')).toBeUndefined();
    expect(await b.cached('acct-a', 'task-1')).toBeUndefined();
    await a.store('acct-a', 'task-1', 'IN_PROGRESS', '{"v":1}');
    await b.store('acct-a', 'task-1', 'SUCCESS', '{"v":2}');
    expect(await a.cached('acct-a', 'task-1')).toBe('{"v":2}');
    expect(await a.cached('acct-b', 'task-1')).toBeUndefined();
  });
});
