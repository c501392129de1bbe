/** The snapshot archive on PostgreSQL: the same tables and results as sqlite-archive.ts. */
import type { Archive, ArchiveBounds, ArchivedSnapshot, ArchiveStats, ArchiveWrite } from './archive.ts';
import { toSnapshot, type ArchiveRow as Row } from './archive.ts';
import { DAY_MS } from './time.ts';
import { CHAIN_SQL, decodeChain, encodePayload, MAX_CHAIN, UNNEEDED_PAYLOADS_SQL, type ChainLink, type PayloadBase } from './archive-payloads.ts';
import type { Migration } from './db.ts';
import { advisoryKey, inTransaction, type Pool } from './pg-store.ts';

export const pgArchiveMigrations: readonly Migration[] = [
  {
    name: 'archive-001-snapshots-payloads',
    sql: `
      CREATE TABLE archive_payloads (
        content_hash TEXT COLLATE "C" PRIMARY KEY,
        body         BYTEA   NOT NULL,
        bytes        INTEGER NOT NULL
      );
      ALTER TABLE archive_payloads ALTER COLUMN body SET STORAGE EXTERNAL;
      CREATE TABLE archive_snapshots (
        id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        source_id    TEXT COLLATE "C" NOT NULL,
        params_key   TEXT COLLATE "C" NOT NULL,
        fetched_at   BIGINT NOT NULL,
        seen_until   BIGINT NOT NULL,
        content_hash TEXT COLLATE "C" NOT NULL REFERENCES archive_payloads (content_hash)
      );
      CREATE UNIQUE INDEX archive_snapshots_at ON archive_snapshots (source_id, params_key, fetched_at);
      CREATE INDEX archive_snapshots_hash ON archive_snapshots (content_hash);
      CREATE INDEX archive_snapshots_seen ON archive_snapshots (seen_until);
    `,
  },
  {
    // Payloads as deltas against their key's previous one (archive-payloads.ts); existing rows are
    // keyframes. Pruning now collects the payloads in use in one pass, without the hash index.
    name: 'archive-003-payload-deltas',
    sql: `
      ALTER TABLE archive_payloads ADD COLUMN base_hash TEXT COLLATE "C";
      ALTER TABLE archive_payloads ADD COLUMN depth INTEGER NOT NULL DEFAULT 0;
      DROP INDEX archive_snapshots_hash;
    `,
  },
];


/** Payloads a writer may store the next one of its key against, by key (what it wrote last). */
const BASES_KEPT = 1000;

type Queryable = Pick<Pool, 'query'>;

export class PgArchive implements Archive {
  private readonly bases = new Map<string, PayloadBase>();

  /** Expects `pgArchiveMigrations` applied (PgStore.open does it). */
  constructor(private readonly pool: Pool) {}

  private async chain(c: Queryable, hash: string, decoded?: Map<string, unknown>): Promise<{ text: string; data: unknown }> {
    return decodeChain((await c.query<ChainLink>(CHAIN_SQL('$1'), [hash])).rows, decoded);
  }

  /** The payload a key's next one may be stored against: the key's newest, unless its chain is full. */
  private async base(c: Queryable, key: string, hash: string): Promise<PayloadBase | undefined> {
    const known = this.bases.get(key);
    if (known?.hash === hash) return known;
    const depth = (await c.query<{ depth: number }>('SELECT depth FROM archive_payloads WHERE content_hash = $1', [hash])).rows[0]?.depth;
    if (depth === undefined || depth >= MAX_CHAIN) return undefined;
    return { hash, depth, data: (await this.chain(c, hash)).data };
  }

