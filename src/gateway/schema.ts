/** The gateway's own tables (named migrations, run on the shared database). */
import type { Migration } from '../kernel/db.ts';

export const gatewayMigrations: readonly Migration[] = [
  {
    name: 'gateway-001-keys',
    sql: `
      CREATE TABLE gateway_meta (
        name  TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;
      CREATE TABLE gateway_accounts (
        id         TEXT    PRIMARY KEY,
        level      TEXT    NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE gateway_keys (
        id            TEXT    PRIMARY KEY,
        key_hash      TEXT    NOT NULL UNIQUE,
        key_prefix    TEXT    NOT NULL,
        key_last4     TEXT    NOT NULL,
        name          TEXT    NOT NULL,
        account_id    TEXT    NOT NULL REFERENCES gateway_accounts (id),
        quota_tokens  INTEGER,
        used_tokens   INTEGER NOT NULL DEFAULT 0,
        request_count INTEGER NOT NULL DEFAULT 0,
        models        TEXT    NOT NULL DEFAULT '[]',
        ips           TEXT    NOT NULL DEFAULT '[]',
        expires_at    INTEGER,
        created_at    INTEGER NOT NULL,
        revoked_at    INTEGER,
        last_used_at  INTEGER
      ) STRICT;
      CREATE INDEX gateway_keys_by_account ON gateway_keys (account_id);
    `,
  },
  {
    name: 'gateway-002-usage',
    sql: `
      CREATE TABLE gateway_usage (
        id                INTEGER PRIMARY KEY,
        request_id        TEXT    NOT NULL,
        created_at        INTEGER NOT NULL,
        key_id            TEXT    NOT NULL,
        account_id        TEXT    NOT NULL,
        route             TEXT    NOT NULL,
        method            TEXT    NOT NULL,
        model             TEXT,
        stream            INTEGER NOT NULL,
        status            INTEGER NOT NULL,
        upstream_status   INTEGER,
        error_code        TEXT,
        prompt_tokens     INTEGER NOT NULL,
        completion_tokens INTEGER NOT NULL,
        total_tokens      INTEGER NOT NULL,
        charged_tokens    INTEGER NOT NULL,
        usage_source      TEXT    NOT NULL CHECK (usage_source IN ('upstream', 'estimated', 'none')),
        end_reason        TEXT    NOT NULL CHECK (end_reason IN ('completed', 'client_closed', 'upstream_error', 'rejected')),
        ttfb_ms           INTEGER,
        duration_ms       INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX gateway_usage_by_key ON gateway_usage (key_id, created_at);
    `,
  },
  {
    name: 'gateway-003-rate-limits',
    sql: `
      CREATE TABLE gateway_rate_limits (
        key    TEXT PRIMARY KEY,
        points INTEGER NOT NULL DEFAULT 0,
        expire INTEGER
      );
    `,
  },
  {
    name: 'gateway-004-music-tasks',
    sql: `
      CREATE TABLE gateway_music_tasks (
        account_id TEXT    NOT NULL,
        task_id    TEXT    NOT NULL,
        status     TEXT    NOT NULL,
        body       TEXT    NOT NULL,
        stored_at  INTEGER NOT NULL,
        PRIMARY KEY (account_id, task_id)
      ) STRICT;
      CREATE TABLE gateway_task_owners (
        task_id    TEXT    PRIMARY KEY,
        account_id TEXT    NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    // The windows moved to the kernel limiter's table (src/kernel/limiter.ts), shared with PostgreSQL and Redis deployments.
    name: 'gateway-005-drop-own-rate-limits',
    sql: 'DROP TABLE gateway_rate_limits;',
  },
  {
    // Credits (issue 12): quotas and spend in micro-dollars. Token quotas become dollars at
    // 500,000 tokens per USD (the old AI_QUOTA_PER_USD default): 2 micro-dollars per token.
    name: 'gateway-006-credits',
    sql: `
      ALTER TABLE gateway_keys ADD COLUMN quota_micros INTEGER;
      ALTER TABLE gateway_keys ADD COLUMN spent_micros INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE gateway_keys ADD COLUMN budget_micros INTEGER;
      ALTER TABLE gateway_keys ADD COLUMN budget_period TEXT CHECK (budget_period IN ('daily', 'monthly'));
      ALTER TABLE gateway_keys ADD COLUMN budget_spent_micros INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE gateway_keys ADD COLUMN budget_period_start INTEGER;
      UPDATE gateway_keys SET quota_micros = quota_tokens * 2, spent_micros = used_tokens * 2;
      ALTER TABLE gateway_keys DROP COLUMN quota_tokens;
      ALTER TABLE gateway_usage ADD COLUMN cost_micros INTEGER NOT NULL DEFAULT 0;
      UPDATE gateway_usage SET cost_micros = charged_tokens * 2;
      CREATE TABLE gateway_reservations (
        id         TEXT    PRIMARY KEY,
        key_id     TEXT    NOT NULL,
        micros     INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX gateway_reservations_by_key ON gateway_reservations (key_id);
      CREATE INDEX gateway_reservations_by_expiry ON gateway_reservations (expires_at);
    `,
  },
  {
    // The upstream (its URL) that created a music task: its polls go there (issue 12 follow-up).
    name: 'gateway-007-task-upstream',
    sql: 'ALTER TABLE gateway_task_owners ADD COLUMN upstream TEXT;',
  },
  {
    // Durable settlement (issue 20): each settlement's own id, so a replay from the journal never charges twice.
    name: 'gateway-008-settle-id',
    sql: `
      ALTER TABLE gateway_usage ADD COLUMN settle_id TEXT;
      CREATE UNIQUE INDEX gateway_usage_by_settle_id ON gateway_usage (settle_id);
    `,
  },
  {
    // Billing by the vendors' rules (issue 21): what part of the prompt and output tokens were cached, cache writes, reasoning, audio.
    name: 'gateway-009-usage-details',
    sql: `
      ALTER TABLE gateway_usage ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE gateway_usage ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE gateway_usage ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE gateway_usage ADD COLUMN audio_input_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE gateway_usage ADD COLUMN audio_output_tokens INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    // Credit holds in one b-tree ordered by key (issue 21, speed): a reservation's commit writes one
    // page instead of four (table, id index, key index, expiry index). Expired holds are purged by
    // a scan once a minute; the table holds only the requests in flight.
    name: 'gateway-010-reservations-by-key',
    sql: `
      CREATE TABLE gateway_reservations_compact (
        key_id     TEXT    NOT NULL,
        id         TEXT    NOT NULL,
        micros     INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (key_id, id)
      ) STRICT, WITHOUT ROWID;
      INSERT INTO gateway_reservations_compact (key_id, id, micros, expires_at) SELECT key_id, id, micros, expires_at FROM gateway_reservations;
      DROP TABLE gateway_reservations;
      ALTER TABLE gateway_reservations_compact RENAME TO gateway_reservations;
    `,
  },
];
