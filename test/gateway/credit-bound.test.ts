/**
 * Issue 20 item 1: a key never spends past its credit. The local upstream here bills like a
 * careless vendor: it counts n × max_tokens of output, ignores any output cap it is sent (a
 * request without max_tokens streams 10,000 tokens), and counts 1.2 prompt tokens per Chinese
 * character (more than any estimate from characters or bytes). Parallel requests on one SQLite
 * instance, and on two instances sharing one PostgreSQL database.
 */
import http from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimatePrompt } from '../../src/gateway/estimate.ts';
import { cacheWriteKind, outputBound, withOutputCap } from '../../src/gateway/output-bound.ts';
import { createTestDatabase, requireServices } from '../multi/services.ts';
import { bearer, makeKey, postJson, startGateway, usageRows, type Harness } from './helpers.ts';
import { ModelUpstream, type SeenRequest } from './model-upstream.ts';
import { openaiClient } from './openai-sdks.ts';

// 1 µ$ per input token, 2 µ$ per output token.
const PRICES = JSON.stringify({ 'bound-chat': { input: 1, cached_input: 1, output: 2 } });
const UNCAPPED_OUTPUT = 10_000;

/** Prompt tokens as a vendor with a dense tokenizer counts them: 1.2 per character beyond ASCII, 1 per 4 ASCII characters. */
function vendorPromptTokens(body: Record<string, unknown>): number {
  const text = (body.messages as { content: string }[]).map((m) => m.content).join('');
  const wide = [...text].filter((c) => c.charCodeAt(0) > 0x7f).length;
  return Math.ceil(wide * 1.2) + Math.ceil((text.length - wide) / 4);
}

/** A chat upstream that bills every token it generates and ignores the output caps it is sent. */
function careless(req: SeenRequest, res: http.ServerResponse): void {
  answerCarelessly(req, res, true);
}

/** As `careless`, or (`honourMaxTokens` false) ignoring every cap, even one the client named. */
function answerCarelessly(req: SeenRequest, res: http.ServerResponse, honourMaxTokens: boolean): void {
  const body = JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
  const n = typeof body.n === 'number' ? body.n : 1;
  // Honours only a cap the client itself named in `max_tokens`; the one the gateway adds is ignored.
  const perAnswer = honourMaxTokens && typeof body.max_tokens === 'number' ? body.max_tokens : UNCAPPED_OUTPUT;
  const usage = { prompt_tokens: vendorPromptTokens(body), completion_tokens: n * perAnswer, total_tokens: 0 };
  usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
  if (body.stream !== true) {
    const choices = Array.from({ length: n }, (_, index) => ({ index, message: { role: 'assistant', content: 'tok '.repeat(perAnswer) }, finish_reason: 'length' }));
    const text = JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: body.model, choices, usage });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (i: number) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta: { content: i ? 'tok ' : 'tok' }, finish_reason: null }] })}\n\n`;
  let i = 0;
  const pump = (): void => {
    while (i < perAnswer) {
      if (res.destroyed) return;
      // 100 tokens per write, yielding between writes as a real upstream's network would.
      const batch: string[] = [];
      for (let j = 0; j < 100 && i < perAnswer; j++) batch.push(chunk(i++));
      if (!res.write(batch.join(''))) return void res.once('drain', pump);
      return void setImmediate(pump);
    }
    res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [], usage })}\n\n`);
    res.end('data: [DONE]\n\n');
  };
  pump();
}

const CHINESE_1000 = '中文提示词的每个字大约是一个词元'.repeat(63).slice(0, 1000);

