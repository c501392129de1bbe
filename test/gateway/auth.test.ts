/** Authentication and key policy: every 401 variant, IP and model allowlists, quota, no upstream. */
import net from 'node:net';
import { Writable } from 'node:stream';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService } from '../../src/service.ts';
import { bearer, CHAT, makeKey, postJson, startGateway, usageRows, type Harness } from './helpers.ts';
import { openaiClient } from './openai-sdks.ts';

let h: Harness;
let key: string;

const INVALID_KEY = { type: 'invalid_request_error', param: null, code: 'invalid_api_key' };

async function expect401(res: Response): Promise<string> {
  expect(res.status).toBe(401);
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  const body = (await res.json()) as { error: Record<string, unknown> };
  expect(body.error).toMatchObject(INVALID_KEY);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(typeof body.error.message).toBe('string');
  return body.error.message as string;
}

/** Send raw bytes, so header values reach the server exactly as written. */
function rawRequest(port: number, lines: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`${lines.join('\r\n')}\r\nConnection: close\r\n\r\n`));
    let data = '';
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1]);
      resolve({ status, body: data.slice(data.indexOf('\r\n\r\n') + 4) });
    });
  });
}

beforeAll(async () => {
  h = await startGateway({ env: { TRUST_PROXY: 'true' } });
  key = (await makeKey(h.svc)).key;
});
afterAll(() => h.close());

