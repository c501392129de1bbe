/**
 * The key store. A key is `sk-` + 43 base64url characters (32 random bytes); it is shown once
 * and only its HMAC-SHA256 (with the pepper) is stored. Every key belongs to an account whose
 * level sets the rate limits shared by the account's keys.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../kernel/db.ts';
import { RESERVATION_TTL_MS, creditLeft, type BudgetPeriod, type CreditColumns, type ReserveResult } from './credit.ts';

export const KEY_PATTERN = /^sk-[A-Za-z0-9_-]{43}$/;

export interface KeyRecord extends CreditColumns {
  id: string;
  name: string;
  accountId: string;
  level: string;
  /** Tokens charged over the key's life (its spend is in `spentMicros`). */
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
  /** Credit granted, in micro-dollars (USD × 1,000,000); `null` = unlimited. */
  quotaMicros: number | null;
  /** A spending limit per period, in micro-dollars; `null` = none. */
  budgetMicros?: number | null;
  budgetPeriod?: BudgetPeriod | null;
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
  quota_micros: number | string | null;
  spent_micros: number | string;
  budget_micros: number | string | null;
  budget_period: BudgetPeriod | null;
  budget_spent_micros: number | string;
  budget_period_start: number | string | null;
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

/** PostgreSQL returns BIGINT as a string. */
const int = (x: number | string): number => (typeof x === 'string' ? Number(x) : x);
const intOrNull = (x: number | string | null): number | null => (x === null ? null : int(x));

export function creditColumns(r: Pick<KeyRow, 'quota_micros' | 'spent_micros' | 'budget_micros' | 'budget_period' | 'budget_spent_micros' | 'budget_period_start'>): CreditColumns {
  return {
    quotaMicros: intOrNull(r.quota_micros),
    spentMicros: int(r.spent_micros),
    budgetMicros: intOrNull(r.budget_micros),
    budgetPeriod: r.budget_period,
    budgetSpentMicros: int(r.budget_spent_micros),
    budgetPeriodStart: intOrNull(r.budget_period_start),
  };
}

export function toRecord(r: KeyRow): KeyRecord {
  return {
    id: r.id,
    name: r.name,
    accountId: r.account_id,
    level: r.level,
    ...creditColumns(r),
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
  /** Change a key's policy (and its account's level); `undefined` if there is no such key. */
  update(id: string, patch: KeyPatch): Promise<KeyRecord | undefined>;
  /** Add credit to a key's quota (a key without a quota, i.e. unlimited, stays so); `undefined` if there is no such key. */
  topUp(id: string, micros: number): Promise<KeyRecord | undefined>;
  /**
   * Hold `micros` of the key's credit for request `reservationId` unless its quota or budget,
   * minus what other requests hold, cannot cover it. Released when the request is settled
   * (UsageLog.record) or after RESERVATION_TTL_MS.
   */
  reserve(keyId: string, reservationId: string, micros: number): Promise<ReserveResult>;
}

export interface KeyPatch {
  name?: string;
  level?: string;
  quotaMicros?: number | null;
  budgetMicros?: number | null;
  budgetPeriod?: BudgetPeriod | null;
  models?: string[];
  ips?: string[];
  expiresAt?: number | null;
}

/** The gateway_keys columns a KeyPatch sets, and their values (JSON for the lists). */
export function patchColumns(p: KeyPatch): [string, unknown][] {
  const cols: [string, unknown][] = [];
  if (p.name !== undefined) cols.push(['name', p.name]);
  if (p.quotaMicros !== undefined) cols.push(['quota_micros', p.quotaMicros]);
  if (p.budgetMicros !== undefined) cols.push(['budget_micros', p.budgetMicros]);
  if (p.budgetPeriod !== undefined) cols.push(['budget_period', p.budgetPeriod]);
  if (p.models !== undefined) cols.push(['models', JSON.stringify(p.models)]);
  if (p.ips !== undefined) cols.push(['ips', JSON.stringify(p.ips)]);
  if (p.expiresAt !== undefined) cols.push(['expires_at', p.expiresAt]);
  return cols;
}

/** The reservation rule both stores apply inside their transaction. */
export function reservationDecision(c: CreditColumns, heldMicros: number, micros: number, now: number): ReserveResult {
  const left = creditLeft(c, now);
  if (left.micros === null || micros <= left.micros - heldMicros) return { ok: true };
  return { ok: false, left, heldMicros };
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
    values: [
      id, keyDigest(key, pepper), key.slice(0, 7), key.slice(-4), input.name, accountId, input.quotaMicros, input.budgetMicros ?? null, input.budgetPeriod ?? null,
      JSON.stringify(input.models), JSON.stringify(input.ips), input.expiresAt, now,
    ],
  };
}

