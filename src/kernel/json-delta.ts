/**
 * A structural delta between two JSON values, for the archive (see archive-payloads.ts): two
 * consecutive snapshots of a hot list differ in a few numbers per item and an entry now and then,
 * so the delta is a small fraction of the list. `patch(prev, diff(prev, next))` equals `next`
 * (same keys in the same order), so the archived JSON text comes back byte for byte.
 *
 * A delta is JSON:
 * - `[0]`: unchanged;
 * - `[1, value]`: replaced by `value`;
 * - `[2, keys, changes]`: an object whose key list is `keys` (0: the same as before) and whose
 *   changed fields are `changes` (field → delta);
 * - `[4, values]`: the common case of the above: the same keys, the fields in `values` replaced;
 * - `[3, entries]`: an array; each entry is `i` (the earlier array's item i, unchanged), `[i, delta]`
 *   (item i changed) or `{ v: value }` (a new item). Items are matched by their link, url, id or
 *   title, so an item that moved up or down costs its index only.
 */
export type Delta = [0] | [1, unknown] | [2, string[] | 0, Record<string, Delta>] | [3, DeltaEntry[]] | [4, Record<string, unknown>];
type DeltaEntry = number | [number, Delta] | { v: unknown };

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const IDENTITY_FIELDS = ['link', 'url', 'id', 'title'] as const;

function identity(v: unknown): string | undefined {
  if (!isObject(v)) return undefined;
  for (const f of IDENTITY_FIELDS) {
    const x = v[f];
    if (typeof x === 'string' || typeof x === 'number') return `${f}:${x}`;
  }
  return undefined;
}

function sameKeys(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((k, i) => k === b[i]);
}

/** The delta that turns `prev` into `next`. */
export function diff(prev: unknown, next: unknown): Delta {
  if (prev === next) return [0];
  if (Array.isArray(prev) && Array.isArray(next)) return diffArray(prev, next);
  if (isObject(prev) && isObject(next)) return diffObject(prev, next);
  return [1, next];
}

function diffObject(prev: Json, next: Json): Delta {
  const keys = Object.keys(next);
  const changes: Record<string, Delta> = {};
  let changed = false;
  for (const k of keys) {
    const d = Object.hasOwn(prev, k) ? diff(prev[k], next[k]) : ([1, next[k]] as Delta);
    if (d[0] !== 0) {
      changes[k] = d;
      changed = true;
    }
  }
  const same = sameKeys(Object.keys(prev), keys);
  if (!changed && same) return [0];
  if (same && Object.values(changes).every((d) => d[0] === 1)) return [4, Object.fromEntries(Object.entries(changes).map(([k, d]) => [k, d[1]]))];
  return [2, same ? 0 : keys, changes];
}

function diffArray(prev: unknown[], next: unknown[]): Delta {
  const byId = new Map<string, number[]>();
  prev.forEach((item, i) => {
    const id = identity(item);
    if (id === undefined) return;
    const at = byId.get(id);
    if (at) at.push(i);
    else byId.set(id, [i]);
  });
  const used = new Set<number>();
  const entries: DeltaEntry[] = [];
  let unchanged = prev.length === next.length;
  next.forEach((item, j) => {
    const id = identity(item);
    let i = id === undefined ? undefined : byId.get(id)?.find((x) => !used.has(x));
    if (i === undefined && j < prev.length && !used.has(j) && identity(prev[j]) === id) i = j;
    if (i === undefined) {
      entries.push({ v: item });
      unchanged = false;
      return;
    }
    used.add(i);
    const d = diff(prev[i], item);
    if (d[0] === 0) {
      entries.push(i);
      if (i !== j) unchanged = false;
      return;
    }
    unchanged = false;
    // A changed item costs its delta or itself, whichever is shorter.
    entries.push(JSON.stringify(d).length < JSON.stringify(item).length ? [i, d] : { v: item });
  });
  return unchanged ? [0] : [3, entries];
}

/** `prev` with `delta` applied (shares unchanged parts with `prev`). */
export function patch(prev: unknown, delta: Delta): unknown {
  switch (delta[0]) {
    case 0:
      return prev;
    case 1:
      return delta[1];
    case 2: {
      const base = isObject(prev) ? prev : {};
      const changes = delta[2];
      const out: Json = {};
      for (const k of delta[1] === 0 ? Object.keys(base) : delta[1]) out[k] = Object.hasOwn(changes, k) ? patch(base[k], changes[k] as Delta) : base[k];
      return out;
    }
    case 4: {
      const values = delta[1];
      const base = isObject(prev) ? prev : {};
      const out: Json = {};
      for (const k of Object.keys(base)) out[k] = Object.hasOwn(values, k) ? values[k] : base[k];
      return out;
    }
    case 3: {
      const base = Array.isArray(prev) ? prev : [];
      return delta[1].map((e) => (typeof e === 'number' ? base[e] : Array.isArray(e) ? patch(base[e[0]], e[1]) : e.v));
    }
  }
}
