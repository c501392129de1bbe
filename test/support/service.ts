/**
 * Start the real service for a test: real SQLite (in memory unless a file is given), the
 * scheduler off, every upstream request sent to the local Upstream.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServiceAsync, type Service, type ServiceOptions } from '../../src/service.ts';
import type { AnySource } from '../../src/kernel/source.ts';
import type { Upstream } from './upstream.ts';

export interface TestService extends Service {
  base: string;
  get(pathAndQuery: string, init?: RequestInit): Promise<Response>;
}

export interface StartOptions {
  upstream?: Upstream;
  env?: Record<string, string>;
  sources?: readonly AnySource[];
  now?: () => number;
  random?: () => number;
  backfillPauseMs?: number;
}

export async function startService(opts: StartOptions = {}): Promise<TestService> {
  const env: Record<string, string> = {
    DB_PATH: ':memory:',
    SCHEDULER_ENABLED: 'false',
    LOG_LEVEL: 'silent',
    HTTP_RETRY: '0',
    HTTP_TIMEOUT_MS: '3000',
    ...(opts.upstream ? { SOURCES_UPSTREAM_MIRROR: opts.upstream.url } : {}),
    ...opts.env,
  };
  const serviceOpts: ServiceOptions = { env };
  if (opts.sources) serviceOpts.sources = opts.sources;
  if (opts.now) serviceOpts.now = opts.now;
  if (opts.random) serviceOpts.random = opts.random;
  if (opts.backfillPauseMs !== undefined) serviceOpts.backfillPauseMs = opts.backfillPauseMs;
  // The async form also serves DATABASE_URL / REDIS_URL in `env` (PostgreSQL store, Redis limits).
  const svc = await createServiceAsync(serviceOpts);
  const port = await svc.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  return Object.assign(svc, {
    base,
    get: (p: string, init?: RequestInit) => fetch(`${base}${p}`, { redirect: 'manual', ...init }),
  });
}

/** A fresh temporary SQLite path (for restart tests). */
export function tempDbPath(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apis-test-'));
  return path.join(dir, 'app.sqlite');
}
