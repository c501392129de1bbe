/** The item index (see item-index.ts) on PostgreSQL: the tables and plan of the SQLite index. */
import type { Migration } from './db.ts';
import {
  commitItems,
  MAX_RESULTS,
  queryKey,
  sampleDue,
  samplesByItem,
  shouldRecord,
  toIndexedItem,
  type IndexedItem,
  type ItemIndex,
  type ItemQuery,
  type ItemRow,
  type ListCommit,
  type SampleRow,
} from './item-index.ts';
import { advisoryKey, inTransaction, pgMigrate, type Pool } from './pg-store.ts';
import { DAY_MS } from './time.ts';

export const pgItemIndexMigrations: readonly Migration[] = [
  {
    name: 'items-001-index',
    sql: `
      CREATE TABLE item_lists (
        source_id   TEXT COLLATE "C" NOT NULL,
        params_key  TEXT COLLATE "C" NOT NULL,
        recorded_at BIGINT NOT NULL,
        PRIMARY KEY (source_id, params_key)
      );
      CREATE TABLE items (
        id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        source_id      TEXT COLLATE "C" NOT NULL,
        params_key     TEXT COLLATE "C" NOT NULL,
        title_key      TEXT COLLATE "C" NOT NULL,
        title          TEXT   NOT NULL,
        link           TEXT,
        first_seen_at  BIGINT NOT NULL,
        last_seen_at   BIGINT NOT NULL,
        peak_rank      INTEGER NOT NULL,
        peak_hot       DOUBLE PRECISION,
        last_rank      INTEGER NOT NULL,
        last_sample_at BIGINT NOT NULL
      );
      CREATE UNIQUE INDEX items_by_key ON items (source_id, params_key, title_key);
      CREATE INDEX items_by_last_seen ON items (last_seen_at);
      CREATE TABLE item_samples (
        item_id BIGINT  NOT NULL,
        at      BIGINT  NOT NULL,
        rank    INTEGER NOT NULL,
        hot     DOUBLE PRECISION,
        PRIMARY KEY (item_id, at)
      );
    `,
  },
];

export class PgItemIndex implements ItemIndex {
  private constructor(private readonly pool: Pool) {}

  /** Migrate, then return the index. */
  static async open(pool: Pool): Promise<PgItemIndex> {
    await pgMigrate(pool, pgItemIndexMigrations);
    return new PgItemIndex(pool);
  }