describe('401 invalid_api_key', () => {
  const variants: [string, () => Record<string, string>][] = [
    ['no Authorization header', () => ({})],
    ['lower-case scheme', () => ({ Authorization: `bearer ${key}` })],
    ['upper-case scheme', () => ({ Authorization: `BEARER ${key}` })],
    ['no scheme', () => ({ Authorization: key })],
    ['two spaces', () => ({ Authorization: `Bearer  ${key}` })],
    ['tab instead of space', () => ({ Authorization: `Bearer\t${key}` })],
    ['trailing non-breaking space', () => ({ Authorization: `Bearer ${key}\u00a0` })],
    ['extra token', () => ({ Authorization: `Bearer ${key} extra` })],
    ['empty key', () => ({ Authorization: 'Bearer ' })],
    ['Basic scheme', () => ({ Authorization: `Basic ${Buffer.from(`user:${key}`).toString('base64')}` })],
    ['unknown key of the right shape', () => bearer(`sk-${'A'.repeat(43)}`)],
    ['unknown key of another shape', () => bearer('not-a-key')],
    ['key in x-goog-api-key on /v1', () => ({ 'x-goog-api-key': key })],
  ];
  for (const [name, headers] of variants) {
    it(name, async () => {
      await expect401(await postJson(h.base, '/v1/chat/completions', CHAT, headers()));
      expect(h.upstream.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(0);
    });
  }

  it('key given as ?key= on /v1', async () => {
    await expect401(await fetch(`${h.base}/v1/models?key=${key}`));
  });

  it('whitespace inside the header value, sent as raw bytes', async () => {
    const port = Number(new URL(h.base).port);
    for (const auth of [`Bearer  ${key}`, `Bearer ${key} x`, `Bearer \t${key}`]) {
      const res = await rawRequest(port, ['GET /v1/models HTTP/1.1', 'Host: x', `Authorization: ${auth}`]);
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body).error.code).toBe('invalid_api_key');
    }
    const ok = await rawRequest(port, ['GET /v1/models HTTP/1.1', 'Host: x', `Authorization: Bearer ${key}`]);
    expect(ok.status).toBe(200);
  });

  it('expired key', async () => {
    const expired = (await makeKey(h.svc, { expiresAt: Date.now() - 1000 })).key;
    const msg = await expect401(await postJson(h.base, '/v1/chat/completions', CHAT, bearer(expired)));
    expect(msg).toMatch(/expired/);
  });

  it('revoked key', async () => {
    const k = await makeKey(h.svc);
    expect((await fetch(`${h.base}/v1/models`, { headers: bearer(k.key) })).status).toBe(200);
    await h.svc.gateway.keys.revoke(k.record.id);
    const msg = await expect401(await fetch(`${h.base}/v1/models`, { headers: bearer(k.key) }));
    expect(msg).toMatch(/revoked/);
  });

  it('unversioned paths, even with a valid key', async () => {
    for (const path of ['/chat/completions', '/models', '/rerank', '/images/edits', '/music/tasks/x', '/dashboard/billing/subscription', '/models/gemini-2.0-flash:generateContent']) {
      const res = path === '/models' || path.startsWith('/music') || path.startsWith('/dashboard') ? await fetch(`${h.base}${path}`, { headers: bearer(key) }) : await postJson(h.base, path, CHAT, bearer(key));
      const msg = await expect401(res);
      expect(msg).toMatch(/version/);
    }
  });

  it('the openai SDK raises AuthenticationError with code invalid_api_key', async () => {
    const client = openaiClient(h.base, 'sk-wrong');
    const err = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((err as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401);
    expect((err as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('invalid_api_key');
    expect((err as InstanceType<typeof OpenAI.AuthenticationError>).type).toBe('invalid_request_error');
  });

  it('the openai SDK with a base URL lacking /v1 gets AuthenticationError', async () => {
    const client = new OpenAI({ baseURL: h.base, apiKey: key, maxRetries: 0 });
    await expect(client.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });
});

describe('/v1beta credentials', () => {
  const gem = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
  const path = '/v1beta/models/gemini-2.0-flash:generateContent';

  it('accepts Bearer, x-goog-api-key and ?key=, and never forwards the key', async () => {
    for (const [headers, query] of [[bearer(key), ''], [{ 'x-goog-api-key': key }, ''], [{}, `?key=${key}`]] as const) {
      const res = await postJson(h.base, `${path}${query}`, gem, headers);
      expect(res.status).toBe(200);
      const seen = h.upstream.last('/v1beta/')!;
      expect(seen.query.has('key')).toBe(false);
      expect(JSON.stringify(seen.headers)).not.toContain(key);
      expect(seen.headers['x-goog-api-key']).toBe('upstream-secret-credential');
    }
  });

  it('refuses malformed or unknown Gemini credentials with a Google-shaped 401', async () => {
    for (const [headers, query] of [[{}, ''], [{ 'x-goog-api-key': 'sk-unknown' }, ''], [{}, '?key=a%20b'], [{ Authorization: `bearer ${key}` }, `?key=${key}`]] as const) {
      const res = await postJson(h.base, `${path}${query}`, gem, headers);
      expect(res.status).toBe(401);
      const body = (await res.json()) as { error: { code: number; status: string; message: string; details: { reason: string }[] } };
      expect(body.error.code).toBe(401);
      expect(body.error.status).toBe('UNAUTHENTICATED');
      expect(body.error.details[0]!.reason).toBe('invalid_api_key');
    }
  });
});

describe('key policy', () => {
  it('IP allowlist: IPv4 and IPv6 CIDRs, 403 ip_not_allowed otherwise', async () => {
    const k = (await makeKey(h.svc, { ips: ['203.0.113.0/24', '2001:db8::/32'] })).key;
    const call = (ip: string) => fetch(`${h.base}/v1/models`, { headers: { ...bearer(k), 'x-forwarded-for': ip } });
    expect((await call('203.0.113.77')).status).toBe(200);
    expect((await call('2001:db8:1::5')).status).toBe(200);
    expect((await call('::ffff:203.0.113.9')).status).toBe(200);
    for (const ip of ['198.51.100.1', '2001:db9::1', '127.0.0.1']) {
      const res = await call(ip);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: unknown }).error).toMatchObject({ type: 'invalid_request_error', code: 'ip_not_allowed' });
    }
  });

  it('model allowlist: exact names and * patterns; 403 model_not_allowed; the SDK raises PermissionDeniedError', async () => {
    const k = await makeKey(h.svc, { models: ['gpt-4o-mini', 'gemini-*'] });
    expect((await postJson(h.base, '/v1/chat/completions', CHAT, bearer(k.key))).status).toBe(200);
    const denied = await postJson(h.base, '/v1/chat/completions', { ...CHAT, model: 'gpt-4o' }, bearer(k.key));
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { error: unknown }).error).toMatchObject({ code: 'model_not_allowed', param: 'model', type: 'invalid_request_error' });
    expect(h.upstream.requests.some((r) => r.path === '/v1/chat/completions' && r.body.includes('"gpt-4o"'))).toBe(false);
    const gem = await postJson(h.base, '/v1beta/models/gemini-2.0-flash:generateContent', { contents: [{ parts: [{ text: 'x' }] }] }, bearer(k.key));
    expect(gem.status).toBe(200);
    const gemDenied = await postJson(h.base, '/v1beta/models/other-model:generateContent', { contents: [{ parts: [{ text: 'x' }] }] }, bearer(k.key));
    expect(gemDenied.status).toBe(403);
    expect(((await gemDenied.json()) as { error: { status: string } }).error.status).toBe('PERMISSION_DENIED');

    const client = openaiClient(h.base, k.key);
    const err = await client.chat.completions.create({ model: 'o1', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((err as InstanceType<typeof OpenAI.PermissionDeniedError>).code).toBe('model_not_allowed');
    const rows = await usageRows(h.svc, k.record.id, 5);
    expect(rows.find((r) => r.model === 'o1')).toMatchObject({ status: 403, errorCode: 'model_not_allowed', endReason: 'rejected', chargedTokens: 0 });
  });

  it('credit: usage is charged in USD, then 429 insufficient_quota with x-should-retry: false', async () => {
    // gpt-4o at $2.50 / $10 per 1M tokens: the upstream's 10 + 5 tokens cost 75 micro-dollars.
    const k = await makeKey(h.svc, { quotaMicros: 75 });
    const small = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 };
    const first = await postJson(h.base, '/v1/chat/completions', small, bearer(k.key));
    expect(first.status).toBe(200);
    const [row] = await usageRows(h.svc, k.record.id, 1);
    // The mock upstream reports 5 completion tokens whatever max_tokens says: the request is charged
    // its usage up to what it reserved (its prompt estimate and 2 output tokens), never more (issue 20).
    expect(row!.costMicros).toBeLessThan(75);
    expect(row!.costMicros).toBeGreaterThan(50);
    expect(await h.svc.gateway.keys.get(k.record.id)).toMatchObject({ usedTokens: 15, spentMicros: row!.costMicros });
    const res = await postJson(h.base, '/v1/chat/completions', small, bearer(k.key));
    expect(res.status).toBe(429);
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(res.headers.get('retry-after')).toBeNull();
    const body = (await res.json()) as { error: { type: string; code: string; message: string } };
    expect(body.error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });
    expect(body.error.message).toContain('$0.000075');
    await usageRows(h.svc, k.record.id, 2);
    const client = new OpenAI({ baseURL: `${h.base}/v1`, apiKey: k.key, maxRetries: 2 });
    const err = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('insufficient_quota');
    const rows = await usageRows(h.svc, k.record.id, 3);
    // x-should-retry: false kept the SDK from retrying: exactly one more request arrived.
    expect(rows).toHaveLength(3);
  });

  it('paths with dot segments or encoded separators are refused, never forwarded', async () => {
    const port = Number(new URL(h.base).port);
    h.upstream.reset();
    for (const p of ['/v1/videos/../../admin', '/v1/videos/%2e%2e/x', '/v1/audio/voices/a%2Fb', '/v1/models/..', '/v1/videos/.']) {
      const res = await rawRequest(port, [`GET ${p} HTTP/1.1`, 'Host: x', `Authorization: Bearer ${key}`]);
      expect(res.status).toBe(404);
      expect(JSON.parse(res.body).error.code).toBe('unknown_url');
    }
    expect(h.upstream.requests).toHaveLength(0);
  });

  it('an unknown /v1 route is 404 after authentication, a wrong method 405', async () => {
    expect((await fetch(`${h.base}/v1/nope`)).status).toBe(401);
    const res = await fetch(`${h.base}/v1/nope`, { headers: bearer(key) });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: 'unknown_url' });
    const wrong = await fetch(`${h.base}/v1/chat/completions`, { headers: bearer(key) });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
  });
});

