/**
 * Whether an error of a database call means the database is unavailable for now (unreachable,
 * connection lost, out of disk or busy), which is worth a retry and a 503, rather than a bad
 * statement or row, which is a bug.
 */
const NODE_TRANSIENT = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);
/** SQLSTATE classes of a database that is unreachable or out of resources for now. */
const PG_TRANSIENT_CLASSES = ['08', '40', '53', '57', '58'];
const SQLITE_TRANSIENT = /^SQLITE_(?:FULL|BUSY|LOCKED|IOERR|CANTOPEN|READONLY|PROTOCOL)/;

/** Whether a store error is the store being unavailable (worth retrying) rather than a bad settlement. */
export function storeUnavailableError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; errors?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  if (NODE_TRANSIENT.has(code) || SQLITE_TRANSIENT.test(code)) return true;
  if (/^[0-9A-Z]{5}$/.test(code) && PG_TRANSIENT_CLASSES.includes(code.slice(0, 2))) return true;
  if (Array.isArray(e?.errors) && e.errors.some(storeUnavailableError)) return true;
  const message = typeof e?.message === 'string' ? e.message : '';
  return /Connection terminated|connection (?:error|timeout)|timeout exceeded when trying to connect|Cannot use a pool after calling end|database is locked|disk is full|not open/i.test(message);
}
