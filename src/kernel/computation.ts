/**
 * What a local source's computation is given (LocalContext) and what it answers (a ReadResult of
 * cache NONE), as classes whose lazy parts (the logger, the deadline, the payload's SHA-1) are
 * getters on the prototype. They were object literals with getters, which V8 builds through the
 * runtime on every call: that cost a new hash content more than its JSON (BENCHMARKS.md, issue 15).
 */
import type { HttpClient } from './http.ts';
import type { ListAccess } from './list-access.ts';
import type { Logger } from './log.ts';
import type { AnyParams, AnySource, LocalContext } from './source.ts';
import { sha1 } from './digest.ts';
import type { CacheState, ReadResult } from './engine.ts';

/** What the engine lends every computation. */
export interface ComputationHost {
  readonly log: Logger;
  readonly shutdown: AbortSignal;
  /** Milliseconds a computation may take when it asks for a signal. */
  readonly timeoutMs: number;
  now(): number;
  env(source: AnySource, name: string): string | undefined;
}

export class ComputeContext implements LocalContext<unknown> {
  feed?: { data: unknown; fetchedAt: number };
  #lists: ListAccess | undefined;
  /** Whether the computation asked for the stored lists (its answer then depends on the store). */
  readLists = false;
  #log: Logger | undefined;
  #signal: AbortSignal | undefined;

  constructor(
    private readonly host: ComputationHost,
    private readonly source: AnySource,
    readonly clientIp: string,
    readonly http: HttpClient,
    feed: { data: unknown; fetchedAt: number } | undefined,
    lists: ListAccess | undefined,
  ) {
    if (feed) this.feed = feed;
    this.#lists = lists;
  }

  get lists(): ListAccess | undefined {
    this.readLists = true;
    return this.#lists;
  }

  now(): Date {
    return new Date(this.host.now());
  }

  env(name: string): string | undefined {
    return this.host.env(this.source, name);
  }

  /** Made on first use: most computations neither log nor wait, and a child logger plus a timer cost more than a short computation. */
  get log(): Logger {
    return (this.#log ??= this.host.log.child({ source: this.source.id }));
  }

  get signal(): AbortSignal {
    return (this.#signal ??= AbortSignal.any([this.host.shutdown, AbortSignal.timeout(this.host.timeoutMs)]));
  }
}

/** A computation's JSON text, and its SHA-1 once asked for. */
export interface Serialized {
  readonly payload: string;
  hash: string | undefined;
}

export class ComputedResult implements ReadResult {
  readonly cache: CacheState = 'NONE';
  readonly expiresAt = null;

  constructor(
    readonly source: AnySource,
    readonly params: AnyParams,
    readonly paramsKey: string,
    readonly data: unknown,
    private readonly serialized: Serialized,
    readonly fetchedAt: number,
  ) {}

  get payload(): string {
    return this.serialized.payload;
  }

  /**
   * A computed answer (cache NONE) is neither stored nor kept rendered, and its text answers carry
   * an ETag of their own body: the payload's SHA-1 is worked out only when asked for.
   */
  get hash(): string {
    return (this.serialized.hash ??= sha1(this.serialized.payload));
  }

  get historyParamsKey(): string {
    return this.paramsKey;
  }
}
