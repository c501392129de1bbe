/**
 * The SQLite connection and its migrations. Each part of the service (the snapshot store, the
 * gateway) owns a named list of migrations; a `migrations` table records which have run, so
 * parts can evolve their schemas independently.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export type Db = Database.Database;

export interface Migration {
  /** Unique and never renamed, e.g. `store-001-snapshots`. */
  name: string;
  sql: string;
}

export function openDatabase(file: string): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.exec('CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT');
  return db;
}

/** Run the migrations not yet applied, each in its own transaction, in list order. */
export function migrate(db: Db, migrations: readonly Migration[]): void {
  const done = new Set((db.prepare('SELECT name FROM migrations').all() as { name: string }[]).map((r) => r.name));
  const record = db.prepare('INSERT INTO migrations (name, applied_at) VALUES (?, ?)');
  for (const m of migrations) {
    if (done.has(m.name)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.name, Date.now());
    })();
  }
}
