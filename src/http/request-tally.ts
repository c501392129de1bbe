/**
 * Per-request metrics (http_requests_total, http_request_duration_seconds, apis_cache_total)
 * gathered per label set in plain objects and handed to prom-client in batches: when the metrics
 * are read (each metric's `collect` calls `flush`) and whenever a label set has FLUSH_AT requests
 * waiting. prom-client builds, validates and hashes a label object on every call, which cost more
 * than the rest of a cached /v2/apis answer; here a request costs a few additions (its label set
 * is the last request's, or found in a Map), and durations go to a BatchedHistogram in bulk.
 */
import type { Counter } from 'prom-client';
import type { BatchedHistogram } from './batched-histogram.ts';

export type CacheResult = 'hit' | 'stale' | 'miss' | 'history';

export interface RequestSample {
  family: string;
  route: string;
  method: string;
  status: number;
  encoding: string;
  seconds: number;
  cache: CacheResult | undefined;
}

interface Series {
  key: RequestSample;
  requests: Record<'family' | 'route' | 'method' | 'status' | 'encoding', string>;
  latency: Record<'family' | 'route' | 'method', string>;
  /** Requests not yet counted, their durations per bucket slot and the sum of those (s). */
  waiting: number;
  slots: number[];
  sum: number;
  cache: Record<CacheResult, number>;
}

const FLUSH_AT = 256;

function sameLabels(a: RequestSample, b: RequestSample): boolean {
  return a.route === b.route && a.status === b.status && a.encoding === b.encoding && a.method === b.method && a.family === b.family;
}

export class RequestTally {
  private readonly series = new Map<string, Series>();
  /** The series of the last request: under load most requests repeat the one before (no key string to build). */
  private last: Series | undefined;

  constructor(
    private readonly metrics: {
      requests: Counter<'family' | 'route' | 'method' | 'status' | 'encoding'>;
      latency: BatchedHistogram<'family' | 'route' | 'method'>;
      cache: Counter<'route' | 'result'>;
    },
  ) {}

  add(s: RequestSample): void {
    const last = this.last;
    const series = last && sameLabels(last.key, s) ? last : this.seriesOf(s);
    this.last = series;
    series.waiting += 1;
    const slot = this.metrics.latency.slotOf(s.seconds);
    series.slots[slot] = (series.slots[slot] as number) + 1;
    series.sum += s.seconds;
    if (s.cache) series.cache[s.cache] += 1;
    // All of them, so prom-client meets the label sets in the order the requests came.
    if (series.waiting >= FLUSH_AT) this.flush();
  }

  private seriesOf(s: RequestSample): Series {
    const key = `${s.family}\n${s.route}\n${s.method}\n${s.status}\n${s.encoding}`;
    let series = this.series.get(key);
    if (!series) {
      series = {
        key: { ...s },
        requests: { family: s.family, route: s.route, method: s.method, status: String(s.status), encoding: s.encoding },
        latency: { family: s.family, route: s.route, method: s.method },
        waiting: 0,
        slots: new Array<number>(this.metrics.latency.buckets.length + 1).fill(0),
        sum: 0,
        cache: { hit: 0, stale: 0, miss: 0, history: 0 },
      };
      this.series.set(key, series);
    }
    return series;
  }

  /** Hand everything waiting to prom-client. */
  flush(): void {
    for (const series of this.series.values()) this.flushSeries(series);
  }

  private flushSeries(series: Series): void {
    const { requests, latency, cache } = this.metrics;
    if (series.waiting) {
      requests.inc(series.requests, series.waiting);
      latency.add(series.latency, series.slots, series.sum);
      series.waiting = 0;
      series.slots.fill(0);
      series.sum = 0;
    }
    for (const result of ['hit', 'stale', 'miss', 'history'] as const) {
      if (series.cache[result]) cache.inc({ route: series.requests.route, result }, series.cache[result]);
      series.cache[result] = 0;
    }
  }
}
