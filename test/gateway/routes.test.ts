/** Rerank, image edits (multipart), music tasks, models, billing and the pass-through categories. */
import { createHash } from 'node:crypto';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, makeKey, postJson, startGateway, usageRows, type Harness } from './helpers.ts';
import { sleep } from './model-upstream.ts';
import { openaiClient } from './openai-sdks.ts';

let h: Harness;

beforeAll(async () => {
  h = await startGateway({ env: { AI_MAX_UPLOAD_BYTES: String(256 * 1024)} });
});
afterAll(() => h.close());
beforeEach(() => h.upstream.reset());

describe('POST /v1/rerank', () => {
  const docs = ['apples are red', 'bananas are yellow', 'cherries and apples', 'dates are sweet'];

  it('returns results ordered by relevance_score, highest first, cut to top_n', async () => {
    const k = await makeKey(h.svc);
    const res = await postJson(h.base, '/v1/rerank', { model: 'rerank-1', query: 'apples', documents: docs, top_n: 3 }, bearer(k.key));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: { index: number; relevance_score: number }[]; usage: { prompt_tokens: number; total_tokens: number } };
    expect(body.results).toHaveLength(3);
    const scores = body.results.map((r) => r.relevance_score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(body.results.map((r) => r.index)).toEqual([0, 2, 3]);
    expect(body.usage).toEqual({ prompt_tokens: 20, total_tokens: 20 });
    const [row] = await usageRows(h.svc, k.record.id);
    expect(row).toMatchObject({ route: 'rerank', model: 'rerank-1', chargedTokens: 20 });
  });

  it('without top_n every document is returned, still ordered', async () => {
    const k = await makeKey(h.svc);
    const res = await postJson(h.base, '/v1/rerank', { model: 'rerank-1', query: 'apples', documents: docs }, bearer(k.key));
    const body = (await res.json()) as { results: { index: number; relevance_score: number }[] };
    expect(body.results.map((r) => r.index)).toEqual([0, 2, 3, 1]);
  });

  it('validates documents and top_n before forwarding', async () => {
    const k = await makeKey(h.svc);
    const cases: [unknown, string][] = [
      [{ model: 'rerank-1', query: 'q', documents: [] }, 'documents'],
      [{ model: 'rerank-1', query: 'q', documents: 'abc' }, 'documents'],
      [{ model: 'rerank-1', query: 'q', documents: ['a', 3] }, 'documents'],
      [{ model: 'rerank-1', query: 'q', documents: ['a', 'b'], top_n: 0 }, 'top_n'],
      [{ model: 'rerank-1', query: 'q', documents: ['a', 'b'], top_n: 3 }, 'top_n'],
      [{ model: 'rerank-1', query: 'q', documents: ['a', 'b'], top_n: 1.5 }, 'top_n'],
      [{ model: 'rerank-1', documents: ['a'] }, 'query'],
      [{ query: 'q', documents: ['a'] }, 'model'],
    ];
    for (const [body, param] of cases) {
      const res = await postJson(h.base, '/v1/rerank', body, bearer(k.key));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { param: string } }).error.param).toBe(param);
    }
    expect(h.upstream.requests).toHaveLength(0);
  });
});