export const KEY_INSERT_COLUMNS = 'id, key_hash, key_prefix, key_last4, name, account_id, quota_micros, budget_micros, budget_period, models, ips, expires_at, created_at';

export function keyDigest(key: string, pepper: string): string {
  return createHmac('sha256', pepper).update(key, 'utf8').digest('hex');
}

const DIGEST_MEMO_MAX = 10_000;

/**
 * The digests of the keys presented lately, by key: the HMAC is computed once per key rather than
 * per request. Bounded (emptied when full); a digest is a pure function of the key and the
 * pepper, so nothing here can go stale. Holds only keys whose record was found.
 */
export class KeyDigests {
  private readonly known = new Map<string, string>();
  constructor(private readonly pepper: string) {}

  of(key: string): string {
    return this.known.get(key) ?? keyDigest(key, this.pepper);
  }

  /** Remember the digest of a key that was found (unknown keys are not kept: anyone can send those). */
  keep(key: string, digest: string): void {
    if (this.known.size >= DIGEST_MEMO_MAX) this.known.clear();
    this.known.set(key, digest);
  }
}

/** The row found by its digest, compared again in constant time (the index lookup is not). */
export function recordIfSameDigest(row: KeyRow | undefined, digest: string): KeyRecord | undefined {
  if (!row) return undefined;
  const a = Buffer.from(row.key_hash, 'hex');
  const b = Buffer.from(digest, 'hex');
  return a.length === b.length && timingSafeEqual(a, b) ? toRecord(row) : undefined;
}

/**
 * Writes to key rows through one connection; see SqliteKeyStore's record cache. `count`: writes
 * that may touch any key (edits); `byId`: the last write (numbered by `seq`) to each key that
 * only its own row changed (a settlement).
 */
interface KeyWrites {
  count: number;
  seq: number;
  byId: Map<string, number>;
}
const keyWrites = new WeakMap<Db, KeyWrites>();

function writesOf(db: Db): KeyWrites {
  let w = keyWrites.get(db);
  if (!w) keyWrites.set(db, (w = { count: 0, seq: 0, byId: new Map() }));
  return w;
}

/**
 * Note a write to gateway_keys or gateway_accounts made on `db`: to the rows of `keyIds` only (a
 * settlement batch), or to any (without `keyIds`).
 */
export function noteKeyWrite(db: Db, keyIds?: Iterable<string>): void {
  const w = writesOf(db);
  if (!keyIds) {
    w.count++;
    return;
  }
  w.seq++;
  for (const id of keyIds) w.byId.set(id, w.seq);
}

const RECORD_CACHE_MAX = 10_000;

interface PendingReservation {
  keyId: string;
  reservationId: string;
  micros: number;
  done: (r: ReserveResult) => void;
  fail: (err: Error) => void;
}

