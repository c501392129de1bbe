/**
 * The gateway's state on PostgreSQL, for several instances: keys and accounts, the key pepper,
 * usage rows and music tasks. Same tables, rows and results as the SQLite classes (keys.ts,
 * pepper.ts, usage.ts, tasks.ts), with asynchronous methods of the same names. The gateway does
 * not use them yet: its stores are synchronous better-sqlite3 classes (see the report of issue
 * #8 for the interface it needs). Keys are read from the database on every request (no cache),
 * so a revocation on one instance holds on every instance at its next request.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { inTransaction, pgMigrate, type Pool } from '../kernel/pg-store.ts';
import type { Migration } from '../kernel/db.ts';
import { SELECT_KEYS, toRecord, type KeyRecord, type KeyRow, type NewKey } from './keys.ts';
import { MIN_PEPPER_LENGTH } from './pepper.ts';
import type { EndReason, StoredUsageRow, UsageRow, UsageSource } from './usage.ts';

/** gateway/schema.ts in PostgreSQL terms (ms times as BIGINT). */
export const pgGatewayMigrations: readonly Migration[] = [
  {
    name: 'gateway-001-keys',
    sql: `
      CREATE TABLE gateway_meta (
        name  TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
      CREATE TABLE gateway_accounts (
        id         TEXT   PRIMARY KEY,
        level      TEXT   NOT NULL,
        created_at BIGINT NOT NULL
      );
      CREATE TABLE gateway_keys (
        id            TEXT    PRIMARY KEY,
        key_hash      TEXT    NOT NULL UNIQUE,
        key_prefix    TEXT    NOT NULL,
        key_last4     TEXT    NOT NULL,
        name          TEXT    NOT NULL,
        account_id    TEXT    NOT NULL REFERENCES gateway_accounts (id),
        quota_tokens  BIGINT,
        used_tokens   BIGINT  NOT NULL DEFAULT 0,
        request_count BIGINT  NOT NULL DEFAULT 0,
        models        TEXT    NOT NULL DEFAULT '[]',
        ips           TEXT    NOT NULL DEFAULT '[]',
        expires_at    BIGINT,
        created_at    BIGINT  NOT NULL,
        revoked_at    BIGINT,
        last_used_at  BIGINT
      );
      CREATE INDEX gateway_keys_by_account ON gateway_keys (account_id);
    `,
  },
  {
    name: 'gateway-002-usage',
    sql: `
      CREATE TABLE gateway_usage (
        id                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        request_id        TEXT    NOT NULL,
        created_at        BIGINT  NOT NULL,
        key_id            TEXT    NOT NULL,
        account_id        TEXT    NOT NULL,
        route             TEXT    NOT NULL,
        method            TEXT    NOT NULL,
        model             TEXT,
        stream            BOOLEAN NOT NULL,
        status            INTEGER NOT NULL,
        upstream_status   INTEGER,
        error_code        TEXT,
        prompt_tokens     BIGINT  NOT NULL,
        completion_tokens BIGINT  NOT NULL,
        total_tokens      BIGINT  NOT NULL,
        charged_tokens    BIGINT  NOT NULL,
        usage_source      TEXT    NOT NULL CHECK (usage_source IN ('upstream', 'estimated', 'none')),
        end_reason        TEXT    NOT NULL CHECK (end_reason IN ('completed', 'client_closed', 'upstream_error', 'rejected')),
        ttfb_ms           INTEGER,
        duration_ms       INTEGER NOT NULL
      );
      CREATE INDEX gateway_usage_by_key ON gateway_usage (key_id, created_at);
    `,
  },
  {
    name: 'gateway-004-music-tasks',
    sql: `
      CREATE TABLE gateway_music_tasks (
        account_id TEXT   NOT NULL,
        task_id    TEXT   NOT NULL,
        status     TEXT   NOT NULL,
        body       TEXT   NOT NULL,
        stored_at  BIGINT NOT NULL,
        PRIMARY KEY (account_id, task_id)
      );
      CREATE TABLE gateway_task_owners (
        task_id    TEXT   PRIMARY KEY,
        account_id TEXT   NOT NULL,
        created_at BIGINT NOT NULL
      );
    `,
  },
];