describe('POST /v1/images/edits', () => {
  const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(50_000, 7)]);

  it('the openai client: image file, model and prompt reach the upstream intact', async () => {
    const k = await makeKey(h.svc, { models: ['gpt-image-1'] });
    const client = openaiClient(h.base, k.key);
    const out = await client.images.edit({ model: 'gpt-image-1', image: await toFile(png, 'cat.png', { type: 'image/png' }), prompt: 'add a hat' });
    expect(out.data?.[0]?.url).toBe('https://img.example/edited.png');
    const echo = (out as unknown as { echo: { fields: Record<string, string>; files: { field: string; filename: string; size: number; sha256: string }[]; contentType: string } }).echo;
    expect(echo.fields).toMatchObject({ model: 'gpt-image-1', prompt: 'add a hat' });
    expect(echo.files).toEqual([expect.objectContaining({ field: 'image', filename: 'cat.png', size: png.length, sha256: createHash('sha256').update(png).digest('hex') })]);
    // The original body went through byte for byte, boundary included.
    const seen = h.upstream.last('/v1/images/edits')!;
    expect(seen.headers['content-type']).toBe(echo.contentType);
    expect(seen.body.includes(png)).toBe(true);
    const [row] = await usageRows(h.svc, k.record.id);
    expect(row).toMatchObject({ route: 'images.edits', model: 'gpt-image-1', status: 200 });
  });

  function form(parts: { name: string; value?: string; file?: Buffer; filename?: string }[]): FormData {
    const f = new FormData();
    for (const p of parts) {
      if (p.file) f.append(p.name, new Blob([new Uint8Array(p.file)], { type: 'image/png' }), p.filename ?? 'a.png');
      else f.append(p.name, p.value ?? '');
    }
    return f;
  }

  it('clear 400s for a missing file, prompt or model, 403 for a model not permitted; the upstream never gets a complete form', async () => {
    const k = await makeKey(h.svc, { models: ['gpt-image-1'] });
    const cases: [FormData, number, string | null][] = [
      [form([{ name: 'model', value: 'gpt-image-1' }, { name: 'prompt', value: 'x' }]), 400, 'image'],
      [form([{ name: 'model', value: 'gpt-image-1' }, { name: 'image', file: png }]), 400, 'prompt'],
      [form([{ name: 'image', file: png }, { name: 'prompt', value: 'x' }]), 400, 'model'],
      [form([{ name: 'model', value: 'dall-e-2' }, { name: 'image', file: png }, { name: 'prompt', value: 'x' }]), 403, 'model'],
    ];
    for (const [body, status, param] of cases) {
      const res = await fetch(`${h.base}/v1/images/edits`, { method: 'POST', headers: bearer(k.key), body });
      expect(res.status).toBe(status);
      expect(((await res.json()) as { error: { param: string | null } }).error.param).toBe(param);
    }
    const json = await postJson(h.base, '/v1/images/edits', { model: 'gpt-image-1', prompt: 'x' }, bearer(k.key));
    expect(json.status).toBe(400);
    await sleep(100);
    expect(h.upstream.requests.filter((r) => r.path === '/v1/images/edits')).toHaveLength(0);
  });

  it('413 over AI_MAX_UPLOAD_BYTES', async () => {
    const k = await makeKey(h.svc);
    const big = Buffer.alloc(300 * 1024, 1);
    const res = await fetch(`${h.base}/v1/images/edits`, { method: 'POST', headers: bearer(k.key), body: form([{ name: 'model', value: 'gpt-image-1' }, { name: 'prompt', value: 'x' }, { name: 'image', file: big }]) });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('request_too_large');
    expect(h.upstream.requests.filter((r) => r.path === '/v1/images/edits')).toHaveLength(0);
  });
});

