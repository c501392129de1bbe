/** The default Store: better-sqlite3 in WAL mode. */
import { LEGACY_IMPORT, legacyWrite, type LegacyHistoryRow } from './archive.ts';
import type { Db, Migration } from './db.ts';
import { migrate } from './db.ts';
import { archiveMigrations, SqliteArchive } from './sqlite-archive.ts';
import { toHistory, toSnapshot, type HistoryRow, type SnapshotRow } from './store-rows.ts';
import type { FailureWrite, HistoryEntry, RunRecord, Snapshot, Store, SuccessWrite } from './store.ts';
import { DAY_MS } from './time.ts';

export const storeMigrations: readonly Migration[] = [
  {
    name: 'store-001-snapshots-history',
    sql: `
      CREATE TABLE snapshots (
        source_id       TEXT    NOT NULL,
        params_key      TEXT    NOT NULL,
        params          TEXT    NOT NULL,
        status          TEXT    NOT NULL CHECK (status IN ('ok', 'failing', 'never')),
        payload         TEXT,
        payload_hash    TEXT,
        item_count      INTEGER,
        fetched_at      INTEGER,
        expires_at      INTEGER,
        checked_at      INTEGER NOT NULL,
        next_attempt_at INTEGER,
        fail_count      INTEGER NOT NULL DEFAULT 0,
        last_error      TEXT,
        PRIMARY KEY (source_id, params_key)
      ) STRICT;
      CREATE TABLE history (
        id           INTEGER PRIMARY KEY,
        source_id    TEXT    NOT NULL,
        params_key   TEXT    NOT NULL,
        history_key  TEXT    NOT NULL,
        fetched_at   INTEGER NOT NULL,
        payload_hash TEXT    NOT NULL,
        payload      TEXT    NOT NULL
      ) STRICT;
      CREATE UNIQUE INDEX history_by_key ON history (source_id, params_key, history_key);
      CREATE INDEX history_by_time ON history (source_id, params_key, fetched_at DESC);
      CREATE TABLE item_seen (
        source_id     TEXT    NOT NULL,
        params_key    TEXT    NOT NULL,
        guid          TEXT    NOT NULL,
        first_seen_at INTEGER NOT NULL,
        PRIMARY KEY (source_id, params_key, guid)
      ) STRICT;
      CREATE TABLE runs (
        id         INTEGER PRIMARY KEY,
        source_id  TEXT    NOT NULL,
        params_key TEXT    NOT NULL,
        started_at INTEGER NOT NULL,
        ms         INTEGER NOT NULL,
        outcome    TEXT    NOT NULL,
        error      TEXT
      ) STRICT;
      CREATE INDEX runs_by_source ON runs (source_id, started_at DESC);
    `,
  },
];

const GUID_CHUNK = 200;

export class SqliteStore implements Store {
  private readonly stmt;
  readonly archive: SqliteArchive;