describe('without AI_UPSTREAM_BASE_URL', () => {
  let bare: Harness;
  beforeAll(async () => {
    bare = await startGateway({ withUpstream: false });
  });
  afterAll(() => bare.close());

  it('authenticates first, then answers 503 naming the variable', async () => {
    expect((await postJson(bare.base, '/v1/chat/completions', CHAT)).status).toBe(401);
    const k = (await makeKey(bare.svc)).key;
    const res = await postJson(bare.base, '/v1/chat/completions', CHAT, bearer(k));
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { message: string; code: string } };
    expect(body.error.code).toBe('upstream_not_configured');
    expect(body.error.message).toContain('AI_UPSTREAM_BASE_URL');
    const gem = await postJson(bare.base, '/v1beta/models/g:generateContent', { contents: [{ parts: [{ text: 'x' }] }] }, bearer(k));
    expect(gem.status).toBe(503);
    expect(((await gem.json()) as { error: { status: string } }).error.status).toBe('UNAVAILABLE');
    // Billing needs no upstream.
    expect((await fetch(`${bare.base}/v1/dashboard/billing/subscription`, { headers: bearer(k) })).status).toBe(200);
  });
});

describe('when the key store fails', () => {
  it('answers 503 service_unavailable with Retry-After, never a 500, and forwards nothing', async () => {
    const own = await startGateway({ upstream: h.upstream });
    try {
      const k = await makeKey(own.svc);
      const before = h.upstream.requests.length;
      own.svc.db.close();
      const res = await postJson(own.base, '/v1/chat/completions', CHAT, bearer(k.key));
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('2');
      expect(((await res.json()) as { error: { code: string; type: string } }).error).toMatchObject({ code: 'service_unavailable', type: 'server_error' });
      expect(h.upstream.requests.length).toBe(before);
    } finally {
      await own.close();
    }
  });
});

