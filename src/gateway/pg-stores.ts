/**
 * The gateway's state on PostgreSQL (DATABASE_URL), shared by several instances: keys and
 * accounts, the key pepper, usage rows and music tasks. Same tables, rows and results as the
 * SQLite classes (keys.ts, pepper.ts, usage.ts, tasks.ts), behind the same interfaces. Keys are
 * read from the database on every request (no cache), so a revocation on one instance holds on
 * every instance at its next request.
 */
import { randomBytes } from 'node:crypto';
import { inTransaction, pgMigrate, type Pool } from '../kernel/pg-store.ts';
import type { Migration } from '../kernel/db.ts';
import { RESERVATION_TTL_MS, type ReserveResult } from './credit.ts';
import { creditColumns, KEY_INSERT_COLUMNS, KeyDigests, mintKey, patchColumns, recordIfSameDigest, reservationDecision, SELECT_KEYS, toRecord, type KeyPatch, type KeyRecord, type KeyRow, type KeyStore, type NewKey } from './keys.ts';
import { MIN_PEPPER_LENGTH } from './pepper.ts';
import type { TaskOwner, TaskStore } from './tasks.ts';
import { DAY_MS } from '../kernel/time.ts';
import { KEYS_PER_QUERY, settleParams, SETTLE_KEY_SQL, TOKEN_SUMS, tokenTotals, toStoredUsage, USAGE_INSERT_COLUMNS, usageValues, type DailySpend, type TokenSumsRow, type TokenTotals, type DbUsageRow, type StoredUsageRow, type UsageLog, type UsageRow } from './usage.ts';

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
  {
    // See gateway/schema.ts gateway-006-credits: 2 micro-dollars per former quota token.
    name: 'gateway-006-credits',
    sql: `
      ALTER TABLE gateway_keys ADD COLUMN quota_micros BIGINT;
      ALTER TABLE gateway_keys ADD COLUMN spent_micros BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE gateway_keys ADD COLUMN budget_micros BIGINT;
      ALTER TABLE gateway_keys ADD COLUMN budget_period TEXT CHECK (budget_period IN ('daily', 'monthly'));
      ALTER TABLE gateway_keys ADD COLUMN budget_spent_micros BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE gateway_keys ADD COLUMN budget_period_start BIGINT;
      UPDATE gateway_keys SET quota_micros = quota_tokens * 2, spent_micros = used_tokens * 2;
      ALTER TABLE gateway_keys DROP COLUMN quota_tokens;
      ALTER TABLE gateway_usage ADD COLUMN cost_micros BIGINT NOT NULL DEFAULT 0;
      UPDATE gateway_usage SET cost_micros = charged_tokens * 2;
      CREATE TABLE gateway_reservations (
        id         TEXT   PRIMARY KEY,
        key_id     TEXT   NOT NULL,
        micros     BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX gateway_reservations_by_key ON gateway_reservations (key_id);
      CREATE INDEX gateway_reservations_by_expiry ON gateway_reservations (expires_at);
    `,
  },
  {
    // See gateway/schema.ts gateway-007-task-upstream.
    name: 'gateway-007-task-upstream',
    sql: 'ALTER TABLE gateway_task_owners ADD COLUMN upstream TEXT;',
  },
  {
    // See gateway/schema.ts gateway-008-settle-id.
    name: 'gateway-008-settle-id',
    sql: `
      ALTER TABLE gateway_usage ADD COLUMN settle_id TEXT;
      CREATE UNIQUE INDEX gateway_usage_by_settle_id ON gateway_usage (settle_id);
    `,
  },
  {
    // See gateway/schema.ts gateway-009-usage-details.
    name: 'gateway-009-usage-details',
    sql: `
      ALTER TABLE gateway_usage ADD COLUMN cached_tokens BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE gateway_usage ADD COLUMN cache_write_tokens BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE gateway_usage ADD COLUMN reasoning_tokens BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE gateway_usage ADD COLUMN audio_input_tokens BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE gateway_usage ADD COLUMN audio_output_tokens BIGINT NOT NULL DEFAULT 0;
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

/** keys.ts `SqliteKeyStore` on PostgreSQL (same key format, HMAC and records). */
export class PgKeyStore implements KeyStore {
  private readonly digests;

  constructor(
    private readonly pool: Pool,
    private readonly pepper: string,
    private readonly now: () => number = Date.now,
  ) {
    this.digests = new KeyDigests(pepper);
  }

  async create(input: NewKey): Promise<{ key: string; record: KeyRecord }> {
    const now = this.now();
    const minted = mintKey(input, this.pepper, now);
    await inTransaction(this.pool, async (c) => {
      // Insert the account or keep it; lock its row so concurrent creations agree on its level.
      await c.query('INSERT INTO gateway_accounts (id, level, created_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING', [minted.accountId, input.level, now]);
      const existing = (await c.query<{ level: string }>('SELECT level FROM gateway_accounts WHERE id = $1 FOR UPDATE', [minted.accountId])).rows[0];
      if (input.levelExplicit && existing && existing.level !== input.level) await c.query('UPDATE gateway_accounts SET level = $1 WHERE id = $2', [input.level, minted.accountId]);
      await c.query(`INSERT INTO gateway_keys (${KEY_INSERT_COLUMNS}) VALUES (${placeholders(minted.values.length)})`, minted.values);
    });
    const record = await this.get(minted.id);
    if (!record) throw new Error(`key ${minted.id} vanished after its creation`);
    return { key: minted.key, record };
  }

  async findByKey(key: string): Promise<KeyRecord | undefined> {
    const digest = this.digests.of(key);
    const record = recordIfSameDigest((await this.pool.query<KeyRow>(`${SELECT_KEYS} WHERE k.key_hash = $1`, [digest])).rows[0], digest);
    if (record) this.digests.keep(key, digest);
    return record;
  }

  async get(id: string): Promise<KeyRecord | undefined> {
    const row = (await this.pool.query<KeyRow>(`${SELECT_KEYS} WHERE k.id = $1`, [id])).rows[0];
    return row && toRecord(row);
  }

  async list(): Promise<KeyRecord[]> {
    return (await this.pool.query<KeyRow>(`${SELECT_KEYS} ORDER BY k.created_at, k.id`)).rows.map(toRecord);
  }

  async revoke(id: string): Promise<KeyRecord | undefined> {
    await this.pool.query('UPDATE gateway_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [this.now(), id]);
    return this.get(id);
  }

  async accountLevel(accountId: string): Promise<string | undefined> {
    return (await this.pool.query<{ level: string }>('SELECT level FROM gateway_accounts WHERE id = $1', [accountId])).rows[0]?.level;
  }

  async update(id: string, patch: KeyPatch): Promise<KeyRecord | undefined> {
    const before = await this.get(id);
    if (!before) return undefined;
    const cols = patchColumns(patch);
    await inTransaction(this.pool, async (c) => {
      if (cols.length) await c.query(`UPDATE gateway_keys SET ${cols.map(([col], i) => `${col} = $${i + 1}`).join(', ')} WHERE id = $${cols.length + 1}`, [...cols.map(([, v]) => v), id]);
      if (patch.budgetPeriod !== undefined && patch.budgetPeriod !== before.budgetPeriod) await c.query('UPDATE gateway_keys SET budget_spent_micros = 0, budget_period_start = NULL WHERE id = $1', [id]);
      if (patch.level !== undefined) await c.query('UPDATE gateway_accounts SET level = $1 WHERE id = $2', [patch.level, before.accountId]);
    });
    return this.get(id);
  }

  async topUp(id: string, micros: number): Promise<KeyRecord | undefined> {
    await this.pool.query('UPDATE gateway_keys SET quota_micros = quota_micros + $1 WHERE id = $2 AND quota_micros IS NOT NULL', [micros, id]);
    return this.get(id);
  }

  async reserve(keyId: string, reservationId: string, micros: number): Promise<ReserveResult> {
    const now = this.now();
    return inTransaction(this.pool, async (c) => {
      // The key's row lock orders concurrent reservations of one key across instances.
      const row = (await c.query<KeyRow>('SELECT * FROM gateway_keys WHERE id = $1 FOR UPDATE', [keyId])).rows[0];
      if (!row) return { ok: true } as const;
      await c.query('DELETE FROM gateway_reservations WHERE key_id = $1 AND expires_at <= $2', [keyId, now]);
      const held = Number((await c.query<{ held: string }>('SELECT COALESCE(SUM(micros), 0)::bigint AS held FROM gateway_reservations WHERE key_id = $1', [keyId])).rows[0]?.held ?? 0);
      const decision = reservationDecision(creditColumns(row), held, micros, now);
      if (decision.ok) await c.query('INSERT INTO gateway_reservations (id, key_id, micros, expires_at) VALUES ($1, $2, $3, $4)', [reservationId, keyId, micros, now + RESERVATION_TTL_MS]);
      return decision;
    });
  }
}

function placeholders(n: number): string {
  return Array.from({ length: n }, (_, i) => `$${i + 1}`).join(', ');
}

/** usage.ts `SqliteUsageLog` on PostgreSQL. */
export class PgUsageLog implements UsageLog {
  constructor(
    private readonly pool: Pool,
    private readonly now: () => number = Date.now,
  ) {}

  async record(r: UsageRow, at = this.now()): Promise<void> {
    const values = usageValues(r, at, r.stream);
    const n = values.length;
    const p = settleParams(r, at);
    const named: Record<string, string> = { tokens: `$${n + 1}`, cost: `$${n + 2}`, count: '1', at: '$2', day: `$${n + 3}`, month: `$${n + 4}`, id: '$3' };
    const charge = SETTLE_KEY_SQL.replace(/@(\w+)/g, (_, name: string) => `${named[name]}::bigint`).replace('$3::bigint', '$3');
    // One statement, so one round trip and atomic: a data-modifying WITH always runs to completion.
    // The key's totals are incremented in place, so concurrent instances never lose a charge. The
    // key is charged only when the row is new: a settlement replayed from the journal charges once.
    await this.pool.query(
      `WITH inserted AS (INSERT INTO gateway_usage (${USAGE_INSERT_COLUMNS}) VALUES (${placeholders(n)}) ON CONFLICT (settle_id) DO NOTHING RETURNING 1),
       charge AS (${charge} AND EXISTS (SELECT 1 FROM inserted)),
       released AS (DELETE FROM gateway_reservations WHERE id = $${n + 5})
       SELECT 1`,
      [...values, p.tokens, p.cost, p.day, p.month, r.reservationId ?? null],
    );
  }

  async dailySpend(keyId: string, from: number, to: number): Promise<DailySpend[]> {
    const rows = (
      await this.pool.query<{ day: string; model: string | null; cost: string } & TokenSumsRow>(
        `SELECT (created_at / ${DAY_MS}) * ${DAY_MS} AS day, model, SUM(cost_micros)::bigint AS cost, ${TOKEN_SUMS} FROM gateway_usage
         WHERE key_id = $1 AND created_at >= $2 AND created_at < $3 AND cost_micros > 0 GROUP BY 1, 2 ORDER BY 1, 2`,
        [keyId, from, to],
      )
    ).rows;
    return rows.map((r) => ({ day: Number(r.day), model: r.model, costMicros: Number(r.cost), tokens: tokenTotals(r) }));
  }

  async forKey(keyId: string, limit = 100): Promise<StoredUsageRow[]> {
    return (await this.pool.query<DbUsageRow>('SELECT * FROM gateway_usage WHERE key_id = $1 ORDER BY id DESC LIMIT $2', [keyId, limit])).rows.map(toStoredUsage);
  }

  async tokensByKey(keyIds: readonly string[], from: number): Promise<Map<string, TokenTotals>> {
    const out = new Map<string, TokenTotals>();
    for (let i = 0; i < keyIds.length; i += KEYS_PER_QUERY) {
      const rows = (
        await this.pool.query<{ key_id: string } & TokenSumsRow>(`SELECT key_id, ${TOKEN_SUMS} FROM gateway_usage WHERE key_id = ANY($1) AND created_at >= $2 GROUP BY key_id`, [
          keyIds.slice(i, i + KEYS_PER_QUERY),
          from,
        ])
      ).rows;
      for (const r of rows) out.set(r.key_id, tokenTotals(r));
    }
    return out;
  }
}

/** tasks.ts `SqliteTaskStore` on PostgreSQL. */
export class PgTaskStore implements TaskStore {
  constructor(
    private readonly pool: Pool,
    private readonly now: () => number = Date.now,
  ) {}

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

  async recordOwner(taskId: string, accountId: string, upstream: string | null = null): Promise<void> {
    await this.pool.query('INSERT INTO gateway_task_owners (task_id, account_id, created_at, upstream) VALUES ($1, $2, $3, $4) ON CONFLICT (task_id) DO NOTHING', [taskId, accountId, this.now(), upstream]);
  }

  async owner(taskId: string): Promise<TaskOwner | undefined> {
    const row = (await this.pool.query<{ account_id: string; upstream: string | null }>('SELECT account_id, upstream FROM gateway_task_owners WHERE task_id = $1', [taskId])).rows[0];
    return row && { accountId: row.account_id, upstream: row.upstream };
  }
}
