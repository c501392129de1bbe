/** Account rate limits (RPM, RPD, TPM) from levels, their headers, and their survival across a restart. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, CHAT, makeKey, postJson, startGateway, usageRows, type Harness } from './helpers.ts';
import { ModelUpstream } from './model-upstream.ts';
import { formatReset } from '../../src/gateway/limits.ts';
import { loadLevels } from '../../src/gateway/levels.ts';
import { openaiClient } from './openai-sdks.ts';

const LEVELS = JSON.stringify({
  rpm2: { rpm: 2, rpd: 0, tpm: 0 },
  rpd3: { rpm: 0, rpd: 3, tpm: 0 },
  // Each chat request body of this test is ~80 bytes → ~20 tokens estimated; the upstream reports 15 used.
  tpm40: { rpm: 0, rpd: 0, tpm: 40 },
});

let upstream: ModelUpstream;
let h: Harness;

beforeAll(async () => {
  upstream = await new ModelUpstream().start();
  h = await startGateway({ upstream, env: { AI_LEVELS: LEVELS } });
});
afterAll(async () => {
  await h.close();
  await upstream.stop();
});

async function errorOf(res: Response): Promise<{ type: string; code: string; message: string }> {
  return ((await res.json()) as { error: { type: string; code: string; message: string } }).error;
}

describe('RPM', () => {
  it('counts every request of the account (failures included), then 429 with Retry-After and x-ratelimit-*', async () => {
    const a = await makeKey(h.svc, { level: 'rpm2', account: 'acct-rpm' });
    const b = await makeKey(h.svc, { level: 'rpm2', account: 'acct-rpm' });
    const ok = await postJson(h.base, '/v1/chat/completions', CHAT, bearer(a.key));
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-ratelimit-limit-requests')).toBe('2');
    expect(ok.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    expect(ok.headers.get('x-ratelimit-reset-requests')).toMatch(/^(?:\d+h)?(?:\d+m)?\d+(?:ms|s)$/);
    // A failing request (upstream 400) still counts; the second key shares the account's window.
    const failed = await postJson(h.base, '/v1/chat/completions', { ...CHAT, mock: { status: 400 } }, bearer(b.key));
    expect(failed.status).toBe(400);
    const limited = await postJson(h.base, '/v1/chat/completions', CHAT, bearer(a.key));
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(Number(limited.headers.get('retry-after-ms'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(await errorOf(limited)).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });
    expect((await errorOf(await postJson(h.base, '/v1/chat/completions', CHAT, bearer(b.key)))).code).toBe('rate_limit_exceeded');
    // Another account is not affected.
    const other = await makeKey(h.svc, { level: 'rpm2' });
    expect((await postJson(h.base, '/v1/chat/completions', CHAT, bearer(other.key))).status).toBe(200);
  });

  it('the openai client raises RateLimitError with a readable retry-after', async () => {
    const k = await makeKey(h.svc, { level: 'rpm2' });
    const client = openaiClient(h.base, k.key);
    await client.models.list();
    await client.models.list();
    const err = await client.models.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    const e = err as InstanceType<typeof OpenAI.RateLimitError>;
    expect(e.status).toBe(429);
    expect(e.code).toBe('rate_limit_exceeded');
    expect(Number(e.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('RPD', () => {
  it('a separate daily window', async () => {
    const k = await makeKey(h.svc, { level: 'rpd3' });
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${h.base}/v1/dashboard/billing/subscription`, { headers: bearer(k.key) });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining-requests-day')).toBe(String(2 - i));
      expect(res.headers.get('x-ratelimit-limit-requests')).toBeNull();
    }
    const res = await fetch(`${h.base}/v1/dashboard/billing/subscription`, { headers: bearer(k.key) });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(3600);
    const err = await errorOf(res);
    expect(err.message).toMatch(/per day/);
  });
});

describe('TPM', () => {
  it('reserves an estimate before the call, corrects it to the usage after, then refuses', async () => {
    const k = await makeKey(h.svc, { level: 'tpm40' });
    const first = await postJson(h.base, '/v1/chat/completions', CHAT, bearer(k.key));
    expect(first.status).toBe(200);
    const estimate = Math.ceil(JSON.stringify(CHAT).length / 4);
    expect(first.headers.get('x-ratelimit-limit-tokens')).toBe('40');
    expect(first.headers.get('x-ratelimit-remaining-tokens')).toBe(String(40 - estimate));
    await usageRows(h.svc, k.record.id, 1);
    // Corrected to the 15 tokens actually used: 25 left, enough for one more estimate.
    const second = await postJson(h.base, '/v1/chat/completions', CHAT, bearer(k.key));
    expect(second.status).toBe(200);
    expect(second.headers.get('x-ratelimit-remaining-tokens')).toBe(String(40 - 15 - estimate));
    await usageRows(h.svc, k.record.id, 2);
    const third = await postJson(h.base, '/v1/chat/completions', CHAT, bearer(k.key));
    expect(third.status).toBe(429);
    expect(await errorOf(third)).toMatchObject({ type: 'tokens', code: 'rate_limit_exceeded' });
    expect(third.headers.get('x-ratelimit-remaining-tokens')).toBe('0');
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('max_tokens counts in the estimate: a request larger than the whole window is refused up front', async () => {
    const k = await makeKey(h.svc, { level: 'tpm40' });
    const res = await postJson(h.base, '/v1/chat/completions', { ...CHAT, max_tokens: 1000 }, bearer(k.key));
    expect(res.status).toBe(429);
    expect((await errorOf(res)).message).toMatch(/more than the tokens per min/);
  });
});

describe('persistence', () => {
  it('a restart with the same SQLite file keeps the limiter state', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-limits-'));
    const env = { AI_LEVELS: LEVELS, DB_PATH: path.join(dir, 'app.sqlite') };
    const first = await startGateway({ upstream, env });
    const k = await makeKey(first.svc, { level: 'rpm2' });
    expect((await fetch(`${first.base}/v1/models`, { headers: bearer(k.key) })).status).toBe(200);
    expect((await fetch(`${first.base}/v1/models`, { headers: bearer(k.key) })).status).toBe(200);
    await first.close();
    const second = await startGateway({ upstream, env });
    try {
      const res = await fetch(`${second.base}/v1/models`, { headers: bearer(k.key) });
      expect(res.status).toBe(429);
      expect((await errorOf(res)).code).toBe('rate_limit_exceeded');
    } finally {
      await second.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('levels configuration', () => {
  it('has documented defaults, merges AI_LEVELS_FILE then AI_LEVELS, and rejects bad input', () => {
    const defaults = loadLevels({ json: undefined, file: undefined, defaultLevel: 'default' });
    expect(defaults.get('free')).toEqual({ rpm: 10, rpd: 200, tpm: 20_000 });
    expect(defaults.get('default')).toEqual({ rpm: 60, rpd: 5_000, tpm: 200_000 });
    expect(defaults.get('pro')).toEqual({ rpm: 600, rpd: 100_000, tpm: 2_000_000 });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-levels-'));
    const file = path.join(dir, 'levels.json');
    fs.writeFileSync(file, JSON.stringify({ team: { rpm: 5, rpd: 50, tpm: 500 }, free: { rpm: 1, rpd: 1, tpm: 1 } }));
    const merged = loadLevels({ json: JSON.stringify({ free: { rpm: 2, rpd: 2, tpm: 2 } }), file, defaultLevel: 'team' });
    expect(merged.get('team')).toEqual({ rpm: 5, rpd: 50, tpm: 500 });
    expect(merged.get('free')).toEqual({ rpm: 2, rpd: 2, tpm: 2 });
    expect(() => loadLevels({ json: '{"x":{"rpm":-1,"rpd":1,"tpm":1}}', file: undefined, defaultLevel: 'default' })).toThrow(/rpm/);
    expect(() => loadLevels({ json: 'nope', file: undefined, defaultLevel: 'default' })).toThrow(/AI_LEVELS/);
    expect(() => loadLevels({ json: undefined, file: undefined, defaultLevel: 'gold' })).toThrow(/AI_DEFAULT_LEVEL/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('formats reset durations the way OpenAI does', () => {
    expect(formatReset(20)).toBe('20ms');
    expect(formatReset(1000)).toBe('1s');
    expect(formatReset(360_000)).toBe('6m0s');
    expect(formatReset(3_600_000)).toBe('1h0m0s');
  });
});
