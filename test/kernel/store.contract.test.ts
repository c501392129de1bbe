/**
 * The Store contract: one suite, run against every backend (SQLite, and PostgreSQL when it is
 * reachable). Write rules (the last good payload is never overwritten by a failure), history by
 * key and by change, first-seen times, runs, pruning, and concurrent writers.
 */
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHash, type ArchiveWrite } from '../../src/kernel/archive.ts';
import { migrate, openDatabase } from '../../src/kernel/db.ts';
import { openPgPool, PgStore, pgMigrate, pgStoreMigrations, type Pool } from '../../src/kernel/pg-store.ts';
import { pgArchiveMigrations } from '../../src/kernel/pg-archive.ts';
import { archiveMigrations } from '../../src/kernel/sqlite-archive.ts';
import { SqliteStore, storeMigrations } from '../../src/kernel/sqlite-store.ts';
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

/** An archive write of a hot-list-like payload fetched at `at` (its `updated_at` is the fetch time). */
function snap(sourceId: string, items: string[], at: number, paramsKey = ''): ArchiveWrite {
  const data = { list: items.map((title, i) => ({ rank: i + 1, title })), updated_at: at };
  return { sourceId, paramsKey, fetchedAt: at, contentHash: contentHash(data), payload: JSON.stringify(data) };
}
const MIN = 60_000;

/**
 * A hot list of 50 items as it changes from fetch to fetch: every heat value drifts, neighbours
 * swap now and then, a new entry replaces the last one every sixth fetch.
 */
