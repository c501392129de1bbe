/** The keys command (`npm run keys -- ...`), run as a real process against a temporary SQLite file. */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, CHAT, makeKey, postJson, startGateway, usageRows, type Harness } from './helpers.ts';
import { ModelUpstream } from './model-upstream.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
let dir: string;
let dbPath: string;
let upstream: ModelUpstream;

/** `npx tsx src/cli/keys.ts` as documented; the other calls load tsx into node directly (same code, less start-up). */
async function keys(args: string[], viaNpx = false): Promise<{ stdout: string; stderr: string; code: number }> {
  const [cmd, pre] = viaNpx ? ['npx', ['tsx']] : [process.execPath, ['--import', 'tsx']];
  try {
    const { stdout, stderr } = await run(cmd, [...pre, 'src/cli/keys.ts', ...args], { cwd: ROOT, env: { ...process.env, DB_PATH: dbPath, LOG_LEVEL: 'silent' } });
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-keys-'));
  dbPath = path.join(dir, 'app.sqlite');
  upstream = await new ModelUpstream().start();
});
afterAll(async () => {
  await upstream.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('npm run keys', () => {
  let created: { id: string; key: string; name: string; account: string; level: string; models: string[]; ips: string[]; quota_usd: number; expires_at: string };
  let h: Harness;

  beforeAll(async () => {
    const out = await keys(['create', '--name', 'ci bot', '--account', 'team-a', '--level', 'free', '--quota', '1000', '--models', 'gpt-4o*,rerank-1', '--ips', '127.0.0.1,::1', '--expires', '2099-01-01', '--json'], true);
    expect(out.code).toBe(0);
    created = JSON.parse(out.stdout);
    h = await startGateway({ upstream, env: { DB_PATH: dbPath } });
  }, 60_000);
  afterAll(() => h.close());

  it('create --json prints the key once with its id and policy; only a hash is stored', async () => {
    expect(created.key).toMatch(/^sk-[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({ name: 'ci bot', account: 'team-a', level: 'free', quota_usd: 1000, models: ['gpt-4o*', 'rerank-1'], ips: ['127.0.0.1', '::1'], expires_at: '2099-01-01T23:59:59.999Z' });
    const file = fs.readFileSync(dbPath);
    expect(file.includes(Buffer.from(created.key))).toBe(false);
    expect(file.includes(Buffer.from(created.key.slice(3, 30)))).toBe(false);
  });

  it('the created key works against the service, within its policy', async () => {
    expect((await postJson(h.base, '/v1/chat/completions', { ...CHAT, model: 'gpt-4o' }, bearer(created.key))).status).toBe(200);
    expect((await postJson(h.base, '/v1/chat/completions', { ...CHAT, model: 'claude' }, bearer(created.key))).status).toBe(403);
  });

  it('list and show report usage so far, never the key', async () => {
    const list = await keys(['list', '--json']);
    expect(list.code).toBe(0);
    expect(list.stdout).not.toContain(created.key);
    const rows = JSON.parse(list.stdout) as { id: string; used_tokens: number; requests: number; status: string }[];
    // gpt-4o at $2.50 / $10 per 1M tokens: 10 + 5 tokens = $0.000075.
    expect(rows.find((r) => r.id === created.id)).toMatchObject({ used_tokens: 15, spent_usd: 0.000075, remaining_usd: 999.999925, requests: 2, status: 'active' });
    const show = await keys(['show', created.id]);
    expect(show.stdout).toContain('$0.000075, 15 tokens in 2 requests');
    expect(show.stdout).toContain('chat.completions');
    expect(show.stdout).not.toContain(created.key);
  });

  it('show names the cached and reasoning parts of a request\'s tokens (issue 21)', async () => {
    upstream.script('POST', '/v1/chat/completions', (_req, res) => {
      const usage = { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49, prompt_tokens_details: { cached_tokens: 32 }, completion_tokens_details: { reasoning_tokens: 6 } };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage }));
    });
    try {
      expect((await postJson(h.base, '/v1/chat/completions', { ...CHAT, model: 'gpt-4o' }, bearer(created.key))).status).toBe(200);
      await usageRows(h.svc, created.id, 3);
      const show = await keys(['show', created.id]);
      expect(show.stdout).toContain('49 tokens (cached 32, reasoning 6)');
      const json = JSON.parse((await keys(['show', created.id, '--json'])).stdout) as { recent_requests: Record<string, unknown>[] };
      expect(json.recent_requests[0]).toMatchObject({ cachedTokens: 32, reasoningTokens: 6, promptTokens: 40, completionTokens: 9 });
    } finally {
      upstream.reset();
    }
  });

  it('topup adds credit; edit changes quota, budget, models, level and expiry', async () => {
    const topped = await keys(['topup', created.id, '2.5', '--json']);
    expect(topped.code).toBe(0);
    expect(JSON.parse(topped.stdout)).toMatchObject({ quota_usd: 1002.5 });
    const edited = await keys(['edit', created.id, '--quota', '0.00005', '--budget', '5', '--budget-period', 'daily', '--models', 'all', '--level', 'pro', '--expires', 'never', '--json']);
    expect(edited.code).toBe(0);
    expect(JSON.parse(edited.stdout)).toMatchObject({ quota_usd: 0.00005, budget_usd: 5, budget_period: 'daily', models: [], level: 'pro', expires_at: null, status: 'exhausted' });
    // Spent $0.000075 of $0.00005: nothing left, so chat is refused; the models list stays open.
    const refused = await postJson(h.base, '/v1/chat/completions', { ...CHAT, model: 'gpt-4o' }, bearer(created.key));
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('insufficient_quota');
    expect((await fetch(`${h.base}/v1/models`, { headers: bearer(created.key) })).status).toBe(200);
    const shown = await keys(['show', created.id]);
    expect(shown.stdout).toMatch(/budget: +\$5\.00 daily, \$0 spent/);
    const unlimited = await keys(['edit', created.id, '--quota', 'unlimited', '--budget', 'none', '--json']);
    expect(JSON.parse(unlimited.stdout)).toMatchObject({ quota_usd: null, budget_usd: null, budget_period: null, status: 'active' });
    const noQuota = await keys(['topup', created.id, '1']);
    expect(noQuota.code).toBe(2);
    expect(noQuota.stderr).toMatch(/no quota.*edit .* --quota 1/);
  });

  it('revoke stops the key at once', async () => {
    const out = await keys(['revoke', created.id, '--json']);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout).revoked_at).toMatch(/^\d{4}-/);
    const res = await postJson(h.base, '/v1/chat/completions', { ...CHAT, model: 'gpt-4o' }, bearer(created.key));
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
  });

  it('refuses bad input with a clear message and a non-zero exit', async () => {
    const cases: [string[], RegExp][] = [
      [['create'], /--name/],
      [['create', '--name', 'x', '--level', 'platinum'], /not a configured level/],
      [['create', '--name', 'x', '--quota', '-5'], /--quota/],
      [['create', '--name', 'x', '--quota', '1.1234567'], /US dollars/],
      [['create', '--name', 'x', '--budget', '5', '--budget-period', 'weekly'], /--budget-period/],
      [['topup', 'key_missing', '5'], /No key/],
      [['edit', created.id], /at least one of/],
      [['create', '--name', 'x', '--ips', '10.0.0.0/33'], /CIDR/],
      [['create', '--name', 'x', '--expires', 'tomorrow'], /--expires/],
      [['show', 'key_missing'], /No key/],
      [['frobnicate'], /Unknown command/],
    ];
    for (const [args, message] of cases) {
      const out = await keys(args);
      expect(out.code).not.toBe(0);
      expect(out.stderr).toMatch(message);
    }
  });
});

describe('pepper', () => {
  it('AI_KEY_PEPPER keys the hashes: a key works only under the pepper it was created with; a short pepper is refused', async () => {
    const file = path.join(dir, 'pepper.sqlite');
    const a = await startGateway({ upstream, env: { DB_PATH: file, AI_KEY_PEPPER: 'pepper-A-0123456789abcdef' } });
    const { key } = await makeKey(a.svc);
    expect((await fetch(`${a.base}/v1/dashboard/billing/subscription`, { headers: bearer(key) })).status).toBe(200);
    await a.close();
    const b = await startGateway({ upstream, env: { DB_PATH: file, AI_KEY_PEPPER: 'pepper-B-0123456789abcdef' } });
    expect((await fetch(`${b.base}/v1/dashboard/billing/subscription`, { headers: bearer(key) })).status).toBe(401);
    await b.close();
    await expect(startGateway({ upstream, env: { DB_PATH: file, AI_KEY_PEPPER: 'short' } })).rejects.toThrow(/AI_KEY_PEPPER/);
  });
});
