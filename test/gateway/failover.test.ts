/**
 * Several upstreams: two local model upstreams behind the gateway, one failing or killed
 * mid-run, driven through the official openai and @google/genai clients. Failover happens
 * before the first byte only; a failing upstream cools down and is probed back.
 */
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config.ts';
import { parseMetrics, sample } from '../ops/support.ts';
import type { ServerResponse } from 'node:http';
import { bearer, makeKey, postJson, startGateway, type Harness } from './helpers.ts';
import { ModelUpstream, sleep, taskEnvelope } from './model-upstream.ts';
import { openaiClient } from './openai-sdks.ts';

const COOLDOWN_MS = 400;
const CHAT = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'hi' }] };

interface UpstreamView {
  name: string;
  state: string;
  requests: number;
  failures: number;
  last_error: string | null;
  latency_ms: number | null;
}

async function upstreamStatus(h: Harness): Promise<Record<string, UpstreamView>> {
  const body = (await (await fetch(`${h.base}/v2/status`)).json()) as { data: { gateway: { upstreams: UpstreamView[] } } };
  return Object.fromEntries(body.data.gateway.upstreams.map((u) => [u.name, u]));
}

const chatCount = (u: ModelUpstream) => u.requests.filter((r) => r.path === '/v1/chat/completions').length;

function twoUpstreams(primary: ModelUpstream, backup: ModelUpstream, extra: Record<string, string> = {}): Promise<Harness> {
  return startGateway({
    upstream: primary,
    env: {
      AI_UPSTREAM_BASE_URL: '',
      AI_UPSTREAMS: JSON.stringify([
        { name: 'primary', url: primary.url, key: 'key-primary' },
        { name: 'backup', url: backup.url, key: 'key-backup' },
      ]),
      AI_UPSTREAM_COOLDOWN_MS: String(COOLDOWN_MS),
      ...extra,
    },
  });
}

