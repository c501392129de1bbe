/**
 * Durable settlement: a served request is always billed, even when the database is down as it
 * ends. A settlement the store cannot take (connection refused or lost, disk full, busy) is
 * appended to a local journal (one JSON line, fsynced) and replayed with backoff until the store
 * takes it; the journal is replayed again at start. While entries wait, new settlements join the
 * journal behind them, in order. A replay is idempotent: each settlement carries its own id
 * (`settleId`), and the store charges a key only for a row it did not have, so a settlement
 * replayed after a crash, or by two processes, is charged once. Its reservation is released
 * when it is finally recorded (until then it keeps holding the key's credit).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../kernel/log.ts';
import { storeUnavailableError } from '../kernel/store-unavailable.ts';
import type { DailySpend, StoredUsageRow, TokenTotals, UsageLog, UsageRow } from './usage.ts';

interface Entry {
  at: number;
  row: UsageRow;
}

export interface JournalOptions {
  /** The journal file; `undefined` = none (entries wait in memory only). */
  path: string | undefined;
  log: Logger;
  firstRetryMs?: number;
  maxRetryMs?: number;
}

const REPLAY_BATCH = 128;

export class DurableUsageLog implements UsageLog {
  private queue: Entry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private delayMs: number;
  private replaying: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly inner: UsageLog,
    private readonly opts: JournalOptions,
  ) {
    this.delayMs = opts.firstRetryMs ?? 250;
    this.queue = this.load();
    if (this.queue.length) {
      opts.log.warn({ journal: opts.path, settlements: this.queue.length }, 'replaying gateway settlements from the journal');
      this.schedule(0);
    }
  }

  /** Settlements waiting for the store. */
  get waiting(): number {
    return this.queue.length;
  }

  async record(row: UsageRow, at = Date.now()): Promise<void> {
    if (this.queue.length === 0) {
      try {
        await this.inner.record(row, at);
        return;
      } catch (err) {
        if (!storeUnavailableError(err)) throw err;
        this.opts.log.warn({ err: { message: (err as Error).message }, journal: this.opts.path ?? null }, 'gateway settlement deferred: the store is unavailable; journalled and retried');
      }
    }
    this.append({ at, row });
    this.schedule(this.delayMs);
  }

  forKey(keyId: string, limit?: number): Promise<StoredUsageRow[]> {
    return this.inner.forKey(keyId, limit);
  }

  dailySpend(keyId: string, from: number, to: number): Promise<DailySpend[]> {
    return this.inner.dailySpend(keyId, from, to);
  }

  tokensByKey(keyIds: readonly string[], from: number): Promise<Map<string, TokenTotals>> {
    return this.inner.tokensByKey(keyIds, from);
  }

  /** Try the waiting settlements now (the timer does this with backoff). */
  replay(): Promise<void> {
    this.replaying ??= this.replayOnce().finally(() => (this.replaying = undefined));
    return this.replaying;
  }

  /** Stop retrying; what still waits stays in the journal for the next start. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.replaying;
    if (this.queue.length && !this.opts.path) this.opts.log.error({ settlements: this.queue.length }, 'gateway settlements lost at shutdown: the store was unavailable and no journal file is set (AI_SETTLEMENT_JOURNAL)');
  }

  private async replayOnce(): Promise<void> {
    const finished = new Set<Entry>();
    let unavailable: unknown;
    try {
      // In batches, so a store that commits settlements together (SQLite) takes many at once.
      for (let i = 0; i < this.queue.length && unavailable === undefined; i += REPLAY_BATCH) {
        const batch = this.queue.slice(i, i + REPLAY_BATCH);
        const results = await Promise.allSettled(batch.map((e) => this.inner.record(e.row, e.at)));
        results.forEach((r, j) => {
          const e = batch[j]!;
          if (r.status === 'fulfilled') finished.add(e);
          else if (storeUnavailableError(r.reason)) unavailable ??= r.reason;
          else {
            // A settlement the store refuses for itself would block every other one: it is set aside in the log.
            this.opts.log.error({ err: { message: (r.reason as Error).message }, settlement: e }, 'gateway settlement refused by the store; dropped from the journal');
            finished.add(e);
          }
        });
      }
    } finally {
      if (finished.size) {
        this.queue = this.queue.filter((e) => !finished.has(e));
        this.rewrite();
        if (this.queue.length === 0) this.opts.log.info({ settled: finished.size }, 'journalled gateway settlements recorded');
      }
      if (unavailable === undefined) this.delayMs = this.opts.firstRetryMs ?? 250;
      else {
        this.opts.log.warn({ err: { message: (unavailable as Error).message }, waiting: this.queue.length }, 'gateway settlements still waiting for the store');
        this.delayMs = Math.min(this.delayMs * 2, this.opts.maxRetryMs ?? 30_000);
      }
      if (this.queue.length) this.schedule(this.delayMs);
    }
  }

  private schedule(ms: number): void {
    if (this.closed || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.replay();
    }, ms);
  }

  private load(): Entry[] {
    const file = this.opts.path;
    if (!file || !fs.existsSync(file)) return [];
    const entries: Entry[] = [];
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const e = JSON.parse(line) as Entry;
        if (typeof e.at === 'number' && typeof e.row?.settleId === 'string') entries.push(e);
      } catch {
        // A line cut by a crash while it was written: its request was never acknowledged as settled.
        this.opts.log.warn({ journal: file }, 'an incomplete line in the settlement journal was skipped');
      }
    }
    return entries;
  }

  private append(e: Entry): void {
    this.queue.push(e);
    const file = this.opts.path;
    if (!file) return;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const fd = fs.openSync(file, 'a', 0o600);
      try {
        fs.writeSync(fd, `${JSON.stringify(e)}\n`);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    } catch (err) {
      this.opts.log.error({ err: { message: (err as Error).message }, journal: file }, 'the settlement journal cannot be written; the settlement waits in memory only');
    }
  }

  /** The journal as the queue now is: written beside it, fsynced, then renamed over it. */
  private rewrite(): void {
    const file = this.opts.path;
    if (!file) return;
    try {
      if (this.queue.length === 0) {
        fs.rmSync(file, { force: true });
        return;
      }
      const tmp = `${file}.tmp`;
      const fd = fs.openSync(tmp, 'w', 0o600);
      try {
        fs.writeSync(fd, this.queue.map((e) => `${JSON.stringify(e)}\n`).join(''));
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, file);
    } catch (err) {
      // The old journal stays: its recorded entries are replayed again and skipped by their settle id.
      this.opts.log.error({ err: { message: (err as Error).message }, journal: file }, 'the settlement journal cannot be rewritten');
    }
  }
}
