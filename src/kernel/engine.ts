/**
 * The refresh engine: reads serve stored data, runs fetch it. Requests never wait on an
 * upstream while any data exists (stale-while-revalidate); a cold key waits once, coalesced
 * with every other caller (single-flight); a failed, empty or rejected fetch never overwrites
 * the last good data and sets an exponential backoff (capped, never parked for good).
 */
import { sha1 } from './digest.ts';
import type { Got } from 'got';
import { contentHash } from './archive.ts';
import { setBounded } from './bounded-map.ts';
import { ComputeContext, ComputedResult, type ComputationHost, type Serialized } from './computation.ts';
import { isArchived, type Moment } from './archive-params.ts';
import { readSnapshotAt } from './archive-read.ts';
import { AppError, SourceError, StoreUnavailableError, isCallerError, upstreamUnavailable } from './errors.ts';
import { createHttpClient, type HttpClient, type HttpSettings } from './http.ts';
import type { ItemIndex } from './item-index.ts';
import type { ListAccess } from './list-access.ts';
import { listItems } from './list-items.ts';
import type { Logger } from './log.ts';
import { paramsKey, parseParams } from './params.ts';
import { Semaphore } from './semaphore.ts';
import type { AnyParams, AnySource, FeedHistoryEntry, FetchedSource, LocalContext, Row, ScheduledSource } from './source.ts';
import { StoredData } from './stored-data.ts';
import type { HistoryEntry, Snapshot, Store } from './store.ts';
import { formatDate, isIsoDate } from './time.ts';

/** HISTORY: a dated snapshot from the archive, asked for with `date` or `at`. */
export type CacheState = 'HIT' | 'STALE' | 'MISS' | 'NONE' | 'HISTORY';

export interface ReadResult {
  source: AnySource;
  params: AnyParams;
  paramsKey: string;
  /** The data as JSON text (what the store holds). */
  payload: string;
  /** The data, parsed once per payload. */
  data: unknown;
  hash: string;
  /** When the data was fetched (ms); computation time for local sources. */
  fetchedAt: number;
  expiresAt: number | null;
  cache: CacheState;
  /** Why the data is older than asked for, when it is (failed refresh, throttled force-update). */
  note?: string;
  /** paramsKey under which this source's history rows live. */
  historyParamsKey: string;
  /** For an archived snapshot (cache HISTORY): the moment asked about. */
  asOf?: number;
  /**
   * Changes whenever this process writes a history row under historyParamsKey (a dated fetch can
   * add one without changing this snapshot): renderings made from history are kept under it.
   */
  historyVersion?: number;
  /**
   * For a current snapshot or a day's history row: the engine's claim that it is still the one a
   * read of this key would find (see Engine.holds); absent for computed and archived answers.
   */
  lease?: SnapshotLease;
}

/** The engine's remembered read of one key (opaque outside the engine). */
export interface SnapshotLease {
  readonly key: string;
  /** Date.now() after which the key is read from the store again. */
  readonly until: number;
}

interface CurrentLease extends SnapshotLease {
  readonly snap: Snapshot | undefined;
}

interface HistoryLease extends SnapshotLease {
  readonly entry: HistoryEntry | undefined;
  /** historyWrites of `writesKey` when the row was read: a later write here makes it stale. */
  readonly version: number;
  readonly writesKey: string;
}

export interface EngineDeps {
  store: Store;
  log: Logger;
  httpBase: Got;
  httpSettings: HttpSettings;
  env: Readonly<Record<string, string | undefined>>;
  concurrency: number;
  forceUpdateIntervalSec: number;
  now?: () => number;
  random?: () => number;
  /** Observer of every finished fetch run (metrics); called after the run is recorded, must not throw. */
  onRun?: (event: RunEvent) => void;
  /** Where the items of every committed scheduled list are recorded (timelines). */
  itemIndex?: ItemIndex;
  /** Read access to the stored lists, handed to local sources as `LocalContext.lists`. */
  lists?: ListAccess;
}

