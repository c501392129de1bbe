/**
 * Strict credential extraction. `Authorization` must be exactly `Bearer <key>`: capital B, one
 * space, a key of token characters, nothing else. (HTTP itself removes leading and trailing
 * spaces and tabs around a header value, RFC 9110 §5.5, before any server code sees it; every
 * other stray character, including non-ASCII spaces, is refused.) On `/v1beta` the Google
 * client's `x-goog-api-key` header and `?key=` are accepted too, and on the Anthropic routes
 * (`/v1/messages…`, and `/v1/models…`, which Anthropic's API serves too) the Anthropic client's
 * `x-api-key` header, with the same strict format.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { maskSecret } from '../kernel/log.ts';
import { invalidApiKey } from './errors.ts';

const BEARER = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/;
const TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;

export type AuthFamily = 'openai' | 'gemini' | 'anthropic';

function single(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

/** How many times a header occurs (Node keeps only the first `Authorization` in `headers`). */
function occurrences(rawHeaders: readonly string[], name: string): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === name) n++;
  return n;
}

const ANTHROPIC_MODEL_ROUTES = /^\/v1\/models(?:\/|$)/;

/** Where a route takes its key from: its family's headers, and `x-api-key` on the model list that Anthropic's clients read too. */
export function authFamilyOf(path: string, family: AuthFamily): AuthFamily {
  return family === 'openai' && ANTHROPIC_MODEL_ROUTES.test(path) ? 'anthropic' : family;
}

/**
 * The key the caller presented; throws a 401 GatewayError when it is missing or malformed.
 * `rawHeaders` (the request's) lets it refuse a request carrying several Authorization headers.
 */
export function extractKey(headers: IncomingHttpHeaders, query: URLSearchParams, family: AuthFamily, rawHeaders?: readonly string[]): string {
  if (rawHeaders && occurrences(rawHeaders, 'authorization') > 1) throw invalidApiKey('Send exactly one Authorization header: this request carries several.');
  const auth = single(headers.authorization);
  if (auth !== undefined) {
    const m = BEARER.exec(auth);
    if (!m) throw invalidApiKey('Malformed Authorization header: it must be exactly "Bearer <API_KEY>" (capital B, one space, no other whitespace).');
    return m[1]!;
  }
  if (family === 'gemini') {
    const goog = single(headers['x-goog-api-key']);
    if (goog !== undefined) {
      if (!TOKEN.test(goog)) throw invalidApiKey('Malformed x-goog-api-key header: it must hold the API key only, without whitespace.');
      return goog;
    }
    const keys = query.getAll('key');
    if (keys.length > 0) {
      if (keys.length > 1 || !TOKEN.test(keys[0]!)) throw invalidApiKey('Malformed key query parameter: give the API key once, without whitespace.');
      return keys[0]!;
    }
    throw invalidApiKey('Missing API key: send "Authorization: Bearer <API_KEY>" (or the x-goog-api-key header, or ?key=).');
  }
  if (family === 'anthropic') {
    if (rawHeaders && occurrences(rawHeaders, 'x-api-key') > 1) throw invalidApiKey('Send exactly one x-api-key header: this request carries several.');
    const key = single(headers['x-api-key']);
    if (key !== undefined) {
      if (!TOKEN.test(key)) throw invalidApiKey('Malformed x-api-key header: it must hold the API key only, without whitespace.');
      return key;
    }
    throw invalidApiKey('Missing API key: send the header "x-api-key: <API_KEY>" (or "Authorization: Bearer <API_KEY>").');
  }
  throw invalidApiKey('Missing API key: send the header "Authorization: Bearer <API_KEY>".');
}

export function unknownKey(key: string): ReturnType<typeof invalidApiKey> {
  return invalidApiKey(`Incorrect API key provided: ${maskSecret(key)}. A key is shown only once when it is created; a lost key cannot be recovered, create a new one.`);
}