  constructor(private readonly db: Db) {
    migrate(db, [...storeMigrations, ...archiveMigrations]);
    this.archive = new SqliteArchive(db);
    this.importLegacy();
    this.stmt = {
      get: db.prepare<[string, string], SnapshotRow>('SELECT * FROM snapshots WHERE source_id = ? AND params_key = ?'),
      listAll: db.prepare<[], SnapshotRow>('SELECT * FROM snapshots ORDER BY source_id, params_key'),
      listOne: db.prepare<[string], SnapshotRow>('SELECT * FROM snapshots WHERE source_id = ? ORDER BY params_key'),
      upsertOk: db.prepare(`
        INSERT INTO snapshots (source_id, params_key, params, status, payload, payload_hash, item_count, fetched_at, expires_at, checked_at, next_attempt_at, fail_count, last_error)
        VALUES (@sourceId, @paramsKey, @params, 'ok', @payload, @payloadHash, @itemCount, @fetchedAt, @expiresAt, @fetchedAt, NULL, 0, NULL)
        ON CONFLICT (source_id, params_key) DO UPDATE SET
          params = excluded.params, status = 'ok', payload = excluded.payload, payload_hash = excluded.payload_hash,
          item_count = excluded.item_count, fetched_at = excluded.fetched_at, expires_at = excluded.expires_at,
          checked_at = excluded.checked_at, next_attempt_at = NULL, fail_count = 0, last_error = NULL`),
      upsertFail: db.prepare(`
        INSERT INTO snapshots (source_id, params_key, params, status, checked_at, next_attempt_at, fail_count, last_error)
        VALUES (@sourceId, @paramsKey, @params, 'never', @checkedAt, @nextAttemptAt, 1, @error)
        ON CONFLICT (source_id, params_key) DO UPDATE SET
          status = CASE WHEN snapshots.payload IS NULL THEN 'never' ELSE 'failing' END,
          checked_at = excluded.checked_at, next_attempt_at = excluded.next_attempt_at,
          fail_count = snapshots.fail_count + 1, last_error = excluded.last_error`),
      historyByKey: db.prepare<[string, string, string], HistoryRow>('SELECT * FROM history WHERE source_id = ? AND params_key = ? AND history_key = ?'),
      historyList: db.prepare<[string, string, number], HistoryRow>('SELECT * FROM history WHERE source_id = ? AND params_key = ? ORDER BY fetched_at DESC, id DESC LIMIT ?'),
      upsertHistory: db.prepare(`
        INSERT INTO history (source_id, params_key, history_key, fetched_at, payload_hash, payload)
        VALUES (@sourceId, @paramsKey, @historyKey, @fetchedAt, @payloadHash, @payload)
        ON CONFLICT (source_id, params_key, history_key) DO UPDATE SET
          fetched_at = excluded.fetched_at, payload_hash = excluded.payload_hash, payload = excluded.payload
        WHERE history.payload_hash <> excluded.payload_hash`),
      seen: db.prepare('INSERT OR IGNORE INTO item_seen (source_id, params_key, guid, first_seen_at) VALUES (?, ?, ?, ?)'),
      run: db.prepare('INSERT INTO runs (source_id, params_key, started_at, ms, outcome, error) VALUES (?, ?, ?, ?, ?, ?)'),
      runs: db.prepare<[string, number], { source_id: string; params_key: string; started_at: number; ms: number; outcome: RunRecord['outcome']; error: string | null }>(
        'SELECT * FROM runs WHERE source_id = ? ORDER BY started_at DESC, id DESC LIMIT ?',
      ),
    };
  }

  async getSnapshot(sourceId: string, paramsKey: string): Promise<Snapshot | undefined> {
    const r = this.stmt.get.get(sourceId, paramsKey);
    return r && toSnapshot(r);
  }

  async listSnapshots(sourceId?: string): Promise<Snapshot[]> {
    return (sourceId === undefined ? this.stmt.listAll.all() : this.stmt.listOne.all(sourceId)).map(toSnapshot);
  }

  async commitSuccess(w: SuccessWrite): Promise<{ changed: boolean }> {
    return this.db.transaction(() => {
      const before = this.stmt.get.get(w.sourceId, w.paramsKey);
      const changed = before?.payload_hash !== w.payloadHash;
      this.stmt.upsertOk.run(w);
      const historyParamsKey = w.historyParamsKey ?? w.paramsKey;
      if (w.historyKey !== undefined) this.stmt.upsertHistory.run({ ...w, paramsKey: historyParamsKey, historyKey: w.historyKey });
      for (const guid of w.guids ?? []) this.stmt.seen.run(w.sourceId, historyParamsKey, guid, w.fetchedAt);
      return { changed };
    })();
  }

  async recordFailure(w: FailureWrite): Promise<void> {
    this.stmt.upsertFail.run({ ...w, error: w.error.slice(0, 500) });
  }

