/** The snapshot archive on SQLite (see archive.ts for the model). */
import type { Archive, ArchiveBounds, ArchivedSnapshot, ArchiveStats, ArchiveWrite } from './archive.ts';
import { toSnapshot, type ArchiveRow as Row } from './archive.ts';
import { DAY_MS } from './time.ts';
import { CHAIN_SQL, decodeChain, encodePayload, MAX_CHAIN, UNNEEDED_PAYLOADS_SQL, type ChainLink, type PayloadBase } from './archive-payloads.ts';
import type { Db, Migration } from './db.ts';

export const archiveMigrations: readonly Migration[] = [
  {
    name: 'archive-001-snapshots-payloads',
    sql: `
      CREATE TABLE archive_payloads (
        content_hash TEXT    PRIMARY KEY,
        body         BLOB    NOT NULL,
        bytes        INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE archive_snapshots (
        id           INTEGER PRIMARY KEY,
        source_id    TEXT    NOT NULL,
        params_key   TEXT    NOT NULL,
        fetched_at   INTEGER NOT NULL,
        seen_until   INTEGER NOT NULL,
        content_hash TEXT    NOT NULL REFERENCES archive_payloads (content_hash)
      ) STRICT;
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
      ALTER TABLE archive_payloads ADD COLUMN base_hash TEXT;
      ALTER TABLE archive_payloads ADD COLUMN depth INTEGER NOT NULL DEFAULT 0;
      DROP INDEX archive_snapshots_hash;
    `,
  },
];


/** Payloads a writer may store the next one of its key against, by key (what it wrote last). */
const BASES_KEPT = 1000;

export class SqliteArchive implements Archive {
  private readonly stmt;
  private readonly bases = new Map<string, PayloadBase>();

  /** Expects `archiveMigrations` applied (SqliteStore does it). */
  constructor(private readonly db: Db) {
    this.stmt = {
      newest: db.prepare<[string, string], Row>('SELECT * FROM archive_snapshots WHERE source_id = ? AND params_key = ? ORDER BY fetched_at DESC LIMIT 1'),
      extend: db.prepare('UPDATE archive_snapshots SET seen_until = ? WHERE id = ? AND seen_until < ?'),
      depth: db.prepare<[string], { depth: number }>('SELECT depth FROM archive_payloads WHERE content_hash = ?'),
      addPayload: db.prepare('INSERT OR IGNORE INTO archive_payloads (content_hash, body, bytes, base_hash, depth) VALUES (?, ?, ?, ?, ?)'),
      chain: db.prepare<[string], ChainLink>(CHAIN_SQL('?')),
      append: db.prepare(
        `INSERT INTO archive_snapshots (source_id, params_key, fetched_at, seen_until, content_hash) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (source_id, params_key, fetched_at) DO UPDATE SET content_hash = excluded.content_hash`,
      ),
      at: db.prepare<[string, string, number], Row>('SELECT * FROM archive_snapshots WHERE source_id = ? AND params_key = ? AND fetched_at <= ? ORDER BY fetched_at DESC LIMIT 1'),
      bounds: db.prepare<[string, string], { first: number | null; last: number | null; count: number }>(
        'SELECT MIN(fetched_at) AS first, MAX(fetched_at) AS last, COUNT(*) AS count FROM archive_snapshots WHERE source_id = ? AND params_key = ?',
      ),
      list: db.prepare<[string, string, number, number, number], Row>(
        'SELECT * FROM archive_snapshots WHERE source_id = ? AND params_key = ? AND seen_until >= ? AND fetched_at <= ? ORDER BY fetched_at LIMIT ?',
      ),
    };
  }

  async record(w: ArchiveWrite): Promise<{ appended: boolean; snapshotAt: number }> {
    return this.recordNow(w);
  }