function driftingList(fetches: number): unknown[][] {
  let seed = 7;
  const rand = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const words = '城市交通天气节日演出球赛新品发布会议旅行美食科技教育医疗健康电影音乐游戏';
  const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(rand() * words.length)]).join('');
  let list = Array.from({ length: 50 }, (_, i) => ({
    rank: i + 1,
    title: text(12),
    link: `https://example.test/t/${Math.floor(rand() * 1e9)}`,
    hot_value: 5_000_000 - i * 70_000,
    hot_value_desc: '',
    desc: text(40),
    cover: `https://img.example.test/${Math.floor(rand() * 1e12).toString(36)}.jpg`,
    label: i % 7 ? null : '热',
  }));
  const out: unknown[][] = [];
  for (let n = 0; n < fetches; n++) {
    list = list.map((x) => ({ ...x, hot_value: Math.round(x.hot_value * (0.99 + rand() * 0.02)) }));
    if (rand() < 0.3) {
      const i = Math.floor(rand() * 49);
      [list[i], list[i + 1]] = [list[i + 1]!, list[i]!];
    }
    if (n % 6 === 5) list[49] = { ...list[49]!, title: text(12), link: `https://example.test/n/${n}`, desc: text(40) };
    list = list.map((x, i) => ({ ...x, rank: i + 1, hot_value_desc: `${(x.hot_value / 10_000).toFixed(1)}万` }));
    out.push(list);
  }
  return out;
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

    it('writes no history row without a history key (the archive keeps those states)', async () => {
      const s = sid('hist');
      expect((await store.commitSuccess(ok(s, 'A', T0))).changed).toBe(true);
      expect((await store.commitSuccess(ok(s, 'A', T0 + 1000))).changed).toBe(false);
      expect((await store.commitSuccess(ok(s, 'B', T0 + 2000))).changed).toBe(true);
      expect(await store.listHistory(s, '', 10)).toEqual([]);
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
      for (let i = 0; i < 5; i++) await store.commitSuccess(ok(s, `old${i}`, T0 + i * DAY, { guids: [`old${i}`], historyKey: `old${i}` }));
      // Two recent rows.
      await store.commitSuccess(ok(s, 'new1', now - DAY, { guids: ['new1'], historyKey: 'new1' }));
      await store.commitSuccess(ok(s, 'new2', now - 1000, { guids: ['new2'], historyKey: 'new2' }));
      await store.commitSuccess(ok(s, 'x', T0, { paramsKey: 'other', historyKey: 'x' }));
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

    it('a retention of 0 days keeps every history row and first-seen time', async () => {
      const s = sid('keep');
      for (let i = 0; i < 4; i++) await store.commitSuccess(ok(s, `d${i}`, T0 + i * DAY, { guids: [`g${i}`], historyKey: `d${i}` }));
      await store.prune({ now: T0 + 1000 * DAY, retentionDays: 0, keepPerKey: 1, keyCaps: {} });
      expect(await store.listHistory(s, '', 10)).toHaveLength(4);
      expect((await store.firstSeen(s, '', ['g0', 'g3'])).size).toBe(2);
    });

    it('concurrent writers of one key: one history row per distinct payload, consistent snapshot', async () => {
      const s = sid('race');
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.commitSuccess(ok(s, 'same', T0 + i, { historyKey: 'day' }))));
      expect(results.filter((r) => r.changed)).toHaveLength(1);
      expect(await store.listHistory(s, '', 10)).toHaveLength(1);
      expect((await store.getSnapshot(s, ''))?.payload).toBe('same');
    });

    describe('archive', () => {
      it('an unchanged fetch extends the newest snapshot; a change appends; recurring content shares one payload', async () => {
        const s = sid('arch');
        const before = await store.archive.stats();
        expect(await store.archive.record(snap(s, ['a', 'b'], T0))).toEqual({ appended: true, snapshotAt: T0 });
        // Same content, new fetch time: no new row, seen_until moves.
        expect(await store.archive.record(snap(s, ['a', 'b'], T0 + 5 * MIN))).toEqual({ appended: false, snapshotAt: T0 });
        expect(await store.archive.record(snap(s, ['b', 'a'], T0 + 10 * MIN))).toEqual({ appended: true, snapshotAt: T0 + 10 * MIN });
        expect(await store.archive.record(snap(s, ['a', 'b'], T0 + 15 * MIN))).toEqual({ appended: true, snapshotAt: T0 + 15 * MIN });
        expect(await store.archive.record(snap(s, ['a', 'b'], T0 + 20 * MIN))).toEqual({ appended: false, snapshotAt: T0 + 15 * MIN });
        const all = await store.archive.list(s, '', { from: 0, to: T0 + DAY, limit: 10 });
        expect(all.map((x) => [x.fetchedAt, x.seenUntil])).toEqual([
          [T0, T0 + 5 * MIN],
          [T0 + 10 * MIN, T0 + 10 * MIN],
          [T0 + 15 * MIN, T0 + 20 * MIN],
        ]);
        // The first and third snapshots are one payload, stored once, as first fetched.
        expect(all[0]!.contentHash).toBe(all[2]!.contentHash);
        expect(JSON.parse(all[2]!.payload)).toEqual({ list: [{ rank: 1, title: 'a' }, { rank: 2, title: 'b' }], updated_at: T0 });
        const after = await store.archive.stats();
        expect(after.snapshots - before.snapshots).toBe(3);
        expect(after.payloads - before.payloads).toBe(2);
        expect(after.storedBytes).toBeGreaterThan(before.storedBytes);
        expect(await store.archive.bounds(s, '')).toEqual({ first: T0, last: T0 + 15 * MIN, lastSeen: T0 + 20 * MIN, count: 3 });
        expect(await store.archive.bounds(s, 'other')).toBeUndefined();
      });

      it('answers the snapshot in force at a moment: none before the first, exact times inclusive, the newest after the last', async () => {
        const s = sid('at');
        await store.archive.record(snap(s, ['one'], T0));
        await store.archive.record(snap(s, ['two'], T0 + 10 * MIN));
        await store.archive.record(snap(s, ['one'], T0 + 10 * MIN, 'k=1'));
        const title = async (at: number, key = '') => {
          const x = await store.archive.at(s, key, at);
          return x && (JSON.parse(x.payload) as { list: { title: string }[] }).list[0]!.title;
        };
        expect(await title(T0 - 1)).toBeUndefined();
        expect(await title(T0)).toBe('one');
        expect(await title(T0 + 10 * MIN - 1)).toBe('one');
        expect(await title(T0 + 10 * MIN)).toBe('two');
        expect(await title(T0 + 100 * DAY)).toBe('two');
        // Keys are separate.
        expect(await title(T0 + 5 * MIN, 'k=1')).toBeUndefined();
        expect(await store.archive.at(s, '', T0 + 5 * MIN)).toMatchObject({ sourceId: s, paramsKey: '', fetchedAt: T0, seenUntil: T0 });
        // A window lists what was in force during it, oldest first.
        expect((await store.archive.list(s, '', { from: T0 + 1, to: T0 + 20 * MIN, limit: 10 })).map((x) => x.fetchedAt)).toEqual([T0 + 10 * MIN]);
        expect((await store.archive.list(s, '', { from: T0, to: T0 + 20 * MIN, limit: 1 })).map((x) => x.fetchedAt)).toEqual([T0]);
      });

      it('retention drops snapshots last seen before the cutoff and their orphaned payloads, never a key\'s newest; 0 keeps all', async () => {
        const s = sid('ret');
        const now = T0 + 60 * DAY;
        await store.archive.record(snap(s, ['shared'], T0));
        await store.archive.record(snap(s, ['gone'], T0 + DAY));
        await store.archive.record(snap(s, ['shared'], now - DAY));
        await store.archive.record(snap(s, ['only-old'], T0, 'k=old'));
        expect(await store.archive.prune({ now, retentionDays: 0 })).toEqual({ snapshots: 0, payloads: 0 });
        expect((await store.archive.list(s, '', { from: 0, to: now, limit: 10 })).length).toBe(3);
        const before = await store.archive.stats();
        const pruned = await store.archive.prune({ now, retentionDays: 30 });
        expect(pruned.snapshots).toBeGreaterThanOrEqual(2);
        expect((await store.archive.list(s, '', { from: 0, to: now, limit: 10 })).map((x) => x.fetchedAt)).toEqual([now - DAY]);
        // The payload shared with the surviving snapshot stays readable; the orphan went.
        expect(JSON.parse((await store.archive.at(s, '', now))!.payload).list[0].title).toBe('shared');
        expect((await store.archive.stats()).payloads).toBeLessThan(before.payloads);
        // A key whose only snapshot is old keeps it (it is still the one in force).
        expect((await store.archive.at(s, 'k=old', now))?.fetchedAt).toBe(T0);
        expect(await store.archive.bounds(s, '')).toMatchObject({ first: now - DAY, count: 1 });
      });

      it('stores a changing list as deltas against the previous payload, every snapshot read back byte for byte', async () => {
        const s = sid('delta');
        const lists = driftingList(80); // more than two chains of deltas (MAX_CHAIN) with their keyframes
        const before = await store.archive.stats();
        const payloads = lists.map((l) => JSON.stringify(l));
        for (const [i, l] of lists.entries()) await store.archive.record({ sourceId: s, paramsKey: '', fetchedAt: T0 + i * 5 * MIN, contentHash: contentHash(l), payload: payloads[i]! });
        for (const [i, p] of payloads.entries()) expect((await store.archive.at(s, '', T0 + i * 5 * MIN + 1))?.payload).toBe(p);
        expect((await store.archive.list(s, '', { from: 0, to: T0 + DAY, limit: 100 })).map((x) => x.payload)).toEqual(payloads);
        const after = await store.archive.stats();
        expect(after.payloads - before.payloads).toBe(80);
        expect(after.rawBytes - before.rawBytes).toBe(payloads.reduce((n, p) => n + Buffer.byteLength(p), 0));
        // Whole, each payload would take about its first one's compressed size; as deltas far less.
        const whole = (await store.archive.at(s, '', T0))!.payload;
        const keyframeBytes = (await import('../../src/kernel/archive-payloads.ts')).packPayload(whole).length;
        expect(after.storedBytes - before.storedBytes).toBeLessThan(0.5 * 80 * keyframeBytes);
      });

      it('retention keeps the payloads that kept ones are stored against, and drops the rest', async () => {
        const s = sid('delta-ret');
        const lists = driftingList(40);
        const now = T0 + 60 * DAY;
        // One snapshot a day for 40 days, the last 20 of them within the 30-day retention... and 10 before it.
        const at = (i: number) => now - (40 - i) * DAY;
        for (const [i, l] of lists.entries()) await store.archive.record({ sourceId: s, paramsKey: '', fetchedAt: at(i), contentHash: contentHash(l), payload: JSON.stringify(l) });
        const before = await store.archive.stats();
        const pruned = await store.archive.prune({ now, retentionDays: 30 });
        expect(await store.archive.bounds(s, '')).toMatchObject({ first: at(10), count: 30 });
        for (let i = 10; i < 40; i++) expect((await store.archive.at(s, '', at(i)))?.payload).toBe(JSON.stringify(lists[i]));
        // The chain before the first kept snapshot's keyframe is gone; its own chain stays.
        expect(pruned.payloads).toBeGreaterThan(0);
        expect(before.payloads - (await store.archive.stats()).payloads).toBe(pruned.payloads);
        // Writing on after a prune still works (the writer's base may be gone from memory).
        await store.archive.record({ sourceId: s, paramsKey: '', fetchedAt: now, contentHash: contentHash(lists[0]), payload: JSON.stringify(lists[0]) });
        expect((await store.archive.at(s, '', now))?.payload).toBe(JSON.stringify(lists[0]));
      });

      it('concurrent writers of one key and content make one snapshot', async () => {
        const s = sid('arace');
        const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.archive.record(snap(s, ['same'], T0 + i))));
        expect(results.filter((r) => r.appended)).toHaveLength(1);
        expect(await store.archive.bounds(s, '')).toMatchObject({ count: 1, lastSeen: T0 + 7 });
      });
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

