/** The item index (see item-index.ts) in the SQLite database of the snapshot store. */
import { migrate, type Db, type Migration } from './db.ts';
import {
  commitItems,
  MAX_RESULTS,
  queryKey,
  sampleDue,
  shouldRecord,
  type IndexedItem,
  type ItemIndex,
  type ItemQuery,
  type KnownItem,
  type ListCommit,
  samplesByItem,
  toIndexedItem,
  type ItemRow,
  type SampleRow,
} from './item-index.ts';
import { DAY_MS } from './time.ts';

export const itemIndexMigrations: readonly Migration[] = [
  {
    name: 'items-001-index',
    sql: `
      CREATE TABLE item_lists (
        source_id   TEXT    NOT NULL,
        params_key  TEXT    NOT NULL,
        recorded_at INTEGER NOT NULL,
        PRIMARY KEY (source_id, params_key)
      ) STRICT;
      CREATE TABLE items (
        id             INTEGER PRIMARY KEY,
        source_id      TEXT    NOT NULL,
        params_key     TEXT    NOT NULL,
        title_key      TEXT    NOT NULL,
        title          TEXT    NOT NULL,
        link           TEXT,
        first_seen_at  INTEGER NOT NULL,
        last_seen_at   INTEGER NOT NULL,
        peak_rank      INTEGER NOT NULL,
        peak_hot       REAL,
        last_rank      INTEGER NOT NULL,
        last_sample_at INTEGER NOT NULL
      ) STRICT;
      CREATE UNIQUE INDEX items_by_key ON items (source_id, params_key, title_key);
      CREATE INDEX items_by_last_seen ON items (last_seen_at, title_key);
      CREATE TABLE item_samples (
        item_id INTEGER NOT NULL,
        at      INTEGER NOT NULL,
        rank    INTEGER NOT NULL,
        hot     REAL,
        PRIMARY KEY (item_id, at)
      ) STRICT, WITHOUT ROWID;
    `,
  },
];

const CHUNK = 200;

export class SqliteItemIndex implements ItemIndex {
  private readonly stmt;

  constructor(private readonly db: Db) {
    migrate(db, itemIndexMigrations);
    this.stmt = {
      listAt: db.prepare<[string, string], { recorded_at: number }>('SELECT recorded_at FROM item_lists WHERE source_id = ? AND params_key = ?'),
      setListAt: db.prepare(
        'INSERT INTO item_lists (source_id, params_key, recorded_at) VALUES (?, ?, ?) ON CONFLICT (source_id, params_key) DO UPDATE SET recorded_at = excluded.recorded_at',
      ),
      known: db.prepare<[string, string, string], { id: number; title_key: string; last_rank: number; last_sample_at: number }>(
        "SELECT id, title_key, last_rank, last_sample_at FROM items WHERE source_id = ? AND params_key = ? AND title_key IN (SELECT value FROM json_each(?))",
      ),
      insert: db.prepare(`
        INSERT INTO items (source_id, params_key, title_key, title, link, first_seen_at, last_seen_at, peak_rank, peak_hot, last_rank, last_sample_at)
        VALUES (@sourceId, @paramsKey, @key, @title, @link, @at, @at, @rank, @hot, @rank, @at)`),
      update: db.prepare(`
        UPDATE items SET title = @title, link = @link, last_seen_at = MAX(last_seen_at, @at),
          peak_rank = MIN(peak_rank, @rank),
          peak_hot = CASE WHEN @hot IS NULL THEN peak_hot WHEN peak_hot IS NULL THEN @hot ELSE MAX(peak_hot, @hot) END,
          last_rank = CASE WHEN @sample THEN @rank ELSE last_rank END,
          last_sample_at = CASE WHEN @sample THEN @at ELSE last_sample_at END
        WHERE id = @id`),
      sample: db.prepare('INSERT OR REPLACE INTO item_samples (item_id, at, rank, hot) VALUES (?, ?, ?, ?)'),
    };
  }

