/**
 * An upstream's model list as callers know it: the upstream's own names of aliased models
 * replaced by their public names, and every model an upstream's `models` names (not by a
 * pattern) added. Used by every model list (`/v1/models`, `/v1beta/models`), whatever its layout.
 */
import type { UpstreamSpec } from './upstream-settings.ts';

export interface ListLayout<T> {
  /** The model name of an entry (`undefined` for an entry that names none). */
  idOf(entry: T): string | undefined;
  /** A new entry for a public name the list lacks. */
  entryOf(id: string): T;
}

export function withPublicNames<T>(data: readonly T[], upstreams: readonly UpstreamSpec[], layout: ListLayout<T>): T[] {
  const own = new Set(upstreams.flatMap((u) => Object.values(u.aliases)));
  const named = [...new Set(upstreams.flatMap((u) => u.models.filter((m) => !m.includes('*'))))];
  if (own.size === 0 && named.length === 0) return [...data];
  const kept = data.filter((m) => {
    const id = layout.idOf(m);
    return !(id !== undefined && own.has(id) && !named.includes(id));
  });
  const listed = new Set(kept.map((m) => layout.idOf(m)));
  return [...kept, ...named.filter((id) => !listed.has(id)).map((id) => layout.entryOf(id))];
}