/** What an `onRun` observer learns about one fetch run. */
export interface RunEvent {
  sourceId: string;
  paramsKey: string;
  outcome: 'ok' | 'unchanged' | 'failed';
  ms: number;
  /** The SourceError kind of a failed run. */
  kind?: string;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_BACKOFF_CAP_SEC = 3_600;
const DEFAULT_MAX_KEYS = 500;
/** Longest wait of a request for the first fetch of a local source's feed (`awaitFirst`). */
const AWAIT_FIRST_MS = 10_000;
const SNAPSHOT_MEMO_MS = 1_000;
/** Computed results whose JSON text is remembered (see Engine.serialized). */
const SERIALIZED_KEPT = 256;
/** Keys whose last good data this process keeps in memory for an outage of the store (see Engine.lastGood). */
const LAST_GOOD_KEPT = 1000;

/** Guid of a list row: stable across refreshes (link, else a hash of the title). */
export function rowGuid(sourceId: string, row: Row): string {
  return row.guid ?? row.link ?? `${sourceId}:${sha1(row.title).slice(0, 16)}`;
}

/**
 * Delay before the next attempt after `failures` consecutive failures:
 * min(base · 2^(n−1), cap) · (0.5 + random/2), base = max(60 s, ttl/4); blocked starts at cap/4.
 */
export function backoffMs(failures: number, ttlSec: number, capSec: number, kind: string, random: number): number {
  const base = Math.max(60, ttlSec / 4);
  let delay = Math.min(base * 2 ** Math.max(0, failures - 1), capSec);
  if (kind === 'blocked') delay = Math.max(delay, capSec / 4);
  return Math.round(delay * 1000 * (0.5 + random / 2));
}

/** The note of an answer served from memory while the store is unreachable. */
function outageNote(err: StoreUnavailableError): string {
  return `the data store (${err.storeName}) is unreachable; the last data this instance read is served`;
}

/** A computed result as a plain read result (its getters read once), to be served again later. */
function snapshotOf(r: ReadResult): ReadResult {
  return { source: r.source, params: r.params, paramsKey: r.paramsKey, payload: r.payload, data: r.data, hash: r.hash, fetchedAt: r.fetchedAt, expiresAt: null, cache: r.cache, historyParamsKey: r.historyParamsKey };
}

export class Engine {
  private readonly inflight = new Map<string, Promise<Snapshot>>();
  private readonly lastForced = new Map<string, number>();
  private readonly gate: Semaphore;
  private readonly clients = new Map<string, HttpClient>();
  private readonly parsed = new Map<string, unknown>();
  /** historyParamsKey of each `sourceId|paramsKey` read. */
  private readonly historyKeys = new Map<string, string>();
  /**
   * JSON text and hash of the data the last computations returned (a source that keeps its results
   * returns the same object again). A bounded Map rather than a WeakMap: an entry per computation
   * in a WeakMap cost a stream of new results more in garbage collection than the JSON it saves.
   */
  private readonly serialized = new Map<object, Serialized>();
  /** Writes of history rows by this process, per `sourceId|historyParamsKey` (see ReadResult.historyVersion). */
  private readonly historyWrites = new Map<string, number>();
  private readonly stored = new StoredData();
  private readonly memo = new Map<string, CurrentLease>();
  /**
   * The last snapshot with data, the last history row and the last computation over the stored
   * lists read per key: what a read answers (STALE, with a note) while the store is unreachable.
   */
  private readonly lastGood = new Map<string, Snapshot>();
  private readonly lastHistory = new Map<string, HistoryEntry>();
  private readonly lastComputed = new Map<string, ReadResult>();
  private readonly lastFeeds = new Map<string, FeedHistoryEntry<unknown>[]>();
  private readonly historyMemo = new Map<string, HistoryLease>();
  private readonly feeds = new WeakMap<AnySource, ScheduledSource<Record<string, never>, unknown>>();
  /** The scheduled forms of local sources' feeds: run like scheduled sources, never archived. */
  private readonly feedViews = new WeakSet<AnySource>();
  private readonly warmKeys = new WeakMap<AnySource, ReadonlySet<string>>();
  private readonly shutdown = new AbortController();
  readonly now: () => number;
  private readonly random: () => number;
  /** What every local computation is lent (see computation.ts). */
  private readonly computationHost: ComputationHost;

  constructor(private readonly deps: EngineDeps) {
    this.gate = new Semaphore(deps.concurrency);
    this.now = deps.now ?? Date.now;
    this.random = deps.random ?? Math.random;
    this.computationHost = {
      log: deps.log,
      shutdown: this.shutdown.signal,
      timeoutMs: DEFAULT_TIMEOUT_MS,
      now: this.now,
      env: (source, name) => this.env(source, name),
    };
  }

  /**
   * The stored snapshot, remembered for up to a second: a hot key is read from the store about
   * once a second instead of on every request. Commits and failures here drop the memo at once;
   * another instance's writes (shared database) are seen within the second.
   */
  private async snapshot(memoKey: string, sourceId: string, key: string): Promise<CurrentLease> {
    const now = Date.now();
    const hit = this.remembered(memoKey, now);
    if (hit) return hit;
    const snap = await this.deps.store.getSnapshot(sourceId, key);
    if (snap?.payload) setBounded(this.lastGood, memoKey, snap, LAST_GOOD_KEPT);
    if (this.memo.size > 5000) this.memo.clear();
    const lease = { key: memoKey, snap, until: now + SNAPSHOT_MEMO_MS };
    this.memo.set(memoKey, lease);
    return lease;
  }

  /** The memo entry of a snapshot while its second lasts (read without waiting a turn). */
  private remembered(memoKey: string, now: number): CurrentLease | undefined {
    const hit = this.memo.get(memoKey);
    return hit && hit.until > now ? hit : undefined;
  }