describe('GET /v1/music/tasks/{task_id}', () => {
  it('returns the spec envelope with two songs, and caches finished tasks', async () => {
    const k = await makeKey(h.svc);
    const first = await fetch(`${h.base}/v1/music/tasks/task-success-1`, { headers: bearer(k.key) });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-cache')).toBe('MISS');
    const env = (await first.json()) as { code: string; message: string; data: Record<string, unknown> & { data: Record<string, unknown>[] } };
    expect(env.code).toBe('success');
    expect(env.message).toBe('');
    expect(env.data).toMatchObject({ task_id: 'task-success-1', action: 'GENERATIONS', status: 'SUCCESS', fail_reason: '', progress: '100%', start_time: 0 });
    expect(String(env.data.submit_time)).toMatch(/^\d{10}$/);
    expect(String(env.data.finish_time)).toMatch(/^\d{10}$/);
    expect(env.data.data).toHaveLength(2);
    for (const song of env.data.data) {
      expect(Object.keys(song).sort()).toEqual(['audioUrl', 'createTime', 'duration', 'id', 'imageUrl', 'modelName', 'prompt', 'sourceAudioUrl', 'sourceImageUrl', 'sourceStreamAudioUrl', 'streamAudioUrl', 'tags', 'title'].sort());
      expect(String(song.createTime)).toMatch(/^\d{13}$/);
    }
    const again = await fetch(`${h.base}/v1/music/tasks/task-success-1`, { headers: bearer(k.key) });
    expect(again.headers.get('x-cache')).toBe('HIT');
    expect(await again.json()).toEqual(env);
    expect(h.upstream.requests.filter((r) => r.path === '/v1/music/tasks/task-success-1')).toHaveLength(1);
  });

  it('unfinished tasks are asked again each time; failures are cached with their fail_reason', async () => {
    const k = await makeKey(h.svc);
    for (let i = 0; i < 2; i++) expect((await fetch(`${h.base}/v1/music/tasks/task-running-1`, { headers: bearer(k.key) })).headers.get('x-cache')).toBe('MISS');
    expect(h.upstream.requests.filter((r) => r.path === '/v1/music/tasks/task-running-1')).toHaveLength(2);
    const failed = (await (await fetch(`${h.base}/v1/music/tasks/task-fail-1`, { headers: bearer(k.key) })).json()) as { data: { status: string; fail_reason: string } };
    expect(failed.data).toMatchObject({ status: 'FAILURE', fail_reason: 'content policy' });
    expect((await fetch(`${h.base}/v1/music/tasks/task-fail-1`, { headers: bearer(k.key) })).headers.get('x-cache')).toBe('HIT');
  });

  it('an unknown task is the upstream 404; a bad id 400', async () => {
    const k = await makeKey(h.svc);
    expect((await fetch(`${h.base}/v1/music/tasks/nope`, { headers: bearer(k.key) })).status).toBe(404);
    expect((await fetch(`${h.base}/v1/music/tasks/${'x'.repeat(200)}`, { headers: bearer(k.key) })).status).toBe(400);
  });

  it('a task created through the gateway belongs to its account', async () => {
    const owner = await makeKey(h.svc);
    const other = await makeKey(h.svc);
    const created = (await (await postJson(h.base, '/v1/music/generations', { model: 'suno-v4', prompt: 'a song' }, bearer(owner.key))).json()) as { data: string };
    expect(created.data).toMatch(/^task-new-/);
    expect((await fetch(`${h.base}/v1/music/tasks/${created.data}`, { headers: bearer(owner.key) })).status).toBe(200);
    const denied = await fetch(`${h.base}/v1/music/tasks/${created.data}`, { headers: bearer(other.key) });
    expect(denied.status).toBe(404);
    expect(((await denied.json()) as { error: { code: string } }).error.code).toBe('task_not_found');
  });
});

