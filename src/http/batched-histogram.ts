/**
 * A Prometheus histogram that takes observations in batches: per label set, how many fell in
 * each bucket and their sum. prom-client's Histogram takes one observation per call (building,
 * validating and hashing its label object each time), which for request durations cost as much
 * as the rest of a cached answer. Registered in a prom-client registry like its own metrics and
 * exported in the same form (bucket lines with `le` first, `+Inf`, `_sum`, `_count`).
 */
import type { Registry } from 'prom-client';

export interface BatchedHistogramConfig<T extends string> {
  name: string;
  help: string;
  labelNames: readonly T[];
  /** Upper bounds, ascending. */
  buckets: readonly number[];
  registers: Registry[];
  /** Called before each read (to hand over what is waiting). */
  collect?: () => void;
}

interface SeriesData {
  labels: Record<string, string>;
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  counts: number[];
  sum: number;
}

export class BatchedHistogram<T extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly labelNames: readonly T[];
  readonly buckets: readonly number[];
  private readonly collect: (() => void) | undefined;
  private readonly series = new Map<string, SeriesData>();

  constructor(config: BatchedHistogramConfig<T>) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    this.buckets = config.buckets;
    this.collect = config.collect;
    // The registry reads any object with prom-client's metric shape (name, help, type, get).
    for (const registry of config.registers) registry.registerMetric(this as never);
  }

  /** The bucket slot of one observation (`counts` index). */
  slotOf(value: number): number {
    const { buckets } = this;
    let i = 0;
    while (i < buckets.length && value > (buckets[i] as number)) i++;
    return i;
  }

  /**
   * Adds one observation under the label set named `key` (`labels` is called the first time `key`
   * is seen), for callers that observe one value at a time: a Map lookup and two additions.
   */
  observe(key: string, labels: () => Record<T, string>, value: number): void {
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels: { ...labels() }, counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0 }));
    const slot = this.slotOf(value);
    s.counts[slot] = (s.counts[slot] as number) + 1;
    s.sum += value;
  }

  /** Adds a batch of one label set: `counts` per slot (see slotOf) and the sum of the values. */
  add(labels: Record<T, string>, counts: readonly number[], sum: number): void {
    const key = this.labelNames.map((n) => labels[n]).join('\u0000');
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels: { ...labels }, counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0 }));
    for (let i = 0; i < counts.length; i++) s.counts[i] = (s.counts[i] as number) + (counts[i] as number);
    s.sum += sum;
  }

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: { labels: Record<string, string | number>; sharedLabels: Record<string, string>; value: number; metricName: string }[] }> {
    this.collect?.();
    const values = [];
    for (const s of this.series.values()) {
      let acc = 0;
      for (let i = 0; i < this.buckets.length; i++) {
        acc += s.counts[i] as number;
        values.push({ labels: { le: this.buckets[i] as number }, sharedLabels: s.labels, value: acc, metricName: `${this.name}_bucket` });
      }
      const count = acc + (s.counts[this.buckets.length] as number);
      values.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: count, metricName: `${this.name}_bucket` });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: s.labels, value: count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.series.clear();
  }
}