  /**
   * Whether a read's snapshot or history row is still the one a read of its key would find now:
   * its second has not passed and no commit, failure or history write here dropped it (another
   * instance's writes are seen once the second has passed, as for every read). Answers built
   * from it may be reused meanwhile.
   */
  holds(lease: SnapshotLease): boolean {
    if (lease.until <= Date.now()) return false;
    if (this.memo.get(lease.key) === lease) return true;
    const history = this.historyMemo.get(lease.key);
    return history === lease && history.version === this.historyVersion(history.writesKey);
  }

  /** The key of historyWrites, and its count of this process's writes (0 before the first). */
  private historyWritesKey(sourceId: string, historyParamsKey: string): string {
    return `${sourceId}|${historyParamsKey}`;
  }

  private historyVersion(writesKey: string): number {
    return this.historyWrites.get(writesKey) ?? 0;
  }

  /**
   * A day's history row (a dated read such as 60s's `date`), remembered like a snapshot: read from
   * the store about once a second, and at once after this process writes history for the key.
   */
  private async historyEntry(sourceId: string, historyParamsKey: string, day: string): Promise<HistoryLease> {
    const writesKey = this.historyWritesKey(sourceId, historyParamsKey);
    const version = this.historyVersion(writesKey);
    const memoKey = `${writesKey}|${day}`;
    const now = Date.now();
    const hit = this.historyMemo.get(memoKey);
    if (hit && hit.until > now && hit.version === version) return hit;
    const entry = await this.deps.store.getHistory(sourceId, historyParamsKey, day);
    if (entry) setBounded(this.lastHistory, memoKey, entry, LAST_GOOD_KEPT);
    if (this.historyMemo.size > 5000) this.historyMemo.clear();
    const lease = { key: memoKey, entry, version, writesKey, until: now + SNAPSHOT_MEMO_MS };
    this.historyMemo.set(memoKey, lease);
    return lease;
  }

  /** Abort in-flight runs and refuse new ones. */
  stop(): void {
    this.shutdown.abort();
  }

  /** The per-source HTTP client (default headers, concurrency limit). */
  http(source: AnySource): HttpClient {
    let c = this.clients.get(source.id);
    if (!c) {
      const env = (name: string) => this.env(source, name);
      // A local source's feed (see LocalFeed) declares the headers and concurrency of its upstream.
      const decl = source.mode === 'local' ? source.feed : source;
      const headers = decl?.headers ? (typeof decl.headers === 'function' ? decl.headers(env) : decl.headers) : undefined;
      c = createHttpClient(this.deps.httpBase, this.deps.httpSettings, {
        ...(headers ? { headers } : {}),
        ...(decl?.concurrency ? { concurrency: decl.concurrency } : {}),
        signal: this.shutdown.signal,
      });
      this.clients.set(source.id, c);
    }
    return c;
  }

  env(source: AnySource, name: string): string | undefined {
    const spec = source.env?.find((e) => e.name === name);
    if (!spec) throw new Error(`${source.id} reads ${name}, which it does not declare in env`);
    const v = this.deps.env[name];
    return v === undefined || v === '' ? spec.default : v;
  }

  private parse(hash: string, payload: string): unknown {
    let data = this.parsed.get(hash);
    if (data === undefined) {
      data = JSON.parse(payload) as unknown;
      if (this.parsed.size > 1000) this.parsed.clear();
      this.parsed.set(hash, data);
    }
    return data;
  }

  /**
   * The snapshot with its data in the source's current shape (see stored-data.ts): data an older
   * version stored in another shape is upgraded by the source's `migrate`, so it is served (and
   * handed to `fetch` as previous) like data fetched today. Data the source cannot read at all
   * is left out; the key then counts as cold (the stored row stays until a fetch succeeds).
   */
  private usable(source: FetchedSource, snap: Snapshot | undefined): Snapshot | undefined {
    if (!snap?.payload || !snap.payloadHash) return snap;
    const cur = this.stored.current(source, snap.payload, snap.payloadHash);
    if (!cur) return { ...snap, payload: null, payloadHash: null };
    if (!cur.upgraded) return snap;
    this.remember(cur.hash, cur.data);
    return { ...snap, payload: cur.payload, payloadHash: cur.hash };
  }

  /** A history row in the source's current shape, or undefined when the source cannot read it. */
  private currentHistory(source: FetchedSource, h: HistoryEntry): HistoryEntry | undefined {
    const cur = this.stored.current(source, h.payload, h.payloadHash);
    if (!cur) return undefined;
    this.remember(cur.hash, cur.data);
    return cur.upgraded ? { ...h, payload: cur.payload, payloadHash: cur.hash } : h;
  }

  private remember(hash: string, data: unknown): void {
    if (this.parsed.size > 1000) this.parsed.clear();
    this.parsed.set(hash, data);
  }

  /** The params key under which a source's history rows for these parameters live. */
  historyParamsKey(source: AnySource, params: AnyParams): string {
    const h = 'history' in source ? source.history : undefined;
    if (!h?.omit?.length) return paramsKey(params, h?.param);
    const drop = new Set<string>([...h.omit, ...(h.param ? [h.param] : [])]);
    return paramsKey(Object.fromEntries(Object.entries(params).filter(([k]) => !drop.has(k))));
  }

