/**
 * The store as every other part of the service sees it: a failure to reach the database
 * (connection refused or lost, pool timeout, server shutting down, SQLite busy, I/O error or
 * disk full) comes out as a StoreUnavailableError, a 503 naming the store with Retry-After,
 * which the engine and the status routes answer from this process's memory when they can.
 * Any other error (a bug) passes unchanged.
 */
import type { Archive } from './archive.ts';
import { StoreUnavailableError } from './errors.ts';
import type { Store } from './store.ts';

/** Node socket errors of a lost or refused connection. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);
/** SQLite result codes of an unusable database file (not of a wrong statement). */
const SQLITE_CODES = /^SQLITE_(?:BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL|NOTADB|CORRUPT)/;
/** node-postgres's own messages for a connection it lost or could not make in time. */
const PG_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|Cannot use a pool after calling end/i;

/** Whether an error says the store cannot be reached, as opposed to a failing statement. */
export function isUnreachable(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true;
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || SQLITE_CODES.test(code)) return true;
    // SQLSTATE classes 08 (connection exception), 53 (insufficient resources), 57P (operator intervention: shutdown).
    if (/^(?:08|53|57P)/.test(code)) return true;
  }
  return PG_MESSAGES.test(err.message);
}

/** The error a store call fails with: StoreUnavailableError when the store is unreachable. */
export function storeFailure(storeName: string, err: unknown): unknown {
  return err instanceof StoreUnavailableError || !isUnreachable(err) ? err : new StoreUnavailableError(storeName, err);
}

function guarded<A extends unknown[], R>(storeName: string, fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      return await fn(...args);
    } catch (err) {
      throw storeFailure(storeName, err);
    }
  };
}

/**
 * A read that fails as unreachable after `timeoutMs`: a database behind a network partition
 * neither answers nor refuses, and a request must not wait for it (the query itself runs on).
 */
function deadlined<A extends unknown[], R>(storeName: string, timeoutMs: number, fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  const read = guarded(storeName, fn);
  if (!(timeoutMs > 0)) return read;
  return (...args) => {
    const pending = read(...args);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        pending.catch(() => undefined);
        reject(new StoreUnavailableError(storeName, new Error(`no answer within ${timeoutMs} ms`)));
      }, timeoutMs);
    });
    return Promise.race([pending, late]).finally(() => clearTimeout(timer));
  };
}

function guardArchive(archive: Archive, name: string, readMs: number): Archive {
  return {
    record: guarded(name, (w) => archive.record(w)),
    at: deadlined(name, readMs, (sourceId, paramsKey, at) => archive.at(sourceId, paramsKey, at)),
    bounds: deadlined(name, readMs, (sourceId, paramsKey) => archive.bounds(sourceId, paramsKey)),
    list: deadlined(name, readMs, (sourceId, paramsKey, opts) => archive.list(sourceId, paramsKey, opts)),
    prune: guarded(name, (opts) => archive.prune(opts)),
    stats: guarded(name, () => archive.stats()),
  };
}

/**
 * The store with its unreachable-store failures turned into StoreUnavailableError; `name` is SQLite
 * or PostgreSQL. Reads that serve requests also fail so after `readTimeoutMs` (0 = never); writes wait.
 */
export function guardStore(store: Store, name: string, readTimeoutMs = 0): Store & { readonly name: string } {
  const ms = readTimeoutMs;
  return {
    name,
    archive: guardArchive(store.archive, name, ms),
    getSnapshot: deadlined(name, ms, (sourceId, paramsKey) => store.getSnapshot(sourceId, paramsKey)),
    listSnapshots: deadlined(name, ms, (sourceId) => store.listSnapshots(sourceId)),
    commitSuccess: guarded(name, (w) => store.commitSuccess(w)),
    recordFailure: guarded(name, (w) => store.recordFailure(w)),
    getHistory: deadlined(name, ms, (sourceId, paramsKey, historyKey) => store.getHistory(sourceId, paramsKey, historyKey)),
    listHistory: deadlined(name, ms, (sourceId, paramsKey, limit) => store.listHistory(sourceId, paramsKey, limit)),
    firstSeen: deadlined(name, ms, (sourceId, paramsKey, guids) => store.firstSeen(sourceId, paramsKey, guids)),
    recordRun: guarded(name, (r) => store.recordRun(r)),
    recentRuns: deadlined(name, ms, (sourceId, limit) => store.recentRuns(sourceId, limit)),
    prune: guarded(name, (opts) => store.prune(opts)),
    close: () => store.close(),
  };
}
