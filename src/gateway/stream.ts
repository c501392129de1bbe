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
      boundary.push(chunk);
      bytes += chunk.length;
      lastWrite = Date.now();
      if (!res.write(chunk)) await waitDrainOrClose(res);
      if (clientGone) break;
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
