/**
 * Per-request metrics (http_requests_total, http_request_duration_seconds, apis_cache_total)
 * gathered per label set in plain objects and handed to prom-client in batches: when the metrics
 * are read (each metric's `collect` calls `flush`) and whenever a label set has FLUSH_AT requests
 * waiting. prom-client builds, validates and hashes a label object on every call, which cost more
 * than the rest of a cached /v2/apis answer; here a request costs a Map lookup and a push.
 */
import type { Counter, Histogram } from 'prom-client';

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
  requests: Record<'family' | 'route' | 'method' | 'status' | 'encoding', string>;
  latency: Record<'family' | 'route' | 'method', string>;
  /** Durations (s) not yet observed; their count is also the requests not yet counted. */
  seconds: number[];
  cache: Record<CacheResult, number>;
}

const FLUSH_AT = 256;

export class RequestTally {
  private readonly series = new Map<string, Series>();

  constructor(
    private readonly metrics: {
      requests: Counter<'family' | 'route' | 'method' | 'status' | 'encoding'>;
      latency: Histogram<'family' | 'route' | 'method'>;
      cache: Counter<'route' | 'result'>;
    },
  ) {}

  add(s: RequestSample): void {
    const key = `${s.family}\n${s.route}\n${s.method}\n${s.status}\n${s.encoding}`;
    let series = this.series.get(key);
    if (!series) {
      series = {
        requests: { family: s.family, route: s.route, method: s.method, status: String(s.status), encoding: s.encoding },
        latency: { family: s.family, route: s.route, method: s.method },
        seconds: [],
        cache: { hit: 0, stale: 0, miss: 0, history: 0 },
      };
      this.series.set(key, series);
    }
    series.seconds.push(s.seconds);
    if (s.cache) series.cache[s.cache] += 1;
    // All of them, so prom-client meets the label sets in the order the requests came.
    if (series.seconds.length >= FLUSH_AT) this.flush();
  }

  /** Hand everything waiting to prom-client. */
  flush(): void {
    for (const series of this.series.values()) this.flushSeries(series);
  }

  private flushSeries(series: Series): void {
    const { requests, latency, cache } = this.metrics;
    if (series.seconds.length) {
      requests.inc(series.requests, series.seconds.length);
      for (const seconds of series.seconds) latency.observe(series.latency, seconds);
      series.seconds.length = 0;
    }
    for (const result of ['hit', 'stale', 'miss', 'history'] as const) {
      if (series.cache[result]) cache.inc({ route: series.requests.route, result }, series.cache[result]);
      series.cache[result] = 0;
    }
  }
}
