/**
 * The model lists as each official client reads them: `@anthropic-ai/sdk` lists and retrieves
 * models with its key in `x-api-key` (Anthropic's layout back), from an upstream of any style;
 * `@google/genai` lists public
 * (alias) names filtered by the key, natively and from an OpenAI-style upstream; and every
 * header the gateway sets is exposed to browsers by CORS.
 */
import fs from 'node:fs';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_HEADERS } from '../../src/gateway/response-headers.ts';
import { makeKey, startGateway, type Harness } from './helpers.ts';
import { ModelUpstream } from './model-upstream.ts';
import { AnthropicUpstream, GeminiUpstream } from './vendor-upstreams.ts';
import { openaiClient } from './openai-sdks.ts';

const UPSTREAM_KEY = 'vendor-upstream-key';
const SRC = path.resolve(import.meta.dirname, '../../src');
let geminiUp: GeminiUpstream;
let openaiUp: ModelUpstream;
let h: Harness;
let openaiOnly: Harness;

beforeAll(async () => {
  geminiUp = await new GeminiUpstream(UPSTREAM_KEY).start();
  openaiUp = await new ModelUpstream().start();
  const env = (upstreams: unknown[]): Record<string, string> => ({ AI_UPSTREAM_BASE_URL: '', AI_UPSTREAM_API_KEY: UPSTREAM_KEY, AI_UPSTREAMS: JSON.stringify(upstreams) });
  h = await startGateway({
    upstream: openaiUp,
    env: env([
      { name: 'gemini', url: geminiUp.url, api: ['gemini'], models: { 'gemini-fast': 'gemini-2.5-flash', 'gemini-2.5-pro': 'gemini-2.5-pro' } },
      { name: 'openai', url: openaiUp.url, api: ['openai'], models: { 'gpt-main': 'gpt-4o', 'gpt-4o-mini': 'gpt-4o-mini' } },
    ]),
  });
  openaiOnly = await startGateway({ upstream: openaiUp, env: env([{ url: openaiUp.url, api: ['openai'], models: { 'gpt-main': 'gpt-4o', 'gpt-4o-mini': 'gpt-4o-mini' } }]) });
});

afterAll(async () => {
  await openaiOnly?.close();
  await h?.close();
  await geminiUp?.stop();
  await openaiUp?.stop();
});

async function geminiNames(base: string, apiKey: string): Promise<string[]> {
  const names: string[] = [];
  for await (const m of await new GoogleGenAI({ apiKey, httpOptions: { baseUrl: base } }).models.list()) names.push(m.name ?? '');
  return names;
}