  /** `record`, synchronously (better-sqlite3 is): for the store's own migration of old rows. */
  recordNow(w: ArchiveWrite): { appended: boolean; snapshotAt: number } {
    return this.db.transaction(() => {
      const newest = this.stmt.newest.get(w.sourceId, w.paramsKey);
      if (newest && newest.content_hash === w.contentHash) {
        this.stmt.extend.run(w.fetchedAt, newest.id, w.fetchedAt);
        return { appended: false, snapshotAt: newest.fetched_at };
      }
      const key = `${w.sourceId}|${w.paramsKey}`;
      const data = JSON.parse(w.payload) as unknown;
      let depth = this.stmt.depth.get(w.contentHash)?.depth;
      if (depth === undefined) {
        const encoded = encodePayload(w.payload, data, newest && this.base(key, newest.content_hash));
        this.stmt.addPayload.run(w.contentHash, encoded.body, Buffer.byteLength(w.payload), encoded.baseHash, encoded.depth);
        depth = encoded.depth;
      }
      if (this.bases.size >= BASES_KEPT) this.bases.clear();
      this.bases.set(key, { hash: w.contentHash, depth, data });
      this.stmt.append.run(w.sourceId, w.paramsKey, w.fetchedAt, w.fetchedAt, w.contentHash);
      return { appended: true, snapshotAt: w.fetchedAt };
    })();
  }

  /** The payload a key's next one may be stored against: the key's newest, unless its chain is full. */
  private base(key: string, hash: string): PayloadBase | undefined {
    const known = this.bases.get(key);
    if (known?.hash === hash) return known;
    const depth = this.stmt.depth.get(hash)?.depth;
    if (depth === undefined || depth >= MAX_CHAIN) return undefined;
    return { hash, depth, data: decodeChain(this.stmt.chain.all(hash)).data };
  }

  private payload(hash: string, decoded?: Map<string, unknown>): string {
    return decodeChain(this.stmt.chain.all(hash), decoded).text;
  }

  async at(sourceId: string, paramsKey: string, at: number): Promise<ArchivedSnapshot | undefined> {
    const r = this.stmt.at.get(sourceId, paramsKey, at);
    return r && toSnapshot(r, this.payload(r.content_hash));
  }

  async bounds(sourceId: string, paramsKey: string): Promise<ArchiveBounds | undefined> {
    const b = this.stmt.bounds.get(sourceId, paramsKey);
    if (!b || b.first === null || b.last === null) return undefined;
    const newest = this.stmt.newest.get(sourceId, paramsKey);
    return { first: b.first, last: b.last, lastSeen: newest?.seen_until ?? b.last, count: b.count };
  }

  async list(sourceId: string, paramsKey: string, opts: { from: number; to: number; limit: number }): Promise<ArchivedSnapshot[]> {
    // Consecutive snapshots are mostly deltas of each other: each decodes from the one before.
    const decoded = new Map<string, unknown>();
    const texts = new Map<string, string>();
    return this.stmt.list.all(sourceId, paramsKey, opts.from, opts.to, opts.limit).map((r) => {
      let text = texts.get(r.content_hash);
      if (text === undefined) texts.set(r.content_hash, (text = this.payload(r.content_hash, decoded)));
      return toSnapshot(r, text);
    });
  }

  async prune(opts: { now: number; retentionDays: number }): Promise<{ snapshots: number; payloads: number }> {
    if (opts.retentionDays <= 0) return { snapshots: 0, payloads: 0 };
    const cutoff = opts.now - opts.retentionDays * DAY_MS;
    return this.db.transaction(() => {
      const snapshots = this.db
        .prepare(
          `DELETE FROM archive_snapshots WHERE seen_until < ? AND EXISTS (
             SELECT 1 FROM archive_snapshots n WHERE n.source_id = archive_snapshots.source_id
               AND n.params_key = archive_snapshots.params_key AND n.fetched_at > archive_snapshots.fetched_at)`,
        )
        .run(cutoff).changes;
      const payloads = this.db.prepare(UNNEEDED_PAYLOADS_SQL).run().changes;
      this.bases.clear();
      return { snapshots, payloads };
    })();
  }

  async stats(): Promise<ArchiveStats> {
    const s = this.db.prepare('SELECT COUNT(*) AS n FROM archive_snapshots').get() as { n: number };
    const p = this.db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(length(body)), 0) AS stored, COALESCE(SUM(bytes), 0) AS raw FROM archive_payloads').get() as { n: number; stored: number; raw: number };
    return { snapshots: s.n, payloads: p.n, storedBytes: p.stored, rawBytes: p.raw };
  }
}