describe('prompt and output bounds', () => {
  it('a 1,000-character Chinese prompt counts at least 1,000 tokens, not its 3,000 bytes ÷ 4', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: CHINESE_1000 }] };
    const raw = Buffer.from(JSON.stringify(body));
    expect(raw.length).toBeGreaterThan(3000);
    const tokens = estimatePrompt(raw.length, body, 'openai').tokens;
    expect(tokens).toBeGreaterThanOrEqual(1000);
    expect(tokens).toBeLessThan(1030);
    // The same prompt with \u escapes (Python's json.dumps default) counts no fewer.
    const escaped = Buffer.from(JSON.stringify(body).replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
    expect(estimatePrompt(escaped.length, JSON.parse(escaped.toString()), 'openai').tokens).toBeGreaterThanOrEqual(1000);
  });

  it('the output bound multiplies the cap by the answers asked for, in every style', () => {
    expect(outputBound('chat', { n: 100, max_tokens: 40 }, 4096)).toMatchObject({ tokens: 4000, given: true, audio: false });
    // An answer that may be audio is reserved at the audio output price.
    expect(outputBound('chat', { modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } }, 4096).audio).toBe(true);
    expect(outputBound('gemini', { generationConfig: { responseModalities: ['AUDIO'] } }, 4096).audio).toBe(true);
    expect(outputBound('chat', { max_tokens: 10, max_completion_tokens: 30 }, 4096).tokens).toBe(30);
    expect(outputBound('chat', {}, 4096)).toMatchObject({ tokens: 4096, given: false });
    expect(outputBound('completions', { max_tokens: 16, n: 2, best_of: 5 }, 4096).tokens).toBe(80);
    expect(outputBound('responses', { max_output_tokens: 300 }, 4096).tokens).toBe(300);
    expect(outputBound('anthropic', { max_tokens: 1024 }, 4096).tokens).toBe(1024);
    expect(outputBound('gemini', { generationConfig: { maxOutputTokens: 50, candidateCount: 4 } }, 4096).tokens).toBe(200);
    expect(withOutputCap('gemini', { generationConfig: { temperature: 0 } }, 77)).toEqual({ generationConfig: { temperature: 0, maxOutputTokens: 77 } });
    expect(withOutputCap('chat', { n: 2 }, 77)).toEqual({ n: 2, max_completion_tokens: 77 });
    // Anthropic prompt caching: the prompt bound is priced at the dearest cache write asked for.
    expect(cacheWriteKind({ system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }], messages: [] })).toBe('5m');
    expect(cacheWriteKind({ messages: [{ role: 'user', content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '1h' } }] }], tools: [{ name: 't', cache_control: { type: 'ephemeral' } }] })).toBe('1h');
    expect(cacheWriteKind({ messages: [{ role: 'user', content: 'x' }] })).toBe('none');
    // A cap or count that is not a whole number is a 400 naming it, not a request reserved as if it had none.
    expect(() => outputBound('chat', { n: 0 }, 4096)).toThrow(/"n"/);
    expect(() => outputBound('chat', { max_tokens: '40' }, 4096)).toThrow(/"max_tokens"/);
    expect(() => outputBound('gemini', { generationConfig: { maxOutputTokens: -1 } }, 4096)).toThrow(/generationConfig\.maxOutputTokens/);
  });
});

const avail = await requireServices({ postgres: true });

interface Deployment {
  name: string;
  /** The bases requests are spread over (one per instance). */
  bases: string[];
  primary: Harness;
  close(): Promise<void>;
}

async function sqliteDeployment(upstream: ModelUpstream): Promise<Deployment> {
  const h = await startGateway({ upstream, env: { AI_PRICES: PRICES } });
  return { name: 'SQLite', bases: [h.base], primary: h, close: () => h.close() };
}

async function postgresDeployment(upstream: ModelUpstream): Promise<Deployment> {
  const db = await createTestDatabase();
  const env = { AI_PRICES: PRICES, DATABASE_URL: db.url };
  const a = await startGateway({ upstream, env });
  const b = await startGateway({ upstream, env });
  return {
    name: 'two instances on PostgreSQL',
    bases: [a.base, b.base],
    primary: a,
    async close() {
      await a.close();
      await b.close();
      await db.drop();
    },
  };
}

const deployments: [string, (u: ModelUpstream) => Promise<Deployment>, boolean][] = [
  ['SQLite', sqliteDeployment, false],
  [`two instances sharing PostgreSQL${avail.label}`, postgresDeployment, !!avail.missing],
];

