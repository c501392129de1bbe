/** /v1/chat/completions through the real openai client: JSON, SSE streaming, upstream failures, a client that leaves. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, CHAT, makeKey, postJson, startGateway, UPSTREAM_KEY, usageRows, waitFor, type Harness } from './helpers.ts';
import { sleep } from './model-upstream.ts';
import { openaiClient } from './openai-sdks.ts';

let h: Harness;

type Params = OpenAI.Chat.ChatCompletionCreateParamsStreaming & { mock?: Record<string, unknown>; style?: string };

function client(key: string, maxRetries = 0): OpenAI {
  return new OpenAI({ baseURL: `${h.base}/v1`, apiKey: key, maxRetries });
}

beforeAll(async () => {
  h = await startGateway({ env: { AI_FIRST_BYTE_TIMEOUT_MS: '1500', AI_PROXY_TIMEOUT_MS: '1000', AI_STREAM_KEEPALIVE_MS: '50' } });
});
afterAll(() => h.close());
beforeEach(() => h.upstream.reset());

describe('non-streamed', () => {
  it('forwards the original body bytes (unknown fields such as style survive) with our upstream credential', async () => {
    const k = await makeKey(h.svc);
    const body = `{"model":"gpt-4o-mini","style":"openai","messages":[{"role":"user","content":"hi"}],"stream":false,"x_extra":{"a":[1,2]}}`;
    const res = await fetch(`${h.base}/v1/chat/completions`, { method: 'POST', headers: { ...bearer(k.key), 'content-type': 'application/json' }, body });
    expect(res.status).toBe(200);
    const json = (await res.json()) as { choices: { message: { content: string } }[]; usage: { total_tokens: number } };
    expect(json.choices[0]!.message.content).toBe('Hello from gpt-4o-mini');
    const seen = h.upstream.last('/v1/chat/completions')!;
    expect(seen.body.toString('utf8')).toBe(body);
    expect(seen.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(seen.headers['x-request-id']).toBe(res.headers.get('x-request-id'));
    expect(res.headers.get('x-ratelimit-limit-requests')).toBe('600');
    expect(res.headers.get('x-ratelimit-remaining-requests')).toBe('599');
    const [row] = await usageRows(h.svc, k.record.id);
    expect(row).toMatchObject({ route: 'chat.completions', model: 'gpt-4o-mini', stream: false, status: 200, upstreamStatus: 200, promptTokens: 10, completionTokens: 5, totalTokens: 15, chargedTokens: 15, usageSource: 'upstream', endReason: 'completed' });
    expect(await h.svc.gateway.keys.get(k.record.id)).toMatchObject({ usedTokens: 15, requestCount: 1 });
  });

  it('works with the openai client', async () => {
    const k = await makeKey(h.svc);
    const out = await client(k.key).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(out.choices[0]!.message.content).toBe('Hello from gpt-4o');
    expect(out.usage?.total_tokens).toBe(15);
  });

  it('400s for a body that is not a chat request', async () => {
    const k = await makeKey(h.svc);
    for (const [body, param] of [
      ['{nope', null],
      [JSON.stringify({ messages: [] }), 'model'],
      [JSON.stringify({ model: 'gpt-4o' }), 'messages'],
      [JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], stream: 'yes' }), 'stream'],
    ] as const) {
      const res = await fetch(`${h.base}/v1/chat/completions`, { method: 'POST', headers: { ...bearer(k.key), 'content-type': 'application/json' }, body });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { param: string | null; type: string } }).error).toMatchObject({ param, type: 'invalid_request_error' });
    }
    expect(h.upstream.requests).toHaveLength(0);
  });

  it('413 for a body over AI_MAX_BODY_BYTES', async () => {
    const small = await startGateway({ upstream: h.upstream, env: { AI_MAX_BODY_BYTES: '2048' } });
    try {
      const k = await makeKey(small.svc);
      const res = await postJson(small.base, '/v1/chat/completions', { ...CHAT, messages: [{ role: 'user', content: 'x'.repeat(5000) }] }, bearer(k.key));
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('request_too_large');
      // Issue 20 item 9: a chunked body (no Content-Length) over the limit gets the same 413, not a reset (which SDKs retry).
      for (const size of [5_000, 3_000_000]) {
        const answer = await new Promise<{ status: number | undefined; body: string }>((resolve, reject) => {
          const req = http.request(`${small.base}/v1/chat/completions`, { method: 'POST', headers: { ...bearer(k.key), 'content-type': 'application/json', 'transfer-encoding': 'chunked' } });
          req.on('error', reject);
          req.on('response', (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode, body }));
            res.on('error', reject);
          });
          const text = JSON.stringify({ ...CHAT, messages: [{ role: 'user', content: 'x'.repeat(size) }] });
          // Written in pieces, as a streaming client does.
          for (let i = 0; i < text.length; i += 1000) req.write(text.slice(i, i + 1000));
          req.end();
        });
        expect(answer.status).toBe(413);
        expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'request_too_large' } });
      }
      expect(h.upstream.requests).toHaveLength(0);
    } finally {
      await small.close();
    }
  });
});

describe('streamed', () => {
  it('passes every chunk through in order, without [DONE] leaking, usage charged from the final chunk', async () => {
    const k = await makeKey(h.svc);
    const stream = await client(k.key).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
    const contents: string[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) contents.push(chunk.choices[0].delta.content);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(contents).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    expect(usage?.total_tokens).toBe(15);
    const [row] = await usageRows(h.svc, k.record.id);
    expect(row).toMatchObject({ stream: true, status: 200, chargedTokens: 15, usageSource: 'upstream', endReason: 'completed' });
  });

  it('raw SSE: headers, the upstream bytes unchanged, the final [DONE]', async () => {
    const k = await makeKey(h.svc);
    const res = await postJson(h.base, '/v1/chat/completions', { ...CHAT, stream: true }, bearer(k.key));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(res.headers.get('x-ratelimit-limit-tokens')).toBe('2000000');
    const text = await res.text();
    // (A keep-alive comment may sit between events if the machine is slow; it is not an event.)
    const events = text.split('\n\n').filter((b) => b && b !== ': keep-alive');
    expect(events).toHaveLength(7);
    expect(events.at(-1)).toBe('data: [DONE]');
    // The client did not ask for usage: the gateway asked the upstream for it (billed by the
    // upstream's count) and left the usage-only chunk out of this client's stream.
    expect(JSON.parse(h.upstream.last('/v1/chat/completions')!.body.toString()).stream_options).toEqual({ include_usage: true });
    expect(text).not.toContain('"usage"');
    const [row] = await usageRows(h.svc, k.record.id);
    expect(row).toMatchObject({ usageSource: 'upstream', endReason: 'completed', promptTokens: 10, completionTokens: 5 });
  });

  it('a client that asks for stream usage gets the usage chunk, its stream_options forwarded as sent', async () => {
    const k = await makeKey(h.svc);
    const client = openaiClient(h.base, k.key);
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
    const usage: unknown[] = [];
    for await (const chunk of stream) if (chunk.usage) usage.push(chunk.usage);
    expect(usage).toEqual([{ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }]);
    expect(JSON.parse(h.upstream.last('/v1/chat/completions')!.body.toString()).stream_options).toEqual({ include_usage: true });
  });

  it('an upstream that sends no usage: the bill is estimated from what was delivered', async () => {
    const k = await makeKey(h.svc);
    const res = await postJson(h.base, '/v1/chat/completions', { ...CHAT, stream: true, mock: { usage: false } }, bearer(k.key));
    await res.text();
    const [row] = await usageRows(h.svc, k.record.id);
    expect(row).toMatchObject({ usageSource: 'estimated', endReason: 'completed' });
    // Five streamed pieces of two characters: a stream sends about one token per piece, so each counts at least one.
    expect(row!.completionTokens).toBe(5);
  });

  it('chunks arrive as the upstream sends them, with keep-alive comments while it is quiet', async () => {
    // The upstream sends one event, then waits for the test's go-ahead before the rest.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    h.upstream.script('POST', '/v1/chat/completions', async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"choices":[{"index":0,"delta":{"content":"first"}}]}\n\n');
      await released;
      res.write('data: {"choices":[{"index":0,"delta":{"content":"second"}}]}\n\n');
      res.end('data: [DONE]\n\n');
    });
    const k = await makeKey(h.svc);
    const res = await postJson(h.base, '/v1/chat/completions', { ...CHAT, stream: true }, bearer(k.key));
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    // Both the first event and a keep-alive reach the client while the upstream is still holding the rest.
    while (!text.includes('"first"') || !text.includes(': keep-alive\n\n')) text += decoder.decode((await reader.read()).value, { stream: true });
    expect(text).not.toContain('"second"');
    release();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toContain('"second"');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    // Comments sit between events, never inside one.
    for (const block of text.split('\n\n').filter(Boolean)) expect(block === ': keep-alive' || block.startsWith('data: ')).toBe(true);
  });

  it('an upstream failure after the first byte becomes an SSE error event: the SDK raises APIError in the loop', async () => {
    const k = await makeKey(h.svc);
    const stream = await client(k.key).chat.completions.create({ ...CHAT, stream: true, mock: { chunks: 5, delayMs: 20, errorAfter: 2 } } as Params);
    const got: string[] = [];
    const err = await (async () => {
      for await (const chunk of stream) got.push(chunk.choices[0]?.delta.content ?? '');
    })().catch((e: unknown) => e);
    expect(got).toEqual(['c0', 'c1']);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).type).toBe('upstream_error');
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_unreachable');
    const [row] = await usageRows(h.svc, k.record.id);
    expect(row).toMatchObject({ endReason: 'upstream_error', status: 200, usageSource: 'estimated' });
  });

  it('an upstream that goes silent mid-stream ends with an upstream_timeout error event', async () => {
    const k = await makeKey(h.svc);
    const res = await postJson(h.base, '/v1/chat/completions', { ...CHAT, stream: true, mock: { chunks: 5, hangAfter: 1 } }, bearer(k.key));
    const text = await res.text();
    const last = text.split('\n\n').filter((b) => b.startsWith('data: ')).at(-1)!;
    expect(JSON.parse(last.slice(6))).toMatchObject({ error: { type: 'upstream_error', code: 'upstream_timeout' } });
    expect(await waitFor(() => h.upstream.aborted.includes('/v1/chat/completions'))).toBe(true);
  });

  it('a client that leaves mid-stream: the upstream request is closed and undelivered output is not charged', async () => {
    const k = await makeKey(h.svc);
    const res = await postJson(h.base, '/v1/chat/completions', { ...CHAT, stream: true, stream_options: { include_usage: true }, mock: { chunks: 200, delayMs: 20, completionTokens: 5000 } }, bearer(k.key));
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('"c1"')) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(await waitFor(() => h.upstream.aborted.includes('/v1/chat/completions'))).toBe(true);
    const [row] = await usageRows(h.svc, k.record.id);
    expect(row!.endReason).toBe('client_closed');
    // The upstream would have reported 5010 tokens at the end; only the prompt and what was delivered is billed.
    expect(row!.usageSource).toBe('estimated');
    expect(row!.chargedTokens).toBeLessThan(100);
    expect((await h.svc.gateway.keys.get(k.record.id))!.usedTokens).toBe(row!.chargedTokens);
  });

  it('a client that leaves after the upstream accepted the request, before any output: its prompt is charged (the upstream bills it)', async () => {
    // Issue 20 item 4: a large prompt must not reach the upstream for free.
    h.upstream.script('POST', '/v1/chat/completions', async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      await sleep(2000);
      res.end('data: [DONE]\n\n');
    });
    const k = await makeKey(h.svc);
    const prompt = 'x'.repeat(200_000);
    const req = http.request(`${h.base}/v1/chat/completions`, { method: 'POST', headers: { ...bearer(k.key), 'content-type': 'application/json' } });
    req.on('error', () => undefined);
    const answered = new Promise<http.IncomingMessage>((resolve) => req.on('response', resolve));
    req.end(JSON.stringify({ ...CHAT, stream: true, messages: [{ role: 'user', content: prompt }] }));
    expect((await answered).statusCode).toBe(200);
    req.destroy();
    expect(await waitFor(() => h.upstream.aborted.includes('/v1/chat/completions'))).toBe(true);
    const [row] = await usageRows(h.svc, k.record.id);
    expect(row).toMatchObject({ endReason: 'client_closed', usageSource: 'estimated', completionTokens: 0 });
    expect(row!.promptTokens).toBeGreaterThanOrEqual(50_000);
    expect(row!.costMicros).toBeGreaterThan(0);
    expect((await h.svc.gateway.keys.get(k.record.id))!.spentMicros).toBe(row!.costMicros);
  });

  it('a client that leaves before the first byte is charged nothing', async () => {
    const k = await makeKey(h.svc);
    const req = http.request(`${h.base}/v1/chat/completions`, { method: 'POST', headers: { ...bearer(k.key), 'content-type': 'application/json' } });
    req.on('error', () => undefined);
    req.end(JSON.stringify({ ...CHAT, stream: true, mock: { firstDelayMs: 1000 } }));
    await waitFor(() => h.upstream.requests.length === 1);
    req.destroy();
    expect(await waitFor(() => h.upstream.aborted.includes('/v1/chat/completions'))).toBe(true);
    const [row] = await usageRows(h.svc, k.record.id);
    expect(row).toMatchObject({ endReason: 'client_closed', chargedTokens: 0, usageSource: 'none', status: 499 });
  });
});

describe('upstream failures', () => {
  it('upstream 5xx → 502 bad_gateway', async () => {
    const k = await makeKey(h.svc);
    const err = await client(k.key).chat.completions.create({ ...CHAT, mock: { status: 503 } } as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('bad_gateway');
    const [row] = await usageRows(h.svc, k.record.id);
    expect(row).toMatchObject({ status: 502, upstreamStatus: 503, endReason: 'upstream_error', chargedTokens: 0 });
  });

  it('upstream 4xx is passed through with its body', async () => {
    const k = await makeKey(h.svc);
    const res = await postJson(h.base, '/v1/chat/completions', { ...CHAT, mock: { status: 422 } }, bearer(k.key));
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ error: { message: 'mock status 422', type: 'mock_error', param: null, code: 'mock_422' } });
  });

  it('upstream 429 is passed through with its Retry-After', async () => {
    const k = await makeKey(h.svc);
    const res = await postJson(h.base, '/v1/chat/completions', { ...CHAT, mock: { status: 429, retryAfter: '7' } }, bearer(k.key));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
  });

  it('our upstream credential rejected (401/403) → 502 upstream_auth_failed, never a 401', async () => {
    const k = await makeKey(h.svc);
    for (const status of [401, 403]) {
      const err = await client(k.key).chat.completions.create({ ...CHAT, mock: { status } } as never).catch((e: unknown) => e);
      expect(err).not.toBeInstanceOf(OpenAI.AuthenticationError);
      expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
      expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_auth_failed');
    }
  });

  it('no first byte within AI_FIRST_BYTE_TIMEOUT_MS → 504 upstream_timeout', async () => {
    const k = await makeKey(h.svc);
    const res = await postJson(h.base, '/v1/chat/completions', { ...CHAT, stream: true, mock: { firstDelayMs: 5000 } }, bearer(k.key));
    expect(res.status).toBe(504);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({ type: 'upstream_error', code: 'upstream_timeout' });
  });

  it('upstream unreachable → 502 upstream_unreachable', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const g = await startGateway({ upstream: h.upstream, env: { AI_UPSTREAM_BASE_URL: `http://127.0.0.1:${port}` } });
    try {
      const k = await makeKey(g.svc);
      const res = await postJson(g.base, '/v1/chat/completions', CHAT, bearer(k.key));
      expect(res.status).toBe(502);
      expect(((await res.json()) as { error: unknown }).error).toMatchObject({ type: 'upstream_error', code: 'upstream_unreachable', param: null });
    } finally {
      await g.close();
    }
  });

  it('a socket reset before the headers → 502', async () => {
    h.upstream.script('POST', '/v1/chat/completions', (_req, res) => {
      res.socket?.destroy();
    });
    const k = await makeKey(h.svc);
    const res = await postJson(h.base, '/v1/chat/completions', CHAT, bearer(k.key));
    expect(res.status).toBe(502);
  });

  it('the gateway does not hang on a slow client: back-pressure reaches the upstream', async () => {
    // 64 MiB of SSE, more than all socket buffers on the way: a client that does not read leaves the upstream blocked on its writes.
    let written = 0;
    let finished = false;
    h.upstream.script('POST', '/v1/chat/completions', async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const line = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'x'.repeat(1000) } }] })}\n\n`;
      for (let i = 0; i < 65536 && !res.destroyed; i++) {
        written += line.length;
        if (!res.write(line)) await new Promise((r) => res.once('drain', r));
      }
      res.end('data: [DONE]\n\n');
      finished = true;
    });
    const k = await makeKey(h.svc);
    const req = http.request(`${h.base}/v1/chat/completions`, { method: 'POST', headers: { ...bearer(k.key), 'content-type': 'application/json' } });
    const response = await new Promise<http.IncomingMessage>((resolve) => {
      req.on('response', resolve);
      req.end(JSON.stringify({ ...CHAT, stream: true }));
    });
    response.pause();
    await sleep(300);
    const stalledAt = written;
    expect(finished).toBe(false);
    expect(stalledAt).toBeLessThan(65536 * 1000);
    let received = 0;
    let comments = 0;
    response.on('data', (d: Buffer) => {
      received += d.length;
      comments += d.toString('latin1').split(': keep-alive\n\n').length - 1;
    });
    response.resume();
    await new Promise((r) => response.on('end', r));
    expect(finished).toBe(true);
    // Every upstream byte arrived (the gateway cuts the stream at event boundaries to drop the usage
    // chunk it asked for, so a keep-alive comment may sit between two events while the upstream is slow).
    expect(received - comments * ': keep-alive\n\n'.length).toBe(written + 'data: [DONE]\n\n'.length);
  });
});
