/** Starting the real service with the local model upstream, and making keys for a test. */
import { startService, type TestService } from '../support/service.ts';
import type { KeyRecord, NewKey } from '../../src/gateway/keys.ts';
import type { StoredUsageRow, UsageRow } from '../../src/gateway/usage.ts';
import { ModelUpstream, sleep } from './model-upstream.ts';

export const UPSTREAM_KEY = 'upstream-secret-credential';

export interface Harness {
  svc: TestService;
  upstream: ModelUpstream;
  base: string;
  close(): Promise<void>;
}

export async function startGateway(opts: { env?: Record<string, string>; upstream?: ModelUpstream; withUpstream?: boolean } = {}): Promise<Harness> {
  const upstream = opts.upstream ?? (await new ModelUpstream().start());
  const env: Record<string, string> = {
    ...(opts.withUpstream === false ? {} : { AI_UPSTREAM_BASE_URL: upstream.url, AI_UPSTREAM_API_KEY: UPSTREAM_KEY }),
    ...opts.env,
  };
  // No aggregate sources: the gateway tests need none of them.
  const svc = await startService({ env, sources: [] });
  return {
    svc,
    upstream,
    base: svc.base,
    async close() {
      await svc.close();
      if (!opts.upstream) await upstream.stop();
    },
  };
}

export function makeKey(svc: TestService, partial: Partial<NewKey> = {}): Promise<{ key: string; record: KeyRecord }> {
  return svc.gateway.keys.create({
    name: 'test',
    level: partial.level ?? 'pro',
    levelExplicit: partial.level !== undefined,
    quotaMicros: null,
    models: [],
    ips: [],
    expiresAt: null,
    ...partial,
  });
}

export const bearer = (key: string): Record<string, string> => ({ Authorization: `Bearer ${key}` });

/** Usage rows are written when a request ends, which for a stream is after the client saw its last byte. */
export async function usageRows(svc: TestService, keyId: string, count = 1, timeoutMs = 5000): Promise<StoredUsageRow[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await svc.gateway.usage.forKey(keyId, 1000);
    if (rows.length >= count || Date.now() > deadline) return rows;
    await sleep(10);
  }
}

/** The first usage row of the key that `pred` accepts, once the settlement has written it (undefined after the timeout). */
export async function usageRowWhere(svc: TestService, keyId: string, pred: (row: StoredUsageRow) => boolean, timeoutMs = 3000): Promise<StoredUsageRow | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await svc.gateway.usage.forKey(keyId, 1000)).find(pred);
    if (found || Date.now() > deadline) return found;
    await sleep(10);
  }
}

export async function waitFor(cond: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

export async function postJson(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

export const CHAT = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

/** A usage row as the gateway settles it for a completed, streamed chat call of 10 + 5 tokens; `row` names the request and sets what differs. */
export function settledRow(row: Pick<UsageRow, 'requestId' | 'settleId' | 'keyId' | 'accountId'> & Partial<UsageRow>): UsageRow {
  return {
    route: 'chat.completions',
    method: 'POST',
    model: 'gpt-4o',
    stream: true,
    status: 200,
    upstreamStatus: 200,
    errorCode: null,
    promptTokens: 10,
    completionTokens: 5,
    totalTokens: 15,
    chargedTokens: 15,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    audioInputTokens: 0,
    audioOutputTokens: 0,
    costMicros: 75,
    usageSource: 'upstream',
    endReason: 'completed',
    ttfbMs: 10,
    durationMs: 20,
    ...row,
  };
}