/** Apply the gateway's PostgreSQL migrations (idempotent; safe when instances start together). */
export function migrateGateway(pool: Pool): Promise<string[]> {
  return pgMigrate(pool, pgGatewayMigrations);
}

/** As pepper.ts: AI_KEY_PEPPER, else one random pepper shared by every instance through the database. */
export async function resolvePgPepper(pool: Pool, configured: string | undefined): Promise<string> {
  if (configured !== undefined) {
    if (configured.length < MIN_PEPPER_LENGTH) throw new Error(`AI_KEY_PEPPER must be at least ${MIN_PEPPER_LENGTH} characters long.`);
    return configured;
  }
  await pool.query("INSERT INTO gateway_meta (name, value) VALUES ('key_pepper', $1) ON CONFLICT (name) DO NOTHING", [randomBytes(32).toString('hex')]);
  const row = (await pool.query<{ value: string }>("SELECT value FROM gateway_meta WHERE name = 'key_pepper'")).rows[0];
  if (!row) throw new Error('gateway_meta has no key_pepper after inserting it');
  return row.value;
}

/** keys.ts `KeyStore` on PostgreSQL (same key format, HMAC and records). */
export class PgKeyStore {
  constructor(
    private readonly pool: Pool,
    private readonly pepper: string,
    private readonly now: () => number = Date.now,
  ) {}

  hash(key: string): string {
    return createHmac('sha256', this.pepper).update(key, 'utf8').digest('hex');
  }

