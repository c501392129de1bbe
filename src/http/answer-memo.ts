/**
 * The rendered answer of a request URL, reused for the same URL while nothing it was made from can
 * have changed: the snapshot or the day's history row is still the one the engine would read
 * (Engine.holds: at most a second, and dropped at once by a commit, a failure or a history write
 * of that key here) and its headers would come out the same (the max-age counts down by the
 * second; the data stays fresh). A repeated request then skips parameter parsing, the engine read
 * and the render lookup, which cost a cached answer more than writing it (BENCHMARKS.md, issue 15).
 *
 * Only answers that depend on nothing but the URL are kept: current stored data or a day's history
 * row (X-Cache HIT, no note), buffered, of routes without a client-address parameter, not feeds
 * (their self link is the caller's Host) and not POST. A URL whose meaning changes with the clock
 * (a default date of today) may answer the previous meaning for the rest of its second.
 */
import { readsRequestUrl, type Rendered } from '../encoding/index.ts';
import { setBounded } from '../kernel/bounded-map.ts';
import type { Engine, ReadResult, SnapshotLease } from '../kernel/engine.ts';
import type { Encoding } from '../kernel/source.ts';
import { isBuffered } from './apis-request.ts';

export interface Remembered {
  readonly answer: Rendered;
  readonly encoding: Encoding;
  readonly lease: SnapshotLease;
  /** Engine time (ms) from which the answer's headers would differ. */
  readonly until: number;
}

/** Caller-controlled keys: a bounded count (each entry holds its body and snapshot), and long URLs are not kept at all. */
const MAX_ENTRIES = 256;
const MAX_URL_LENGTH = 512;

export class AnswerMemo {
  private readonly entries = new Map<string, Remembered>();

  constructor(private readonly engine: Pick<Engine, 'holds' | 'now'>) {}

  /** The remembered answer of this URL while it is still what a new answer would be. */
  recall(url: string): Remembered | undefined {
    const entry = this.entries.get(url);
    if (!entry) return undefined;
    if (this.engine.now() < entry.until && this.engine.holds(entry.lease)) return entry;
    this.entries.delete(url);
    return undefined;
  }

  /** Keeps the answer of a read, rendered at engine time `now`, when it can be reused as is (see the file comment). */
  remember(url: string, encoding: Encoding, r: ReadResult, answer: Rendered, now: number): void {
    if (!r.lease || r.cache !== 'HIT' || r.note !== undefined || readsRequestUrl(encoding) || url.length > MAX_URL_LENGTH || !isBuffered(answer)) return;
    // Cache-Control's max-age is floor((expiresAt - now) / 1000) s: the same until this moment.
    // A day's history row never expires (a fixed max-age): only its lease ends the answer.
    const maxAge = r.expiresAt === null ? 0 : Math.floor((r.expiresAt - now) / 1000);
    const until = r.expiresAt === null ? Infinity : Math.min(r.expiresAt, r.expiresAt - maxAge * 1000 + 1);
    setBounded(this.entries, url, { answer, encoding, lease: r.lease, until }, MAX_ENTRIES);
  }
}