describe('failover between two upstreams', () => {
  let primary: ModelUpstream;
  let backup: ModelUpstream;
  let h: Harness;
  let openai: OpenAI;

  beforeAll(async () => {
    primary = await new ModelUpstream().start();
    backup = await new ModelUpstream().start();
    h = await twoUpstreams(primary, backup, { AI_FIRST_BYTE_TIMEOUT_MS: '700' });
    openai = openaiClient(h.base, (await makeKey(h.svc)).key);
  });
  afterAll(async () => {
    await h.close();
    await primary.stop();
    await backup.stop();
  });
  afterEach(async () => {
    primary.reset();
    backup.reset();
    // Let a cooling primary come back (its probe succeeds now that it is healthy again).
    await sleep(COOLDOWN_MS + 50);
    await openai.chat.completions.create(CHAT);
    primary.reset();
    backup.reset();
  });

  it('a healthy primary serves everything; each upstream gets its own key', async () => {
    for (let i = 0; i < 3; i++) expect((await openai.chat.completions.create(CHAT)).choices[0]!.message.content).toBe('Hello from gpt-4o-mini');
    expect(chatCount(primary)).toBe(3);
    expect(chatCount(backup)).toBe(0);
    expect(primary.last('/v1/chat/completions')!.headers.authorization).toBe('Bearer key-primary');
    expect((await upstreamStatus(h)).primary).toMatchObject({ state: 'up', failures: 0 });
  });

  it('a 5xx or 429 from the primary goes to the backup; the primary cools down, is probed back and recovers', async () => {
    primary.script('POST', '/v1/chat/completions', (_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"overloaded"}}');
    });
    const res = await openai.chat.completions.create(CHAT);
    expect(res.choices[0]!.message.content).toBe('Hello from gpt-4o-mini');
    expect(chatCount(primary)).toBe(1);
    expect(chatCount(backup)).toBe(1);
    expect(backup.last('/v1/chat/completions')!.headers.authorization).toBe('Bearer key-backup');
    let status = await upstreamStatus(h);
    expect(status.primary).toMatchObject({ state: 'cooling', last_error: expect.stringMatching(/status_5xx: HTTP 503/) });

    // While it cools down, requests go straight to the backup.
    await openai.chat.completions.create(CHAT);
    expect(chatCount(primary)).toBe(1);
    expect(chatCount(backup)).toBe(2);

    // After the cool-down one request probes it; it still fails, so it cools down again.
    await sleep(COOLDOWN_MS + 50);
    expect((await upstreamStatus(h)).primary!.state).toBe('half-open');
    await openai.chat.completions.create(CHAT);
    expect(chatCount(primary)).toBe(2);
    expect(chatCount(backup)).toBe(3);
    expect((await upstreamStatus(h)).primary!.state).toBe('cooling');

    // Healthy again: the next probe brings it back and it serves as primary.
    primary.reset();
    await sleep(COOLDOWN_MS + 50);
    await openai.chat.completions.create(CHAT);
    await openai.chat.completions.create(CHAT);
    expect(chatCount(primary)).toBe(2);
    status = await upstreamStatus(h);
    expect(status.primary).toMatchObject({ state: 'up' });

    primary.script('POST', '/v1/chat/completions', (_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end('{"error":{"message":"slow down"}}');
    });
    expect((await openai.chat.completions.create(CHAT)).choices[0]!.message.content).toBe('Hello from gpt-4o-mini');
    expect((await upstreamStatus(h)).primary!.last_error).toMatch(/status_429/);
  });

  it('a music task is polled on the upstream that created it, even once the primary is back', async () => {
    const k = await makeKey(h.svc);
    const json = (res: ServerResponse, status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    primary.script('POST', '/v1/music/generations', (_req, res) => json(res, 503, { error: { message: 'overloaded' } }));
    backup.script('POST', '/v1/music/generations', (_req, res) => json(res, 200, { code: 'success', message: '', data: 'task-on-backup-1' }));
    let polls = 0;
    backup.script('GET', '/v1/music/tasks/task-on-backup-1', (_req, res) => json(res, 200, taskEnvelope('task-on-backup-1', ++polls < 2 ? 'IN_PROGRESS' : 'SUCCESS')));
    const created = await postJson(h.base, '/v1/music/generations', { model: 'suno-v4', prompt: 'a song' }, bearer(k.key));
    expect(created.status).toBe(200);
    expect(((await created.json()) as { data: string }).data).toBe('task-on-backup-1');

    // The primary is healthy again and back in service (its probe succeeded)…
    primary.reset();
    await sleep(COOLDOWN_MS + 50);
    await openai.chat.completions.create(CHAT);
    expect((await upstreamStatus(h)).primary!.state).toBe('up');
    // …yet the task is asked of the backup, where it lives, until it is finished (then cached).
    const statusOf = async (res: Response) => ((await res.json()) as { data: { status: string } }).data.status;
    expect(await statusOf(await fetch(`${h.base}/v1/music/tasks/task-on-backup-1`, { headers: bearer(k.key) }))).toBe('IN_PROGRESS');
    expect(await statusOf(await fetch(`${h.base}/v1/music/tasks/task-on-backup-1`, { headers: bearer(k.key) }))).toBe('SUCCESS');
    const cached = await fetch(`${h.base}/v1/music/tasks/task-on-backup-1`, { headers: bearer(k.key) });
    expect(cached.headers.get('x-cache')).toBe('HIT');
    expect(polls).toBe(2);
    expect(primary.requests.filter((r) => r.path.startsWith('/v1/music/tasks/'))).toHaveLength(0);

    // A task not created through this gateway goes where any request goes: the primary.
    expect((await fetch(`${h.base}/v1/music/tasks/task-running-9`, { headers: bearer(k.key) })).status).toBe(200);
    expect(primary.requests.filter((r) => r.path === '/v1/music/tasks/task-running-9')).toHaveLength(1);
  });

  it('a primary that does not answer within AI_FIRST_BYTE_TIMEOUT_MS: the backup answers', async () => {
    primary.script('POST', '/v1/chat/completions', () => new Promise<void>(() => undefined));
    const res = await openai.chat.completions.create(CHAT);
    expect(res.choices[0]!.message.content).toBe('Hello from gpt-4o-mini');
    expect(chatCount(backup)).toBe(1);
    expect((await upstreamStatus(h)).primary!.last_error).toMatch(/^timeout/);
  });

  it('no failover once a streamed byte was sent: the client sees the stream fail', async () => {
    const stream = await openai.chat.completions.create({ ...CHAT, stream: true, mock: { chunks: 6, errorAfter: 2, delayMs: 10 } } as OpenAI.ChatCompletionCreateParamsStreaming);
    const got: string[] = [];
    const err = await (async () => {
      for await (const chunk of stream) got.push(chunk.choices[0]?.delta?.content ?? '');
    })().catch((e: unknown) => e);
    expect(got.join('')).toBe('c0c1');
    expect(err).toBeInstanceOf(Error);
    expect(chatCount(primary)).toBe(1);
    expect(chatCount(backup)).toBe(0);
    // Issue 20 item 3: the stream that died mid-way is a failure of its upstream, on /v2/status and /metrics.
    const status = await upstreamStatus(h);
    expect(status.primary).toMatchObject({ state: 'cooling', failures: expect.any(Number), last_error: expect.stringMatching(/^stream_cut: upstream_unreachable/) });
    expect(status.primary!.failures).toBeGreaterThanOrEqual(1);
    const metrics = parseMetrics(await (await fetch(`${h.base}/metrics`)).text());
    expect(sample(metrics, 'gateway_upstream_attempts_total', { upstream: 'primary', outcome: 'stream_cut' })).toBe(1);
    expect(sample(metrics, 'gateway_upstream_up', { upstream: 'primary' })).toBe(0);
  });

  it('when every upstream fails the client gets the last answer, after a bounded number of attempts', async () => {
    for (const u of [primary, backup])
      u.script('POST', '/v1/chat/completions', (_req, res) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"down"}}');
      });
    const err = await openai.chat.completions.create(CHAT).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect(chatCount(primary) + chatCount(backup)).toBe(2);
    primary.reset();
    backup.reset();
  });
});

