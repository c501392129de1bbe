/**
 * RequestTally: the metrics read after batching equal those of recording every request at once
 * (sums of durations up to rounding), whether they are read before or after a batch fills up.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { BatchedHistogram } from '../../src/http/batched-histogram.ts';
import { RequestTally, type RequestSample } from '../../src/http/request-tally.ts';
import { parseMetrics } from '../ops/support.ts';

/** prom-client's own metrics, or (`batched`) the tally's with its BatchedHistogram. */
function metricsOf(batched = false) {
  const registry = new Registry();
  let flush = () => {};
  const collect = () => flush();
  const requests = new Counter({ name: 'req_total', help: 'h', labelNames: ['family', 'route', 'method', 'status', 'encoding'] as const, registers: [registry], collect });
  const latencyConfig = { name: 'lat_seconds', help: 'h', labelNames: ['family', 'route', 'method'] as const, buckets: [0.01, 0.1, 1], registers: [registry], collect };
  const latency = batched ? new BatchedHistogram(latencyConfig) : new Histogram(latencyConfig);
  const cache = new Counter({ name: 'cache_total', help: 'h', labelNames: ['route', 'result'] as const, registers: [registry], collect });
  const tally = new RequestTally({ requests, latency: latency as BatchedHistogram<'family' | 'route' | 'method'>, cache });
  flush = () => tally.flush();
  return { registry, requests, latency, cache, tally };
}

/** `n` requests over a few label sets, or (`spread` 1) all in one, which fills batches. */
function samples(n: number, spread = 1000): RequestSample[] {
  const routes = ['/v2/apis/a', '/v2/apis/b', 'unmatched'];
  return Array.from({ length: n }, (_, k) => k % spread).map((i) => ({
    family: i % 7 === 0 ? 'service' : 'apis',
    route: routes[i % 3] as string,
    method: i % 5 === 0 ? 'HEAD' : 'GET',
    status: i % 11 === 0 ? 404 : 200,
    encoding: i % 2 ? 'json' : '',
    seconds: (i % 13) / 20 + (i % 4 === 0 ? 0.1 : 0) + (i % 29 === 0 ? 5 : 0),
    cache: i % 3 === 2 ? undefined : (['hit', 'stale', 'miss'] as const)[i % 3],
  }));
}

describe('RequestTally', () => {
  for (const [n, spread] of [[0], [1], [40], [1000], [700, 1]] as const) {
    it(`reads the same as direct recording after ${n} requests${spread === 1 ? ' with the same labels' : ''}`, async () => {
      const direct = metricsOf();
      const batched = metricsOf(true);
      for (const s of samples(n, spread)) {
        direct.requests.inc({ family: s.family, route: s.route, method: s.method, status: String(s.status), encoding: s.encoding });
        (direct.latency as Histogram<'family' | 'route' | 'method'>).observe({ family: s.family, route: s.route, method: s.method }, s.seconds);
        if (s.cache) direct.cache.inc({ route: s.route, result: s.cache });
        batched.tally.add(s);
      }
      const want = parseMetrics(await direct.registry.metrics());
      // Reading twice does not count anything twice.
      for (let read = 0; read < 2; read++) {
        const got = parseMetrics(await batched.registry.metrics());
        expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
        // Sums of durations may differ in the last bits (added in another order); counts may not.
        for (const [key, value] of want) {
          if (/_sum[{ ]/.test(`${key} `)) expect(got.get(key)).toBeCloseTo(value, 9);
          else expect(got.get(key), key).toBe(value);
        }
      }
    });
  }
});

describe('BatchedHistogram.observe', () => {
  it('reads as prom-client Histogram fed the same observations', async () => {
    const config = (registry: Registry) => ({ name: 'up_seconds', help: 'h', labelNames: ['upstream'] as const, buckets: [0.01, 0.1, 1], registers: [registry] });
    const [direct, batched] = [new Registry(), new Registry()];
    const histogram = new Histogram(config(direct));
    const tallied = new BatchedHistogram(config(batched));
    for (let i = 0; i < 300; i++) {
      const upstream = ['a', 'b', 'c'][i % 3] as string;
      const seconds = (i % 17) / 10 + (i % 5 === 0 ? 0.01 : 0);
      histogram.observe({ upstream }, seconds);
      tallied.observe(upstream, () => ({ upstream }), seconds);
    }
    const want = parseMetrics(await direct.metrics());
    const got = parseMetrics(await batched.metrics());
    expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [key, value] of want) expect(got.get(key), key).toBeCloseTo(value, 9);
  });
});
