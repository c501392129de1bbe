/**
 * The Store contract: one suite, run against every backend (SQLite, and PostgreSQL when it is
 * reachable). Write rules (the last good payload is never overwritten by a failure), history by
 * key and by change, first-seen times, runs, pruning, and concurrent writers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/kernel/db.ts';
import { openPgPool, PgStore, pgMigrate, pgStoreMigrations, type Pool } from '../../src/kernel/pg-store.ts';
import { SqliteStore } from '../../src/kernel/sqlite-store.ts';
import type { Store, SuccessWrite } from '../../src/kernel/store.ts';
import { createTestDatabase, requireServices } from '../multi/services.ts';

const T0 = Date.parse('2026-11-21T02:00:00Z');
const DAY = 86_400_000;

let seq = 0;
/** A source id of its own for each test, so tests share one database without interfering. */
const sid = (name: string) => `${name}-${++seq}`;

function ok(sourceId: string, payload: string, fetchedAt: number, extra: Partial<SuccessWrite> = {}): SuccessWrite {
  return {
    sourceId,
    paramsKey: '',
    params: '{}',
    payload,
    payloadHash: `h:${payload}`,
    itemCount: 1,
    fetchedAt,
    expiresAt: fetchedAt + 300_000,
    ...extra,
  };
}

