/**
 * Streams an upstream body to the client as it arrives: each upstream chunk is written as is
 * (no re-serialisation, no batching) and the next is read only once the client has taken it,
 * so back-pressure reaches the upstream. A copy of each chunk feeds a tap that finds usage.
 * While the upstream is quiet, SSE comments keep idle proxies from closing the connection. An
 * upstream failure after the first byte becomes a final error (an SSE `data: {"error":…}` event
 * on /v1, an `event: error` on the Anthropic routes, the bare Google error object on /v1beta); a
 * client that leaves aborts the upstream request.
 */
import type { ServerResponse } from 'node:http';
import { createParser } from 'eventsource-parser';
import { errorBody, type GatewayError, type GatewayFamily } from './errors.ts';
import { ClientGone, classifyUpstreamFailure, discardBody, type UpstreamResponse } from './upstream.ts';

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
  /** SSE only: events that mention "usage" and whose data this returns true for are not sent (the rest pass byte for byte). */
  dropEvent?: (data: string) => boolean;
  /**
   * SSE only: asked after each chunk is sent; true ends the stream there (the upstream request is
   * cut) with `stopTrailer` as its last event, as a stream that ran out of what was reserved.
   */
  stopWhen?: () => boolean;
  stopTrailer?: Buffer;
}

export interface StreamResult {
  end: StreamEnd;
  error?: GatewayError;
  bytes: number;
  /** Ended by `stopWhen`. */
  stopped?: boolean;
}

const KEEP_ALIVE = Buffer.from(': keep-alive\n\n');

/** Until the response can take more bytes (or the client left). */
export function waitDrainOrClose(res: ServerResponse): Promise<void> {
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

const LF2 = Buffer.from('\n\n');

/** The end (after its blank line: \n\n, \r\r or \r\n\r\n) of the first event from `from`; -1 if incomplete. */
function eventEnd(b: Buffer, from: number, crlf: boolean): number {
  if (!crlf) {
    const i = b.indexOf(LF2, from);
    return i < 0 ? -1 : i + 2;
  }
  for (let i = from; i < b.length - 1; i++) {
    const c = b[i];
    if (c === 0x0a && b[i + 1] === 0x0a) return i + 2;
    if (c === 0x0d && b[i + 1] === 0x0d) return i + 2;
    if (c === 0x0d && b[i + 1] === 0x0a && b[i + 2] === 0x0d && b[i + 3] === 0x0a) return i + 4;
  }
  return -1;
}

/**
 * Cuts an SSE byte stream into whole events (each with its blank-line terminator) so one can
 * be left out. Works on bytes: only an event that contains `mark` is decoded and judged.
 */
export class EventCutter {
  private pending: Buffer = Buffer.alloc(0);
  constructor(
    private readonly mark: Buffer,
    private readonly drop: (data: string) => boolean,
  ) {}

  /** The bytes to send now: every complete event that is kept (the incomplete tail waits). */
  push(chunk: Buffer): Buffer[] {
    const b = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const out: Buffer[] = [];
    let from = 0;
    let keptFrom = 0;
    const crlf = b.includes(0x0d);
    for (let end = eventEnd(b, 0, crlf); end > 0; end = eventEnd(b, from, crlf)) {
      const event = b.subarray(from, end);
      if (event.includes(this.mark) && this.drop(eventData(event.toString('utf8')))) {
        if (from > keptFrom) out.push(b.subarray(keptFrom, from));
        keptFrom = end;
      }
      from = end;
    }
    if (from > keptFrom) out.push(b.subarray(keptFrom, from));
    this.pending = Buffer.from(b.subarray(from));
    return out;
  }

  /** Whatever followed the last complete event. */
  rest(): Buffer {
    const r = this.pending;
    this.pending = Buffer.alloc(0);
    return r;
  }
}

/** Whole SSE events out of a byte stream (each with its terminator); the incomplete tail waits. */
class EventSplitter {
  private pending = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    const b = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const crlf = b.includes(0x0d);
    const events: Buffer[] = [];
    let from = 0;
    for (let end = eventEnd(b, 0, crlf); end > 0; end = eventEnd(b, from, crlf)) {
      events.push(b.subarray(from, end));
      from = end;
    }
    this.pending = Buffer.from(b.subarray(from));
    return events;
  }

  rest(): Buffer {
    const r = this.pending;
    this.pending = Buffer.alloc(0);
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
  const cutter = o.sse && o.dropEvent ? new EventCutter(Buffer.from('"usage"'), o.dropEvent) : undefined;
  /** The bytes to send for one upstream chunk: all of it, or its events that are not dropped. */
  const outgoing = (chunk: Buffer): Buffer => {
    if (!cutter) return chunk;
    const kept = cutter.push(chunk);
    return kept.length === 1 ? kept[0]! : Buffer.concat(kept);
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

  // With a stop condition, events are parsed one by one and the stream ends right after the one that meets it.
  const splitter = o.sse && o.stopWhen ? new EventSplitter() : undefined;
  /** The bytes of a chunk to pass on, and whether the stream stops after them. */
  const take = (chunk: Buffer): { data: Buffer; stop: boolean } => {
    if (!splitter) {
      if (parser) parser.feed(decoder.decode(chunk, { stream: true }));
      return { data: chunk, stop: false };
    }
    const events = splitter.push(chunk);
    for (let i = 0; i < events.length; i++) {
      parser?.feed(decoder.decode(events[i], { stream: true }));
      if (o.stopWhen!()) return { data: Buffer.concat(events.slice(0, i + 1)), stop: true };
    }
    return { data: events.length === 1 ? events[0]! : Buffer.concat(events), stop: false };
  };

  try {
    for await (const piece of up.body) {
      const chunk = piece as Buffer;
      const { data, stop } = take(chunk);
      o.onChunk?.(chunk);
      // The upstream is not quiet, even when this chunk completes no event to send.
      lastWrite = Date.now();
      const out = outgoing(data);
      if (out.length > 0) {
        boundary.push(out);
        bytes += out.length;
        if (!res.write(out)) {
          await waitDrainOrClose(res);
          lastWrite = Date.now();
        }
      }
      if (clientGone) break;
      if (stop) {
        if (!boundary.atBoundary) res.write('\n\n');
        if (o.stopTrailer) res.write(o.stopTrailer);
        await endResponse(res);
        return { end: clientGone ? 'client_closed' : 'completed', bytes, stopped: true };
      }
    }
    if (splitter) {
      const rest = splitter.rest();
      if (rest.length) {
        parser?.feed(decoder.decode(rest, { stream: true }));
        const out = outgoing(rest);
        if (out.length) res.write(out);
      }
    }
    if (cutter) {
      const tail = cutter.rest();
      if (tail.length) res.write(tail);
    }
    if (clientGone || o.signal.aborted) return { end: 'client_closed', bytes };
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
      // Anthropic's clients read a failure as its `error` event; the others as a data-only event.
      res.write(`${o.family === 'anthropic' ? 'event: error\n' : ''}data: ${JSON.stringify(errorBody(gerr, o.family))}\n\n`);
      res.end();
    } else {
      // A byte stream has no way to say "failed" once started: cut it so the client sees it is incomplete.
      res.destroy();
    }
    return { end: 'upstream_error', error: gerr, bytes };
  } finally {
    if (timer) clearTimeout(timer);
    res.off('close', onClose);
    // Left unread (the client went, or the relay failed): undici reports that as an 'error'.
    if (!up.body.readableEnded) discardBody(up.body);
  }
}
