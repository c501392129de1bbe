/** /v1beta through the real @google/genai client: generateContent and generateContentStream, native pass-through. */
import { ApiError, GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, makeKey, postJson, startGateway, usageRows, type Harness } from './helpers.ts';

let h: Harness;

function genai(key: string, viaBearer = false): GoogleGenAI {
  return viaBearer
    ? new GoogleGenAI({ apiKey: 'unused-placeholder', httpOptions: { baseUrl: h.base, headers: { Authorization: `Bearer ${key}` } } })
    : new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: h.base } });
}

beforeAll(async () => {
  h = await startGateway();
});
afterAll(() => h.close());
beforeEach(() => h.upstream.reset());

describe('generateContent', () => {
  it('with the apiKey (x-goog-api-key): candidates and usageMetadata, usage charged', async () => {
    const k = await makeKey(h.svc);
    const res = await genai(k.key).models.generateContent({ model: 'gemini-2.0-flash', contents: 'Say hi', config: { temperature: 0.2, maxOutputTokens: 64 } });
    expect(res.text).toBe('Hi from gemini-2.0-flash');
    expect(res.candidates?.[0]?.finishReason).toBe('STOP');
    expect(res.candidates?.[0]?.content?.role).toBe('model');
    expect(res.usageMetadata).toMatchObject({ promptTokenCount: 4, candidatesTokenCount: 3, totalTokenCount: 7 });
    const seen = h.upstream.last('/v1beta/models/gemini-2.0-flash:generateContent')!;
    const sent = JSON.parse(seen.body.toString('utf8')) as { generationConfig: { temperature: number; maxOutputTokens: number } };
    expect(sent.generationConfig).toMatchObject({ temperature: 0.2, maxOutputTokens: 64 });
    const [row] = await usageRows(h.svc, k.record.id);
    expect(row).toMatchObject({ route: 'gemini.generate', model: 'gemini-2.0-flash', stream: false, chargedTokens: 7, usageSource: 'upstream', endReason: 'completed' });
  });

  it('with Authorization: Bearer in httpOptions.headers', async () => {
    const k = await makeKey(h.svc);
    const res = await genai(k.key, true).models.generateContent({ model: 'gemini-2.0-flash', contents: 'Say hi' });
    expect(res.text).toBe('Hi from gemini-2.0-flash');
  });

  it('errors are Google-shaped: the client raises ApiError with the status', async () => {
    const k = await makeKey(h.svc, { models: ['gemini-*'] });
    const err = await genai(k.key).models.generateContent({ model: 'gpt-4o', contents: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(403);
    const bad = await genai('sk-wrong').models.generateContent({ model: 'gemini-2.0-flash', contents: 'x' }).catch((e: unknown) => e);
    expect((bad as ApiError).status).toBe(401);
    const raw = await postJson(h.base, '/v1beta/models/gemini-2.0-flash:generateContent', { contents: [] }, bearer(k.key));
    expect(raw.status).toBe(400);
    expect(await raw.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('contents') } });
  });

  it('upstream failures map to 502/504 in the Google shape', async () => {
    h.upstream.script('POST', /:generateContent$/, (_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":{"code":500,"message":"boom","status":"INTERNAL"}}');
    });
    const k = await makeKey(h.svc);
    const res = await postJson(h.base, '/v1beta/models/gemini-2.0-flash:generateContent', { contents: [{ parts: [{ text: 'x' }] }] }, bearer(k.key));
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: { code: 502, status: 'UNAVAILABLE', details: [{ reason: 'bad_gateway' }] } });
  });
});

describe('streamGenerateContent', () => {
  it('streams the SSE chunks as they come; alt=sse reaches the upstream; usage from the last chunk', async () => {
    const k = await makeKey(h.svc);
    const stream = await genai(k.key).models.generateContentStream({ model: 'gemini-2.0-flash', contents: 'Say hi' });
    const parts: string[] = [];
    let usage: number | undefined;
    for await (const chunk of stream) {
      parts.push(chunk.text ?? '');
      if (chunk.usageMetadata?.totalTokenCount) usage = chunk.usageMetadata.totalTokenCount;
    }
    expect(parts).toEqual(['Hi', ' from', ' gemini-2.0-flash']);
    expect(usage).toBe(7);
    const seen = h.upstream.last('/v1beta/models/gemini-2.0-flash:streamGenerateContent')!;
    expect(seen.query.get('alt')).toBe('sse');
    const [row] = await usageRows(h.svc, k.record.id);
    expect(row).toMatchObject({ stream: true, chargedTokens: 7, usageSource: 'upstream', endReason: 'completed' });
  });

  it('without alt=sse it is still a stream (a JSON array), and usage is still read', async () => {
    const k = await makeKey(h.svc);
    const res = await postJson(h.base, '/v1beta/models/gemini-2.0-flash:streamGenerateContent', { contents: [{ parts: [{ text: 'x' }] }] }, bearer(k.key));
    expect(res.status).toBe(200);
    const parsed = JSON.parse(await res.text()) as { candidates: { content: { parts: { text: string }[] } }[] }[];
    expect(parsed.map((c) => c.candidates[0]!.content.parts[0]!.text).join('')).toBe('Hi from gemini-2.0-flash');
    expect(h.upstream.last('/v1beta/')!.query.has('alt')).toBe(false);
    const [row] = await usageRows(h.svc, k.record.id);
    expect(row).toMatchObject({ stream: true, chargedTokens: 7, usageSource: 'upstream' });
  });

  it('an upstream failure after the first chunk ends the stream with a Google-shaped error the client raises', async () => {
    h.upstream.script('POST', /:streamGenerateContent$/, async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] }, index: 0 }] })}\r\n\r\n`);
      await new Promise((r) => setTimeout(r, 20));
      res.socket?.destroy();
    });
    const k = await makeKey(h.svc);
    const stream = await genai(k.key).models.generateContentStream({ model: 'gemini-2.0-flash', contents: 'Say hi' });
    const parts: string[] = [];
    const err = await (async () => {
      for await (const chunk of stream) parts.push(chunk.text ?? '');
    })().catch((e: unknown) => e);
    expect(parts).toEqual(['Hi']);
    expect(err).toBeInstanceOf(Error);
    // ApiError(502) when the error object arrives as its own chunk, "Incomplete JSON segment" when it does not.
    if (err instanceof ApiError) expect(err.status).toBe(502);
    else expect(String((err as Error).message)).toMatch(/Incomplete JSON segment/);
    const [row] = await usageRows(h.svc, k.record.id);
    expect(row).toMatchObject({ stream: true, endReason: 'upstream_error', errorCode: 'upstream_unreachable' });
  });
});