describe('GET /v1/models and billing', () => {
  it('lists the upstream models filtered by the key (the openai client)', async () => {
    const all = await makeKey(h.svc);
    const some = await makeKey(h.svc, { models: ['gpt-4o*', 'rerank-1'] });
    const ids = async (key: string) => {
      const out: string[] = [];
      for await (const m of openaiClient(h.base, key).models.list()) out.push(m.id);
      return out;
    };
    expect(await ids(all.key)).toEqual(['gpt-4o', 'gpt-4o-mini', 'gemini-2.0-flash', 'rerank-1', 'gpt-image-1', 'suno-v4']);
    expect(await ids(some.key)).toEqual(['gpt-4o', 'gpt-4o-mini', 'rerank-1']);
  });

  it('billing subscription and usage are computed from the key, in USD by the price table', async () => {
    const expires = Date.parse('2031-06-30T00:00:00Z');
    const k = await makeKey(h.svc, { quotaMicros: 5_000_000, expiresAt: expires });
    await postJson(h.base, '/v1/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }, bearer(k.key));
    await usageRows(h.svc, k.record.id, 1);
    const res = await fetch(`${h.base}/v1/dashboard/billing/subscription`, { headers: bearer(k.key) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      object: 'billing_subscription',
      has_payment_method: true,
      soft_limit_usd: 5,
      hard_limit_usd: 5,
      system_hard_limit_usd: 5,
      access_until: expires / 1000,
      // gpt-4o at $2.50 / $10 per 1M tokens: 10 prompt + 5 completion tokens = $0.000075.
      quota_usd: 5,
      spent_usd: 0.000075,
      remaining_usd: 4.999925,
      budget_usd: null,
      budget_period: null,
      budget_spent_usd: 0,
      budget_resets_at: null,
      unlimited: false,
      used_tokens: 15,
      expires_at: '2031-06-30T00:00:00.000Z',
      account: k.record.accountId,
      level: 'pro',
    });
    const usage = await fetch(`${h.base}/v1/dashboard/billing/usage`, { headers: bearer(k.key) });
    expect(await usage.json()).toEqual({ object: 'list', total_usage: 0.0075, used_tokens: 15, usage: { prompt_tokens: 10, completion_tokens: 5, cached_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0, audio_input_tokens: 0, audio_output_tokens: 0 } });
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const daily = await fetch(`${h.base}/v1/dashboard/billing/usage?start_date=${today}&end_date=${tomorrow}`, { headers: bearer(k.key) });
    expect(await daily.json()).toEqual({ object: 'list', daily_costs: [{ timestamp: Date.parse(`${today}T00:00:00Z`) / 1000, line_items: [{ name: 'gpt-4o', cost: 0.0075, usage: { prompt_tokens: 10, completion_tokens: 5, cached_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0, audio_input_tokens: 0, audio_output_tokens: 0 } }] }], total_usage: 0.0075 });
    const bad = await fetch(`${h.base}/v1/dashboard/billing/usage?start_date=yesterday&end_date=${tomorrow}`, { headers: bearer(k.key) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('start_date');
    const unlimited = (await (await fetch(`${h.base}/v1/dashboard/billing/subscription`, { headers: bearer((await makeKey(h.svc)).key) })).json()) as Record<string, unknown>;
    expect(unlimited).toMatchObject({ hard_limit_usd: 100_000_000, access_until: 0, unlimited: true, quota_usd: null });
    expect((await fetch(`${h.base}/v1/dashboard/billing/subscription`)).status).toBe(401);
  });
});

describe('pass-through categories', () => {
  it('audio speech: binary answer streamed back', async () => {
    const k = await makeKey(h.svc);
    const client = openaiClient(h.base, k.key);
    const res = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'hello' });
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    const buf = Buffer.from(await res.arrayBuffer());
    expect(buf.length).toBe(4096);
    expect(buf[3000]).toBe(2);
    const [row] = await usageRows(h.svc, k.record.id);
    expect(row).toMatchObject({ route: 'audio', model: 'tts-1', stream: true, endReason: 'completed' });
  });

  it('transcription: the multipart upload is streamed through', async () => {
    const k = await makeKey(h.svc, { models: ['whisper-1'] });
    const client = openaiClient(h.base, k.key);
    const audio = Buffer.alloc(100_000, 3);
    const out = await client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(audio, 'a.mp3', { type: 'audio/mpeg' }) });
    expect(out.text).toBe('transcribed');
    const seen = h.upstream.last('/v1/audio/transcriptions')!;
    expect(seen.body.includes(audio)).toBe(true);
    const denied = await client.audio.transcriptions.create({ model: 'other', file: await toFile(audio, 'a.mp3') }).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(OpenAI.PermissionDeniedError);
  });

  it('embeddings: JSON forwarded, usage charged', async () => {
    const k = await makeKey(h.svc);
    const out = await openaiClient(h.base, k.key).embeddings.create({ model: 'emb', input: 'hello', encoding_format: 'float' });
    expect(out.data[0]!.embedding).toEqual([0.1, 0.2]);
    const [row] = await usageRows(h.svc, k.record.id);
    expect(row).toMatchObject({ route: 'embeddings', chargedTokens: 3, usageSource: 'upstream' });
  });

  it('videos and voices are forwarded, any method; the upstream 404 passes through', async () => {
    const k = await makeKey(h.svc);
    const res = await fetch(`${h.base}/v1/videos/abc`, { headers: bearer(k.key) });
    expect(res.status).toBe(404);
    expect(h.upstream.last('/v1/videos/abc')!.method).toBe('GET');
    expect((await fetch(`${h.base}/v1/audio/voices`, { headers: bearer(k.key) })).status).toBe(404);
    expect(h.upstream.last('/v1/audio/voices')).toBeDefined();
  });
});