/** History rows as the store wrote them before the archive: one `t<ms>` row per changed fetch, plus a dated row. */
const LEGACY = [
  ['hot', '', `t${T0}`, T0, '{"list":[{"title":"a"}],"updated_at":1}'],
  ['hot', '', `t${T0 + MIN}`, T0 + MIN, '{"list":[{"title":"a"}],"updated_at":2}'],
  ['hot', '', `t${T0 + 2 * MIN}`, T0 + 2 * MIN, '{"list":[{"title":"b"}],"updated_at":3}'],
  ['60s', '', '2026-11-20', T0, '{"date":"2026-11-20"}'],
] as const;

async function expectLegacyMoved(store: Store): Promise<void> {
  const moved = await store.archive.list('hot', '', { from: 0, to: T0 + DAY, limit: 10 });
  expect(moved.map((x) => [x.fetchedAt, x.seenUntil])).toEqual([
    [T0, T0 + MIN],
    [T0 + 2 * MIN, T0 + 2 * MIN],
  ]);
  expect(await store.listHistory('hot', '', 10)).toEqual([]);
  expect((await store.listHistory('60s', '', 10)).map((h) => h.historyKey)).toEqual(['2026-11-20']);
}

describe('existing archives of before payload deltas: read as they are, written on as deltas', () => {
  const list = (n: number) => Array.from({ length: 30 }, (_, i) => ({ rank: i + 1, title: `条目 ${i + 1} 的标题文字`, link: `https://example.test/${i}`, hot_value: 1_000_000 + i * n }));
  const old = JSON.stringify(list(1));
  // What the release before stored: brotli of the whole JSON, no base.
  const body = zlib.brotliCompressSync(Buffer.from(old));
  const expectUpgraded = async (store: Store) => {
    expect((await store.archive.at('legacy-list', '', T0))?.payload).toBe(old);
    const next = list(2);
    await store.archive.record({ sourceId: 'legacy-list', paramsKey: '', fetchedAt: T0 + MIN, contentHash: contentHash(next), payload: JSON.stringify(next) });
    expect((await store.archive.at('legacy-list', '', T0 + MIN))?.payload).toBe(JSON.stringify(next));
    expect((await store.archive.at('legacy-list', '', T0))?.payload).toBe(old);
  };

  it('SQLite', async () => {
    const db = openDatabase(':memory:');
    migrate(db, [...storeMigrations, archiveMigrations[0]!]);
    db.prepare('INSERT INTO archive_payloads (content_hash, body, bytes) VALUES (?, ?, ?)').run(contentHash(list(1)), body, old.length);
    db.prepare('INSERT INTO archive_snapshots (source_id, params_key, fetched_at, seen_until, content_hash) VALUES (?, ?, ?, ?, ?)').run('legacy-list', '', T0, T0, contentHash(list(1)));
    const store = new SqliteStore(db);
    await expectUpgraded(store);
    expect((db.prepare('SELECT base_hash FROM archive_payloads WHERE content_hash = ?').get(contentHash(list(2))) as { base_hash: string }).base_hash).toBe(contentHash(list(1)));
    await store.close();
  });

  it.skipIf(!!pgAvailable.missing)(`PostgreSQL${pgAvailable.label}`, async () => {
    const tdb = await createTestDatabase();
    const pool = openPgPool(tdb.url, { max: 4 });
    try {
      await pgMigrate(pool, [...pgStoreMigrations, pgArchiveMigrations[0]!]);
      await pool.query('INSERT INTO archive_payloads (content_hash, body, bytes) VALUES ($1, $2, $3)', [contentHash(list(1)), body, old.length]);
      await pool.query('INSERT INTO archive_snapshots (source_id, params_key, fetched_at, seen_until, content_hash) VALUES ($1, $2, $3, $3, $4)', ['legacy-list', '', T0, contentHash(list(1))]);
      const store = await PgStore.open(pool);
      await expectUpgraded(store);
      expect((await pool.query('SELECT base_hash FROM archive_payloads WHERE content_hash = $1', [contentHash(list(2))])).rows[0]?.base_hash).toBe(contentHash(list(1)));
    } finally {
      await pool.end();
      await tdb.drop();
    }
  });
});

