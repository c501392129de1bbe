/**
 * The one accessor for the items of a stored list, whatever its container: `data.list` (the
 * hot-list shape of sources/_shared/hot-list.ts) or a bare array (the 60s shapes). An item needs a
 * title; its rank is its `rank` field, else its position; its heat is `hot_value`, else `score`;
 * its description the first of `desc`, `detail`, `description`, `excerpt`, `summary` it has.
 */

export interface ListItem {
  rank: number;
  title: string;
  link: string | undefined;
  hot: number | undefined;
  /** The list's own description, excerpt or summary of the item, when it carries one. */
  description?: string;
}

function itemsOf(data: unknown): unknown[] | undefined {
  if (Array.isArray(data)) return data;
  if (data && typeof data === 'object') {
    const list = (data as Record<string, unknown>).list;
    if (Array.isArray(list)) return list;
  }
  return undefined;
}

const finite = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The ranked items of a list, or undefined when the data is not a list of titled items. */
export function listItems(data: unknown): ListItem[] | undefined {
  const raw = itemsOf(data);
  if (!raw) return undefined;
  const out: ListItem[] = [];
  raw.forEach((entry, i) => {
    if (!entry || typeof entry !== 'object') return;
    const e = entry as Record<string, unknown>;
    const title = typeof e.title === 'string' ? e.title.trim() : '';
    if (!title) return;
    const rank = finite(e.rank);
    const description = [e.desc, e.detail, e.description, e.excerpt, e.summary].find((v): v is string => typeof v === 'string' && v.trim() !== '');
    out.push({
      rank: rank !== undefined && rank > 0 ? Math.round(rank) : i + 1,
      title,
      link: typeof e.link === 'string' && e.link ? e.link : undefined,
      hot: finite(e.hot_value) ?? finite(e.score),
      ...(description ? { description: description.trim() } : {}),
    });
  });
  return raw.length > 0 && out.length === 0 ? undefined : out;
}
