/**
 * Issue 12, defect 7: nothing in an answer is built from a caller's header, one credential per
 * request, and model ids with a "/" can be retrieved.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, makeKey, startGateway, type Harness } from './helpers.ts';
import { rawExchange } from './process.ts';
import { openaiClient } from './openai-sdks.ts';

let h: Harness;
let key: string;
let port: number;
const MODELS = ['gpt-4o-mini', 'Qwen/Qwen2.5-7B-Instruct', 'BAAI/bge-reranker-v2-m3'];

beforeAll(async () => {
  h = await startGateway();
  h.upstream.script('GET', '/v1/models', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: MODELS.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'upstream' })) }));
  });
  key = (await makeKey(h.svc)).key;
  port = Number(new URL(h.base).port);
});
afterAll(() => h.close());

describe('the 401 for a path without /v1', () => {
  it('names the server address it was reached at, never the caller Origin', async () => {
    for (const origin of [undefined, 'null', 'https://evil.example']) {
      const res = await fetch(`${h.base}/chat/completions`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json', ...(origin ? { origin } : {}) }, body: '{}' });
      expect(res.status).toBe(401);
      const message = ((await res.json()) as { error: { message: string } }).error.message;
      expect(message).toContain(`Use ${h.base}/v1`);
      expect(message).not.toMatch(/evil|null\/v1/);
    }
  });

  it('ignores Host and X-Forwarded-Host too', async () => {
    const res = await rawExchange(port, ['GET /models HTTP/1.1\r\nHost: evil.example\r\nX-Forwarded-Host: evil.example\r\nOrigin: https://evil.example\r\n\r\n']);
    expect(res.status).toBe(401);
    expect(res.text).not.toContain('evil');
    expect(res.text).toContain(`http://127.0.0.1:${port}/v1`);
  });
});

describe('two Authorization headers', () => {
  const twice = (a: string, b: string) => `GET /v1/models HTTP/1.1\r\nHost: x\r\nAuthorization: ${a}\r\nAuthorization: ${b}\r\n\r\n`;
  it('are refused with 401 whatever their order or values', async () => {
    for (const [a, b] of [
      [`Bearer ${key}`, 'Bearer sk-other'],
      ['Bearer sk-other', `Bearer ${key}`],
      [`Bearer ${key}`, `Bearer ${key}`],
    ] as const) {
      const res = await rawExchange(port, [twice(a, b)]);
      expect(res.status, res.text).toBe(401);
      expect(res.text).toMatch(/invalid_api_key/);
      expect(res.text).toMatch(/one Authorization header/);
    }
  });

  it('one header still works', async () => {
    const res = await rawExchange(port, [`GET /v1/models HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`]);
    expect(res.status).toBe(200);
  });
});

describe('model ids containing "/"', () => {
  it('the openai client retrieves them (models.retrieve)', async () => {
    const client = openaiClient(h.base, key);
    const model = await client.models.retrieve('Qwen/Qwen2.5-7B-Instruct');
    expect(model).toMatchObject({ id: 'Qwen/Qwen2.5-7B-Instruct', object: 'model', owned_by: 'upstream' });
    expect((await client.models.retrieve('gpt-4o-mini')).id).toBe('gpt-4o-mini');
  });

  it('an unknown model is a 404 NotFoundError; a model outside the key allowlist a 403', async () => {
    const client = openaiClient(h.base, key);
    await expect(client.models.retrieve('Qwen/none')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const limited = (await makeKey(h.svc, { models: ['gpt-4o*'] })).key;
    const err = await openaiClient(h.base, limited).models.retrieve('Qwen/Qwen2.5-7B-Instruct').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
  });

  it('a literal "/" in the path works too; dot segments are still refused', async () => {
    expect((await fetch(`${h.base}/v1/models/Qwen/Qwen2.5-7B-Instruct`, { headers: bearer(key) })).status).toBe(200);
    for (const p of ['/v1/models/..%2F..%2Fadmin', '/v1/models/Qwen%2F..%2Fx', '/v1/models/a%5Cb']) {
      const res = await rawExchange(port, [`GET ${p} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`]);
      expect(res.status, `${p}: ${res.text}`).toBe(404);
    }
  });
});