/**
 * Keys in SQLite. `findByKey` keeps the records it found, by digest, while nothing could have
 * changed them: no write to the key tables through this connection (edits here, settlements
 * noted with `noteKeyWrite`) and none by another connection or process (SQLite's
 * `data_version`, e.g. `npm run keys` revoking a key). An edit or another process's write drops
 * them all; a settlement drops only the keys it charged. So a revocation, an edit or a charge is
 * seen by the next request, as without the cache; another process's write, by the requests read
 * in the next turn of the event loop: `data_version` is read once a turn (a read took about
 * 10 µs of each forwarded call in the gateway's profiles).
 */
export class SqliteKeyStore implements KeyStore {
  private readonly byHash;
  private readonly byId;
  private readonly dataVersion;
  /** By digest: the record and the write number (`KeyWrites.seq`) it was read at. */
  private readonly records = new Map<string, { record: KeyRecord; seq: number }>();
  private recordsVersion = -1;
  /** `data_version` as read in this turn of the event loop (undefined: not read yet). */
  private versionThisTurn: number | undefined;
  private recordsWrites = -1;
  private readonly digests;
  /** Hold credit for the requests of one batch, in one write transaction (each on its own when it fails). */
  private readonly reserveAll: (batch: readonly PendingReservation[], now: number) => void;
  private reserving: PendingReservation[] = [];

  constructor(
    private readonly db: Db,
    private readonly pepper: string,
    private readonly now: () => number = Date.now,
  ) {
    this.digests = new KeyDigests(pepper);
    this.byHash = db.prepare(`${SELECT_KEYS} WHERE k.key_hash = ?`);
    this.byId = db.prepare(`${SELECT_KEYS} WHERE k.id = ?`);
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    const creditOf = db.prepare('SELECT quota_micros, spent_micros, budget_micros, budget_period, budget_spent_micros, budget_period_start FROM gateway_keys WHERE id = ?');
    const purge = db.prepare('DELETE FROM gateway_reservations WHERE expires_at <= ?');
    const heldBy = db.prepare('SELECT COALESCE(SUM(micros), 0) AS held FROM gateway_reservations WHERE key_id = ? AND expires_at > ?');
    const hold = db.prepare('INSERT INTO gateway_reservations (id, key_id, micros, expires_at) VALUES (?, ?, ?, ?)');
    let purgedAt = 0;
    const decide = (keyId: string, reservationId: string, micros: number, now: number): ReserveResult => {
      const row = creditOf.get(keyId) as Parameters<typeof creditColumns>[0] | undefined;
      if (!row) return { ok: true };
      // Expired holds count for nothing (the SUM skips them); their rows go once a minute.
      if (now - purgedAt >= 60_000) {
        purge.run(now);
        purgedAt = now;
      }
      const held = (heldBy.get(keyId, now) as { held: number }).held;
      const decision = reservationDecision(creditColumns(row), held, micros, now);
      if (decision.ok) hold.run(reservationId, keyId, micros, now + RESERVATION_TTL_MS);
      return decision;
    };
    // In order, in one transaction: each decision sees the holds made before it, as in one transaction each.
    const all = db.transaction((batch: readonly PendingReservation[], now: number) => batch.map((r) => decide(r.keyId, r.reservationId, r.micros, now)));
    const one = db.transaction(decide);
    this.reserveAll = (batch, now) => {
      let decisions: ReserveResult[];
      try {
        decisions = all.immediate(batch, now);
      } catch {
        for (const r of batch) {
          try {
            r.done(one.immediate(r.keyId, r.reservationId, r.micros, now));
          } catch (err) {
            r.fail(err instanceof Error ? err : new Error(String(err)));
          }
        }
        return;
      }
      batch.forEach((r, i) => r.done(decisions[i]!));
    };
  }

