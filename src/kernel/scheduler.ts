/**
 * Wires scheduled sources to node-cron: one task per source (no overlapping runs, random
 * delay, Asia/Shanghai time), a boot warm-up spread over a window, and daily pruning.
 *
 * With several instances (a shared JobLock, see job-lock.ts), each key's fetch runs under the
 * key's lock, and a tick skips keys already attempted since its cron slot (by any instance), so
 * each slot fetches once across instances; the warm-up skips keys another instance warmed.
 */
import cron, { type ScheduledTask } from 'node-cron';
import { ConfigError } from '../config.ts';
import type { Backfiller } from './backfill.ts';
import { Engine } from './engine.ts';
import type { ItemIndex } from './item-index.ts';
import { JobLockError, LocalJobLock, type JobLock } from './job-lock.ts';
import type { Logger } from './log.ts';
import { paramsKey, parseParams } from './params.ts';
import type { Registry } from './registry.ts';
import type { AnyParams, FetchedSource } from './source.ts';
import type { Snapshot, Store } from './store.ts';
import { TIME_ZONE } from './time.ts';

export interface SchedulerOptions {
  engine: Engine;
  registry: Registry;
  store: Store;
  log: Logger;
  jitterMs: number;
  warmupSpreadMs: number;
  historyRetentionDays: number;
  /** Pruned with the history retention. */
  itemIndex?: ItemIndex;
  /** Shared per-job lock (default: none, one instance). */
  jobLock?: JobLock;
  /** Schedules replacing those of some sources, by id (SCHEDULER_OVERRIDES). */
  scheduleOverrides?: ReadonlyMap<string, string>;
  /** Fills missing past days of daily sources: a pass at start, then hourly. */
  backfill?: Backfiller;
  /**
   * Set up the cron tasks and run the boot work (backfill pass, warm-up) only when `start()` is
   * called (or the next runs are asked for), not at once: the service starts it after its port
   * is open, so the first requests of a start do not wait for it.
   */
  deferStart?: boolean;
}

/**
 * Parse SCHEDULER_OVERRIDES: `id=cron` pairs separated by `;`. Throws a ConfigError naming
 * unknown ids and invalid cron expressions.
 */
export function parseScheduleOverrides(raw: string | undefined, knownIds: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const problems: string[] = [];
  for (const part of (raw ?? '').split(';').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    const id = part.slice(0, Math.max(0, eq)).trim();
    const expr = part.slice(eq + 1).trim();
    if (eq < 1 || !expr) problems.push(`SCHEDULER_OVERRIDES: "${part}" must look like id=cron, e.g. hot-microblog=*/10 * * * * *`);
    else if (!knownIds.includes(id)) problems.push(`SCHEDULER_OVERRIDES: no scheduled source "${id}" (scheduled sources: ${knownIds.join(', ')})`);
    else if (!cron.validate(expr)) problems.push(`SCHEDULER_OVERRIDES: "${expr}" (for ${id}) is not a valid cron expression`);
    else out.set(id, expr);
  }
  if (problems.length) throw new ConfigError(problems);
  return out;
}

export interface Scheduler {
  /** Set up the schedules and run the boot work, once (already done unless `deferStart`). */
  start(): void;
  /** When each scheduled source runs next (ms), for the status route. */
  nextRuns(): Map<string, number | null>;
  stop(): Promise<void>;
}

