/** sources/_shared/kept-value.ts: a token or signing keys fetched once per interval per service, failures not kept. */
import { describe, expect, it } from 'vitest';
import { keptPerClient } from '../../sources/_shared/kept-value.ts';
import type { HttpClient } from '../../src/kernel/http.ts';

describe('keptPerClient', () => {
  const signal = new AbortController().signal;
  const clientA = {} as HttpClient;
  const clientB = {} as HttpClient;

  it('keeps a value for its interval, per client', async () => {
    let loads = 0;
    const kept = keptPerClient(1000, async () => `v${++loads}`);
    expect(await kept.get(clientA, signal, 0)).toBe('v1');
    expect(await kept.get(clientA, signal, 999)).toBe('v1');
    expect(await kept.get(clientB, signal, 999)).toBe('v2');
    expect(await kept.get(clientA, signal, 1000)).toBe('v3');
    kept.forget(clientA);
    expect(await kept.get(clientA, signal, 1001)).toBe('v4');
  });

  it('forgets a failed fetch, so the next run asks again', async () => {
    let loads = 0;
    const kept = keptPerClient(60_000, async () => {
      if (++loads === 1) throw new Error('upstream down');
      return 'ok';
    });
    await expect(kept.get(clientA, signal, 0)).rejects.toThrow('upstream down');
    expect(await kept.get(clientA, signal, 1)).toBe('ok');
    expect(loads).toBe(2);
  });
});