describe('GET /v1/models for Anthropic clients', () => {
  it('takes the key from x-api-key and answers in Anthropic\'s layout, public names, filtered by the key', async () => {
    const k = await makeKey(openaiOnly.svc, { models: ['gpt-main', 'gpt-4o-*'] });
    const anthropic = new Anthropic({ apiKey: k.key, baseURL: openaiOnly.base, maxRetries: 0 });
    const ids: string[] = [];
    for await (const m of anthropic.models.list()) {
      expect(m).toMatchObject({ type: 'model', display_name: m.id, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
      ids.push(m.id);
    }
    expect(ids.sort()).toEqual(['gpt-4o-mini', 'gpt-main']);
    expect(await anthropic.models.retrieve('gpt-main')).toMatchObject({ type: 'model', id: 'gpt-main' });
    // The OpenAI client still gets OpenAI's layout; a wrong x-api-key is a 401.
    const openai = openaiClient(openaiOnly.base, k.key);
    expect((await openai.models.list()).data.map((m) => m.object)).toEqual(['model', 'model']);
    const wrong = new Anthropic({ apiKey: 'sk-wrong', baseURL: openaiOnly.base, maxRetries: 0 });
    await expect(wrong.models.list()).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
  });
});

describe('GET /v1/models from upstreams of other styles', () => {
  it('an Anthropic-only upstream\'s list for the Anthropic and OpenAI clients; a Gemini-only one\'s for OpenAI\'s, with public names', async () => {
    const anthropicUp = await new AnthropicUpstream(UPSTREAM_KEY).start();
    const env = (upstreams: unknown[]): Record<string, string> => ({ AI_UPSTREAM_BASE_URL: '', AI_UPSTREAM_API_KEY: UPSTREAM_KEY, AI_UPSTREAMS: JSON.stringify(upstreams) });
    const claudeOnly = await startGateway({ upstream: openaiUp, env: env([{ url: anthropicUp.url, api: ['anthropic'] }]) });
    const geminiOnly = await startGateway({ upstream: openaiUp, env: env([{ url: geminiUp.url, api: ['gemini'], models: { 'gemini-fast': 'gemini-2.5-flash', 'gemini-2.5-pro': 'gemini-2.5-pro' } }]) });
    try {
      const k = await makeKey(claudeOnly.svc);
      const ids: string[] = [];
      for await (const m of new Anthropic({ apiKey: k.key, baseURL: claudeOnly.base, maxRetries: 0 }).models.list()) ids.push(m.id);
      expect(ids).toEqual(anthropicUp.models);
      expect(anthropicUp.last('/v1/models')!.headers).toMatchObject({ 'x-api-key': UPSTREAM_KEY, 'anthropic-version': expect.any(String) });
      const openaiList = await openaiClient(claudeOnly.base, k.key).models.list();
      expect(openaiList.data.map((m) => [m.id, m.object, m.owned_by])).toEqual(anthropicUp.models.map((id) => [id, 'model', 'anthropic']));
      const g = await makeKey(geminiOnly.svc);
      const geminiList = await openaiClient(geminiOnly.base, g.key).models.list();
      const geminiIds = geminiList.data.map((m) => m.id);
      expect(geminiIds).toEqual(expect.arrayContaining(['gemini-2.5-pro', 'gemini-fast']));
      expect(geminiIds).not.toContain('gemini-2.5-flash');
      expect(await openaiClient(geminiOnly.base, g.key).models.retrieve('gemini-fast')).toMatchObject({ id: 'gemini-fast', object: 'model' });
    } finally {
      await geminiOnly.close();
      await claudeOnly.close();
      await anthropicUp.stop();
    }
  });
});

describe('GET /v1beta/models', () => {
  it('lists the public names of a Gemini upstream, without the names they alias, filtered by the key', async () => {
    const all = await makeKey(h.svc);
    const names = await geminiNames(h.base, all.key);
    expect(names).toContain('models/gemini-fast');
    expect(names).toContain('models/gemini-2.5-pro');
    expect(names).not.toContain('models/gemini-2.5-flash');
    const limited = await makeKey(h.svc, { models: ['gemini-fast'] });
    expect(await geminiNames(h.base, limited.key)).toEqual(['models/gemini-fast']);
  });

  it('an OpenAI-style upstream\'s list in Gemini\'s shape has the public names too, and models.get finds them', async () => {
    const k = await makeKey(openaiOnly.svc, { models: ['gpt-*'] });
    const names = await geminiNames(openaiOnly.base, k.key);
    expect(names).toContain('models/gpt-main');
    expect(names).not.toContain('models/gpt-4o');
    const one = await new GoogleGenAI({ apiKey: k.key, httpOptions: { baseUrl: openaiOnly.base } }).models.get({ model: 'gpt-main' });
    expect(one).toMatchObject({ name: 'models/gpt-main' });
  });
});

describe('CORS', () => {
  it('exposes every header the gateway sets, x-gateway-token-count among them', async () => {
    const k = await makeKey(openaiOnly.svc);
    const res = await fetch(`${openaiOnly.base}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { origin: 'https://app.example', 'content-type': 'application/json', 'x-api-key': k.key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'gpt-main', messages: [{ role: 'user', content: 'Count me' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-token-count')).toBe('estimated');
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(/,\s*/);
    for (const name of [...GATEWAY_HEADERS, 'x-gateway-token-count', 'x-gateway-dropped-tools', 'x-gateway-dropped-fields', 'x-upstream-request-id']) expect(exposed).toContain(name);
  });

  it('every x-gateway-* header named in the source is one of GATEWAY_HEADERS', () => {
    const named = new Set<string>();
    for (const file of fs.readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts')) continue;
      for (const m of fs.readFileSync(path.join(SRC, file), 'utf8').matchAll(/['"`](x-(?:gateway|upstream)-[a-z-]+)['"`]/g)) named.add(m[1]!);
    }
    expect(named.size).toBeGreaterThan(3);
    for (const name of named) expect(GATEWAY_HEADERS).toContain(name);
  });
});
