/**
 * Streams an upstream body to the client as it arrives: each upstream chunk is written as is
 * (no re-serialisation, no batching; only whole events when one may be left out or end the
 * stream) and the next is read only once the client has taken it, so back-pressure reaches the
 * upstream. One scan cuts an SSE body into events, whose data feeds a tap that finds usage.
 * While the upstream is quiet, SSE comments keep idle proxies from closing the connection. An
 * upstream failure after the first byte becomes a final error (an SSE `data: {"error":…}` event
 * on /v1, an `event: error` on the Anthropic routes, the bare Google error object on /v1beta); a
 * client that leaves aborts the upstream request.
 */
import type { ServerResponse } from 'node:http';
import type { CancelSignal } from './cancel.ts';
import { errorBody, type GatewayError, type GatewayFamily } from './errors.ts';
import type { SseEvent } from './translate/types.ts';
import { ClientGone, classifyUpstreamFailure, discardBody, type UpstreamResponse } from './upstream.ts';

export type StreamEnd = 'completed' | 'client_closed' | 'upstream_error';

export interface StreamOptions {
  res: ServerResponse;
  up: UpstreamResponse;
  /** All the response headers (see GatewayExchange.outgoingHeaders). */
  headers: Record<string, string | number>;
  family: GatewayFamily;
  /** Whether the body is an SSE stream (else bytes such as audio or a JSON array stream). */
  sse: boolean;
  keepAliveMs: number;
  signal: CancelSignal;
  /** The data of each complete SSE event (SSE streams only). */
  onEvent?: (data: string) => void;
  /** Each raw chunk (for non-SSE streams). */
  onChunk?: (chunk: Buffer) => void;
  /** SSE only: events whose data mentions "usage" and that this returns true for are not sent (the rest pass byte for byte). */
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

/**
 * Send a stream's headers without waiting for its first event, unless that event is already here:
 * flushed once the events that arrived with the headers have been written, so they usually leave
 * in one packet with the first event instead of a write of their own.
 */
export function flushHeadersSoon(res: ServerResponse): void {
  setImmediate(() => {
    // A no-op once they went out with the first event (`headersSent` is already true after writeHead).
    if (!res.writableEnded && !res.destroyed) res.flushHeaders();
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
 * Whole SSE events out of a byte stream (each with its blank-line terminator); the incomplete
 * tail waits for the next chunk. `push` returns the complete events' bytes in one piece (as they
 * came, when the chunk held no tail of an earlier one) and where each event ends in it.
 */
class EventSplitter {
  private pending = Buffer.alloc(0);

  push(chunk: Buffer): { bytes: Buffer; ends: number[] } {
    const b = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const crlf = b.includes(0x0d);
    const ends: number[] = [];
    let from = 0;
    for (let end = eventEnd(b, 0, crlf); end > 0; end = eventEnd(b, from, crlf)) {
      ends.push(end);
      from = end;
    }
    this.pending = from < b.length ? Buffer.from(b.subarray(from)) : Buffer.alloc(0);
    return { bytes: from === b.length ? b : b.subarray(0, from), ends };
  }

  rest(): Buffer {
    const r = this.pending;
    this.pending = Buffer.alloc(0);
    return r;
  }
}

const DATA_PREFIX = Buffer.from('data: ');

function startsWithDataPrefix(b: Buffer): boolean {
  for (let i = 0; i < DATA_PREFIX.length; i++) if (b[i] !== DATA_PREFIX[i]) return false;
  return true;
}

/**
 * One SSE event as the EventSource rules read it: its `event:` name and its `data:` lines joined
 * by newlines; undefined when it carries no data (a comment, a keep-alive), which is not dispatched.
 */
export function sseEvent(raw: string): SseEvent | undefined {
  const data: string[] = [];
  let event: string | undefined;
  // A byte order mark may open the stream (the EventSource rules drop it).
  for (const line of (raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw).split(/\r\n|\n|\r/)) {
    if (line === 'data' || line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    else if (line.startsWith('event:')) event = line.slice(line.startsWith('event: ') ? 7 : 6) || undefined;
  }
  const joined = data.join('\n');
  return joined ? { event, data: joined } : undefined;
}

/** The data of one SSE event ('' for none). */
export const eventData = (raw: string): string => sseEvent(raw)?.data ?? '';

/**
 * SSE events out of a byte stream, each as soon as it is complete (the translated streams read
 * them so; relayStream cuts its own, keeping the bytes). Written here rather than with
 * eventsource-parser so that both paths cut events with the one splitter.
 */
export class SseEvents {
  private readonly splitter = new EventSplitter();

  push(chunk: Buffer): SseEvent[] {
    const { bytes, ends } = this.splitter.push(chunk);
    const out: SseEvent[] = [];
    let from = 0;
    for (const end of ends) {
      const event = bytes.subarray(from, end);
      const e = isDataLine(event) ? { event: undefined, data: event.toString('utf8', 6, event.length - 2) } : sseEvent(event.toString('utf8'));
      if (e) out.push(e);
      from = end;
    }
    return out;
  }
}

/** Whether a whole event (with its terminator) is one `data: ` line ended by a blank line, as most are: its data is then read straight from the bytes. */
function isDataLine(event: Buffer): boolean {
  const end = event.length - 2;
  return end > 6 && event[end] === 0x0a && event[end + 1] === 0x0a && startsWithDataPrefix(event) && event.indexOf(0x0a, 6) === end && !event.includes(0x0d);
}

/** The data of one whole event (with its terminator). */
function dataOf(event: Buffer): string {
  return isDataLine(event) ? event.toString('utf8', 6, event.length - 2) : eventData(event.toString('utf8'));
}

/**
 * SSE comments written while a stream is quiet, so idle proxies keep its connection: one when
 * nothing was written for `everyMs` and `mayWrite` allows it (between two events, say). Whoever
 * writes calls `touch`; `stop` when the stream ends.
 */
export class KeepAlive {
  private last = Date.now();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly everyMs: number,
    private readonly mayWrite: () => boolean = () => true,
  ) {
    if (everyMs > 0) this.timer = setTimeout(this.tick, everyMs);
  }

  touch(): void {
    this.last = Date.now();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private readonly tick = (): void => {
    const res = this.res;
    if (Date.now() - this.last >= this.everyMs && !res.writableNeedDrain && !res.writableEnded && this.mayWrite()) {
      res.write(KEEP_ALIVE);
      this.touch();
    }
    this.timer = setTimeout(this.tick, Math.max(10, this.everyMs - (Date.now() - this.last)));
  };
}

export async function relayStream(o: StreamOptions): Promise<StreamResult> {
  const { res, up } = o;
  let clientGone = false;
  const onClose = (): void => {
    if (!res.writableFinished) clientGone = true;
  };
  res.on('close', onClose);
  res.writeHead(up.status, o.headers);
  flushHeadersSoon(res);

  const boundary = new BoundaryTracker();
  let bytes = 0;
  const keepAlive = new KeepAlive(res, o.sse ? o.keepAliveMs : 0, () => boundary.atBoundary && !clientGone);

  // One pass cuts the SSE stream into events: each is read (onEvent), may be left out (dropEvent),
  // and may end the stream (stopWhen). Bytes go out as they came unless an event may be left out
  // or end the stream: then only whole events go out.
  const splitter = o.sse && (o.onEvent || o.dropEvent || o.stopWhen) ? new EventSplitter() : undefined;
  const wholeEvents = o.dropEvent !== undefined || o.stopWhen !== undefined;
  /** The bytes of a chunk to pass on, and whether the stream stops after them. */
  const take = (chunk: Buffer): { data: Buffer; stop: boolean } => {
    if (!splitter) return { data: chunk, stop: false };
    const { bytes: events, ends } = splitter.push(chunk);
    /** Kept runs of events before the last one dropped; `keptFrom`: where the current run starts. */
    let kept: Buffer[] | undefined;
    let keptFrom = 0;
    let from = 0;
    let stop = false;
    for (const end of ends) {
      const event = events.subarray(from, end);
      const data = dataOf(event);
      if (data) o.onEvent?.(data);
      const mayDrop = o.dropEvent !== undefined && data.includes('"usage"');
      if (mayDrop && o.dropEvent!(data)) {
        if (from > keptFrom) (kept ??= []).push(events.subarray(keptFrom, from));
        keptFrom = end;
      }
      from = end;
      if (o.stopWhen?.()) {
        stop = true;
        break;
      }
    }
    if (!wholeEvents) return { data: chunk, stop: false };
    const last = events.subarray(keptFrom, from);
    if (!kept) return { data: last, stop };
    if (last.length) kept.push(last);
    return { data: kept.length === 1 ? kept[0]! : Buffer.concat(kept), stop };
  };

  try {
    for await (const piece of up.body) {
      const chunk = piece as Buffer;
      const { data: out, stop } = take(chunk);
      o.onChunk?.(chunk);
      // The upstream is not quiet, even when this chunk completes no event to send.
      keepAlive.touch();
      if (out.length > 0) {
        boundary.push(out);
        bytes += out.length;
        if (!res.write(out)) {
          await waitDrainOrClose(res);
          keepAlive.touch();
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
    if (splitter && wholeEvents) {
      // An unfinished last event goes out as it came.
      const rest = splitter.rest();
      if (rest.length) res.write(rest);
    }
    if (clientGone || o.signal.aborted) return { end: 'client_closed', bytes };
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
    keepAlive.stop();
    res.off('close', onClose);
    // Left unread (the client went, or the relay failed): undici reports that as an 'error'.
    if (!up.body.readableEnded) discardBody(up.body);
  }
}
