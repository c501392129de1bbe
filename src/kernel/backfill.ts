/**
 * Backfill: daily dated sources (a `backfill` declaration) get the recent days their history
 * lacks, in the background, at start and then hourly, so a fresh install (or one back from
 * downtime) has the full recent history. Politely: one request at a time across all sources, a
 * pause between requests, a failed day waits out the engine's backoff before it is tried again,
 * and a source whose upstream fails several days in a row is left for the next pass. Each day is
 * an ordinary engine run of the source with its history parameter set to the day, so it is
 * validated and stored like any fetch (and answered by `?date=` afterwards). A failed day is a gap
 * of the backfill, not a failure of the source: it is logged as a run of the day's key, never
 * counted against the source's cached keys (/v2/status). Gaps are read back from those runs at
 * start, so after a restart a gap keeps its attempts and backoff and still shows.
 */
import { backoffMs, type Engine } from './engine.ts';
import { AppError, SourceError } from './errors.ts';
import type { Logger } from './log.ts';
import { paramsKey, parseParams } from './params.ts';
import type { Registry } from './registry.ts';
import type { AnyParams, Backfill, ParamSpecs, ScheduledSource } from './source.ts';
import type { Store } from './store.ts';
import { addDays, formatDate, formatDateTime } from './time.ts';

const DEFAULT_PAUSE_MS = 500;
/** Consecutive failed days after which a source's pass stops (its upstream is probably down). */
const GIVE_UP_AFTER = 3;
const DEFAULT_BACKOFF_CAP_SEC = 3_600;
/** Runs of a source read back at start to restore its gaps. */
const RUNS_READ_BACK = 1_000;

type BackfillSource = ScheduledSource<ParamSpecs, unknown> & { backfill: Backfill<unknown>; history: { param: string } };

export interface BackfillGap {
  date: string;
  error: string;
  attempts: number;
  next_attempt: string;
  next_attempt_at: number;
}

/** What /v2/status shows of one source's backfill. */
export interface BackfillStatus {
  /** Days before today kept filled. */
  days: number;
  /** Days wanted now (all of `days`, or those the upstream still offers). */
  wanted: number;
  stored: number;
  /** Wanted days not stored yet, newest first. */
  missing: string[];
  /** Days whose fetch failed, with the error and when they are tried again. */
  gaps: BackfillGap[];
  running: boolean;
  last_pass: string | null;
  last_pass_at: number | null;
}

export interface BackfillerDeps {
  engine: Engine;
  registry: Registry;
  store: Store;
  log: Logger;
  /** Pause between two upstream requests (default 500 ms). */
  pauseMs?: number;
  random?: () => number;
  /** Run a pass under the deployment's job lock (several instances: one pass at a time). */
  lock?: (job: string, fn: () => Promise<void>) => Promise<void>;
}

interface Gap {
  error: string;
  attempts: number;
  nextAttemptAt: number;
}