  /**
   * A source's stored history under a history params key, newest first, in the source's current
   * shape. Rows keyed by day (the usual history key) are ordered by their day, not by when they
   * were written: a backfill writes older days after newer ones, and a refresh rewrites a day's
   * row. With `asOf`, only rows that existed then: a day's row from its day on.
   */
  private async historyRows(source: FetchedSource, historyParamsKey: string, limit: number, asOf?: number): Promise<HistoryEntry[]> {
    if (!source.history) return [];
    // Rows by write time; read a margin more so that re-ordering by day and `asOf` still fill `limit`.
    const rows = await this.deps.store.listHistory(source.id, historyParamsKey, limit + 60);
    const day = asOf === undefined ? undefined : formatDate(asOf);
    return rows
      .filter((h) => asOf === undefined || (isIsoDate(h.historyKey) ? h.historyKey <= (day as string) : h.fetchedAt <= asOf))
      .sort((a, b) => (isIsoDate(a.historyKey) && isIsoDate(b.historyKey) ? b.historyKey.localeCompare(a.historyKey) : b.fetchedAt - a.fetchedAt))
      .flatMap((h) => this.currentHistory(source, h) ?? [])
      .slice(0, limit);
  }

  /** A source's stored history for these parameters, newest first (FetchContext.history). */
  private async historyOf(source: FetchedSource, params: AnyParams, limit: number): Promise<{ data: unknown; fetchedAt: number }[]> {
    const rows = await this.historyRows(source, this.historyParamsKey(source, params), limit);
    return rows.map((h) => ({ data: this.parse(h.payloadHash, h.payload), fetchedAt: h.fetchedAt }));
  }

  /**
   * The history behind an answer's RSS feed (`view.feedFromHistory`): the newest `limit` entries,
   * as the feed stood at the answer's moment for an archived snapshot (`asOf`).
   */
  async feedHistory(r: ReadResult, limit: number): Promise<FeedHistoryEntry<unknown>[]> {
    if (r.source.mode === 'local') return [];
    const key = `${r.source.id}|${r.historyParamsKey}|${limit}|${r.asOf ?? ''}`;
    let rows;
    try {
      rows = await this.historyRows(r.source, r.historyParamsKey, limit, r.asOf);
    } catch (err) {
      // The store is unreachable: the feed as this process last read it, else the answer's own entry.
      if (err instanceof StoreUnavailableError) return this.lastFeeds.get(key) ?? [];
      throw err;
    }
    const entries = rows.map((h) => ({ data: this.parse(h.payloadHash, h.payload), fetchedAt: h.fetchedAt }));
    setBounded(this.lastFeeds, key, entries, 64);
    return entries;
  }

  private fromSnapshot(source: AnySource, params: AnyParams, key: string, snap: Snapshot, cache: CacheState, note?: string, lease?: CurrentLease): ReadResult {
    const payload = snap.payload as string;
    const hash = snap.payloadHash as string;
    // Asked on every read of a hot key: kept per key rather than rebuilt from the parameters.
    const memoKey = `${source.id}|${key}`;
    let historyParamsKey = this.historyKeys.get(memoKey);
    if (historyParamsKey === undefined) {
      if (this.historyKeys.size > 1000) this.historyKeys.clear();
      this.historyKeys.set(memoKey, (historyParamsKey = this.historyParamsKey(source, params)));
    }
    return {
      source,
      params,
      paramsKey: key,
      payload,
      data: this.parse(hash, payload),
      hash,
      fetchedAt: snap.fetchedAt as number,
      expiresAt: snap.expiresAt,
      cache,
      historyParamsKey,
      historyVersion: this.historyVersion(this.historyWritesKey(source.id, historyParamsKey)),
      ...(note ? { note } : {}),
      ...(lease ? { lease } : {}),
    };
  }

  /**
   * The scheduled-source form of a local source's feed (see LocalFeed): same id, no parameters
   * (params key `''`), run by the scheduler and `run()` like any scheduled source. Undefined for
   * sources without a feed.
   */
  feedSource(source: AnySource): ScheduledSource<Record<string, never>, unknown> | undefined {
    if (source.mode !== 'local' || !source.feed) return undefined;
    let fs = this.feeds.get(source);
    if (!fs) {
      const feed = source.feed;
      fs = {
        id: source.id,
        name: source.name,
        description: source.description,
        routes: source.routes,
        example: source.example,
        ...(source.env ? { env: source.env } : {}),
        mode: 'scheduled',
        schedule: feed.schedule,
        freshness: feed.freshness,
        fetch: (ctx) => feed.fetch(ctx),
        validate: (data) => feed.validate(data),
        ...(feed.migrate ? { migrate: (stored: unknown) => feed.migrate!(stored) } : {}),
        ...(feed.count ? { count: (data: unknown) => feed.count!(data) } : {}),
        view: {},
      };
      this.feeds.set(source, fs);
      this.feedViews.add(fs);
    }
    return fs;
  }

