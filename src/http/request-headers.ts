/**
 * One request header, read from the request's raw header list. Each read of `req.headers` goes
 * through a getter and a symbol-keyed load that is megamorphic in this process; the three reads a
 * cached /v2/apis answer made (request id, two validators) cost about 900 instructions of its
 * ~9,000 over the bare server's (BENCHMARKS.md, issue 15). The value is the one `req.headers`
 * gives: node keeps the first of a repeated header of the fields below and joins the others'
 * values with ", " (`cookie` with "; "; `set-cookie`, never a request header here, is not handled).
 */
import type { IncomingMessage } from 'node:http';

const FIRST_WINS = new Set([
  'age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host', 'if-modified-since',
  'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'proxy-authorization', 'referer', 'retry-after',
  'server', 'user-agent',
]);

/** The value of header `name` (lowercase) as `req.headers[name]` has it, without building `req.headers`. */
export function requestHeader(req: IncomingMessage, name: string): string | undefined {
  const raw = req.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i] as string;
    if (key.length !== name.length || (key !== name && key.toLowerCase() !== name)) continue;
    const v = raw[i + 1] as string;
    if (value === undefined) {
      value = v;
      if (FIRST_WINS.has(name)) return value;
    } else value += (name === 'cookie' ? '; ' : ', ') + v;
  }
  return value;
}
