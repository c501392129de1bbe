/**
 * Issue 20 item 2, the journal on its own: what a crash leaves in it (settlements written, one
 * of them twice, and a last line cut mid-write) is replayed at start into a real SQLite store,
 * each settlement charged once, the cut line skipped, and the file removed once it is all recorded.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/kernel/db.ts';
import { createLogger } from '../../src/kernel/log.ts';
import { DurableUsageLog } from '../../src/gateway/settlement-journal.ts';
import { openSqliteGatewayStore } from '../../src/gateway/store.ts';
import type { UsageRow } from '../../src/gateway/usage.ts';
import { tempDbPath } from '../support/service.ts';
import { settledRow, waitFor } from './helpers.ts';

const row = (settleId: string, keyId: string, reservationId: string | null): UsageRow => settledRow({ requestId: `req-${settleId}`, settleId, keyId, accountId: keyId, reservationId });

describe('settlement journal', () => {
  it('replays at start: each settlement once, a cut last line skipped, reservations released, the file removed', async () => {
    const dbPath = tempDbPath();
    const db = openDatabase(dbPath);
    const store = openSqliteGatewayStore(db, 'journal-test-pepper-0123456789abcdef');
    const { record } = await store.keys.create({ name: 'j', level: 'default', levelExplicit: false, quotaMicros: 1_000_000, models: [], ips: [], expiresAt: null });
    expect((await store.keys.reserve(record.id, 'res-a', 500)).ok).toBe(true);
    expect((await store.keys.reserve(record.id, 'res-b', 500)).ok).toBe(true);
    const journal = path.join(path.dirname(dbPath), 'gateway-settlements.jsonl');
    const line = (settleId: string, reservation: string) => `${JSON.stringify({ at: 1_700_000_000_000, row: row(settleId, record.id, reservation) })}\n`;
    fs.writeFileSync(journal, line('s-a', 'res-a') + line('s-b', 'res-b') + line('s-a', 'res-a') + line('s-c', 'res-c').slice(0, 60));
    const log = createLogger('silent');
    const durable = new DurableUsageLog(store.usage, { path: journal, log, firstRetryMs: 10 });
    expect(await waitFor(() => !fs.existsSync(journal))).toBe(true);
    await durable.close();
    const key = await store.keys.get(record.id);
    expect(key).toMatchObject({ spentMicros: 150, requestCount: 2 });
    expect((await store.usage.forKey(record.id)).map((r) => r.requestId).sort()).toEqual(['req-s-a', 'req-s-b']);
    expect((db.prepare('SELECT count(*) AS n FROM gateway_reservations').get() as { n: number }).n).toBe(0);
    db.close();
  });
});
