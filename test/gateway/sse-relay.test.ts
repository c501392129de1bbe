/**
 * The one-pass SSE relay (stream.ts `relayStream`) over a real HTTP response: events cut across
 * upstream chunks, CRLF and CR line ends, several data lines, comments and a last event without
 * its blank line, in the format of the WHATWG HTML standard's "Server-sent events" section
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation).
 * Each event's data is read once; an event may be left out (the usage-only chunk) or end the
 * stream, and everything else reaches the client byte for byte.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { relayStream, SseEvents, type StreamOptions, type StreamResult } from '../../src/gateway/stream.ts';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** Relays `chunks` (as an upstream body) to a real client; what the client read, and what the relay saw. */
async function relay(chunks: string[], opts: Partial<StreamOptions> = {}): Promise<{ body: string; events: string[]; result: StreamResult }> {
  const events: string[] = [];
  let result: StreamResult | undefined;
  const server = http.createServer(async (_req, res) => {
    const up = { status: 200, headers: {}, body: Readable.from(chunks.map((c) => Buffer.from(c, 'utf8'))) };
    result = await relayStream({ res, up, headers: { 'content-type': 'text/event-stream' }, family: 'openai', sse: true, keepAliveMs: 0, signal: new AbortController().signal, onEvent: (d) => events.push(d), ...opts });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const body = await new Promise<string>((resolve, reject) => {
    http.get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve(text));
    }).on('error', reject);
  });
  return { body, events, result: result! };
}

const chunk = (i: number) => `data: {"choices":[{"index":0,"delta":{"content":"tok${i} "}}]}\n\n`;
const usage = 'data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}\n\n';

describe('relayStream', () => {
  it('reads each event once, whole, however the upstream cut its bytes (a byte order mark first), and passes the bytes as they came', async () => {
    const stream = `\ufeff${chunk(0)}: a comment\n\n${chunk(1)}data: {"a":\r\ndata: 1}\r\n\r\nevent: x\rdata: é\r\rdata: [DONE]\n\n`;
    const cuts = [stream.slice(0, 10), stream.slice(10, 75), stream.slice(75, 140), stream.slice(140)];
    const { body, events, result } = await relay(cuts);
    expect(body).toBe(stream);
    expect(events).toEqual(['{"choices":[{"index":0,"delta":{"content":"tok0 "}}]}', '{"choices":[{"index":0,"delta":{"content":"tok1 "}}]}', '{"a":\n1}', 'é', '[DONE]']);
    expect(result).toMatchObject({ end: 'completed', bytes: Buffer.byteLength(stream) });
  });

  it('leaves out the events it is told to drop, keeps the rest byte for byte, and passes an unfinished last event as it came', async () => {
    const stream = `${chunk(0)}${usage}${chunk(1)}data: [DONE]\n\ndata: {"cut`;
    const { body, events } = await relay([stream.slice(0, 50), stream.slice(50, 130), stream.slice(130)], { dropEvent: (d) => d.includes('"choices":[]') });
    expect(body).toBe(`${chunk(0)}${chunk(1)}data: [DONE]\n\ndata: {"cut`);
    expect(events).toHaveLength(4);
    expect(events[1]).toContain('"usage"');
  });

  it('ends the stream right after the event that meets the stop condition, with the trailer', async () => {
    const stream = Array.from({ length: 10 }, (_, i) => chunk(i)).join('');
    let seen = 0;
    const { body, result } = await relay([stream], { onEvent: () => seen++, stopWhen: () => seen >= 3, stopTrailer: Buffer.from('data: [DONE]\n\n') });
    expect(body).toBe(`${chunk(0)}${chunk(1)}${chunk(2)}data: [DONE]\n\n`);
    expect(result.stopped).toBe(true);
  });
});

describe('SseEvents (the translated streams read events with the same splitter)', () => {
  it('names and data of each complete event, in the order they complete across chunks', () => {
    const events = new SseEvents();
    const chunks = ['\ufeffevent: message_start\r\ndata: {"type":"message_start"}\r\n\r\n: ping\r\n\r\nevent: content_block_delta\r\nda', 'ta: {"a":1}\r\n', 'data: {"b":2}\r\n\r\ndata: [DONE]\n\nevent: tail\ndata: {"cut":'];
    const read = chunks.flatMap((c) => events.push(Buffer.from(c, 'utf8')));
    expect(read).toEqual([
      { event: 'message_start', data: '{"type":"message_start"}' },
      { event: 'content_block_delta', data: '{"a":1}\n{"b":2}' },
      { event: undefined, data: '[DONE]' },
    ]);
  });

  it('keeps a character split between chunks whole', () => {
    const events = new SseEvents();
    const bytes = Buffer.from('data: {"text":"热点"}\n\n', 'utf8');
    const cut = bytes.indexOf(Buffer.from('点', 'utf8')) + 1;
    expect([...events.push(bytes.subarray(0, cut)), ...events.push(bytes.subarray(cut))]).toEqual([{ event: undefined, data: '{"text":"热点"}' }]);
  });
});
