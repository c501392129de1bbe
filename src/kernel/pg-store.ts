/**
 * The PostgreSQL Store (selected by `DATABASE_URL=postgres://…`): the same tables, write rules
 * and results as the SQLite store (`sqlite-store.ts`), checked by the same contract suite
 * (test/kernel/store.contract.test.ts), so several instances can share one database.
 *
 * Also the PostgreSQL side of the migration story (`pgMigrate`): a `migrations` table of named
 * migrations, every pending one applied in one transaction under an advisory lock, so instances
 * that start together neither race nor apply a migration twice.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { lazyModule } from './lazy-module.ts';
import { importLegacyHistory, LEGACY_IMPORT, type LegacyHistoryRow } from './archive.ts';
import type { Migration } from './db.ts';
import { PgArchive, pgArchiveMigrations } from './pg-archive.ts';
import { toHistory, toSnapshot, type HistoryRow, type SnapshotRow } from './store-rows.ts';
import type { FailureWrite, HistoryEntry, RunRecord, Snapshot, Store, SuccessWrite } from './store.ts';
import { DAY_MS } from './time.ts';

// Loaded when PostgreSQL is configured (see lazy-module.ts).
const pgModule = lazyModule<typeof pg>('pg');

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

const INT8_OID = 20;

/** BIGINT columns hold ms timestamps and counters: well inside Number's safe range. */
const types: pg.CustomTypesConfig = {
  getTypeParser: (id: number, format?: 'text' | 'binary') =>
    id === INT8_OID && format !== 'binary' ? (v: string) => Number(v) : pgModule().types.getTypeParser(id, format),
};

export interface PgPoolOptions {
  max?: number;
  /** Shows in `pg_stat_activity.application_name` (the instance id). */
  applicationName?: string;
}

/** A pool whose BIGINT columns come back as numbers. The caller owns it (`pool.end()`). */
export function openPgPool(url: string, opts: PgPoolOptions = {}): Pool {
  return new (pgModule().Pool)({
    connectionString: url,
    max: opts.max ?? 10,
    // A request waiting for a connection fails after this instead of hanging while the server is unreachable.
    connectionTimeoutMillis: 5_000,
    ...(opts.applicationName ? { application_name: opts.applicationName.slice(0, 63) } : {}),
    types,
  });
}

/** A signed 64-bit advisory lock key for a name (PostgreSQL's advisory locks take a bigint). */
export function advisoryKey(name: string): string {
  return createHash('sha256').update(name).digest().readBigInt64BE(0).toString();
}

const MIGRATION_LOCK = advisoryKey('apis-gateway:migrations');

/** Run `fn` in a transaction on one pooled connection (rolled back when it throws). */
export async function inTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Apply the migrations not yet recorded, in list order, all in one transaction that first takes
 * a transaction-level advisory lock: a second instance waits, then finds them applied.
 */
export async function pgMigrate(pool: Pool, migrations: readonly Migration[]): Promise<string[]> {
  return inTransaction(pool, async (c) => {
    await c.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);
    await c.query('CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)');
    const done = new Set((await c.query<{ name: string }>('SELECT name FROM migrations')).rows.map((r) => r.name));
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.name)) continue;
      await c.query(m.sql);
      await c.query('INSERT INTO migrations (name, applied_at) VALUES ($1, $2)', [m.name, Date.now()]);
      applied.push(m.name);
    }
    return applied;
  });
}