  /** The last good feed data of a local source; starts a background refresh when missing or expired. */
  private async readFeed(source: AnySource & { mode: 'local' }): Promise<LocalContext<unknown>['feed']> {
    const fs = this.feedSource(source);
    if (!fs) return undefined;
    const now = this.now();
    let snap: Snapshot | undefined;
    try {
      snap = this.usable(fs, (await this.snapshot(`${fs.id}|`, fs.id, '')).snap);
    } catch (err) {
      // The store is unreachable: the feed data this process read last, if any.
      snap = err instanceof StoreUnavailableError ? this.usable(fs, this.lastGood.get(`${fs.id}|`)) : undefined;
      if (!snap?.payload) throw err;
    }
    const backingOff = !!snap?.nextAttemptAt && snap.nextAttemptAt > now;
    if (!snap?.payload && source.feed?.awaitFirst && (!backingOff || this.inflight.has(`${fs.id}|`))) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waited = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), AWAIT_FIRST_MS);
      });
      try {
        snap = (await Promise.race([this.run(fs, {}, ''), waited])) ?? snap;
      } catch {
        /* recorded by run(); the source answers without feed data */
      } finally {
        clearTimeout(timer);
      }
    } else if (!snap?.payload || snap.expiresAt === null || snap.expiresAt <= now) {
      this.soon(fs, {}, '', snap);
    }
    if (!snap?.payload || !snap.payloadHash || snap.fetchedAt === null) return undefined;
    return { data: this.parse(snap.payloadHash, snap.payload), fetchedAt: snap.fetchedAt };
  }

  /** Compute a local source's answer. */
  async compute(source: AnySource & { mode: 'local' }, params: AnyParams, request: { clientIp: string }): Promise<ReadResult> {
    const feed = source.feed ? await this.readFeed(source) : undefined;
    const now = this.now();
    const ctx = new ComputeContext(this.computationHost, source, request.clientIp, this.http(source), feed, this.deps.lists);
    let data: unknown;
    try {
      const computed = source.compute(ctx, params);
      data = computed instanceof Promise ? await computed : computed;
    } catch (err) {
      // A computation over the stored lists while the store is unreachable: its last answer here.
      const kept = err instanceof StoreUnavailableError ? this.lastComputed.get(`${source.id}|${paramsKey(params)}`) : undefined;
      if (!kept) throw err;
      return { ...kept, cache: 'STALE', note: outageNote(err as StoreUnavailableError) };
    }
    // A source that keeps its results (hash, qrcode) hands back the same object for the same
    // parameters: its JSON is written once.
    const keyable = typeof data === 'object' && data !== null;
    let serialized = keyable ? this.serialized.get(data as object) : undefined;
    if (!serialized) {
      serialized = { payload: JSON.stringify(data), hash: undefined };
      if (keyable) setBounded(this.serialized, data as object, serialized, SERIALIZED_KEPT);
    }
    const result = new ComputedResult(source, params, paramsKey(params), data, serialized, now);
    if (ctx.readLists) setBounded(this.lastComputed, `${source.id}|${result.paramsKey}`, snapshotOf(result), LAST_GOOD_KEPT);
    return result;
  }

  /**
   * The params keys the scheduler keeps warm (a scheduled source's `prefetch` sets, or its
   * defaults): the keys whose every state is archived. Other keys of the source (a chart id
   * asked for once, a past day) are cached but not archived, so the archive's size follows the
   * schedule, not the callers.
   */
  warmKeysOf(source: AnySource): ReadonlySet<string> {
    let keys = this.warmKeys.get(source);
    if (!keys) {
      const sets = source.mode === 'scheduled' && source.prefetch?.length ? source.prefetch : [{}];
      keys = new Set(sets.map((raw) => paramsKey(parseParams(source.params, raw as Record<string, string>))));
      this.warmKeys.set(source, keys);
    }
    return keys;
  }

  private archives(source: FetchedSource, key: string): boolean {
    return isArchived(source) && !this.feedViews.has(source) && this.warmKeysOf(source).has(key);
  }

  /** The archived snapshot of a source's parameters in force at a moment (`date`/`at`); never an upstream request. */
  readAt(source: FetchedSource, params: AnyParams, moment: Moment): Promise<ReadResult> {
    return readSnapshotAt(
      { archive: this.deps.store.archive, now: this.now(), archivedKeys: this.warmKeysOf(source), current: (payload) => this.stored.currentOrStored(source, payload) },
      source,
      params,
      moment,
      this.historyParamsKey(source, params),
    );
  }

  /**
   * The last good data of these parameters as stored (HIT, or STALE past its freshness), or
   * undefined while none is: never an upstream request (pages that show many lists at once).
   */
  async readStored(source: FetchedSource, params: AnyParams): Promise<ReadResult | undefined> {
    const key = paramsKey(params);
    const memoKey = `${source.id}|${key}`;
    const lease = this.remembered(memoKey, Date.now()) ?? (await this.snapshot(memoKey, source.id, key));
    const snap = this.usable(source, lease.snap);
    if (!snap?.payload) return undefined;
    const fresh = snap.expiresAt !== null && this.now() < snap.expiresAt && !snap.lastError;
    return this.fromSnapshot(source, params, key, snap, fresh ? 'HIT' : 'STALE');
  }

  /** Serve a fetched source's data for these parameters (see the file comment for the rules). */
  async read(source: FetchedSource, params: AnyParams, opts: { force?: boolean } = {}): Promise<ReadResult> {
    const key = paramsKey(params);
    const historyParam = source.history?.param;
    if (historyParam && params[historyParam] !== undefined && !opts.force) {
      const hk = this.historyParamsKey(source, params);
      const day = String(params[historyParam]);
      let lease: HistoryLease | undefined;
      let outage: StoreUnavailableError | undefined;
      try {
        lease = await this.historyEntry(source.id, hk, day);
      } catch (err) {
        if (!(err instanceof StoreUnavailableError)) throw err;
        outage = err;
      }
      const kept = outage ? this.lastHistory.get(`${this.historyWritesKey(source.id, hk)}|${day}`) : lease?.entry;
      const entry = kept && this.currentHistory(source, kept);
      if (outage && !entry) throw outage;
      if (entry) {
        return {
          source,
          params,
          paramsKey: key,
          payload: entry.payload,
          data: this.parse(entry.payloadHash, entry.payload),
          hash: entry.payloadHash,
          fetchedAt: entry.fetchedAt,
          expiresAt: null,
          cache: outage ? 'STALE' : 'HIT',
          historyParamsKey: hk,
          ...(outage ? { note: outageNote(outage) } : { lease }),
        };
      }
    }

    const now = this.now();
    const memoKey = `${source.id}|${key}`;
    let lease: CurrentLease;
    try {
      lease = this.remembered(memoKey, Date.now()) ?? (await this.snapshot(memoKey, source.id, key));
    } catch (err) {
      const kept = err instanceof StoreUnavailableError ? this.usable(source, this.lastGood.get(memoKey)) : undefined;
      if (!kept?.payload) throw err;
      return this.fromSnapshot(source, params, key, kept, 'STALE', outageNote(err as StoreUnavailableError));
    }
    let snap = this.usable(source, lease.snap);

    if (opts.force) {
      const last = this.lastForced.get(memoKey) ?? 0;
      if (now - last >= this.deps.forceUpdateIntervalSec * 1000) {
        this.lastForced.set(memoKey, now);
        try {
          snap = await this.run(source, params, key);
          return this.fromSnapshot(source, params, key, snap, 'MISS');
        } catch (err) {
          if (err instanceof AppError) throw err;
          if (snap?.payload) return this.fromSnapshot(source, params, key, snap, 'STALE', `refresh failed: ${(err as Error).message}`);
          const fallback = await this.newestHistory(source, params, key, (err as Error).message);
          if (fallback) return fallback;
          throw await this.unavailable(source, key);
        }
      }
      if (snap?.payload) {
        const fresh = snap.expiresAt !== null && now < snap.expiresAt;
        return this.fromSnapshot(source, params, key, snap, fresh ? 'HIT' : 'STALE', `force-update is limited to once per ${this.deps.forceUpdateIntervalSec} s`);
      }
    }

    if (snap?.payload) {
      if (snap.expiresAt !== null && now < snap.expiresAt) return this.fromSnapshot(source, params, key, snap, 'HIT', undefined, lease);
      this.soon(source, params, key, snap);
      return this.fromSnapshot(source, params, key, snap, 'STALE', snap.lastError ? `refresh failing: ${snap.lastError}` : undefined);
    }

    // Cold key: one fetch, shared by every caller; none while backing off. Without an upstream,
    // the newest stored history answers (a daily source backfilled before its current key was).
    if (snap?.nextAttemptAt && snap.nextAttemptAt > now && !this.inflight.has(memoKey)) {
      const fallback = await this.newestHistory(source, params, key, snap.lastError);
      if (fallback) return fallback;
      throw upstreamUnavailable(source.name, (snap.nextAttemptAt - now) / 1000, snap.lastError ?? undefined);
    }
    try {
      snap = await this.run(source, params, key);
    } catch (err) {
      if (err instanceof AppError) throw err;
      const fallback = await this.newestHistory(source, params, key, (err as Error).message);
      if (fallback) return fallback;
      throw await this.unavailable(source, key);
    }
    return this.fromSnapshot(source, params, key, snap, 'MISS');
  }

  /**
   * The newest history row of these parameters as a STALE answer, for a cold key whose upstream
   * fails; undefined for sources without history, or when a history parameter asks for another day.
   */
  private async newestHistory(source: FetchedSource, params: AnyParams, key: string, error: string | null): Promise<ReadResult | undefined> {
    const historyParam = source.history?.param;
    if (historyParam && params[historyParam] !== undefined) return undefined;
    const hk = this.historyParamsKey(source, params);
    const [h] = await this.historyRows(source, hk, 1);
    if (!h) return undefined;
    return {
      source,
      params,
      paramsKey: key,
      payload: h.payload,
      data: this.parse(h.payloadHash, h.payload),
      hash: h.payloadHash,
      fetchedAt: h.fetchedAt,
      expiresAt: null,
      cache: 'STALE',
      historyParamsKey: hk,
      note: `refresh failing${error ? `: ${error}` : ''}; the newest stored entry (${h.historyKey}) is shown`,
    };
  }

  private async unavailable(source: AnySource, key: string): Promise<AppError> {
    const snap = await this.deps.store.getSnapshot(source.id, key);
    const wait = snap?.nextAttemptAt ? (snap.nextAttemptAt - this.now()) / 1000 : 60;
    return upstreamUnavailable(source.name, wait, snap?.lastError ?? undefined);
  }

  /** Refresh in the background unless one is running or the key is backing off. */
  soon(source: FetchedSource, params: AnyParams, key: string, snap?: Snapshot): void {
    if (this.inflight.has(`${source.id}|${key}`)) return;
    if (snap?.nextAttemptAt && snap.nextAttemptAt > this.now()) return;
    this.run(source, params, key).catch(() => {
      /* recorded by run() */
    });
  }

  /**
   * Fetch, validate and commit one key. Single-flight: concurrent calls share one run.
   * Resolves with the new snapshot; rejects with a SourceError (recorded) or an AppError
   * (the caller's input: not found, refused). `quiet`: a failure is logged as a run but leaves
   * the key's status alone (a backfill day that fails is a gap of the backfill, not a failing
   * key of the source; see backfill.ts).
   */
  run(source: FetchedSource, params: AnyParams, key = paramsKey(params), opts: { quiet?: boolean } = {}): Promise<Snapshot> {
    const flightKey = `${source.id}|${key}`;
    let p = this.inflight.get(flightKey);
    if (!p) {
      p = this.gate
        .run(() => this.runOnce(source, params, key, opts.quiet ?? false))
        .finally(() => {
          this.inflight.delete(flightKey);
          this.memo.delete(flightKey);
        });
      this.inflight.set(flightKey, p);
    }
    return p;
  }

  private async runOnce(source: FetchedSource, params: AnyParams, key: string, quiet: boolean): Promise<Snapshot> {
    const { store } = this.deps;
    const log = this.deps.log.child({ source: source.id, params: key });
    const started = this.now();
    const previous = this.usable(source, await store.getSnapshot(source.id, key));
    const signal = AbortSignal.any([this.shutdown.signal, AbortSignal.timeout(source.freshness.timeoutMs ?? DEFAULT_TIMEOUT_MS)]);
    try {
      if (this.shutdown.signal.aborted) throw new SourceError('transient', 'service is shutting down');
      const data = await this.withSignal(
        source.fetch(
          {
            http: this.http(source),
            signal,
            log,
            now: () => new Date(this.now()),
            env: (name) => this.env(source, name),
            history: (limit) => this.historyOf(source, params, limit),
            ...(previous?.payload ? { previous: { data: this.parse(previous.payloadHash as string, previous.payload), fetchedAt: previous.fetchedAt as number } } : {}),
          },
          params,
        ),
        signal,
        source,
      );
      const reason = source.validate(data);
      if (reason) throw new SourceError('empty', `rejected: ${reason}`);
      const payload = JSON.stringify(data);
      const hash = sha1(payload);
      const fetchedAt = this.now();
      const rows = source.view.rows?.(data, params) ?? [];
      const { changed } = await store.commitSuccess({
        sourceId: source.id,
        paramsKey: key,
        params: JSON.stringify(params),
        payload,
        payloadHash: hash,
        itemCount: source.count ? source.count(data) : rows.length || null,
        fetchedAt,
        expiresAt: fetchedAt + source.freshness.ttlSec * 1000,
        ...(source.history ? { historyKey: source.history.key(data) } : {}),
        historyParamsKey: this.historyParamsKey(source, params),
        guids: rows.map((r) => rowGuid(source.id, r)),
      });
      if (this.archives(source, key)) {
        await store.archive.record({ sourceId: source.id, paramsKey: key, fetchedAt, contentHash: contentHash(data), payload }).catch((err: unknown) => {
          log.error({ err: (err as Error).message }, 'archive write failed');
        });
      }
      if (source.history) {
        const writesKey = this.historyWritesKey(source.id, this.historyParamsKey(source, params));
        this.historyWrites.set(writesKey, this.historyVersion(writesKey) + 1);
      }
      await this.recordItems(source, key, data, fetchedAt, changed);
      const ms = this.now() - started;
      await store.recordRun({ sourceId: source.id, paramsKey: key, startedAt: started, ms, outcome: changed ? 'ok' : 'unchanged' });
      log.info({ outcome: changed ? 'ok' : 'unchanged', ms, items: rows.length }, 'fetch');
      this.observe({ sourceId: source.id, paramsKey: key, outcome: changed ? 'ok' : 'unchanged', ms });
      const committed = (await store.getSnapshot(source.id, key)) as Snapshot;
      if (committed?.payload) setBounded(this.lastGood, `${source.id}|${key}`, committed, LAST_GOOD_KEPT);
      return committed;
    } catch (raw) {
      const err = this.classify(raw);
      const ms = this.now() - started;
      if (isCallerError(err)) {
        log.info({ outcome: err.kind, ms }, 'fetch');
        throw new AppError(err.kind === 'not_found' ? 404 : 400, err.message);
      }
      const failures = (previous?.failCount ?? 0) + 1;
      const nextAttemptAt =
        this.now() + backoffMs(failures, source.freshness.ttlSec, source.freshness.backoffCapSec ?? DEFAULT_BACKOFF_CAP_SEC, err.kind, this.random());
      if (!quiet) await store.recordFailure({ sourceId: source.id, paramsKey: key, params: JSON.stringify(params), checkedAt: this.now(), error: `${err.kind}: ${err.message}`, nextAttemptAt });
      await store.recordRun({ sourceId: source.id, paramsKey: key, startedAt: started, ms, outcome: 'failed', error: `${err.kind}: ${err.message}` });
      log.warn({ outcome: 'failed', kind: err.kind, ms, failures, status: err.httpStatus, err: err.message }, 'fetch');
      this.observe({ sourceId: source.id, paramsKey: key, outcome: 'failed', ms, kind: err.kind });
      throw err;
    }
  }

  /** Record a committed scheduled list in the item index; a failure there is logged, never the run's. */
  private async recordItems(source: FetchedSource, key: string, data: unknown, fetchedAt: number, changed: boolean): Promise<void> {
    if (!this.deps.itemIndex || source.mode !== 'scheduled' || !source.view.rows) return;
    const items = listItems(data);
    if (!items?.length) return;
    try {
      await this.deps.itemIndex.record({ sourceId: source.id, paramsKey: key, fetchedAt, changed, items });
    } catch (err) {
      this.deps.log.warn({ source: source.id, params: key, err: (err as Error).message }, 'item index: recording failed');
    }
  }

  private observe(event: RunEvent): void {
    try {
      this.deps.onRun?.(event);
    } catch (err) {
      this.deps.log.warn({ err: (err as Error).message }, 'onRun observer failed');
    }
  }

  /** Reject when the run deadline passes even if the source ignores its signal. */
  private withSignal<T>(p: Promise<T>, signal: AbortSignal, source: AnySource): Promise<T> {
    if (signal.aborted) return Promise.reject(new SourceError('transient', `${source.id} timed out`));
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(new SourceError('transient', `${source.id} fetch timed out or was aborted`));
      signal.addEventListener('abort', onAbort, { once: true });
      p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  private classify(err: unknown): SourceError {
    if (err instanceof SourceError) return err;
    if (err instanceof AppError) return new SourceError(err.status === 404 ? 'not_found' : err.status < 500 ? 'bad_input' : 'transient', err.message);
    // A TypeError or similar inside parse means the upstream shape changed.
    return new SourceError('parse', err instanceof Error ? err.message : String(err), { cause: err });
  }

  /** The scheduled form of a source: itself when scheduled, its feed when a local source has one. */
  scheduledView(source: AnySource): ScheduledSource<Record<string, never>, unknown> | (AnySource & { mode: 'scheduled' }) | undefined {
    return source.mode === 'scheduled' ? source : this.feedSource(source);
  }

  /** One scheduled tick: refresh every warm parameter set that is not backing off. */
  async tick(source: FetchedSource): Promise<void> {
    const sets = source.mode === 'scheduled' && source.prefetch?.length ? source.prefetch : [{}];
    await Promise.allSettled(
      sets.map(async (raw) => {
        const params = parseParams(source.params, raw as Record<string, string>);
        const key = paramsKey(params);
        const snap = await this.deps.store.getSnapshot(source.id, key);
        if (snap?.nextAttemptAt && snap.nextAttemptAt > this.now()) return;
        await this.run(source, params, key);
      }),
    );
  }

  /** Keys of a scheduled source that have no data or expired data. */
  async coldKeys(source: FetchedSource): Promise<AnyParams[]> {
    const sets = source.mode === 'scheduled' && source.prefetch?.length ? source.prefetch : [{}];
    const out: AnyParams[] = [];
    for (const raw of sets) {
      const params = parseParams(source.params, raw as Record<string, string>);
      const snap = await this.deps.store.getSnapshot(source.id, paramsKey(params));
      if (!snap?.payload || (snap.expiresAt ?? 0) <= this.now()) out.push(params);
    }
    return out;
  }

  static maxKeys(source: FetchedSource): number {
    return source.maxKeys ?? DEFAULT_MAX_KEYS;
  }
}