export class Backfiller {
  readonly sources: readonly BackfillSource[];
  private readonly gaps = new Map<string, Map<string, Gap>>();
  private readonly lastPass = new Map<string, number>();
  private readonly restored = new Set<string>();
  private current: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly deps: BackfillerDeps) {
    this.sources = deps.registry.sources.filter((s): s is BackfillSource => s.mode === 'scheduled' && !!s.backfill && !!s.history?.param);
  }

  /** One pass over every backfill source; a pass already running is shared. */
  runPass(): Promise<void> {
    this.current ??= (async () => {
      try {
        const pass = async () => {
          for (const source of this.sources) {
            if (this.stopped) return;
            await this.fill(source).catch((err: unknown) => this.deps.log.error({ source: source.id, err: (err as Error).message }, 'backfill pass failed'));
          }
        };
        await (this.deps.lock ? this.deps.lock('backfill', pass) : pass());
      } finally {
        this.current = undefined;
      }
    })();
    return this.current;
  }

  stop(): void {
    this.stopped = true;
  }

  private dayParams(source: BackfillSource, date: string): AnyParams {
    return parseParams(source.params, { [source.history.param]: date });
  }

  /** The days wanted now, newest first; undefined while the upstream's offer is unknown (no data yet). */
  private async wanted(source: BackfillSource): Promise<string[] | undefined> {
    const today = formatDate(this.deps.engine.now());
    let days = Array.from({ length: source.backfill.days }, (_, i) => addDays(today, -(i + 1)));
    if (source.backfill.available) {
      const latest = await this.deps.store.getSnapshot(source.id, paramsKey(parseParams(source.params, {})));
      if (!latest?.payload) return undefined;
      const stored = JSON.parse(latest.payload) as unknown;
      const data = source.migrate ? source.migrate(stored) : stored;
      if (data === undefined) return undefined;
      const offered = new Set(source.backfill.available(data));
      days = days.filter((d) => offered.has(d));
    }
    return days;
  }

  private async stored(source: BackfillSource, date: string): Promise<boolean> {
    const params = this.dayParams(source, date);
    return !!(await this.deps.store.getHistory(source.id, this.deps.engine.historyParamsKey(source, params), date));
  }

  private backoff(source: BackfillSource, attempts: number, kind: string): number {
    return backoffMs(attempts, source.freshness.ttlSec, source.freshness.backoffCapSec ?? DEFAULT_BACKOFF_CAP_SEC, kind, (this.deps.random ?? Math.random)());
  }

  /**
   * The gaps of a source as its logged runs tell them (once per process): for each wanted day
   * not stored, the failed runs of its key since its last success, the last error, and the
   * retry time after the backoff of that many attempts.
   */
  private async gapsOf(source: BackfillSource, wanted: readonly string[]): Promise<Map<string, Gap>> {
    let gaps = this.gaps.get(source.id);
    if (!gaps) this.gaps.set(source.id, (gaps = new Map()));
    if (this.restored.has(source.id) || !wanted.length) return gaps;
    this.restored.add(source.id);
    const runs = await this.deps.store.recentRuns(source.id, RUNS_READ_BACK);
    for (const date of wanted) {
      if (gaps.has(date) || (await this.stored(source, date))) continue;
      const key = paramsKey(this.dayParams(source, date));
      const mine = runs.filter((r) => r.paramsKey === key);
      const failed = mine.findIndex((r) => r.outcome !== 'failed');
      const attempts = failed === -1 ? mine.length : failed;
      const last = mine[0];
      if (!attempts || !last) continue;
      const error = last.error ?? 'failed';
      gaps.set(date, { error, attempts, nextAttemptAt: last.startedAt + last.ms + this.backoff(source, attempts, /^(\w+):/.exec(error)?.[1] ?? 'transient') });
    }
    return gaps;
  }

  private async fill(source: BackfillSource): Promise<void> {
    const { engine, log } = this.deps;
    const wanted = await this.wanted(source);
    if (!wanted) return;
    const gaps = await this.gapsOf(source, wanted);
    for (const date of gaps.keys()) if (!wanted.includes(date)) gaps.delete(date);
    let failedInARow = 0;
    for (const date of wanted) {
      if (this.stopped || failedInARow >= GIVE_UP_AFTER) break;
      if (await this.stored(source, date)) {
        gaps.delete(date);
        continue;
      }
      const gap = gaps.get(date);
      if (gap && gap.nextAttemptAt > engine.now()) continue;
      try {
        await engine.run(source, this.dayParams(source, date), undefined, { quiet: true });
        if (!(await this.stored(source, date))) throw new SourceError('not_found', `the upstream answered another day than ${date}`);
        gaps.delete(date);
        failedInARow = 0;
        log.info({ source: source.id, date }, 'backfilled');
      } catch (err) {
        failedInARow++;
        const kind = err instanceof SourceError ? err.kind : err instanceof AppError && err.status === 404 ? 'not_found' : 'transient';
        const attempts = (gap?.attempts ?? 0) + 1;
        const wait = this.backoff(source, attempts, kind);
        gaps.set(date, { error: `${kind}: ${(err as Error).message}`.slice(0, 300), attempts, nextAttemptAt: engine.now() + wait });
        log.warn({ source: source.id, date, attempts, err: (err as Error).message }, 'backfill day failed');
      }
      await new Promise((resolve) => setTimeout(resolve, this.deps.pauseMs ?? DEFAULT_PAUSE_MS));
    }
    this.lastPass.set(source.id, engine.now());
  }

  /** Progress and gaps of every backfill source, by id. */
  async status(): Promise<Map<string, BackfillStatus>> {
    const out = new Map<string, BackfillStatus>();
    for (const source of this.sources) {
      const wanted = (await this.wanted(source)) ?? [];
      const missing: string[] = [];
      for (const date of wanted) if (!(await this.stored(source, date))) missing.push(date);
      const gaps = [...(await this.gapsOf(source, wanted))]
        .filter(([date]) => missing.includes(date))
        .map(([date, g]) => ({ date, error: g.error, attempts: g.attempts, next_attempt: formatDateTime(g.nextAttemptAt), next_attempt_at: g.nextAttemptAt }))
        .sort((a, b) => b.date.localeCompare(a.date));
      const last = this.lastPass.get(source.id);
      out.set(source.id, {
        days: source.backfill.days,
        wanted: wanted.length,
        stored: wanted.length - missing.length,
        missing,
        gaps,
        running: this.current !== undefined,
        last_pass: last ? formatDateTime(last) : null,
        last_pass_at: last ?? null,
      });
    }
    return out;
  }
}