  async create(input: NewKey): Promise<{ key: string; record: KeyRecord }> {
    const key = `sk-${randomBytes(32).toString('base64url')}`;
    const id = `key_${randomBytes(8).toString('hex')}`;
    const accountId = input.account ?? id;
    const now = this.now();
    await inTransaction(this.pool, async (c) => {
      // Insert the account or keep it; lock its row so concurrent creations agree on its level.
      await c.query('INSERT INTO gateway_accounts (id, level, created_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING', [accountId, input.level, now]);
      const existing = (await c.query<{ level: string }>('SELECT level FROM gateway_accounts WHERE id = $1 FOR UPDATE', [accountId])).rows[0];
      if (input.levelExplicit && existing && existing.level !== input.level) await c.query('UPDATE gateway_accounts SET level = $1 WHERE id = $2', [input.level, accountId]);
      await c.query(
        `INSERT INTO gateway_keys (id, key_hash, key_prefix, key_last4, name, account_id, quota_tokens, models, ips, expires_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [id, this.hash(key), key.slice(0, 7), key.slice(-4), input.name, accountId, input.quotaTokens, JSON.stringify(input.models), JSON.stringify(input.ips), input.expiresAt, now],
      );
    });
    const record = await this.get(id);
    if (!record) throw new Error(`key ${id} vanished after its creation`);
    return { key, record };
  }

  /** The key's record, whatever its state (expired and revoked included); `undefined` if unknown. */
  async findByKey(key: string): Promise<KeyRecord | undefined> {
    const digest = this.hash(key);
    const row = (await this.pool.query<KeyRow>(`${SELECT_KEYS} WHERE k.key_hash = $1`, [digest])).rows[0];
    if (!row) return undefined;
    const a = Buffer.from(row.key_hash, 'hex');
    const b = Buffer.from(digest, 'hex');
    return a.length === b.length && timingSafeEqual(a, b) ? toRecord(row) : undefined;
  }

  async get(id: string): Promise<KeyRecord | undefined> {
    const row = (await this.pool.query<KeyRow>(`${SELECT_KEYS} WHERE k.id = $1`, [id])).rows[0];
    return row && toRecord(row);
  }

  async list(): Promise<KeyRecord[]> {
    return (await this.pool.query<KeyRow>(`${SELECT_KEYS} ORDER BY k.created_at, k.id`)).rows.map(toRecord);
  }

  /** Marks the key revoked (idempotent); `undefined` if there is no such key. */
  async revoke(id: string): Promise<KeyRecord | undefined> {
    await this.pool.query('UPDATE gateway_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [this.now(), id]);
    return this.get(id);
  }

  /** Add one request and its tokens to the key's usage (atomic across instances). */
  async charge(id: string, tokens: number): Promise<void> {
    await this.pool.query('UPDATE gateway_keys SET used_tokens = used_tokens + $1, request_count = request_count + 1, last_used_at = $2 WHERE id = $3', [
      Math.max(0, Math.round(tokens)),
      this.now(),
      id,
    ]);
  }

  async accountLevel(accountId: string): Promise<string | undefined> {
    return (await this.pool.query<{ level: string }>('SELECT level FROM gateway_accounts WHERE id = $1', [accountId])).rows[0]?.level;
  }
}

interface DbUsageRow {
  id: number;
  request_id: string;
  created_at: number;
  key_id: string;
  account_id: string;
  route: string;
  method: string;
  model: string | null;
  stream: boolean;
  status: number;
  upstream_status: number | null;
  error_code: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  charged_tokens: number;
  usage_source: UsageSource;
  end_reason: EndReason;
  ttfb_ms: number | null;
  duration_ms: number;
}

/** usage.ts `UsageLog` on PostgreSQL. */
export class PgUsageLog {
  constructor(
    private readonly pool: Pool,
    private readonly now: () => number = Date.now,
  ) {}

  async record(r: UsageRow): Promise<void> {
    await this.pool.query(
      `INSERT INTO gateway_usage (request_id, created_at, key_id, account_id, route, method, model, stream, status, upstream_status, error_code,
         prompt_tokens, completion_tokens, total_tokens, charged_tokens, usage_source, end_reason, ttfb_ms, duration_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
      [
        r.requestId, this.now(), r.keyId, r.accountId, r.route, r.method, r.model, r.stream, r.status, r.upstreamStatus, r.errorCode,
        r.promptTokens, r.completionTokens, r.totalTokens, r.chargedTokens, r.usageSource, r.endReason, r.ttfbMs === null ? null : Math.round(r.ttfbMs), Math.round(r.durationMs),
      ],
    );
  }

  /** The newest rows of one key, newest first. */
  async forKey(keyId: string, limit = 100): Promise<StoredUsageRow[]> {
    const rows = (await this.pool.query<DbUsageRow>('SELECT * FROM gateway_usage WHERE key_id = $1 ORDER BY id DESC LIMIT $2', [keyId, limit])).rows;
    return rows.map((r) => ({
      id: r.id,
      createdAt: r.created_at,
      requestId: r.request_id,
      keyId: r.key_id,
      accountId: r.account_id,
      route: r.route,
      method: r.method,
      model: r.model,
      stream: r.stream,
      status: r.status,
      upstreamStatus: r.upstream_status,
      errorCode: r.error_code,
      promptTokens: r.prompt_tokens,
      completionTokens: r.completion_tokens,
      totalTokens: r.total_tokens,
      chargedTokens: r.charged_tokens,
      usageSource: r.usage_source,
      endReason: r.end_reason,
      ttfbMs: r.ttfb_ms,
      durationMs: r.duration_ms,
    }));
  }
}

/** tasks.ts `TaskStore` on PostgreSQL. */
export class PgTaskStore {
  constructor(
    private readonly pool: Pool,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cached envelope text of a finished task, if any. */
  async cached(accountId: string, taskId: string): Promise<string | undefined> {
    return (await this.pool.query<{ body: string }>('SELECT body FROM gateway_music_tasks WHERE account_id = $1 AND task_id = $2', [accountId, taskId])).rows[0]?.body;
  }

  async store(accountId: string, taskId: string, status: string, body: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO gateway_music_tasks (account_id, task_id, status, body, stored_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (account_id, task_id) DO UPDATE SET status = excluded.status, body = excluded.body, stored_at = excluded.stored_at`,
      [accountId, taskId, status, body, this.now()],
    );
  }

  async recordOwner(taskId: string, accountId: string): Promise<void> {
    await this.pool.query('INSERT INTO gateway_task_owners (task_id, account_id, created_at) VALUES ($1, $2, $3) ON CONFLICT (task_id) DO NOTHING', [taskId, accountId, this.now()]);
  }

  /** The account that created the task through this gateway; `undefined` if it was not created here. */
  async owner(taskId: string): Promise<string | undefined> {
    return (await this.pool.query<{ account_id: string }>('SELECT account_id FROM gateway_task_owners WHERE task_id = $1', [taskId])).rows[0]?.account_id;
  }
}
