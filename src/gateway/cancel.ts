/**
 * A call's cancellation: aborts its upstream request when the client leaves. undici takes any
 * EventEmitter with `aborted` and `reason` as a request's signal, and that is all the gateway
 * needs; an AbortController is not used because Node 20 builds each AbortSignal with
 * Object.setPrototypeOf, which cost about 10 µs a request in the gateway's profiles.
 */
import { EventEmitter } from 'node:events';

/** What an upstream request takes as its signal: a call's Cancel, or an AbortSignal (a probe's timeout). */
export type CancelSignal = Cancel | AbortSignal;

export class Cancel extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }

  /** A cancellation that aborts when any of these does. */
  static any(...all: Cancel[]): Cancel {
    const out = new Cancel();
    for (const c of all) {
      if (c.aborted) out.abort(c.reason);
      else c.once('abort', () => out.abort(c.reason));
    }
    return out;
  }
}