describe.each(deployments)('a key never spends past its credit: %s', (_name, start, skip) => {
  let upstream: ModelUpstream;
  let d: Deployment;

  beforeAll(async () => {
    if (skip) return;
    upstream = await new ModelUpstream().start();
    upstream.script('POST', '/v1/chat/completions', careless);
    d = await start(upstream);
  });
  afterAll(async () => {
    if (skip) return;
    await d.close();
    await upstream.stop();
  });

  /** Send `count` requests at once, spread over the instances; their statuses. */
  async function parallel(key: string, count: number, body: (i: number) => unknown): Promise<number[]> {
    const results = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const res = await postJson(d.bases[i % d.bases.length]!, '/v1/chat/completions', body(i), bearer(key));
        await res.text();
        return res.status;
      }),
    );
    return results;
  }

  async function settled(keyId: string, rows: number) {
    const got = await usageRows(d.primary.svc, keyId, rows, 15_000);
    expect(got).toHaveLength(rows);
    const key = (await d.primary.svc.gateway.keys.get(keyId))!;
    return { rows: got, spent: key.spentMicros };
  }

  it.skipIf(skip)('n: 100 with max_tokens: 40 reserves 4,000 output tokens, so six parallel requests stay within the credit', async () => {
    // Each request costs its prompt + 100 × 40 × 2 µ$ ≈ 8,010 µ$; 20,000 µ$ of credit fits two.
    const k = await makeKey(d.primary.svc, { quotaMicros: 20_000 });
    const statuses = await parallel(k.key, 6, () => ({ model: 'bound-chat', n: 100, max_tokens: 40, messages: [{ role: 'user', content: 'hi' }] }));
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    expect(statuses.filter((s) => s !== 200).every((s) => s === 429)).toBe(true);
    const { rows, spent } = await settled(k.record.id, 6);
    expect(spent).toBeLessThanOrEqual(20_000);
    // The real usage fits the bound, so each served request pays all of it.
    for (const row of rows.filter((r) => r.status === 200)) expect(row).toMatchObject({ completionTokens: 4000, costMicros: row.promptTokens + 8000 });
    expect(spent).toBe(rows.reduce((sum, r) => sum + r.costMicros, 0));
  });

  it.skipIf(skip)('no max_tokens: the reserved cap is sent, and a 10,000-token stream that ignores it is cut cleanly at the reservation', async () => {
    // AI_RESERVE_OUTPUT_TOKENS = 4096: each request reserves its prompt + 8,192 µ$; 20,000 fits two.
    const k = await makeKey(d.primary.svc, { quotaMicros: 20_000 });
    upstream.requests.length = 0;
    const openai = d.bases.map((b) => openaiClient(b, k.key));
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, async (_, i) => {
        try {
          const stream = await openai[i % openai.length]!.chat.completions.create({ model: 'bound-chat', stream: true, messages: [{ role: 'user', content: 'write forever' }] });
          let pieces = 0;
          for await (const chunk of stream) if (chunk.choices[0]?.delta.content) pieces++;
          return pieces;
        } catch (err) {
          return err instanceof OpenAI.RateLimitError ? 'refused' : err;
        }
      }),
    );
    const served = outcomes.filter((o): o is number => typeof o === 'number');
    expect(served).toHaveLength(2);
    expect(outcomes.filter((o) => o === 'refused')).toHaveLength(2);
    // The client's stream ended without an error, at what was reserved, far short of the 10,000 sent.
    for (const pieces of served) {
      expect(pieces).toBeGreaterThanOrEqual(4000);
      // Ended after the event that reached the reservation: one token per event here.
      expect(pieces).toBeLessThanOrEqual(4096);
    }
    for (const r of upstream.requests) expect(JSON.parse(r.body.toString()).max_completion_tokens).toBe(4096);
    const { rows, spent } = await settled(k.record.id, 4);
    expect(spent).toBeLessThanOrEqual(20_000);
    const reserved = estimatePrompt(Buffer.byteLength(JSON.stringify({ model: 'bound-chat', stream: true, messages: [{ role: 'user', content: 'write forever' }] })), {}, 'openai').tokens + 4096 * 2;
    for (const row of rows.filter((r) => r.status === 200)) {
      expect(row.endReason).toBe('completed');
      // Billed what was reserved (the prompt estimate + 4,096 output tokens), never the 10,000 the upstream would count.
      expect(Math.abs(row.costMicros - reserved)).toBeLessThanOrEqual(10);
    }
  });

  it.skipIf(skip)('no max_tokens, not streamed: an answer whose usage exceeds the reservation is charged the reservation', async () => {
    const k = await makeKey(d.primary.svc, { quotaMicros: 20_000 });
    const statuses = await parallel(k.key, 4, () => ({ model: 'bound-chat', messages: [{ role: 'user', content: 'write forever' }] }));
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    const { rows, spent } = await settled(k.record.id, 4);
    expect(spent).toBeLessThanOrEqual(20_000);
    for (const row of rows.filter((r) => r.status === 200)) {
      expect(row.completionTokens).toBe(UNCAPPED_OUTPUT);
      expect(row.costMicros).toBeLessThan(UNCAPPED_OUTPUT * 2);
      expect(row.costMicros).toBeGreaterThanOrEqual(4096 * 2);
    }
  });

  it.skipIf(skip)('Gemini without maxOutputTokens: the reserved cap is set in generationConfig; with candidateCount, reserved per candidate', async () => {
    const k = await makeKey(d.primary.svc, { quotaMicros: 1_000_000_000 });
    upstream.requests.length = 0;
    const url = `${d.bases[0]}/v1beta/models/bound-chat:generateContent`;
    const res = await postJson(d.bases[0]!, '/v1beta/models/bound-chat:generateContent', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { temperature: 0.5, candidateCount: 3 } }, { 'x-goog-api-key': k.key });
    expect(res.status, url).toBe(200);
    await res.text();
    expect(JSON.parse(upstream.requests.at(-1)!.body.toString()).generationConfig).toEqual({ temperature: 0.5, candidateCount: 3, maxOutputTokens: 4096 });
    // An unlimited key's request is forwarded as sent.
    const free = await makeKey(d.primary.svc);
    await (await postJson(d.bases[0]!, '/v1beta/models/bound-chat:generateContent', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, { 'x-goog-api-key': free.key })).text();
    expect(JSON.parse(upstream.requests.at(-1)!.body.toString()).generationConfig).toBeUndefined();
  });

  it.skipIf(skip)('six parallel 1,000-character Chinese prompts: reserved by their characters, never charged past the credit', async () => {
    // The upstream counts 1,200 prompt tokens + 2 × 10 output = 1,220 µ$ each: six would cost 7,320 on 6,100 of credit.
    // A bytes ÷ 4 estimate (~760 tokens) would have let all six through.
    const k = await makeKey(d.primary.svc, { quotaMicros: 6_100 });
    const statuses = await parallel(k.key, 6, () => ({ model: 'bound-chat', max_tokens: 10, messages: [{ role: 'user', content: CHINESE_1000 }] }));
    expect(statuses.filter((s) => s === 200).length).toBe(5);
    const { rows, spent } = await settled(k.record.id, 6);
    expect(spent).toBeLessThanOrEqual(6_100);
    for (const row of rows.filter((r) => r.status === 200)) {
      expect(row.promptTokens).toBe(1200);
      // Charged its reservation (about 1,000 prompt tokens + 20 µ$ of output), not the 1,220 µ$ the usage prices at.
      expect(row.costMicros).toBeGreaterThanOrEqual(1020);
      expect(row.costMicros).toBeLessThan(1220);
    }
  });
});

