/**
 * The failure modes every fetched endpoint must survive, as one reusable block of tests:
 * non-2xx, a login or risk-control page, a changed shape, an empty result and a slow upstream.
 * Cold (no data yet): 503 with Retry-After. Warm: the last good data is served as STALE after
 * expiry and /v2/status shows the failure with its kind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnySource } from '../../src/kernel/source.ts';
import { TestClock } from './clock.ts';
import { startService, type TestService } from './service.ts';
import { Upstream, type UpstreamReply } from './upstream.ts';

export interface FailureModeOptions {
  /** Source id as shown on /v2/status. */
  sourceId: string;
  /** Request path with query, e.g. `/v2/apis/exchange-rate?currency=USD`. */
  path: string;
  /** The upstream request whose answer is replaced by the failures. */
  host: string;
  upstreamPath: string | RegExp;
  /** The source's TTL (s): the clock moves past it before the failing refresh. */
  ttlSec: number;
  /** A login, captcha or risk-control answer instead of data (expected kind: blocked). */
  loginPage: UpstreamReply;
  /** Data of an unexpected shape (expected kind: parse). */
  changedShape: UpstreamReply;
  /**
   * A well-formed but empty answer (expected kind: empty, unless `emptyKind` says otherwise).
   * With `not_found` (nothing exists for the caller's input) a cold read is a 404 and a warm one
   * keeps serving the last good data without counting a failure.
   */
  empty: UpstreamReply;
  emptyKind?: string;
  /** Clock start (ms); defaults to the TestClock default. */
  start?: number;
  /** Sources to register (default: every source). */
  sources?: readonly AnySource[];
  env?: Record<string, string>;
}

interface StatusEntry {
  id: string;
  state: string;
  fail_count: number;
  last_error: string | null;
}

export async function sourceStatus(svc: TestService, id: string): Promise<StatusEntry | undefined> {
  const body = (await (await svc.get('/v2/status')).json()) as { data: { sources: StatusEntry[] } };
  return body.data.sources.find((s) => s.id === id);
}

/** Wait until /v2/status records at least `failures` failures for the source (a background refresh). */
export async function waitForFailure(svc: TestService, id: string, failures = 1): Promise<StatusEntry> {
  for (let i = 0; i < 100; i++) {
    const s = await sourceStatus(svc, id);
    if (s && s.fail_count >= failures) return s;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${id}: no failure was recorded`);
}

async function withService<T>(upstream: Upstream, opts: FailureModeOptions, env: Record<string, string>, fn: (svc: TestService, clock: TestClock) => Promise<T>): Promise<T> {
  const clock = new TestClock(opts.start);
  const svc = await startService({ upstream, now: clock.now, env: { ...opts.env, ...env }, ...(opts.sources ? { sources: opts.sources } : {}) });
  try {
    return await fn(svc, clock);
  } finally {
    await svc.close();
  }
}

/**
 * Registers the failure-mode tests on an upstream of their own, which serves the recorded
 * fixtures for every request by default; the block resets per-test routes itself.
 */
export function describeFailureModes(opts: FailureModeOptions): void {
  const up = new Upstream();
  const failures: [string, () => UpstreamReply, string][] = [
    ['a non-2xx answer', () => ({ status: 502, headers: { 'content-type': 'text/html' }, body: '<html><body>502 Bad Gateway</body></html>' }), 'transient'],
    ['a login or risk-control page', () => opts.loginPage, 'blocked'],
    ['a changed shape', () => opts.changedShape, 'parse'],
    ['an empty result', () => opts.empty, opts.emptyKind ?? 'empty'],
  ];

  describe(`${opts.sourceId} failure modes (${opts.path})`, () => {
    beforeAll(async () => {
      await up.start();
    });
    afterAll(async () => {
      await up.stop();
    });

    for (const [what, reply, kind] of failures) {
      it(`cold: ${what} gives ${kind === 'not_found' ? '404' : `503 with Retry-After and shows as ${kind} on /v2/status`}`, async () => {
        up.reset();
        up.serve(opts.host, opts.upstreamPath, reply());
        await withService(up, opts, {}, async (svc) => {
          const res = await svc.get(opts.path);
          if (kind === 'not_found') {
            expect(res.status).toBe(404);
            expect(((await res.json()) as { code: number }).code).toBe(404);
            expect((await sourceStatus(svc, opts.sourceId))?.fail_count).toBe(0);
            return;
          }
          expect(res.status).toBe(503);
          expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
          const body = (await res.json()) as { code: number; message: string; data: unknown };
          expect(body.code).toBe(503);
          expect(body.data).toBeNull();
          expect(body.message).toMatch(/unavailable/);
          const status = await sourceStatus(svc, opts.sourceId);
          expect(status?.state).toBe('down');
          expect(status?.last_error).toMatch(new RegExp(`^${kind}: `));
        });
        expect(up.unmatched).toEqual([]);
      });

      it(`warm: ${what} keeps the last good data, served as STALE after expiry`, async () => {
        up.reset();
        await withService(up, opts, {}, async (svc, clock) => {
          const good = await svc.get(opts.path);
          expect(good.status).toBe(200);
          expect(good.headers.get('x-cache')).toBe('MISS');
          const goodBody = await good.text();
          clock.advance(opts.ttlSec * 1000 + 1000);
          up.serve(opts.host, opts.upstreamPath, reply());
          const stale = await svc.get(opts.path);
          expect(stale.status).toBe(200);
          expect(stale.headers.get('x-cache')).toBe('STALE');
          expect(await stale.text()).toBe(goodBody);
          if (kind === 'not_found') {
            await new Promise((r) => setTimeout(r, 100));
            expect((await sourceStatus(svc, opts.sourceId))?.fail_count).toBe(0);
            expect(await (await svc.get(opts.path)).text()).toBe(goodBody);
            return;
          }
          const status = await waitForFailure(svc, opts.sourceId);
          expect(status.state).toBe('failing');
          expect(status.last_error).toMatch(new RegExp(`^${kind}: `));
          // Still the last good data after the failed refresh.
          const again = await svc.get(opts.path);
          expect(again.status).toBe(200);
          expect(await again.text()).toBe(goodBody);
        });
        expect(up.unmatched).toEqual([]);
      });
    }

    it('cold: a slow upstream times out into 503 with Retry-After', async () => {
      up.reset();
      up.serve(opts.host, opts.upstreamPath, { status: 200, body: '{}', delayMs: 1500 });
      await withService(up, opts, { HTTP_TIMEOUT_MS: '300' }, async (svc) => {
        const started = Date.now();
        const res = await svc.get(opts.path);
        expect(res.status).toBe(503);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(Date.now() - started).toBeLessThan(1400);
        const status = await sourceStatus(svc, opts.sourceId);
        expect(status?.last_error).toMatch(/^transient: .*(timed out|aborted)/);
      });
      expect(up.unmatched).toEqual([]);
    });
  });
}