  async getHistory(sourceId: string, paramsKey: string, historyKey: string): Promise<HistoryEntry | undefined> {
    const r = this.stmt.historyByKey.get(sourceId, paramsKey, historyKey);
    return r && toHistory(r);
  }

  async listHistory(sourceId: string, paramsKey: string, limit: number): Promise<HistoryEntry[]> {
    return this.stmt.historyList.all(sourceId, paramsKey, limit).map(toHistory);
  }

  async firstSeen(sourceId: string, paramsKey: string, guids: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (let i = 0; i < guids.length; i += GUID_CHUNK) {
      const chunk = guids.slice(i, i + GUID_CHUNK);
      const rows = this.db
        .prepare(`SELECT guid, first_seen_at FROM item_seen WHERE source_id = ? AND params_key = ? AND guid IN (${chunk.map(() => '?').join(',')})`)
        .all(sourceId, paramsKey, ...chunk) as { guid: string; first_seen_at: number }[];
      for (const r of rows) out.set(r.guid, r.first_seen_at);
    }
    return out;
  }

  async recordRun(r: RunRecord): Promise<void> {
    this.stmt.run.run(r.sourceId, r.paramsKey, r.startedAt, r.ms, r.outcome, r.error ?? null);
  }

  async recentRuns(sourceId: string, limit: number): Promise<RunRecord[]> {
    return this.stmt.runs.all(sourceId, limit).map((r) => ({
      sourceId: r.source_id,
      paramsKey: r.params_key,
      startedAt: r.started_at,
      ms: r.ms,
      outcome: r.outcome,
      ...(r.error ? { error: r.error } : {}),
    }));
  }

  /** Existing databases: the per-change history rows (`t<ms>` keys) move into the archive, once. */
  private importLegacy(): void {
    if (this.db.prepare('SELECT 1 FROM migrations WHERE name = ?').get(LEGACY_IMPORT)) return;
    const batch = this.db.prepare<[number], LegacyHistoryRow>(
      "SELECT id, source_id, params_key, fetched_at, payload FROM history WHERE id > ? AND history_key GLOB 't[0-9]*' ORDER BY id LIMIT 500",
    );
    for (let rows = batch.all(0); rows.length; rows = batch.all(rows[rows.length - 1]!.id)) {
      for (const r of rows) {
        const w = legacyWrite(r);
        if (w) this.archive.recordNow(w);
      }
    }
    this.db.transaction(() => {
      this.db.prepare("DELETE FROM history WHERE history_key GLOB 't[0-9]*'").run();
      this.db.prepare('INSERT INTO migrations (name, applied_at) VALUES (?, ?)').run(LEGACY_IMPORT, Date.now());
    })();
  }

  async prune(opts: { now: number; retentionDays: number; keepPerKey: number; keyCaps: Record<string, number> }): Promise<void> {
    const cutoff = opts.now - opts.retentionDays * DAY_MS;
    this.db.transaction(() => {
      if (opts.retentionDays > 0) {
        this.db
          .prepare(
            `DELETE FROM history WHERE fetched_at < ? AND id NOT IN (
               SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY source_id, params_key ORDER BY fetched_at DESC, id DESC) AS n FROM history) WHERE n <= ?)`,
          )
          .run(cutoff, opts.keepPerKey);
        this.db.prepare('DELETE FROM item_seen WHERE first_seen_at < ?').run(cutoff);
      }
      this.db.prepare('DELETE FROM runs WHERE started_at < ?').run(opts.now - 7 * DAY_MS);
      for (const [sourceId, cap] of Object.entries(opts.keyCaps)) {
        this.db
          .prepare(
            `DELETE FROM snapshots WHERE source_id = ? AND params_key NOT IN (
               SELECT params_key FROM snapshots WHERE source_id = ? ORDER BY checked_at DESC LIMIT ?)`,
          )
          .run(sourceId, sourceId, cap);
      }
    })();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
