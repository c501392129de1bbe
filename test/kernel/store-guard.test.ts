/**
 * The store guard (src/kernel/store-guard.ts) tells a store that cannot be reached from a failing
 * statement, on real errors of both backends: a read-only SQLite file and a refused PostgreSQL
 * connection are StoreUnavailableError (503 naming the store); a wrong statement stays what it is.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/kernel/db.ts';
import { StoreUnavailableError } from '../../src/kernel/errors.ts';
import { SqliteStore } from '../../src/kernel/sqlite-store.ts';
import { guardStore, isUnreachable } from '../../src/kernel/store-guard.ts';
import { requireServices, TEST_DATABASE_URL } from '../multi/services.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-guard-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const WRITE = {
  sourceId: 'hot-microblog',
  paramsKey: '',
  params: '{}',
  payload: '[{"title":"a"}]',
  payloadHash: 'h1',
  itemCount: 1,
  fetchedAt: 1,
  expiresAt: 2,
};

describe('SQLite', () => {
  it('a file that became read-only: writes fail as StoreUnavailableError, reads still answer', async () => {
    const file = path.join(dir, 'app.sqlite');
    const writable = new SqliteStore(openDatabase(file));
    await writable.commitSuccess(WRITE);
    await writable.close();

    const store = guardStore(new SqliteStore(new Database(file, { readonly: true })), 'SQLite');
    expect((await store.getSnapshot('hot-microblog', ''))?.payload).toBe(WRITE.payload);
    const failure = await store.commitSuccess({ ...WRITE, payloadHash: 'h2', fetchedAt: 3 }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect(failure).toMatchObject({ status: 503, storeName: 'SQLite', headers: { 'Retry-After': expect.any(String) } });
    expect(((failure as Error).cause as { code: string }).code).toMatch(/^SQLITE_READONLY/);
    await store.close();
  });

  it('a wrong statement is not an outage', () => {
    const db = openDatabase(':memory:');
    let err: unknown;
    try {
      db.prepare('SELECT * FROM no_such_table').all();
    } catch (e) {
      err = e;
    }
    expect((err as { code: string }).code).toBe('SQLITE_ERROR');
    expect(isUnreachable(err)).toBe(false);
    db.close();
  });
});

const avail = await requireServices({ postgres: true });

describe('PostgreSQL', () => {
  it('a refused connection is unreachable', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, connectionTimeoutMillis: 2_000 });
    const err = await client.connect().catch((e: unknown) => e);
    expect((err as { code: string }).code).toBe('ECONNREFUSED');
    expect(isUnreachable(err)).toBe(true);
  });

  it.skipIf(!!avail.missing)(`a syntax error is not an outage${avail.label}`, async () => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      const err = await client.query('SELEC 1').catch((e: unknown) => e);
      expect((err as { code: string }).code).toBe('42601');
      expect(isUnreachable(err)).toBe(false);
    } finally {
      await client.end();
    }
  });
});