/** Keys are compared byte-wise (`COLLATE "C"`), as SQLite does, so listings order alike. */
export const pgStoreMigrations: readonly Migration[] = [
  {
    name: 'store-001-snapshots-history',
    sql: `
      CREATE TABLE snapshots (
        source_id       TEXT COLLATE "C" NOT NULL,
        params_key      TEXT COLLATE "C" NOT NULL,
        params          TEXT    NOT NULL,
        status          TEXT    NOT NULL CHECK (status IN ('ok', 'failing', 'never')),
        payload         TEXT,
        payload_hash    TEXT,
        item_count      INTEGER,
        fetched_at      BIGINT,
        expires_at      BIGINT,
        checked_at      BIGINT  NOT NULL,
        next_attempt_at BIGINT,
        fail_count      INTEGER NOT NULL DEFAULT 0,
        last_error      TEXT,
        PRIMARY KEY (source_id, params_key)
      );
      CREATE TABLE history (
        id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        source_id    TEXT COLLATE "C" NOT NULL,
        params_key   TEXT COLLATE "C" NOT NULL,
        history_key  TEXT COLLATE "C" NOT NULL,
        fetched_at   BIGINT NOT NULL,
        payload_hash TEXT   NOT NULL,
        payload      TEXT   NOT NULL
      );
      CREATE UNIQUE INDEX history_by_key ON history (source_id, params_key, history_key);
      CREATE INDEX history_by_time ON history (source_id, params_key, fetched_at DESC);
      CREATE TABLE item_seen (
        source_id     TEXT COLLATE "C" NOT NULL,
        params_key    TEXT COLLATE "C" NOT NULL,
        guid          TEXT COLLATE "C" NOT NULL,
        first_seen_at BIGINT NOT NULL,
        PRIMARY KEY (source_id, params_key, guid)
      );
      CREATE TABLE runs (
        id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        source_id  TEXT COLLATE "C" NOT NULL,
        params_key TEXT COLLATE "C" NOT NULL,
        started_at BIGINT  NOT NULL,
        ms         INTEGER NOT NULL,
        outcome    TEXT    NOT NULL,
        error      TEXT
      );
      CREATE INDEX runs_by_source ON runs (source_id, started_at DESC);
    `,
  },
];

interface RunRow {
  source_id: string;
  params_key: string;
  started_at: number;
  ms: number;
  outcome: RunRecord['outcome'];
  error: string | null;
}

const SQL = {
  get: 'SELECT * FROM snapshots WHERE source_id = $1 AND params_key = $2',
  upsertOk: `
    INSERT INTO snapshots (source_id, params_key, params, status, payload, payload_hash, item_count, fetched_at, expires_at, checked_at, next_attempt_at, fail_count, last_error)
    VALUES ($1, $2, $3, 'ok', $4, $5, $6, $7, $8, $7, NULL, 0, NULL)
    ON CONFLICT (source_id, params_key) DO UPDATE SET
      params = excluded.params, status = 'ok', payload = excluded.payload, payload_hash = excluded.payload_hash,
      item_count = excluded.item_count, fetched_at = excluded.fetched_at, expires_at = excluded.expires_at,
      checked_at = excluded.checked_at, next_attempt_at = NULL, fail_count = 0, last_error = NULL`,
  upsertFail: `
    INSERT INTO snapshots (source_id, params_key, params, status, checked_at, next_attempt_at, fail_count, last_error)
    VALUES ($1, $2, $3, 'never', $4, $5, 1, $6)
    ON CONFLICT (source_id, params_key) DO UPDATE SET
      status = CASE WHEN snapshots.payload IS NULL THEN 'never' ELSE 'failing' END,
      checked_at = excluded.checked_at, next_attempt_at = excluded.next_attempt_at,
      fail_count = snapshots.fail_count + 1, last_error = excluded.last_error`,
  upsertHistory: `
    INSERT INTO history (source_id, params_key, history_key, fetched_at, payload_hash, payload)
    VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (source_id, params_key, history_key) DO UPDATE SET
      fetched_at = excluded.fetched_at, payload_hash = excluded.payload_hash, payload = excluded.payload
    WHERE history.payload_hash <> excluded.payload_hash`,
  seen: `
    INSERT INTO item_seen (source_id, params_key, guid, first_seen_at)
    SELECT $1, $2, g, $3 FROM unnest($4::text[]) AS g
    ON CONFLICT DO NOTHING`,
} as const;

