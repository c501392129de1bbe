/**
 * The key store. A key is `sk-` + 43 base64url characters (32 random bytes); it is shown once
 * and only its HMAC-SHA256 (with the pepper) is stored. Every key belongs to an account whose
 * level sets the rate limits shared by the account's keys.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../kernel/db.ts';

export const KEY_PATTERN = /^sk-[A-Za-z0-9_-]{43}$/;

export interface KeyRecord {
  id: string;
  name: string;
  accountId: string;
  level: string;
  /** `null` = unlimited. */
  quotaTokens: number | null;
  usedTokens: number;
  requestCount: number;
  /** Exact names and `*` patterns; empty = every model. */
  models: string[];
  /** IPv4/IPv6 CIDRs; empty = every address. */
  ips: string[];
  expiresAt: number | null;
  createdAt: number;
  revokedAt: number | null;
  lastUsedAt: number | null;
  /** Display form such as `sk-AbCd…wxyz`; never enough to use the key. */
  hint: string;
}

export interface NewKey {
  name: string;
  account?: string | undefined;
  level: string;
  /** Whether `level` was given explicitly (it then updates an existing account's level). */
  levelExplicit: boolean;
  quotaTokens: number | null;
  models: string[];
  ips: string[];
  expiresAt: number | null;
}

/** A key row joined with its account's level; the same in every SQL backend. */
export interface KeyRow {
  id: string;
  key_hash: string;
  key_prefix: string;
  key_last4: string;
  name: string;
  account_id: string;
  level: string;
  quota_tokens: number | null;
  used_tokens: number;
  request_count: number;
  models: string;
  ips: string;
  expires_at: number | null;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
}

export const SELECT_KEYS = `
  SELECT k.*, a.level AS level FROM gateway_keys k JOIN gateway_accounts a ON a.id = k.account_id`;

function stringList(json: string): string[] {
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === 'string') : [];
}

export function toRecord(r: KeyRow): KeyRecord {
  return {
    id: r.id,
    name: r.name,
    accountId: r.account_id,
    level: r.level,
    quotaTokens: r.quota_tokens,
    usedTokens: r.used_tokens,
    requestCount: r.request_count,
    models: stringList(r.models),
    ips: stringList(r.ips),
    expiresAt: r.expires_at,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
    lastUsedAt: r.last_used_at,
    hint: `${r.key_prefix}…${r.key_last4}`,
  };
}

/** Where keys live: SQLite (`SqliteKeyStore`) or PostgreSQL (`PgKeyStore` in pg-stores.ts). */
export interface KeyStore {
  create(input: NewKey): Promise<{ key: string; record: KeyRecord }>;
  /** The key's record, whatever its state (expired and revoked included); `undefined` if unknown. */
  findByKey(key: string): Promise<KeyRecord | undefined>;
  get(id: string): Promise<KeyRecord | undefined>;
  list(): Promise<KeyRecord[]>;
  /** Marks the key revoked (idempotent); `undefined` if there is no such key. */
  revoke(id: string): Promise<KeyRecord | undefined>;
  accountLevel(accountId: string): Promise<string | undefined>;
}

/** A new key and the values of its row (the key itself is never stored). */
export function mintKey(input: NewKey, pepper: string, now: number) {
  const key = `sk-${randomBytes(32).toString('base64url')}`;
  const id = `key_${randomBytes(8).toString('hex')}`;
  const accountId = input.account ?? id;
  return {
    key,
    id,
    accountId,
    /** The columns of gateway_keys in KEY_INSERT_COLUMNS order. */
    values: [id, keyDigest(key, pepper), key.slice(0, 7), key.slice(-4), input.name, accountId, input.quotaTokens, JSON.stringify(input.models), JSON.stringify(input.ips), input.expiresAt, now],
  };
}

export const KEY_INSERT_COLUMNS = 'id, key_hash, key_prefix, key_last4, name, account_id, quota_tokens, models, ips, expires_at, created_at';

export function keyDigest(key: string, pepper: string): string {
  return createHmac('sha256', pepper).update(key, 'utf8').digest('hex');
}

/** The row found by its digest, compared again in constant time (the index lookup is not). */
export function recordIfSameDigest(row: KeyRow | undefined, digest: string): KeyRecord | undefined {
  if (!row) return undefined;
  const a = Buffer.from(row.key_hash, 'hex');
  const b = Buffer.from(digest, 'hex');
  return a.length === b.length && timingSafeEqual(a, b) ? toRecord(row) : undefined;
}

export class SqliteKeyStore implements KeyStore {
  private readonly byHash;
  private readonly byId;

  constructor(
    private readonly db: Db,
    private readonly pepper: string,
    private readonly now: () => number = Date.now,
  ) {
    this.byHash = db.prepare(`${SELECT_KEYS} WHERE k.key_hash = ?`);
    this.byId = db.prepare(`${SELECT_KEYS} WHERE k.id = ?`);
  }

  async create(input: NewKey): Promise<{ key: string; record: KeyRecord }> {
    const now = this.now();
    const minted = mintKey(input, this.pepper, now);
    this.db.transaction(() => {
      const existing = this.db.prepare('SELECT level FROM gateway_accounts WHERE id = ?').get(minted.accountId) as { level: string } | undefined;
      if (!existing) this.db.prepare('INSERT INTO gateway_accounts (id, level, created_at) VALUES (?, ?, ?)').run(minted.accountId, input.level, now);
      else if (input.levelExplicit && existing.level !== input.level) this.db.prepare('UPDATE gateway_accounts SET level = ? WHERE id = ?').run(input.level, minted.accountId);
      this.db.prepare(`INSERT INTO gateway_keys (${KEY_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(...minted.values);
    })();
    return { key: minted.key, record: this.getNow(minted.id)! };
  }

  async findByKey(key: string): Promise<KeyRecord | undefined> {
    const digest = keyDigest(key, this.pepper);
    return recordIfSameDigest(this.byHash.get(digest) as KeyRow | undefined, digest);
  }

  async get(id: string): Promise<KeyRecord | undefined> {
    return this.getNow(id);
  }

  private getNow(id: string): KeyRecord | undefined {
    const row = this.byId.get(id) as KeyRow | undefined;
    return row && toRecord(row);
  }

  async list(): Promise<KeyRecord[]> {
    return (this.db.prepare(`${SELECT_KEYS} ORDER BY k.created_at, k.id`).all() as KeyRow[]).map(toRecord);
  }

  async revoke(id: string): Promise<KeyRecord | undefined> {
    this.db.prepare('UPDATE gateway_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(this.now(), id);
    return this.getNow(id);
  }

  async accountLevel(accountId: string): Promise<string | undefined> {
    return (this.db.prepare('SELECT level FROM gateway_accounts WHERE id = ?').get(accountId) as { level: string } | undefined)?.level;
  }
}