  async record(commit: ListCommit): Promise<{ written: boolean; samples: number }> {
    const { sourceId, paramsKey, fetchedAt: at } = commit;
    return inTransaction(this.pool, async (c) => {
      // One writer per list at a time across instances.
      await c.query('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryKey(`items:${sourceId}|${paramsKey}`)]);
      const last = (await c.query<{ recorded_at: number }>('SELECT recorded_at FROM item_lists WHERE source_id = $1 AND params_key = $2', [sourceId, paramsKey])).rows[0];
      if (!shouldRecord(commit, last?.recorded_at)) return { written: false, samples: 0 };
      await c.query(
        'INSERT INTO item_lists (source_id, params_key, recorded_at) VALUES ($1, $2, $3) ON CONFLICT (source_id, params_key) DO UPDATE SET recorded_at = excluded.recorded_at',
        [sourceId, paramsKey, at],
      );
      const items = commitItems(commit);
      const known = new Map(
        (
          await c.query<{ id: number; title_key: string; last_rank: number; last_sample_at: number }>(
            'SELECT id, title_key, last_rank, last_sample_at FROM items WHERE source_id = $1 AND params_key = $2 AND title_key = ANY($3::text[])',
            [sourceId, paramsKey, items.map((i) => i.key)],
          )
        ).rows.map((r) => [r.title_key, { id: r.id, lastRank: r.last_rank, lastSampleAt: r.last_sample_at }]),
      );
      const fresh = items.filter((i) => !known.has(i.key));
      const seen = items.filter((i) => known.has(i.key));
      const ids = new Map<string, number>();
      if (fresh.length) {
        const inserted = await c.query<{ id: number; title_key: string }>(
          `INSERT INTO items (source_id, params_key, title_key, title, link, first_seen_at, last_seen_at, peak_rank, peak_hot, last_rank, last_sample_at)
           SELECT $1, $2, k, t, l, $3, $3, r, h, r, $3 FROM unnest($4::text[], $5::text[], $6::text[], $7::int[], $8::float8[]) AS u(k, t, l, r, h)
           RETURNING id, title_key`,
          [sourceId, paramsKey, at, fresh.map((i) => i.key), fresh.map((i) => i.title), fresh.map((i) => i.link), fresh.map((i) => i.rank), fresh.map((i) => i.hot)],
        );
        for (const r of inserted.rows) ids.set(r.title_key, r.id);
      }
      const sampled = seen.map((i) => sampleDue(known.get(i.key), i.rank, at));
      if (seen.length) {
        await c.query(
          `UPDATE items SET title = u.t, link = u.l, last_seen_at = GREATEST(items.last_seen_at, $1),
             peak_rank = LEAST(items.peak_rank, u.r),
             peak_hot = CASE WHEN u.h IS NULL THEN items.peak_hot WHEN items.peak_hot IS NULL THEN u.h ELSE GREATEST(items.peak_hot, u.h) END,
             last_rank = CASE WHEN u.s THEN u.r ELSE items.last_rank END,
             last_sample_at = CASE WHEN u.s THEN $1 ELSE items.last_sample_at END
           FROM unnest($2::bigint[], $3::text[], $4::text[], $5::int[], $6::float8[], $7::bool[]) AS u(id, t, l, r, h, s)
           WHERE items.id = u.id`,
          [at, seen.map((i) => known.get(i.key)!.id), seen.map((i) => i.title), seen.map((i) => i.link), seen.map((i) => i.rank), seen.map((i) => i.hot), sampled],
        );
        seen.forEach((i) => ids.set(i.key, known.get(i.key)!.id));
      }
      const samples = [...fresh, ...seen.filter((_, n) => sampled[n])];
      if (samples.length) {
        await c.query(
          `INSERT INTO item_samples (item_id, at, rank, hot) SELECT id, $1, r, h FROM unnest($2::bigint[], $3::int[], $4::float8[]) AS u(id, r, h)
           ON CONFLICT (item_id, at) DO UPDATE SET rank = excluded.rank, hot = excluded.hot`,
          [at, samples.map((i) => ids.get(i.key)), samples.map((i) => i.rank), samples.map((i) => i.hot)],
        );
      }
      return { written: true, samples: samples.length };
    });
  }

  async search(query: ItemQuery): Promise<IndexedItem[]> {
    const key = queryKey(query.q);
    if (!key) return [];
    const limit = Math.min(query.limit ?? MAX_RESULTS, MAX_RESULTS);
    const params: unknown[] = [query.since, key, limit];
    if (query.sourceId !== undefined) params.push(query.sourceId);
    const rows = (
      await this.pool.query<ItemRow>(
        `SELECT id, source_id, params_key, title, link, first_seen_at, last_seen_at, peak_rank, peak_hot FROM items
         WHERE last_seen_at >= $1 AND strpos(title_key, $2) > 0 ${query.sourceId !== undefined ? 'AND source_id = $4' : ''}
         ORDER BY last_seen_at DESC, peak_rank, id LIMIT $3`,
        params,
      )
    ).rows;
    if (!rows.length) return [];
    const found = (
      await this.pool.query<SampleRow>('SELECT item_id, at, rank, hot FROM item_samples WHERE item_id = ANY($1::bigint[]) AND at >= $2 ORDER BY item_id, at', [
        rows.map((r) => r.id),
        query.since,
      ])
    ).rows;
    const samples = samplesByItem(found);
    return rows.map((r) => toIndexedItem(r, samples.get(r.id) ?? []));
  }

  async titles(range: { from: number; to: number; limit: number }): Promise<string[]> {
    const rows = (
      await this.pool.query<{ title: string }>('SELECT title FROM items WHERE last_seen_at >= $1 AND first_seen_at <= $2 ORDER BY last_seen_at DESC, id LIMIT $3', [range.from, range.to, range.limit])
    ).rows;
    return rows.map((r) => r.title);
  }

  async firstSeen(sourceId: string, paramsKey: string, titleKeys: readonly string[]): Promise<Map<string, number>> {
    const rows = (
      await this.pool.query<{ title_key: string; first_seen_at: string | number }>(
        'SELECT title_key, first_seen_at FROM items WHERE source_id = $1 AND params_key = $2 AND title_key = ANY($3::text[])',
        [sourceId, paramsKey, titleKeys],
      )
    ).rows;
    return new Map(rows.map((r) => [r.title_key, Number(r.first_seen_at)]));
  }

  async prune(opts: { now: number; retentionDays: number }): Promise<void> {
    if (opts.retentionDays <= 0) return;
    const cutoff = opts.now - opts.retentionDays * DAY_MS;
    await inTransaction(this.pool, async (c) => {
      // Samples by item (the primary key), so no index on time is needed: only items first seen before the cutoff have such samples.
      await c.query('DELETE FROM item_samples WHERE item_id IN (SELECT id FROM items WHERE first_seen_at < $1) AND at < $1', [cutoff]);
      await c.query('DELETE FROM items WHERE last_seen_at < $1', [cutoff]);
      await c.query('DELETE FROM item_lists WHERE recorded_at < $1', [cutoff]);
    });
  }
}
