/**
 * Issue 20 item 2: charges are not lost when PostgreSQL is down at settlement. The service
 * reaches PostgreSQL through a TCP proxy the test cuts while four streams are being served (the
 * shared server itself stays up for everyone else); the settlements wait in the journal and are
 * recorded once it is restored, their reservations released; a replay of the same journal by a
 * second process charges nothing twice.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requireServices, TEST_DATABASE_URL, waitFor } from '../multi/services.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';
import { bearer, makeKey, postJson, startGateway, type Harness } from './helpers.ts';
import { ModelUpstream } from './model-upstream.ts';

const avail = await requireServices({ postgres: true });
const PRICES = JSON.stringify({ 'outage-chat': { input: 1, output: 2 } });

describe.skipIf(!!avail.missing)(`settlement while PostgreSQL is down${avail.label}`, () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let proxy: TcpProxy;
  let upstream: ModelUpstream;
  let h: Harness;
  let direct: pg.Client;
  let journal: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    db = await createTestDatabase();
    const target = new URL(TEST_DATABASE_URL);
    proxy = await new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) }).start();
    upstream = await new ModelUpstream().start();
    journal = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'settle-journal-')), 'gateway-settlements.jsonl');
    env = { DATABASE_URL: proxy.rewrite(db.url), DATABASE_POOL_MAX: '4', AI_SETTLEMENT_JOURNAL: journal, AI_PRICES: PRICES };
    h = await startGateway({ upstream, env });
    direct = new pg.Client({ connectionString: db.url });
    await direct.connect();
  });
  afterAll(async () => {
    await proxy?.restore();
    await h?.close();
    await direct?.end();
    await upstream?.stop();
    await proxy?.stop();
    await db?.drop();
  });

  const count = async (sql: string, keyId: string): Promise<number> => Number((await direct.query<{ n: string }>(sql, [keyId])).rows[0]!.n);

  it('four streams that end during an outage are billed once it is over, their reservations released', async () => {
    const k = await makeKey(h.svc, { quotaMicros: 1_000_000 });
    const req = { model: 'outage-chat', stream: true, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }], mock: { chunks: 10, delayMs: 60 } };
    const streams = Array.from({ length: 4 }, () => postJson(h.base, '/v1/chat/completions', req, bearer(k.key)));
    // Authenticated and reserved (the upstream has them): now the database goes away.
    await waitFor('four upstream requests', () => upstream.requests.length >= 4);
    await proxy.cut();
    const bodies = await Promise.all(streams.map(async (s) => (await s).text()));
    for (const b of bodies) expect(b).toContain('data: [DONE]');
    // Every settlement is in the journal, none in the database; the reservations still hold credit.
    await waitFor('four journalled settlements', () => fs.existsSync(journal) && fs.readFileSync(journal, 'utf8').trim().split('\n').length === 4);
    const saved = fs.readFileSync(journal, 'utf8');
    expect(await count('SELECT count(*) AS n FROM gateway_usage WHERE key_id = $1', k.record.id)).toBe(0);
    expect(await count('SELECT count(*) AS n FROM gateway_reservations WHERE key_id = $1', k.record.id)).toBe(4);

    await proxy.restore();
    await waitFor('the journal replayed', async () => (await count('SELECT count(*) AS n FROM gateway_usage WHERE key_id = $1', k.record.id)) === 4, 20_000);
    await waitFor('the journal removed', () => !fs.existsSync(journal));
    const spent = await count('SELECT spent_micros AS n FROM gateway_keys WHERE id = $1', k.record.id);
    // Each: 10 prompt tokens × 1 µ$ + 5 completion tokens × 2 µ$ (the upstream's usage).
    expect(spent).toBe(4 * 20);
    expect(await count('SELECT count(*) AS n FROM gateway_reservations WHERE key_id = $1', k.record.id)).toBe(0);
    expect(await count("SELECT count(*) AS n FROM gateway_usage WHERE key_id = $1 AND usage_source = 'upstream' AND end_reason = 'completed'", k.record.id)).toBe(4);

    // The same journal replayed again (a crash before it was removed, or a second process): nothing is charged twice.
    fs.writeFileSync(journal, saved);
    const again = await startGateway({ upstream, env });
    try {
      await waitFor('the journal replayed at start', () => !fs.existsSync(journal), 20_000);
    } finally {
      await again.close();
    }
    expect(await count('SELECT count(*) AS n FROM gateway_usage WHERE key_id = $1', k.record.id)).toBe(4);
    expect(await count('SELECT spent_micros AS n FROM gateway_keys WHERE id = $1', k.record.id)).toBe(80);
  });
});