  async record(commit: ListCommit): Promise<{ written: boolean; samples: number }> {
    return this.db.transaction(() => {
      const last = this.stmt.listAt.get(commit.sourceId, commit.paramsKey)?.recorded_at;
      if (!shouldRecord(commit, last)) return { written: false, samples: 0 };
      this.stmt.setListAt.run(commit.sourceId, commit.paramsKey, commit.fetchedAt);
      let samples = 0;
      const items = commitItems(commit);
      const rows = this.stmt.known.all(commit.sourceId, commit.paramsKey, JSON.stringify(items.map((i) => i.key)));
      const byKey = new Map(rows.map((r): [string, KnownItem] => [r.title_key, { id: r.id, lastRank: r.last_rank, lastSampleAt: r.last_sample_at }]));
      for (const item of items) {
        const known = byKey.get(item.key);
        const sample = sampleDue(known, item.rank, commit.fetchedAt);
        const at = commit.fetchedAt;
        let id: number;
        if (known) {
          id = known.id;
          this.stmt.update.run({ id, title: item.title, link: item.link, at, rank: item.rank, hot: item.hot, sample: sample ? 1 : 0 });
        } else {
          id = Number(this.stmt.insert.run({ sourceId: commit.sourceId, paramsKey: commit.paramsKey, key: item.key, title: item.title, link: item.link, at, rank: item.rank, hot: item.hot }).lastInsertRowid);
        }
        if (sample) {
          this.stmt.sample.run(id, at, item.rank, item.hot);
          samples++;
        }
      }
      return { written: true, samples };
    })();
  }

  async search(query: ItemQuery): Promise<IndexedItem[]> {
    const key = queryKey(query.q);
    if (!key) return [];
    const limit = Math.min(query.limit ?? MAX_RESULTS, MAX_RESULTS);
    const rows = this.db
      .prepare(
        `SELECT id, source_id, params_key, title, link, first_seen_at, last_seen_at, peak_rank, peak_hot FROM items
         WHERE last_seen_at >= ? AND instr(title_key, ?) > 0 ${query.sourceId !== undefined ? 'AND source_id = ?' : ''}
         ORDER BY last_seen_at DESC, peak_rank, id LIMIT ?`,
      )
      .all(...[query.since, key, ...(query.sourceId !== undefined ? [query.sourceId] : []), limit]) as ItemRow[];
    const found: SampleRow[] = [];
    for (let i = 0; i < rows.length; i += CHUNK) {
      const ids = rows.slice(i, i + CHUNK).map((r) => r.id);
      const sql = `SELECT item_id, at, rank, hot FROM item_samples WHERE item_id IN (${ids.map(() => '?').join(',')}) AND at >= ? ORDER BY item_id, at`;
      found.push(...(this.db.prepare(sql).all(...ids, query.since) as SampleRow[]));
    }
    const samples = samplesByItem(found);
    return rows.map((r) => toIndexedItem(r, samples.get(r.id) ?? []));
  }

  async titles(range: { from: number; to: number; limit: number }): Promise<string[]> {
    const rows = this.db
      .prepare<[number, number, number], { title: string }>('SELECT title FROM items WHERE last_seen_at >= ? AND first_seen_at <= ? ORDER BY last_seen_at DESC, id LIMIT ?')
      .all(range.from, range.to, range.limit);
    return rows.map((r) => r.title);
  }

  async firstSeen(sourceId: string, paramsKey: string, titleKeys: readonly string[]): Promise<Map<string, number>> {
    const rows = this.db
      .prepare<[string, string, string], { title_key: string; first_seen_at: number }>(
        'SELECT title_key, first_seen_at FROM items WHERE source_id = ? AND params_key = ? AND title_key IN (SELECT value FROM json_each(?))',
      )
      .all(sourceId, paramsKey, JSON.stringify(titleKeys));
    return new Map(rows.map((r) => [r.title_key, r.first_seen_at]));
  }

  async prune(opts: { now: number; retentionDays: number }): Promise<void> {
    if (opts.retentionDays <= 0) return;
    const cutoff = opts.now - opts.retentionDays * DAY_MS;
    this.db.transaction(() => {
      // Samples by item (the primary key), so no index on time is needed: only items first seen before the cutoff have such samples.
      this.db.prepare('DELETE FROM item_samples WHERE item_id IN (SELECT id FROM items WHERE first_seen_at < @cutoff) AND at < @cutoff').run({ cutoff });
      this.db.prepare('DELETE FROM items WHERE last_seen_at < ?').run(cutoff);
      this.db.prepare('DELETE FROM item_lists WHERE recorded_at < ?').run(cutoff);
    })();
  }
}
