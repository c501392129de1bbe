import { afterAll, beforeAll } from 'vitest';
import { startService, type StartOptions, type TestService } from './service.ts';
import { Upstream } from './upstream.ts';

/**
 * One service on an upstream of its own for the enclosing describe block: both start before its
 * tests and stop after them. `svc()` is the running service (there is none before beforeAll).
 */
export function serviceForSuite(opts: Omit<StartOptions, 'upstream'> = {}): { svc: () => TestService; upstream: Upstream } {
  const upstream = new Upstream();
  let svc: TestService | undefined;
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ ...opts, upstream });
  });
  afterAll(async () => {
    await svc?.close();
    await upstream.stop();
  });
  return {
    svc: () => {
      if (!svc) throw new Error('the service starts in beforeAll');
      return svc;
    },
    upstream,
  };
}
