/**
 * Wires scheduled sources to node-cron: one task per source (no overlapping runs, random
 * delay, Asia/Shanghai time), a boot warm-up spread over a window, and daily pruning.
 */
import cron, { type ScheduledTask } from 'node-cron';
import { Engine } from './engine.ts';
import type { Logger } from './log.ts';
import type { Registry } from './registry.ts';
import type { FetchedSource } from './source.ts';
import type { Store } from './store.ts';
import { TIME_ZONE } from './time.ts';

export interface SchedulerOptions {
  engine: Engine;
  registry: Registry;
  store: Store;
  log: Logger;
  jitterMs: number;
  warmupSpreadMs: number;
  historyRetentionDays: number;
}

export interface Scheduler {
  /** When each scheduled source runs next (ms), for the status route. */
  nextRuns(): Map<string, number | null>;
  stop(): Promise<void>;
}

export function startScheduler(opts: SchedulerOptions): Scheduler {
  const { engine, registry, log } = opts;
  const tasks = new Map<string, ScheduledTask>();
  const timers: NodeJS.Timeout[] = [];

  for (const source of registry.sources) {
    if (source.mode !== 'scheduled') continue;
    const task = cron.schedule(
      source.schedule,
      async () => {
        await engine.tick(source);
      },
      { name: source.id, noOverlap: true, maxRandomDelay: opts.jitterMs, timezone: TIME_ZONE },
    );
    task.on('execution:failed', (ctx) => log.error({ source: source.id, err: ctx.execution?.error?.message }, 'scheduled tick failed'));
    tasks.set(source.id, task);
  }

  const fetched = registry.sources.filter((s): s is FetchedSource => s.mode !== 'local');
  const prune = cron.schedule(
    '17 4 * * *',
    async () => {
      await opts.store.prune({
        now: engine.now(),
        retentionDays: opts.historyRetentionDays,
        keepPerKey: 30,
        keyCaps: Object.fromEntries(fetched.filter((s) => s.mode === 'on-demand').map((s) => [s.id, Engine.maxKeys(s)])),
      });
    },
    { name: 'prune', noOverlap: true, timezone: TIME_ZONE },
  );

  // Boot warm-up: every missing or expired scheduled key once, spread over the window.
  void (async () => {
    for (const source of fetched) {
      if (source.mode !== 'scheduled') continue;
      for (const params of await engine.coldKeys(source)) {
        const delay = Math.floor(Math.random() * opts.warmupSpreadMs);
        timers.push(
          setTimeout(() => {
            engine.run(source, params).catch(() => {
              /* recorded by the engine */
            });
          }, delay).unref(),
        );
      }
    }
  })().catch((err: unknown) => log.error({ err: (err as Error).message }, 'warm-up failed'));

  return {
    nextRuns() {
      const out = new Map<string, number | null>();
      for (const [id, task] of tasks) out.set(id, task.getNextRun()?.getTime() ?? null);
      return out;
    },
    async stop() {
      for (const t of timers) clearTimeout(t);
      await Promise.all([...tasks.values(), prune].map((t) => t.stop()));
      for (const t of [...tasks.values(), prune]) await t.destroy();
    },
  };
}