describe('secrets stay out of logs and usage rows', () => {
  it('no log line and no stored row holds a key, even at debug level and for failures', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString('utf8'));
        cb();
      },
    });
    const svc = createService({ sources: [], logDestination: sink, env: { DB_PATH: ':memory:', SCHEDULER_ENABLED: 'false', LOG_LEVEL: 'trace', AI_UPSTREAM_BASE_URL: h.upstream.url, AI_UPSTREAM_API_KEY: 'upstream-secret-credential' } });
    const port = await svc.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${port}`;
    try {
      const k = await makeKey(svc as never);
      // A prompt no random id can contain by chance (ids are hex or base64url).
      const prompt = '请勿存储这段提示词';
      const chat = { ...CHAT, messages: [{ role: 'user', content: prompt }] };
      await postJson(base, '/v1/chat/completions', chat, bearer(k.key));
      await postJson(base, '/v1/chat/completions', { ...chat, mock: { status: 500 } }, bearer(k.key));
      await postJson(base, `/v1beta/models/gemini-2.0-flash:generateContent?key=${k.key}`, { contents: [{ parts: [{ text: 'x' }] }] });
      await postJson(base, '/v1/chat/completions', CHAT, bearer(`sk-${'B'.repeat(43)}`));
      await usageRows(svc as never, k.record.id, 3);
      const text = lines.join('');
      expect(text).toContain('"path":"/v1/chat/completions"');
      for (const secret of [k.key, 'upstream-secret-credential', 'B'.repeat(43)]) expect(text).not.toContain(secret);
      const rows = JSON.stringify(svc.db.prepare('SELECT * FROM gateway_usage').all());
      expect(rows).not.toContain(k.key);
      expect(rows).not.toContain(prompt);
    } finally {
      await svc.close();
    }
  });
});
