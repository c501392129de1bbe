/**
 * Where the gateway keeps its state: SQLite at DB_PATH for one instance (the default), or
 * PostgreSQL (DATABASE_URL) shared by several instances. Both are migrated here and offer the
 * same three stores; the server and `npm run keys` open them the same way.
 */
import { migrate, type Db } from '../kernel/db.ts';
import type { Pool } from '../kernel/pg-store.ts';
import { SqliteKeyStore, type KeyStore } from './keys.ts';
import { resolvePepper } from './pepper.ts';
import { migrateGateway, PgKeyStore, PgTaskStore, PgUsageLog, resolvePgPepper } from './pg-stores.ts';
import { gatewayMigrations } from './schema.ts';
import { SqliteTaskStore, type TaskStore } from './tasks.ts';
import { SqliteUsageLog, type UsageLog } from './usage.ts';

export interface GatewayStore {
  backend: 'sqlite' | 'postgres';
  keys: KeyStore;
  usage: UsageLog;
  tasks: TaskStore;
}

/**
 * `keyPepper`: AI_KEY_PEPPER, else the pepper persisted in the database (generated once). `now`:
 * the service's clock (key creation and revocation times), the one its pages show.
 */
export function openSqliteGatewayStore(db: Db, keyPepper: string | undefined, now: () => number = Date.now): GatewayStore {
  migrate(db, gatewayMigrations);
  return { backend: 'sqlite', keys: new SqliteKeyStore(db, resolvePepper(db, keyPepper), now), usage: new SqliteUsageLog(db), tasks: new SqliteTaskStore(db) };
}

export async function openPgGatewayStore(pool: Pool, keyPepper: string | undefined, now: () => number = Date.now): Promise<GatewayStore> {
  await migrateGateway(pool);
  return { backend: 'postgres', keys: new PgKeyStore(pool, await resolvePgPepper(pool, keyPepper), now), usage: new PgUsageLog(pool), tasks: new PgTaskStore(pool) };
}
