/**
 * A value a list needs before its request (a token, the day's signing keys), fetched with the
 * source's HTTP client and kept for a while per client (one per service), so the upstream is
 * asked for it once per interval however many variants are fetched. A fetch that fails is
 * forgotten at once (the next run asks again); `forget` drops a value the upstream refused.
 */
import type { HttpClient } from '../../src/kernel/http.ts';

export interface KeptValue<T> {
  get(http: HttpClient, signal: AbortSignal, nowMs: number): Promise<T>;
  forget(http: HttpClient): void;
}

export function keptPerClient<T>(ttlMs: number, load: (http: HttpClient, signal: AbortSignal) => Promise<T>): KeptValue<T> {
  const kept = new WeakMap<HttpClient, { at: number; value: Promise<T> }>();
  return {
    get(http, signal, nowMs) {
      const hit = kept.get(http);
      if (hit && nowMs - hit.at < ttlMs) return hit.value;
      const value = load(http, signal);
      kept.set(http, { at: nowMs, value });
      value.catch(() => {
        if (kept.get(http)?.value === value) kept.delete(http);
      });
      return value;
    },
    forget: (http) => void kept.delete(http),
  };
}
