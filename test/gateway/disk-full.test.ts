/**
 * Issue 20 item 10: disk full on SQLite. The database is filled to its `max_page_count` (SQLite
 * then fails every write that needs a new page with SQLITE_FULL, as on a full disk). The
 * gateway's tables exist from the start, a request that must write before it is forwarded (a
 * credit reservation) answers 503 with Retry-After as README documents, never 500, and a served
 * request's settlement waits in the journal until there is room again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDbPath } from '../support/service.ts';
import { bearer, CHAT, makeKey, postJson, startGateway, usageRows, waitFor, type Harness } from './helpers.ts';

describe('disk full on SQLite', () => {
  let h: Harness;
  let dbPath: string;

  beforeAll(async () => {
    dbPath = tempDbPath();
    h = await startGateway({ env: { DB_PATH: dbPath, AI_PRICES: JSON.stringify({ 'gpt-4o-mini': { input: 1, output: 1 } }) } });
  });
  afterAll(() => h.close());

  it('tables made at start; a request that must write answers 503, a served one is billed once there is room', async () => {
    const tables = (h.svc.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name);
    expect(tables).toEqual(expect.arrayContaining(['rate_limits', 'gateway_keys', 'gateway_usage', 'gateway_reservations']));
    const limited = await makeKey(h.svc, { quotaMicros: 1_000_000 });
    const unlimited = await makeKey(h.svc);

    // Fill the database to its page limit, and the free room of the pages the gateway writes to.
    h.svc.db.exec('CREATE TABLE filler (x BLOB)');
    h.svc.db.pragma(`max_page_count = ${h.svc.db.pragma('page_count', { simple: true }) as number}`);
    const fillUntilFull = (sql: string, values: (i: number) => unknown[]): void => {
      const stmt = h.svc.db.prepare(sql);
      expect(() => {
        for (let i = 0; i < 1_000_000; i++) stmt.run(...values(i));
      }).toThrow(/full/);
    };
    fillUntilFull('INSERT INTO filler VALUES (?)', () => [Buffer.alloc(1000)]);
    fillUntilFull('INSERT INTO gateway_reservations (id, key_id, micros, expires_at) VALUES (?, ?, 0, 8e15)', (i) => [`filler-${i}`, 'filler']);
    fillUntilFull(
      "INSERT INTO gateway_usage (request_id, created_at, key_id, account_id, route, method, stream, status, prompt_tokens, completion_tokens, total_tokens, charged_tokens, usage_source, end_reason, duration_ms, settle_id) VALUES ('f', 0, 'filler', 'filler', 'r', 'POST', 0, 200, 0, 0, 0, 0, 'none', 'completed', 0, ?)",
      (i) => [`filler-${i}`],
    );

    for (let i = 0; i < 3; i++) {
      const res = await postJson(h.base, '/v1/chat/completions', CHAT, bearer(limited.key));
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('2');
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
    }
    const served = await postJson(h.base, '/v1/chat/completions', CHAT, bearer(unlimited.key));
    expect(served.status).toBe(200);
    await served.text();
    // The limiter's write-behind runs every second; the service stays up through it.
    await new Promise((r) => setTimeout(r, 1200));
    expect((await postJson(h.base, '/v1/chat/completions', CHAT, bearer(unlimited.key))).status).toBe(200);
    const journal = path.join(path.dirname(dbPath), 'gateway-settlements.jsonl');
    await waitFor(() => fs.existsSync(journal) && fs.readFileSync(journal, 'utf8').trim().split('\n').length >= 2);

    // Room again: the journalled settlements are recorded, each once.
    h.svc.db.exec("DROP TABLE filler; DELETE FROM gateway_reservations WHERE key_id = 'filler'; DELETE FROM gateway_usage WHERE key_id = 'filler'");
    h.svc.db.pragma('max_page_count = 1073741823');
    const rows = await usageRows(h.svc, unlimited.record.id, 2, 10_000);
    expect(rows.map((r) => r.status)).toEqual([200, 200]);
    expect(await waitFor(() => !fs.existsSync(journal), 10_000)).toBe(true);
    expect((await h.svc.gateway.keys.get(unlimited.record.id))!.requestCount).toBe(2);
  });
});
