/**
 * Streams an upstream body to the client as it arrives: each upstream chunk is written as is
 * (no re-serialisation, no batching) and the next is read only once the client has taken it,
 * so back-pressure reaches the upstream. A copy of each chunk feeds a tap that finds usage.
 * While the upstream is quiet, SSE comments keep idle proxies from closing the connection. An
 * upstream failure after the first byte becomes a final error (an SSE `data: {"error":…}` event
 * on /v1, the bare Google error object on /v1beta); a client that leaves aborts the upstream request.
 */
import type { ServerResponse } from 'node:http';
import { createParser } from 'eventsource-parser';
import { errorBody, type GatewayError, type GatewayFamily } from './errors.ts';
import { ClientGone, classifyUpstreamFailure, type UpstreamResponse } from './upstream.ts';

export type StreamEnd = 'completed' | 'client_closed' | 'upstream_error';

export interface StreamOptions {
  res: ServerResponse;
  up: UpstreamResponse;
  /** Response headers besides those already set on `res` (rate limits, request id). */
  headers: Record<string, string>;
  family: GatewayFamily;
  /** Whether the body is an SSE stream (else bytes such as audio or a JSON array stream). */
  sse: boolean;
  keepAliveMs: number;
  signal: AbortSignal;
  /** The data of each complete SSE event (SSE streams only). */
  onEvent?: (data: string) => void;
  /** Each raw chunk (for non-SSE streams). */
  onChunk?: (chunk: Buffer) => void;
  /** SSE only: events whose data this returns true for are not sent (the rest pass byte for byte). */
  dropEvent?: (data: string) => boolean;
}

export interface StreamResult {
  end: StreamEnd;
  error?: GatewayError;
  bytes: number;
}

const KEEP_ALIVE = Buffer.from(': keep-alive\n\n');

function waitDrainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function endResponse(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    res.once('finish', resolve);
    res.once('close', resolve);
    res.end();
  });
}

/** Whether the bytes sent so far end between two SSE events, where a comment or event may go. */
class BoundaryTracker {
  private tail = '\n\n';
  push(chunk: Buffer): void {
    const s = chunk.subarray(Math.max(0, chunk.length - 4)).toString('latin1');
    this.tail = (this.tail + s).slice(-4);
  }
  get atBoundary(): boolean {
    return this.tail.endsWith('\n\n') || this.tail.endsWith('\r\r') || this.tail.endsWith('\r\n\r\n');
  }
}

/** Cuts SSE text into whole events (each with its blank-line terminator), so one can be left out. */
export class EventCutter {
  private buf = '';
  push(text: string): string[] {
    this.buf += text;
    const out: string[] = [];
    const end = /\r\n\r\n|\n\n|\r\r/g;
    let from = 0;
    for (let m = end.exec(this.buf); m; m = end.exec(this.buf)) {
      out.push(this.buf.slice(from, m.index + m[0].length));
      from = m.index + m[0].length;
    }
    this.buf = this.buf.slice(from);
    return out;
  }
  /** Whatever followed the last complete event. */
  rest(): string {
    const r = this.buf;
    this.buf = '';
    return r;
  }
}

export function eventData(raw: string): string {
  return raw
    .split(/\r\n|\n|\r/)
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(l.startsWith('data: ') ? 6 : 5))
    .join('\n');
}

export async function relayStream(o: StreamOptions): Promise<StreamResult> {
  const { res, up } = o;
  let clientGone = false;
  const onClose = (): void => {
    if (!res.writableFinished) clientGone = true;
  };
  res.on('close', onClose);
  res.writeHead(up.status, o.headers);
  res.flushHeaders();

  const boundary = new BoundaryTracker();
  const decoder = new TextDecoder();
  const parser = o.sse && o.onEvent ? createParser({ onEvent: (ev) => o.onEvent!(ev.data) }) : undefined;
  const cutter = o.sse && o.dropEvent ? new EventCutter() : undefined;
  const cutDecoder = new TextDecoder();
  /** The bytes to send for one upstream chunk: all of it, or its events that are not dropped. */
  const outgoing = (chunk: Buffer): Buffer => {
    if (!cutter) return chunk;
    const kept = cutter.push(cutDecoder.decode(chunk, { stream: true })).filter((ev) => !o.dropEvent!(eventData(ev)));
    return Buffer.from(kept.join(''), 'utf8');
  };
  let bytes = 0;
  let lastWrite = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const keepAlive = (): void => {
    const quiet = Date.now() - lastWrite;
    if (quiet >= o.keepAliveMs && boundary.atBoundary && !res.writableNeedDrain && !res.writableEnded && !clientGone) {
      res.write(KEEP_ALIVE);
      lastWrite = Date.now();
    }
    timer = setTimeout(keepAlive, Math.max(10, o.keepAliveMs - (Date.now() - lastWrite)));
  };
  if (o.sse && o.keepAliveMs > 0) timer = setTimeout(keepAlive, o.keepAliveMs);

  try {
    for await (const piece of up.body) {
      const chunk = piece as Buffer;
      if (parser) parser.feed(decoder.decode(chunk, { stream: true }));
      o.onChunk?.(chunk);
      const out = outgoing(chunk);
      if (out.length === 0) continue;
      boundary.push(out);
      bytes += out.length;
      lastWrite = Date.now();
      if (!res.write(out)) await waitDrainOrClose(res);
      if (clientGone) break;
    }
    if (cutter) {
      const tail = cutter.rest() + cutDecoder.decode();
      if (tail) res.write(tail);
    }
    if (clientGone || o.signal.aborted) {
      up.body.destroy();
      return { end: 'client_closed', bytes };
    }
    if (parser) parser.feed(decoder.decode());
    await endResponse(res);
    return { end: clientGone ? 'client_closed' : 'completed', bytes };
  } catch (err) {
    const failure = classifyUpstreamFailure(err, o.signal);
    if (clientGone || failure instanceof ClientGone) return { end: 'client_closed', bytes };
    const gerr = failure as GatewayError;
    if (o.sse && o.family === 'gemini') {
      // The Google client raises ApiError for a network chunk that is a bare {"error":…} object, and
      // "Incomplete JSON segment" when unterminated bytes end a stream: either way the caller sees the failure.
      if (!boundary.atBoundary) res.write('\n\n');
      res.end(JSON.stringify(errorBody(gerr, o.family)));
    } else if (o.sse) {
      if (!boundary.atBoundary) res.write('\n\n');
      res.write(`data: ${JSON.stringify(errorBody(gerr, o.family))}\n\n`);
      res.end();
    } else {
      // A byte stream has no way to say "failed" once started: cut it so the client sees it is incomplete.
      res.destroy();
    }
    return { end: 'upstream_error', error: gerr, bytes };
  } finally {
    if (timer) clearTimeout(timer);
    res.off('close', onClose);
  }
}
