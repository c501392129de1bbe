/**
 * Reading upstream JSON by path, and the one way a parser says what it missed. A parser narrows
 * `unknown` with `need(raw, 'data.cards[0].card_group', asArray)`: when the value is absent or of
 * another type, the SourceError names the path and what was found where the walk stopped, so
 * `/status` and `/v2/status` show which part of the answer the upstream changed.
 */
import { SourceError } from './errors.ts';

type Segment = string | number;

const parsed = new Map<string, readonly Segment[]>();

/** `data.cards[0].card_group` → ['data', 'cards', 0, 'card_group']; '' is the root. */
export function pathSegments(path: string): readonly Segment[] {
  let segments = parsed.get(path);
  if (segments) return segments;
  const out: Segment[] = [];
  for (const part of path.split('.')) {
    if (part === '') continue;
    const m = /^([^[\]]*)((?:\[\d+\])*)$/.exec(part);
    if (!m) throw new Error(`bad JSON path ${JSON.stringify(path)}`);
    if (m[1]) out.push(m[1]);
    for (const index of m[2]!.matchAll(/\[(\d+)\]/g)) out.push(Number(index[1]));
  }
  segments = Object.freeze(out);
  if (parsed.size < 1000) parsed.set(path, segments);
  return segments;
}

function joinPath(segments: readonly Segment[]): string {
  return segments.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

/** The value at `path` (see pathSegments), or undefined when any step is missing. */
export function at(value: unknown, path: string): unknown {
  let cur = value;
  for (const key of pathSegments(path)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<Segment, unknown>)[key];
  }
  return cur;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object') {
    const keys = Object.keys(value);
    return keys.length ? `an object with keys ${keys.slice(0, 8).join(', ')}${keys.length > 8 ? `, … (${keys.length})` : ''}` : 'an empty object';
  }
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${String(value)}`;
}

/**
 * The parse error of a value missing at `path` in `root`: it names the path, the deepest part of
 * it that exists and what that holds. `what` says in words what was expected there.
 */
export function missingPath(root: unknown, path: string, what?: string): SourceError {
  const segments = pathSegments(path);
  let cur = root;
  let depth = 0;
  for (const key of segments) {
    if (cur === null || typeof cur !== 'object') break;
    const next = (cur as Record<Segment, unknown>)[key];
    if (next === undefined) break;
    cur = next;
    depth += 1;
  }
  const name = path === '' ? 'the answer' : path;
  const where = depth === 0 ? 'the answer' : joinPath(segments.slice(0, depth));
  const message =
    depth === segments.length
      ? `${name}${what ? ` is not ${what}` : ' has an unexpected type'}: it is ${describe(cur)}`
      : `missing ${name}${what ? ` (${what})` : ''}: ${where} is ${describe(cur)}`;
  return new SourceError('parse', message, { path: path === '' ? '$' : path });
}

/** The value at `path` narrowed by `narrow`, or a parse error naming the path (see missingPath). */
export function need<T>(root: unknown, path: string, narrow: (value: unknown) => T | undefined, what?: string): T {
  const value = narrow(at(root, path));
  if (value === undefined) throw missingPath(root, path, what);
  return value;
}