  async create(input: NewKey): Promise<{ key: string; record: KeyRecord }> {
    const now = this.now();
    const minted = mintKey(input, this.pepper, now);
    this.db.transaction(() => {
      const existing = this.db.prepare('SELECT level FROM gateway_accounts WHERE id = ?').get(minted.accountId) as { level: string } | undefined;
      if (!existing) this.db.prepare('INSERT INTO gateway_accounts (id, level, created_at) VALUES (?, ?, ?)').run(minted.accountId, input.level, now);
      else if (input.levelExplicit && existing.level !== input.level) this.db.prepare('UPDATE gateway_accounts SET level = ? WHERE id = ?').run(input.level, minted.accountId);
      this.db.prepare(`INSERT INTO gateway_keys (${KEY_INSERT_COLUMNS}) VALUES (${minted.values.map(() => '?').join(', ')})`).run(...minted.values);
    })();
    noteKeyWrite(this.db);
    return { key: minted.key, record: this.getNow(minted.id)! };
  }

  async findByKey(key: string): Promise<KeyRecord | undefined> {
    const digest = this.digests.of(key);
    const version = this.dataVersionNow();
    const writes = writesOf(this.db);
    if (version !== this.recordsVersion || writes.count !== this.recordsWrites || this.records.size >= RECORD_CACHE_MAX) {
      this.records.clear();
      this.recordsVersion = version;
      this.recordsWrites = writes.count;
    }
    const known = this.records.get(digest);
    if (known && (writes.byId.get(known.record.id) ?? 0) <= known.seq) return known.record;
    const record = recordIfSameDigest(this.byHash.get(digest) as KeyRow | undefined, digest);
    if (record) {
      this.records.set(digest, { record: Object.freeze(record), seq: writes.seq });
      this.digests.keep(key, digest);
    } else this.records.delete(digest);
    return record;
  }

  async get(id: string): Promise<KeyRecord | undefined> {
    return this.getNow(id);
  }

  private dataVersionNow(): number {
    if (this.versionThisTurn === undefined) {
      this.versionThisTurn = this.dataVersion.get() as number;
      setImmediate(() => (this.versionThisTurn = undefined));
    }
    return this.versionThisTurn;
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
    noteKeyWrite(this.db);
    return this.getNow(id);
  }

  async accountLevel(accountId: string): Promise<string | undefined> {
    return (this.db.prepare('SELECT level FROM gateway_accounts WHERE id = ?').get(accountId) as { level: string } | undefined)?.level;
  }

  async update(id: string, patch: KeyPatch): Promise<KeyRecord | undefined> {
    const before = this.getNow(id);
    if (!before) return undefined;
    const cols = patchColumns(patch);
    this.db.transaction(() => {
      if (cols.length) this.db.prepare(`UPDATE gateway_keys SET ${cols.map(([c]) => `${c} = ?`).join(', ')} WHERE id = ?`).run(...cols.map(([, v]) => v), id);
      // A new budget period starts its count afresh.
      if (patch.budgetPeriod !== undefined && patch.budgetPeriod !== before.budgetPeriod) this.db.prepare('UPDATE gateway_keys SET budget_spent_micros = 0, budget_period_start = NULL WHERE id = ?').run(id);
      if (patch.level !== undefined) this.db.prepare('UPDATE gateway_accounts SET level = ? WHERE id = ?').run(patch.level, before.accountId);
    })();
    noteKeyWrite(this.db);
    return this.getNow(id);
  }

  async topUp(id: string, micros: number): Promise<KeyRecord | undefined> {
    this.db.prepare('UPDATE gateway_keys SET quota_micros = quota_micros + ? WHERE id = ? AND quota_micros IS NOT NULL').run(micros, id);
    noteKeyWrite(this.db);
    return this.getNow(id);
  }

  /**
   * Held once committed, before the request is forwarded. The reservations asked for in one turn
   * of the event loop share a commit (one write of the journal instead of one per request).
   */
  reserve(keyId: string, reservationId: string, micros: number): Promise<ReserveResult> {
    return new Promise((done, fail) => {
      this.reserving.push({ keyId, reservationId, micros, done, fail });
      if (this.reserving.length > 1) return;
      setImmediate(() => {
        const batch = this.reserving;
        this.reserving = [];
        this.reserveAll(batch, this.now());
      });
    });
  }
}
