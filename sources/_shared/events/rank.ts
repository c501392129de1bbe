/**
 * Ranking events so that the day's biggest stories lead: an event weighs the sum, over the
 * platforms carrying it, of its best item's strength there (its place on the list, and its heat as
 * a share of that list's top heat where the list gives heat: each platform's scale differs), plus a
 * fifth of the strength of its further items; so one-platform items fall below cross-platform events
 * of comparable rank. Ties go to the event first seen most recently.
 */

export interface RankedItem {
  sourceId: string;
  rank: number;
  hot: number | undefined;
  /** Items on that list. */
  listSize: number;
  /** The highest heat on that list, when it gives heat. */
  listTopHeat: number | undefined;
  firstSeenAt?: number;
}

/** How high an entry stands on its list: 1 at rank 1, falling linearly to 1/size at the end. */
export function placeScore(rank: number, size: number): number {
  return Math.max(0, (size - Math.min(rank, size) + 1) / Math.max(size, 1));
}

export function itemStrength(i: RankedItem): number {
  const place = placeScore(i.rank, i.listSize);
  if (i.hot === undefined || !i.listTopHeat || i.listTopHeat <= 0) return place;
  return (place + Math.min(1, Math.max(0, i.hot / i.listTopHeat))) / 2;
}

const FURTHER_ITEM = 0.2;

export function eventScore(items: readonly RankedItem[]): number {
  const best = new Map<string, number>();
  let further = 0;
  for (const i of items) {
    const s = itemStrength(i);
    const b = best.get(i.sourceId);
    if (b === undefined) best.set(i.sourceId, s);
    else {
      further += Math.min(b, s);
      best.set(i.sourceId, Math.max(b, s));
    }
  }
  let sum = 0;
  for (const s of best.values()) sum += s;
  return Math.round((sum + FURTHER_ITEM * further) * 1000) / 1000;
}

export function latestFirstSeen(items: readonly RankedItem[]): number {
  return Math.max(0, ...items.map((i) => i.firstSeenAt ?? 0));
}