describe('a translated stream is cut at the reservation too (the upstream speaks only chat and ignores every cap)', () => {
  let upstream: ModelUpstream;
  let h: Harness;

  beforeAll(async () => {
    upstream = await new ModelUpstream().start();
    upstream.script('POST', '/v1/chat/completions', (req, res) => answerCarelessly(req, res, false));
    h = await startGateway({
      upstream,
      withUpstream: false,
      env: { AI_PRICES: PRICES, AI_UPSTREAMS: JSON.stringify([{ name: 'chat-only', url: upstream.url, key: 'k', api: ['openai'], models: ['bound-*'] }]) },
    });
  });
  afterAll(async () => {
    await h?.close();
    await upstream?.stop();
  });

  async function billedOnce(keyId: string) {
    const [row] = await usageRows(h.svc, keyId, 1, 15_000);
    const key = (await h.svc.gateway.keys.get(keyId))!;
    return { row: row!, spent: key.spentMicros };
  }

  it('Anthropic Messages (max_tokens 1,000): ends with message_delta (max_tokens) and message_stop, billed the reservation', async () => {
    const k = await makeKey(h.svc, { quotaMicros: 1_000_000 });
    const client = new Anthropic({ baseURL: h.base, apiKey: k.key, maxRetries: 0 });
    const stream = client.messages.stream({ model: 'bound-chat', max_tokens: 1000, messages: [{ role: 'user', content: 'write forever' }] });
    let pieces = 0;
    const types: string[] = [];
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === 'content_block_delta') pieces++;
    }
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe('max_tokens');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(pieces).toBeGreaterThanOrEqual(990);
    expect(pieces).toBeLessThanOrEqual(1000);
    const { row, spent } = await billedOnce(k.record.id);
    expect(row.endReason).toBe('completed');
    // The reservation: the prompt estimate + 1,000 output tokens at 2 µ$, not the 10,000 the upstream sent.
    expect(row.costMicros).toBeGreaterThanOrEqual(2000);
    expect(row.costMicros).toBeLessThan(2100);
    expect(spent).toBe(row.costMicros);
  });

  it('Responses (no max_output_tokens): ends with response.incomplete (max_output_tokens) at the reserved 4,096, billed the reservation', async () => {
    const k = await makeKey(h.svc, { quotaMicros: 1_000_000 });
    const openai = openaiClient(h.base, k.key);
    const stream = await openai.responses.create({ model: 'bound-chat', input: 'write forever', stream: true });
    let pieces = 0;
    let lastType = '';
    let final: OpenAI.Responses.Response | undefined;
    for await (const ev of stream) {
      lastType = ev.type;
      if (ev.type === 'response.output_text.delta') pieces++;
      if (ev.type === 'response.incomplete' || ev.type === 'response.completed') final = ev.response;
    }
    expect(lastType).toBe('response.incomplete');
    expect(final?.incomplete_details?.reason).toBe('max_output_tokens');
    expect(pieces).toBeGreaterThanOrEqual(4000);
    expect(pieces).toBeLessThanOrEqual(4096);
    const { row, spent } = await billedOnce(k.record.id);
    expect(row.endReason).toBe('completed');
    expect(row.costMicros).toBeGreaterThanOrEqual(4096 * 2);
    expect(row.costMicros).toBeLessThan(4096 * 2 + 100);
    expect(spent).toBe(row.costMicros);
  });

  it('Gemini streamGenerateContent: the last chunk says MAX_TOKENS', async () => {
    const k = await makeKey(h.svc, { quotaMicros: 1_000_000 });
    const res = await postJson(h.base, '/v1beta/models/bound-chat:streamGenerateContent?alt=sse', { contents: [{ role: 'user', parts: [{ text: 'write forever' }] }], generationConfig: { maxOutputTokens: 500 } }, { 'x-goog-api-key': k.key });
    expect(res.status).toBe(200);
    const events = (await res.text()).split(/\r?\n\r?\n/).filter((e) => e.startsWith('data: ')).map((e) => JSON.parse(e.slice(6)) as { candidates: { finishReason?: string }[] });
    expect(events.length).toBeLessThanOrEqual(501);
    expect(events.at(-1)!.candidates[0]!.finishReason).toBe('MAX_TOKENS');
    const { row } = await billedOnce(k.record.id);
    expect(row.costMicros).toBeGreaterThanOrEqual(1000);
    expect(row.costMicros).toBeLessThan(1100);
  });
});