  async record(w: ArchiveWrite): Promise<{ appended: boolean; snapshotAt: number }> {
    return inTransaction(this.pool, async (c) => {
      // Writers of one key (several instances) take turns, so "same as the newest?" is decided once.
      await c.query('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryKey(`archive:${w.sourceId}|${w.paramsKey}`)]);
      const newest = (
        await c.query<Row>('SELECT * FROM archive_snapshots WHERE source_id = $1 AND params_key = $2 ORDER BY fetched_at DESC LIMIT 1', [w.sourceId, w.paramsKey])
      ).rows[0];
      if (newest && newest.content_hash === w.contentHash) {
        await c.query('UPDATE archive_snapshots SET seen_until = $1 WHERE id = $2 AND seen_until < $1', [w.fetchedAt, newest.id]);
        return { appended: false, snapshotAt: newest.fetched_at };
      }
      const key = `${w.sourceId}|${w.paramsKey}`;
      const data = JSON.parse(w.payload) as unknown;
      let depth = (await c.query<{ depth: number }>('SELECT depth FROM archive_payloads WHERE content_hash = $1', [w.contentHash])).rows[0]?.depth;
      if (depth === undefined) {
        const encoded = encodePayload(w.payload, data, newest && (await this.base(c, key, newest.content_hash)));
        await c.query('INSERT INTO archive_payloads (content_hash, body, bytes, base_hash, depth) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING', [
          w.contentHash,
          encoded.body,
          Buffer.byteLength(w.payload),
          encoded.baseHash,
          encoded.depth,
        ]);
        // Another key may have stored the same content a moment ago, against its own base.
        depth = (await c.query<{ depth: number }>('SELECT depth FROM archive_payloads WHERE content_hash = $1', [w.contentHash])).rows[0]?.depth ?? encoded.depth;
      }
      if (this.bases.size >= BASES_KEPT) this.bases.clear();
      this.bases.set(key, { hash: w.contentHash, depth, data });
      await c.query(
        `INSERT INTO archive_snapshots (source_id, params_key, fetched_at, seen_until, content_hash) VALUES ($1, $2, $3, $3, $4)
         ON CONFLICT (source_id, params_key, fetched_at) DO UPDATE SET content_hash = excluded.content_hash`,
        [w.sourceId, w.paramsKey, w.fetchedAt, w.contentHash],
      );
      return { appended: true, snapshotAt: w.fetchedAt };
    });
  }

  async at(sourceId: string, paramsKey: string, at: number): Promise<ArchivedSnapshot | undefined> {
    const r = (
      await this.pool.query<Row>('SELECT * FROM archive_snapshots WHERE source_id = $1 AND params_key = $2 AND fetched_at <= $3 ORDER BY fetched_at DESC LIMIT 1', [sourceId, paramsKey, at])
    ).rows[0];
    return r && toSnapshot(r, (await this.chain(this.pool, r.content_hash)).text);
  }

  async bounds(sourceId: string, paramsKey: string): Promise<ArchiveBounds | undefined> {
    const b = (
      await this.pool.query<{ first: number | null; last: number | null; count: number; last_seen: number | null }>(
        `SELECT MIN(fetched_at) AS first, MAX(fetched_at) AS last, COUNT(*)::int AS count,
           (SELECT seen_until FROM archive_snapshots WHERE source_id = $1 AND params_key = $2 ORDER BY fetched_at DESC LIMIT 1) AS last_seen
         FROM archive_snapshots WHERE source_id = $1 AND params_key = $2`,
        [sourceId, paramsKey],
      )
    ).rows[0];
    if (!b || b.first === null || b.last === null) return undefined;
    return { first: b.first, last: b.last, lastSeen: b.last_seen ?? b.last, count: b.count };
  }

  async list(sourceId: string, paramsKey: string, opts: { from: number; to: number; limit: number }): Promise<ArchivedSnapshot[]> {
    const res = await this.pool.query<Row>(
      'SELECT * FROM archive_snapshots WHERE source_id = $1 AND params_key = $2 AND seen_until >= $3 AND fetched_at <= $4 ORDER BY fetched_at LIMIT $5',
      [sourceId, paramsKey, opts.from, opts.to, opts.limit],
    );
    // Consecutive snapshots are mostly deltas of each other: each decodes from the one before.
    const decoded = new Map<string, unknown>();
    const texts = new Map<string, string>();
    const out: ArchivedSnapshot[] = [];
    for (const r of res.rows) {
      let text = texts.get(r.content_hash);
      if (text === undefined) texts.set(r.content_hash, (text = (await this.chain(this.pool, r.content_hash, decoded)).text));
      out.push(toSnapshot(r, text));
    }
    return out;
  }

  async prune(opts: { now: number; retentionDays: number }): Promise<{ snapshots: number; payloads: number }> {
    if (opts.retentionDays <= 0) return { snapshots: 0, payloads: 0 };
    const cutoff = opts.now - opts.retentionDays * DAY_MS;
    return inTransaction(this.pool, async (c) => {
      const snapshots = await c.query(
        `DELETE FROM archive_snapshots a WHERE a.seen_until < $1 AND EXISTS (
           SELECT 1 FROM archive_snapshots n WHERE n.source_id = a.source_id AND n.params_key = a.params_key AND n.fetched_at > a.fetched_at)`,
        [cutoff],
      );
      const payloads = await c.query(UNNEEDED_PAYLOADS_SQL);
      this.bases.clear();
      return { snapshots: snapshots.rowCount ?? 0, payloads: payloads.rowCount ?? 0 };
    });
  }

  async stats(): Promise<ArchiveStats> {
    const s = (await this.pool.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM archive_snapshots')).rows[0];
    const p = (
      await this.pool.query<{ n: number; stored: string; raw: string }>(
        'SELECT COUNT(*)::int AS n, COALESCE(SUM(length(body)), 0)::bigint AS stored, COALESCE(SUM(bytes), 0)::bigint AS raw FROM archive_payloads',
      )
    ).rows[0];
    return { snapshots: s?.n ?? 0, payloads: p?.n ?? 0, storedBytes: Number(p?.stored ?? 0), rawBytes: Number(p?.raw ?? 0) };
  }
}