describe('existing databases: per-change history rows move into the archive', () => {
  it('SQLite', async () => {
    const db = openDatabase(':memory:');
    migrate(db, storeMigrations);
    const insert = db.prepare('INSERT INTO history (source_id, params_key, history_key, fetched_at, payload_hash, payload) VALUES (?, ?, ?, ?, ?, ?)');
    for (const [s, k, hk, at, payload] of LEGACY) insert.run(s, k, hk, at, `h${at}${payload.length}`, payload);
    const store = new SqliteStore(db);
    await expectLegacyMoved(store);
    // Opening again does not import twice.
    await expectLegacyMoved(new SqliteStore(db));
    await store.close();
  });

  it.skipIf(!!pgAvailable.missing)(`PostgreSQL${pgAvailable.label}`, async () => {
    const tdb = await createTestDatabase();
    const pool = openPgPool(tdb.url, { max: 4 });
    try {
      await pgMigrate(pool, pgStoreMigrations);
      for (const [s, k, hk, at, payload] of LEGACY) {
        await pool.query('INSERT INTO history (source_id, params_key, history_key, fetched_at, payload_hash, payload) VALUES ($1, $2, $3, $4, $5, $6)', [s, k, hk, at, `h${at}${payload.length}`, payload]);
      }
      const [a, b] = await Promise.all([PgStore.open(pool), PgStore.open(pool)]);
      await expectLegacyMoved(a);
      await expectLegacyMoved(b);
    } finally {
      await pool.end();
      await tdb.drop();
    }
  });
});