describe('an upstream killed mid-run', () => {
  let primary: ModelUpstream;
  let backup: ModelUpstream;
  let h: Harness;
  let key: string;

  beforeAll(async () => {
    primary = await new ModelUpstream().start();
    backup = await new ModelUpstream().start();
    h = await twoUpstreams(primary, backup, { AI_UPSTREAM_COOLDOWN_MS: '60000' });
    key = (await makeKey(h.svc)).key;
  });
  afterAll(async () => {
    await h.close();
    await backup.stop();
  });

  it('openai (streaming and not), @google/genai and uploads keep working on the backup', async () => {
    const openai = openaiClient(h.base, key);
    const genai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: h.base } });
    expect((await openai.chat.completions.create(CHAT)).choices[0]!.message.content).toBe('Hello from gpt-4o-mini');
    expect(chatCount(primary)).toBe(1);

    await primary.stop();

    // The first request after the kill finds the primary dead (connection refused) and is replayed on the backup.
    const form = new FormData();
    form.set('model', 'gpt-image-1');
    form.set('prompt', 'blue');
    form.set('image', new Blob([Buffer.alloc(2048, 7)], { type: 'image/png' }), 'a.png');
    const upload = await fetch(`${h.base}/v1/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    expect(upload.status).toBe(200);
    expect(((await upload.json()) as { echo: { files: { size: number }[] } }).echo.files[0]!.size).toBe(2048);

    expect((await openai.chat.completions.create(CHAT)).choices[0]!.message.content).toBe('Hello from gpt-4o-mini');
    const stream = await openai.chat.completions.create({ ...CHAT, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('c0c1c2c3c4');
    const gem = await genai.models.generateContent({ model: 'gemini-2.0-flash', contents: 'Say hi' });
    expect(gem.text).toBe('Hi from gemini-2.0-flash');
    const gemStream = await genai.models.generateContentStream({ model: 'gemini-2.0-flash', contents: 'Say hi' });
    let gemText = '';
    for await (const chunk of gemStream) gemText += chunk.text ?? '';
    expect(gemText).toBe('Hi from gemini-2.0-flash');
    expect(backup.requests.length).toBe(5);
    expect(backup.last('/v1beta/')!.headers.authorization).toBe('Bearer key-backup');

    const status = await upstreamStatus(h);
    expect(status.primary).toMatchObject({ state: 'cooling', failures: 1, last_error: expect.stringMatching(/^connect/) });
    expect(status.backup).toMatchObject({ state: 'up', requests: 5, failures: 0 });
    expect(status.backup!.latency_ms).toBeGreaterThanOrEqual(0);

    const page = await (await fetch(`${h.base}/status`)).text();
    expect(page).toMatch(/data-upstream="primary" data-state="cooling"/);
    expect(page).toMatch(/data-upstream="backup" data-state="up"/);

    const metrics = parseMetrics(await (await fetch(`${h.base}/metrics`)).text());
    expect(sample(metrics, 'gateway_upstream_attempts_total', { upstream: 'primary', outcome: 'connect' })).toBe(1);
    expect(sample(metrics, 'gateway_upstream_attempts_total', { upstream: 'backup', outcome: 'ok' })).toBe(5);
    expect(sample(metrics, 'gateway_upstream_up', { upstream: 'primary' })).toBe(0);
    expect(sample(metrics, 'gateway_upstream_up', { upstream: 'backup' })).toBe(1);
    expect(sample(metrics, 'gateway_upstream_latency_seconds_count', { upstream: 'backup' })).toBe(5);
  });
});

describe('AI_UPSTREAMS: model lists and weights; AI_UPSTREAM_BASE_URL as a list', () => {
  let a: ModelUpstream;
  let b: ModelUpstream;
  beforeAll(async () => {
    a = await new ModelUpstream().start();
    b = await new ModelUpstream().start();
  });
  afterAll(async () => {
    await a.stop();
    await b.stop();
  });

  it('a model goes to the upstreams listing it; an unserved model is a 404', async () => {
    const h = await startGateway({
      upstream: a,
      env: {
        AI_UPSTREAM_BASE_URL: '',
        AI_UPSTREAMS: JSON.stringify([
          { name: 'openai-side', url: a.url, models: ['gpt-*'] },
          { name: 'qwen-side', url: b.url, models: ['Qwen/*', 'gemini-*'] },
        ]),
      },
    });
    try {
      const openai = openaiClient(h.base, (await makeKey(h.svc)).key);
      await openai.chat.completions.create(CHAT);
      await openai.chat.completions.create({ ...CHAT, model: 'Qwen/Qwen2.5-7B-Instruct' });
      expect(a.requests.map((r) => JSON.parse(r.body.toString()).model)).toEqual(['gpt-4o-mini']);
      expect(b.requests.map((r) => JSON.parse(r.body.toString()).model)).toEqual(['Qwen/Qwen2.5-7B-Instruct']);
      expect(b.last('/v1/chat/completions')!.headers.authorization).toBe('Bearer upstream-secret-credential');
      await expect(openai.chat.completions.create({ ...CHAT, model: 'claude-3' })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    } finally {
      await h.close();
      a.reset();
      b.reset();
    }
  });

  it('weights spread the first attempts; weight 0 stays a backup', async () => {
    const h = await startGateway({
      upstream: a,
      env: { AI_UPSTREAM_BASE_URL: '', AI_UPSTREAMS: JSON.stringify([{ url: a.url, weight: 1 }, { url: b.url, weight: 1 }]) },
    });
    try {
      const openai = openaiClient(h.base, (await makeKey(h.svc)).key);
      for (let i = 0; i < 40; i++) await openai.chat.completions.create(CHAT);
      // 40 fair coin flips: both sides get some (the chance of fewer than 5 on one side is below 1e-6).
      expect(chatCount(a)).toBeGreaterThanOrEqual(5);
      expect(chatCount(b)).toBeGreaterThanOrEqual(5);
      expect(chatCount(a) + chatCount(b)).toBe(40);
    } finally {
      await h.close();
      a.reset();
      b.reset();
    }
  });

  it('AI_UPSTREAM_BASE_URL="A,B": A is the primary, B takes over when A fails', async () => {
    const h = await startGateway({ upstream: a, env: { AI_UPSTREAM_BASE_URL: `${a.url}, ${b.url}/` } });
    try {
      const openai = openaiClient(h.base, (await makeKey(h.svc)).key);
      await openai.chat.completions.create(CHAT);
      expect([chatCount(a), chatCount(b)]).toEqual([1, 0]);
      a.script('POST', '/v1/chat/completions', (_req, res) => void res.socket?.destroy());
      await openai.chat.completions.create(CHAT);
      expect([chatCount(a), chatCount(b)]).toEqual([2, 1]);
      const names = Object.keys(await upstreamStatus(h));
      expect(names).toEqual([new URL(a.url).host, new URL(b.url).host]);
    } finally {
      await h.close();
      a.reset();
      b.reset();
    }
  });

  it('bad settings are refused at start with a clear message', () => {
    const problems = (env: Record<string, string>): string => {
      try {
        loadConfig({ DB_PATH: ':memory:', ...env });
        return '';
      } catch (err) {
        return err instanceof ConfigError ? err.message : String(err);
      }
    };
    expect(problems({ AI_UPSTREAM_BASE_URL: 'http://a.example,ftp://b.example' })).toMatch(/AI_UPSTREAM_BASE_URL entry 2 must be an http\(s\) URL/);
    expect(problems({ AI_UPSTREAM_BASE_URL: 'http://a.example', AI_UPSTREAMS: '[{"url":"http://b.example"}]' })).toMatch(/both set/);
    expect(problems({ AI_UPSTREAMS: '[{"url":"http://b.example","weight":-1,"colour":"red"}]' })).toMatch(/weight must be a number from 0 to 1000[\s\S]*unknown field "colour"|unknown field "colour"[\s\S]*weight/);
    expect(problems({ AI_UPSTREAMS: '[{"name":"x"}]' })).toMatch(/AI_UPSTREAMS\[0\]\.url is required/);
    expect(problems({ AI_UPSTREAMS: '[{"url":"http://a.example","name":"a"},{"url":"http://b.example","name":"a"}]' })).toMatch(/name "a" is used twice/);
    expect(problems({ AI_UPSTREAMS: '{"url":"http://a.example"}' })).toMatch(/cannot read/);
    expect(problems({ AI_UPSTREAMS: '[{"url":"http://a.example"' })).toMatch(/not valid JSON/);
    expect(problems({ AI_UPSTREAMS: '[{"url":"http://a.example","models":["gpt 4"]}]' })).toMatch(/whitespace/);
    expect(problems({ AI_UPSTREAM_BASE_URL: 'http://user:pw@a.example' })).toMatch(/credentials/);
    expect(problems({ AI_UPSTREAMS: '[{"url":"http://a.example","key":"k","weight":2,"models":["gpt-*"]}]' })).toBe('');
  });
});
