/**
 * One error type per side.
 * - `AppError`: what a `/v2/apis` caller sees (status, English message, optional headers).
 * - `SourceError`: why an upstream fetch failed, classified so the refresh engine can decide
 *   on retries and backoff.
 */

export class AppError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** 4xx messages are shown as they are; 5xx messages are shown only when `expose` is set. */
  readonly expose: boolean;
  constructor(status: number, message: string, opts: { headers?: Record<string, string>; expose?: boolean; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'AppError';
    this.status = status;
    this.headers = opts.headers ?? {};
    this.expose = opts.expose ?? status < 500;
  }
}

export function badParam(name: string, accepted: string): AppError {
  return new AppError(400, `Invalid parameter "${name}": ${accepted}.`);
}

export function missingParam(name: string, accepted: string): AppError {
  return new AppError(400, `Missing required parameter "${name}": ${accepted}.`);
}

export function notFound(message: string): AppError {
  return new AppError(404, message);
}

export function unsupportedEncoding(given: string, supported: readonly string[], paramName = 'encoding'): AppError {
  return new AppError(400, `Unsupported ${paramName} "${given}". This endpoint supports: ${supported.join(', ')}.`);
}

export function upstreamUnavailable(sourceName: string, retryAfterSec: number, detail?: string): AppError {
  const wait = Math.max(1, Math.ceil(retryAfterSec));
  return new AppError(
    503,
    `The upstream of ${sourceName} is unavailable and no cached data exists yet${detail ? ` (${detail})` : ''}. Try again in ${wait} s.`,
    { headers: { 'Retry-After': String(wait) }, expose: true },
  );
}

/** Seconds a caller is asked to wait while the data store is unreachable. */
export const STORE_RETRY_AFTER_SEC = 15;

/**
 * The data store (SQLite or PostgreSQL) cannot be reached: a 503 naming the store, with
 * Retry-After. The cause (which may name internal addresses) is logged, never shown.
 */
export class StoreUnavailableError extends AppError {
  readonly storeName: string;
  constructor(storeName: string, cause: unknown) {
    super(503, `The data store (${storeName}) is unreachable, and this instance has no copy of this data in memory. Try again in ${STORE_RETRY_AFTER_SEC} s.`, {
      headers: { 'Retry-After': String(STORE_RETRY_AFTER_SEC) },
      expose: true,
      cause,
    });
    this.name = 'StoreUnavailableError';
    this.storeName = storeName;
  }
}

export type SourceErrorKind =
  /** network failure, timeout, 5xx, 429: retried by the client, then backoff */
  | 'transient'
  /** 401/403, captcha, login or risk-control page: no in-run retry, longer backoff */
  | 'blocked'
  /** the upstream shape changed: the parser could not read it */
  | 'parse'
  /** validation rejected the result (e.g. an empty hot list) */
  | 'empty'
  /** a required setting (cookie, key) is missing or rejected */
  | 'config'
  /** the caller asked for something the upstream does not have: a 404 for the caller, not a source failure */
  | 'not_found'
  /** the caller's input was refused by the upstream: a 400 for the caller, not a source failure */
  | 'bad_input';

export class SourceError extends Error {
  readonly kind: SourceErrorKind;
  readonly httpStatus: number | undefined;
  /** `parse` errors: the JSON path (or page selector) the parser missed, also named in the message (see kernel/json-path.ts). */
  readonly path: string | undefined;
  constructor(kind: SourceErrorKind, message: string, opts: { httpStatus?: number; cause?: unknown; path?: string } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'SourceError';
    this.kind = kind;
    this.httpStatus = opts.httpStatus;
    this.path = opts.path;
  }
}

/** Whether a failure of this kind is the caller's concern rather than the upstream's health. */
export function isCallerError(err: SourceError): boolean {
  return err.kind === 'not_found' || err.kind === 'bad_input';
}
