/**
 * Increments of one prom-client counter gathered per label set and handed to it when the metrics
 * are read (call `flushTo` from the counter's `collect`). prom-client validates and hashes a label
 * object on every `inc`; here an increment is a Map lookup by a key the caller builds and an
 * addition. For counters bumped on every request (the gateway's tokens and spend per key).
 */
import type { Counter } from 'prom-client';

interface Waiting<L extends string> {
  labels: Partial<Record<L, string>>;
  value: number;
}

export class CounterTally<L extends string> {
  private readonly waiting = new Map<string, Waiting<L>>();

  /** Add `value` under the label set named `key` (`labels` is called the first time `key` is seen). */
  add(key: string, labels: () => Partial<Record<L, string>>, value: number): void {
    const w = this.waiting.get(key);
    if (w) w.value += value;
    else this.waiting.set(key, { labels: labels(), value });
  }

  flushTo(counter: Counter<L>): void {
    for (const w of this.waiting.values()) {
      if (w.value === 0) continue;
      counter.inc(w.labels, w.value);
      w.value = 0;
    }
  }
}
