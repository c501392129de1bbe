/**
 * Prometheus metrics of the gateway's upstreams: attempts by outcome, time to the response
 * headers, and whether each is in service. Label values are the configured upstream names only.
 * Attempts come on every gateway request, so they are counted without prom-client's per-call
 * label hashing (see counter-tally.ts and batched-histogram.ts).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { UpstreamAttempt, UpstreamStatus } from '../gateway/upstream-pool.ts';
import { BatchedHistogram } from './batched-histogram.ts';
import { CounterTally } from './counter-tally.ts';

const OUTCOMES: readonly UpstreamAttempt['outcome'][] = ['ok', 'connect', 'timeout', 'status_5xx', 'status_429', 'stream_cut'];
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function upstreamMetrics(registry: Registry, names: readonly string[], status: () => UpstreamStatus[]): { observe(a: UpstreamAttempt): void } {
  const attemptsTally = new CounterTally<'upstream' | 'outcome'>();
  const attempts = new Counter({
    name: 'gateway_upstream_attempts_total',
    help: 'Requests the AI gateway sent to each upstream, by outcome (ok, connect, timeout, status_5xx, status_429; the failures go to the next upstream when one is left; stream_cut: an answer that failed after its headers, which counted ok).',
    labelNames: ['upstream', 'outcome'] as const,
    registers: [registry],
    collect(): void {
      attemptsTally.flushTo(this);
    },
  });
  const latency = new BatchedHistogram<'upstream'>({
    name: 'gateway_upstream_latency_seconds',
    help: 'Time from sending a request to an upstream to its response headers, successful attempts only.',
    labelNames: ['upstream'] as const,
    buckets: BUCKETS,
    registers: [registry],
  });
  new Gauge({
    name: 'gateway_upstream_up',
    help: 'Whether each upstream is in service (1), or taken out after a failure (0: cooling down or waiting for its probe).',
    labelNames: ['upstream'] as const,
    registers: [registry],
    collect(): void {
      for (const u of status()) this.set({ upstream: u.name }, u.state === 'up' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'gateway_upstream_probe_ok',
    help: 'Whether the last health probe of each upstream passed (1) or failed (0); absent before its first probe (AI_UPSTREAM_PROBE_INTERVAL_MS).',
    labelNames: ['upstream'] as const,
    registers: [registry],
    collect(): void {
      this.reset();
      for (const u of status()) if (u.last_probe_ok !== null) this.set({ upstream: u.name }, u.last_probe_ok ? 1 : 0);
    },
  });
  for (const upstream of names) for (const outcome of OUTCOMES) attempts.inc({ upstream, outcome }, 0);
  return {
    observe(a) {
      attemptsTally.add(`${a.upstream}\n${a.outcome}`, () => ({ upstream: a.upstream, outcome: a.outcome }), 1);
      if (a.outcome === 'ok') latency.observe(a.upstream, () => ({ upstream: a.upstream }), a.ms / 1000);
    },
  };
}