function storeContract(name: string, open: () => Promise<{ store: Store; close(): Promise<void> }>, skip: string | undefined): void {
  describe.skipIf(!!skip)(`Store contract: ${name}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    let store: Store;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ store, close } = await open());
    });
    afterAll(async () => {
      await close?.();
    });

    it('stores a first success with every field, and answers undefined for unknown keys', async () => {
      const s = sid('first');
      expect(await store.getSnapshot(s, '')).toBeUndefined();
      const { changed } = await store.commitSuccess(ok(s, '{"a":1}', T0, { params: '{"limit":5}', itemCount: 7 }));
      expect(changed).toBe(true);
      expect(await store.getSnapshot(s, '')).toEqual({
        sourceId: s,
        paramsKey: '',
        params: '{"limit":5}',
        status: 'ok',
        payload: '{"a":1}',
        payloadHash: 'h:{"a":1}',
        itemCount: 7,
        fetchedAt: T0,
        expiresAt: T0 + 300_000,
        checkedAt: T0,
        nextAttemptAt: null,
        failCount: 0,
        lastError: null,
      });
    });

    it('a failure never touches the last good payload; a later success resets the failure state', async () => {
      const s = sid('fail');
      await store.commitSuccess(ok(s, '{"good":1}', T0));
      await store.recordFailure({ sourceId: s, paramsKey: '', params: '{}', checkedAt: T0 + 1000, error: `transient: ${'x'.repeat(900)}`, nextAttemptAt: T0 + 61_000 });
      await store.recordFailure({ sourceId: s, paramsKey: '', params: '{}', checkedAt: T0 + 2000, error: 'parse: boom', nextAttemptAt: T0 + 122_000 });
      const failing = await store.getSnapshot(s, '');
      expect(failing).toMatchObject({
        status: 'failing',
        payload: '{"good":1}',
        payloadHash: 'h:{"good":1}',
        itemCount: 1,
        fetchedAt: T0,
        expiresAt: T0 + 300_000,
        checkedAt: T0 + 2000,
        nextAttemptAt: T0 + 122_000,
        failCount: 2,
        lastError: 'parse: boom',
      });
      const { changed } = await store.commitSuccess(ok(s, '{"good":2}', T0 + 3000));
      expect(changed).toBe(true);
      expect(await store.getSnapshot(s, '')).toMatchObject({ status: 'ok', payload: '{"good":2}', failCount: 0, lastError: null, nextAttemptAt: null, checkedAt: T0 + 3000 });
    });

    it('truncates a stored error to 500 characters', async () => {
      const s = sid('trunc');
      await store.recordFailure({ sourceId: s, paramsKey: 'k', params: '{}', checkedAt: T0, error: 'y'.repeat(900), nextAttemptAt: T0 + 60_000 });
      expect((await store.getSnapshot(s, 'k'))?.lastError).toHaveLength(500);
    });

    it('a failure on a key that never had data records status never and no payload', async () => {
      const s = sid('never');
      await store.recordFailure({ sourceId: s, paramsKey: 'k=1', params: '{"k":1}', checkedAt: T0, error: 'blocked: 403', nextAttemptAt: T0 + 900_000 });
      await store.recordFailure({ sourceId: s, paramsKey: 'k=1', params: '{"k":1}', checkedAt: T0 + 5, error: 'blocked: 403 again', nextAttemptAt: T0 + 1_800_000 });
      expect(await store.getSnapshot(s, 'k=1')).toEqual({
        sourceId: s,
        paramsKey: 'k=1',
        params: '{"k":1}',
        status: 'never',
        payload: null,
        payloadHash: null,
        itemCount: null,
        fetchedAt: null,
        expiresAt: null,
        checkedAt: T0 + 5,
        nextAttemptAt: T0 + 1_800_000,
        failCount: 2,
        lastError: 'blocked: 403 again',
      });
    });

    it('appends history only when the payload changed (A, A, B, A keeps three rows), newest first', async () => {
      const s = sid('hist');
      expect((await store.commitSuccess(ok(s, 'A', T0))).changed).toBe(true);
      expect((await store.commitSuccess(ok(s, 'A', T0 + 1000))).changed).toBe(false);
      expect((await store.commitSuccess(ok(s, 'B', T0 + 2000))).changed).toBe(true);
      expect((await store.commitSuccess(ok(s, 'A', T0 + 3000))).changed).toBe(true);
      const rows = await store.listHistory(s, '', 10);
      expect(rows.map((r) => [r.payload, r.fetchedAt, r.historyKey])).toEqual([
        ['A', T0 + 3000, `t${T0 + 3000}`],
        ['B', T0 + 2000, `t${T0 + 2000}`],
        ['A', T0, `t${T0}`],
      ]);
      expect((await store.listHistory(s, '', 2)).map((r) => r.payload)).toEqual(['A', 'B']);
      expect(await store.getHistory(s, '', `t${T0 + 2000}`)).toEqual({ sourceId: s, paramsKey: '', historyKey: `t${T0 + 2000}`, fetchedAt: T0 + 2000, payloadHash: 'h:B', payload: 'B' });
      expect(await store.listHistory(s, 'other', 10)).toEqual([]);
    });

    it('keeps one history row per history key, replaced only when its payload changes, under historyParamsKey', async () => {
      const s = sid('daily');
      const day = (payload: string, at: number, date: string, paramsKey: string) => ok(s, payload, at, { paramsKey, historyKey: date, historyParamsKey: '' });
      await store.commitSuccess(day('d1-v1', T0, '2026-11-20', ''));
      await store.commitSuccess(day('d1-v1', T0 + 1000, '2026-11-20', 'date=2026-11-20'));
      expect(await store.getHistory(s, '', '2026-11-20')).toMatchObject({ payload: 'd1-v1', fetchedAt: T0 });
      await store.commitSuccess(day('d1-v2', T0 + 2000, '2026-11-20', ''));
      await store.commitSuccess(day('d2', T0 + 3000, '2026-11-21', ''));
      expect(await store.getHistory(s, '', '2026-11-20')).toMatchObject({ payload: 'd1-v2', fetchedAt: T0 + 2000, payloadHash: 'h:d1-v2' });
      expect((await store.listHistory(s, '', 10)).map((r) => r.historyKey)).toEqual(['2026-11-21', '2026-11-20']);
      expect(await store.getHistory(s, 'date=2026-11-20', '2026-11-20')).toBeUndefined();
      expect(await store.getSnapshot(s, 'date=2026-11-20')).toMatchObject({ payload: 'd1-v1' });
    });

    it('lists snapshots of one source or of all, ordered by source then params key (byte order)', async () => {
      const s = sid('list');
      for (const key of ['b=2', 'B=1', 'a=1', '']) await store.commitSuccess(ok(s, `p${key}`, T0, { paramsKey: key }));
      expect((await store.listSnapshots(s)).map((x) => x.paramsKey)).toEqual(['', 'B=1', 'a=1', 'b=2']);
      const all = await store.listSnapshots();
      const mine = all.filter((x) => x.sourceId === s).map((x) => x.paramsKey);
      expect(mine).toEqual(['', 'B=1', 'a=1', 'b=2']);
      const ids = all.map((x) => x.sourceId);
      expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    });

    it('remembers when each guid was first seen, across refreshes and more than one chunk', async () => {
      const s = sid('seen');
      const many = Array.from({ length: 450 }, (_, i) => `g${i}`);
      await store.commitSuccess(ok(s, 'v1', T0, { guids: ['a', 'b'] }));
      await store.commitSuccess(ok(s, 'v2', T0 + 60_000, { guids: ['b', 'c', ...many] }));
      const seen = await store.firstSeen(s, '', ['a', 'b', 'c', 'zz', ...many]);
      expect(seen.get('a')).toBe(T0);
      expect(seen.get('b')).toBe(T0);
      expect(seen.get('c')).toBe(T0 + 60_000);
      expect(seen.get('g449')).toBe(T0 + 60_000);
      expect(seen.has('zz')).toBe(false);
      expect(seen.size).toBe(453);
      expect((await store.firstSeen(s, '', [])).size).toBe(0);
      expect((await store.firstSeen(s, 'other', ['a'])).size).toBe(0);
    });

    it('records runs and lists the recent ones newest first', async () => {
      const s = sid('runs');
      await store.recordRun({ sourceId: s, paramsKey: '', startedAt: T0, ms: 120, outcome: 'ok' });
      await store.recordRun({ sourceId: s, paramsKey: 'k', startedAt: T0 + 1000, ms: 30, outcome: 'failed', error: 'transient: timeout' });
      await store.recordRun({ sourceId: s, paramsKey: '', startedAt: T0 + 2000, ms: 15, outcome: 'unchanged' });
      expect(await store.recentRuns(s, 2)).toEqual([
        { sourceId: s, paramsKey: '', startedAt: T0 + 2000, ms: 15, outcome: 'unchanged' },
        { sourceId: s, paramsKey: 'k', startedAt: T0 + 1000, ms: 30, outcome: 'failed', error: 'transient: timeout' },
      ]);
      expect(await store.recentRuns(sid('none'), 5)).toEqual([]);
    });

    it('prunes old history (keeping the newest rows per key), old first-seen rows, old runs, and keys over a cap', async () => {
      const s = sid('prune');
      const cap = sid('capped');
      const now = T0 + 100 * DAY;
      // Five history rows: days 0..4 (all older than the 30-day retention).
      for (let i = 0; i < 5; i++) await store.commitSuccess(ok(s, `old${i}`, T0 + i * DAY, { guids: [`old${i}`] }));
      // Two recent rows.
      await store.commitSuccess(ok(s, 'new1', now - DAY, { guids: ['new1'] }));
      await store.commitSuccess(ok(s, 'new2', now - 1000, { guids: ['new2'] }));
      await store.commitSuccess(ok(s, 'x', T0, { paramsKey: 'other' }));
      await store.recordRun({ sourceId: s, paramsKey: '', startedAt: now - 8 * DAY, ms: 1, outcome: 'ok' });
      await store.recordRun({ sourceId: s, paramsKey: '', startedAt: now - 6 * DAY, ms: 2, outcome: 'ok' });
      for (let i = 0; i < 5; i++) await store.commitSuccess(ok(cap, `c${i}`, now - (10 - i) * 1000, { paramsKey: `k=${i}` }));

      await store.prune({ now, retentionDays: 30, keepPerKey: 3, keyCaps: { [cap]: 2 } });

      expect((await store.listHistory(s, '', 10)).map((r) => r.payload)).toEqual(['new2', 'new1', 'old4']);
      // A key with a single old row keeps it (the newest rows per key are always kept).
      expect((await store.listHistory(s, 'other', 10)).map((r) => r.payload)).toEqual(['x']);
      const seen = await store.firstSeen(s, '', ['old0', 'old4', 'new1', 'new2']);
      expect([...seen.keys()].sort()).toEqual(['new1', 'new2']);
      expect((await store.recentRuns(s, 10)).map((r) => r.ms)).toEqual([2]);
      expect((await store.listSnapshots(cap)).map((x) => x.paramsKey)).toEqual(['k=3', 'k=4']);
      // The snapshots of uncapped sources stay.
      expect((await store.listSnapshots(s)).map((x) => x.paramsKey)).toEqual(['', 'other']);
    });

    it('concurrent writers of one key: one history row per distinct payload, consistent snapshot', async () => {
      const s = sid('race');
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.commitSuccess(ok(s, 'same', T0 + i))));
      expect(results.filter((r) => r.changed)).toHaveLength(1);
      expect(await store.listHistory(s, '', 10)).toHaveLength(1);
      expect((await store.getSnapshot(s, ''))?.payload).toBe('same');
    });
  });
}

storeContract(
  'SqliteStore',
  async () => {
    const store = new SqliteStore(openDatabase(':memory:'));
    return { store, close: () => store.close() };
  },
  undefined,
);

const pgAvailable = await requireServices({ postgres: true });

storeContract(
  'PgStore',
  async () => {
    const db = await createTestDatabase();
    const pool = openPgPool(db.url, { max: 4 });
    const store = await PgStore.open(pool);
    return {
      store,
      async close() {
        await store.close();
        await pool.end();
        await db.drop();
      },
    };
  },
  pgAvailable.missing,
);

describe.skipIf(!!pgAvailable.missing)(`PostgreSQL migrations${pgAvailable.label}`, () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  const pools: Pool[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await db?.drop();
  });

  it('instances migrating at the same moment apply each named migration exactly once', async () => {
    for (let i = 0; i < 4; i++) pools.push(openPgPool(db.url, { max: 2 }));
    const extra = [...pgStoreMigrations, { name: 'test-002-extra', sql: 'CREATE TABLE extra_table (id INTEGER PRIMARY KEY)' }];
    const applied = await Promise.all(pools.map((p) => pgMigrate(p, extra)));
    expect(applied.flat().sort()).toEqual(['store-001-snapshots-history', 'test-002-extra']);
    const rows = (await pools[0]!.query<{ name: string }>('SELECT name FROM migrations ORDER BY name')).rows.map((r) => r.name);
    expect(rows).toEqual(['store-001-snapshots-history', 'test-002-extra']);
    // Running again is a no-op.
    expect(await pgMigrate(pools[0]!, extra)).toEqual([]);
  });

  it('a failing migration rolls back every migration of its batch', async () => {
    const pool = openPgPool(db.url, { max: 1 });
    pools.push(pool);
    await expect(
      pgMigrate(pool, [
        { name: 'test-003-ok', sql: 'CREATE TABLE t3 (id INTEGER)' },
        { name: 'test-004-bad', sql: 'CREATE TABLE t4 (id NOSUCHTYPE)' },
      ]),
    ).rejects.toThrow(/nosuchtype/i);
    const names = (await pool.query<{ name: string }>('SELECT name FROM migrations')).rows.map((r) => r.name);
    expect(names).not.toContain('test-003-ok');
    expect((await pool.query("SELECT to_regclass('t3') AS t")).rows[0]).toEqual({ t: null });
  });
});