export function startScheduler(opts: SchedulerOptions): Scheduler {
  const { engine, registry, log } = opts;
  const jobLock = opts.jobLock ?? new LocalJobLock();
  const shared = jobLock.kind !== 'local';
  const tasks = new Map<string, ScheduledTask>();
  const timers: NodeJS.Timeout[] = [];

  /** Run `fn` under the job's shared lock; when the lock engine fails, run anyway (the store's write rules make a double run harmless). */
  const locked = async (job: string, fn: () => Promise<void>): Promise<void> => {
    try {
      await jobLock.run(job, fn);
    } catch (err) {
      if (!(err instanceof JobLockError)) throw err;
      log.warn({ job, err: err.message }, 'job lock unavailable; running without it');
      await fn();
    }
  };

  const keysOf = (source: FetchedSource): { params: AnyParams; key: string }[] =>
    (source.mode === 'scheduled' && source.prefetch?.length ? source.prefetch : [{}]).map((raw) => {
      const params = parseParams(source.params, raw as Record<string, string>);
      return { params, key: paramsKey(params) };
    });

  /** Fetch one key under its lock when `due` still holds for its snapshot (read under the lock). */
  const fetchKey = (source: FetchedSource, params: AnyParams, key: string, due: (snap: Snapshot | undefined, now: number) => boolean) =>
    locked(`fetch:${source.id}|${key}`, async () => {
      if (!due(await opts.store.getSnapshot(source.id, key), engine.now())) return;
      await engine.run(source, params, key);
    });

  /** A tick with shared locks: skip keys backing off or already attempted since the cron slot. */
  const sharedTick = async (source: FetchedSource, slot: Date): Promise<void> => {
    // The slot on the engine's clock (tests may run the engine on a test clock).
    const since = engine.now() - (Date.now() - slot.getTime());
    await Promise.allSettled(
      keysOf(source).map(({ params, key }) =>
        fetchKey(source, params, key, (snap, now) => !(snap?.nextAttemptAt && snap.nextAttemptAt > now) && !(snap && snap.checkedAt >= since)),
      ),
    );
  };

  const backfill = opts.backfill;
  const scheduled = registry.sources.flatMap((s) => engine.scheduledView(s) ?? []);
  const fetched = registry.sources.filter((s): s is FetchedSource => s.mode !== 'local');
  let prune: ScheduledTask | undefined;
  let backfillTask: ScheduledTask | undefined;
  let state: 'idle' | 'started' | 'stopped' = 'idle';

  const start = (): void => {
    if (state !== 'idle') return;
    state = 'started';
    // Scheduled sources, and the feeds of local sources (LocalFeed), which run like scheduled ones.
    for (const source of scheduled) {
      const task = cron.schedule(
        opts.scheduleOverrides?.get(source.id) ?? source.schedule,
        async (ctx) => {
          if (shared) await sharedTick(source, ctx.date);
          else await engine.tick(source);
        },
        { name: source.id, noOverlap: true, maxRandomDelay: opts.jitterMs, timezone: TIME_ZONE },
      );
      task.on('execution:failed', (ctx) => log.error({ source: source.id, err: ctx.execution?.error?.message }, 'scheduled tick failed'));
      tasks.set(source.id, task);
    }

    prune = cron.schedule(
      '17 4 * * *',
      async () => {
        await locked('prune', async () => {
          await opts.store.prune({
            now: engine.now(),
            retentionDays: opts.historyRetentionDays,
            keepPerKey: 30,
            keyCaps: Object.fromEntries(fetched.filter((s) => s.mode === 'on-demand' || s.maxKeys !== undefined).map((s) => [s.id, Engine.maxKeys(s)])),
          });
          const pruned = await opts.store.archive.prune({ now: engine.now(), retentionDays: opts.historyRetentionDays });
          log.info({ ...pruned, retentionDays: opts.historyRetentionDays }, 'archive pruned');
        });
        await locked('prune-items', async () => opts.itemIndex?.prune({ now: engine.now(), retentionDays: opts.historyRetentionDays }));
      },
      { name: 'prune', noOverlap: true, timezone: TIME_ZONE },
    );

    // Backfill: a pass now (after downtime too: any restart), then hourly for the days that failed.
    backfillTask = backfill?.sources.length
      ? cron.schedule('37 * * * *', () => backfill.runPass(), { name: 'backfill', noOverlap: true, timezone: TIME_ZONE })
      : undefined;
    if (backfillTask) void backfill!.runPass();

    // Boot warm-up: every missing or expired scheduled key once, spread over the window.
    void (async () => {
      for (const source of scheduled) {
        for (const params of await engine.coldKeys(source)) {
          const delay = Math.floor(Math.random() * opts.warmupSpreadMs);
          timers.push(
            setTimeout(() => {
              // A request, another instance or a demo fill may have warmed this key meanwhile.
              const run = fetchKey(source, params, paramsKey(params), (snap, now) => !(snap?.nextAttemptAt && snap.nextAttemptAt > now) && (!snap?.payload || (snap.expiresAt ?? 0) <= now));
              run.catch(() => {
                /* recorded by the engine */
              });
            }, delay).unref(),
          );
        }
      }
    })().catch((err: unknown) => log.error({ err: (err as Error).message }, 'warm-up failed'));
  };
  if (!opts.deferStart) start();

  return {
    start,
    nextRuns() {
      start();
      const out = new Map<string, number | null>();
      // Cron runs on the wall clock; the pages show times on the engine's (a demo's runs on another day).
      const offset = engine.now() - Date.now();
      for (const [id, task] of tasks) {
        const next = task.getNextRun()?.getTime();
        out.set(id, next === undefined ? null : next + offset);
      }
      return out;
    },
    async stop() {
      state = 'stopped';
      for (const t of timers) clearTimeout(t);
      backfill?.stop();
      const all = [...tasks.values(), ...(prune ? [prune] : []), ...(backfillTask ? [backfillTask] : [])];
      await Promise.all(all.map((t) => t.stop()));
      for (const t of all) await t.destroy();
    },
  };
}