export interface PgStoreOptions {
  /** End the pool on `close()` (when the store created it). Default false: the caller owns it. */
  ownsPool?: boolean;
}

export class PgStore implements Store {
  readonly archive: PgArchive;

  private constructor(
    private readonly pool: Pool,
    private readonly opts: PgStoreOptions,
  ) {
    this.archive = new PgArchive(pool);
  }

  /** Migrate, then return the store. */
  static async open(pool: Pool, opts: PgStoreOptions = {}): Promise<PgStore> {
    await pgMigrate(pool, [...pgStoreMigrations, ...pgArchiveMigrations]);
    const store = new PgStore(pool, opts);
    await store.importLegacy();
    return store;
  }

  /**
   * Existing databases: the per-change history rows (`t<ms>` keys) move into the archive, once,
   * under an advisory lock so instances starting together do it once.
   */
  private async importLegacy(): Promise<void> {
    const lock = await this.pool.connect();
    try {
      await lock.query('SELECT pg_advisory_lock($1::bigint)', [advisoryKey(LEGACY_IMPORT)]);
      if ((await lock.query('SELECT 1 FROM migrations WHERE name = $1', [LEGACY_IMPORT])).rowCount) return;
      await importLegacyHistory(
        this.archive,
        async (after) =>
          (
            await this.pool.query<LegacyHistoryRow>(
              "SELECT id, source_id, params_key, fetched_at, payload FROM history WHERE id > $1 AND history_key ~ '^t[0-9]+$' ORDER BY id LIMIT 500",
              [after],
            )
          ).rows,
        () =>
          inTransaction(this.pool, async (c) => {
            await c.query("DELETE FROM history WHERE history_key ~ '^t[0-9]+$'");
            await c.query('INSERT INTO migrations (name, applied_at) VALUES ($1, $2)', [LEGACY_IMPORT, Date.now()]);
          }),
      );
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1::bigint)', [advisoryKey(LEGACY_IMPORT)]).catch(() => undefined);
      lock.release();
    }
  }

  async getSnapshot(sourceId: string, paramsKey: string): Promise<Snapshot | undefined> {
    const r = (await this.pool.query<SnapshotRow>(SQL.get, [sourceId, paramsKey])).rows[0];
    return r && toSnapshot(r);
  }

  async listSnapshots(sourceId?: string): Promise<Snapshot[]> {
    const res =
      sourceId === undefined
        ? await this.pool.query<SnapshotRow>('SELECT * FROM snapshots ORDER BY source_id, params_key')
        : await this.pool.query<SnapshotRow>('SELECT * FROM snapshots WHERE source_id = $1 ORDER BY params_key', [sourceId]);
    return res.rows.map(toSnapshot);
  }

  async commitSuccess(w: SuccessWrite): Promise<{ changed: boolean }> {
    const historyParamsKey = w.historyParamsKey ?? w.paramsKey;
    return inTransaction(this.pool, async (c) => {
      // Serialise writers of this key (and of its history rows) across instances; sorted to avoid deadlocks.
      const locks = [...new Set([`${w.sourceId}|${w.paramsKey}`, `${w.sourceId}|${historyParamsKey}`])].sort().map((k) => advisoryKey(`store:${k}`));
      for (const k of locks) await c.query('SELECT pg_advisory_xact_lock($1::bigint)', [k]);
      const before = (await c.query<{ payload_hash: string | null }>('SELECT payload_hash FROM snapshots WHERE source_id = $1 AND params_key = $2', [w.sourceId, w.paramsKey])).rows[0];
      const changed = before?.payload_hash !== w.payloadHash;
      await c.query(SQL.upsertOk, [w.sourceId, w.paramsKey, w.params, w.payload, w.payloadHash, w.itemCount, w.fetchedAt, w.expiresAt]);
      if (w.historyKey !== undefined) await c.query(SQL.upsertHistory, [w.sourceId, historyParamsKey, w.historyKey, w.fetchedAt, w.payloadHash, w.payload]);
      if (w.guids?.length) await c.query(SQL.seen, [w.sourceId, historyParamsKey, w.fetchedAt, [...w.guids]]);
      return { changed };
    });
  }

  async recordFailure(w: FailureWrite): Promise<void> {
    await this.pool.query(SQL.upsertFail, [w.sourceId, w.paramsKey, w.params, w.checkedAt, w.nextAttemptAt, w.error.slice(0, 500)]);
  }

  async getHistory(sourceId: string, paramsKey: string, historyKey: string): Promise<HistoryEntry | undefined> {
    const r = (await this.pool.query<HistoryRow>('SELECT * FROM history WHERE source_id = $1 AND params_key = $2 AND history_key = $3', [sourceId, paramsKey, historyKey])).rows[0];
    return r && toHistory(r);
  }

  async listHistory(sourceId: string, paramsKey: string, limit: number): Promise<HistoryEntry[]> {
    const res = await this.pool.query<HistoryRow>('SELECT * FROM history WHERE source_id = $1 AND params_key = $2 ORDER BY fetched_at DESC, id DESC LIMIT $3', [sourceId, paramsKey, limit]);
    return res.rows.map(toHistory);
  }

  async firstSeen(sourceId: string, paramsKey: string, guids: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (guids.length === 0) return out;
    const res = await this.pool.query<{ guid: string; first_seen_at: number }>(
      'SELECT guid, first_seen_at FROM item_seen WHERE source_id = $1 AND params_key = $2 AND guid = ANY($3::text[])',
      [sourceId, paramsKey, [...guids]],
    );
    for (const r of res.rows) out.set(r.guid, r.first_seen_at);
    return out;
  }

  async recordRun(r: RunRecord): Promise<void> {
    await this.pool.query('INSERT INTO runs (source_id, params_key, started_at, ms, outcome, error) VALUES ($1, $2, $3, $4, $5, $6)', [
      r.sourceId,
      r.paramsKey,
      r.startedAt,
      Math.round(r.ms),
      r.outcome,
      r.error ?? null,
    ]);
  }

  async recentRuns(sourceId: string, limit: number): Promise<RunRecord[]> {
    const res = await this.pool.query<RunRow>('SELECT * FROM runs WHERE source_id = $1 ORDER BY started_at DESC, id DESC LIMIT $2', [sourceId, limit]);
    return res.rows.map((r) => ({
      sourceId: r.source_id,
      paramsKey: r.params_key,
      startedAt: r.started_at,
      ms: r.ms,
      outcome: r.outcome,
      ...(r.error ? { error: r.error } : {}),
    }));
  }

  async prune(opts: { now: number; retentionDays: number; keepPerKey: number; keyCaps: Record<string, number> }): Promise<void> {
    const cutoff = opts.now - opts.retentionDays * DAY_MS;
    await inTransaction(this.pool, async (c) => {
      if (opts.retentionDays > 0) {
        await c.query(
          `DELETE FROM history WHERE fetched_at < $1 AND id NOT IN (
             SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY source_id, params_key ORDER BY fetched_at DESC, id DESC) AS n FROM history) ranked WHERE n <= $2)`,
          [cutoff, opts.keepPerKey],
        );
        await c.query('DELETE FROM item_seen WHERE first_seen_at < $1', [cutoff]);
      }
      await c.query('DELETE FROM runs WHERE started_at < $1', [opts.now - 7 * DAY_MS]);
      for (const [sourceId, cap] of Object.entries(opts.keyCaps)) {
        await c.query(
          `DELETE FROM snapshots WHERE source_id = $1 AND params_key NOT IN (
             SELECT params_key FROM snapshots WHERE source_id = $1 ORDER BY checked_at DESC LIMIT $2)`,
          [sourceId, cap],
        );
      }
    });
  }

  async close(): Promise<void> {
    if (this.opts.ownsPool && !this.pool.ended) await this.pool.end();
  }
}
