/**
 * Coverage lists joining the events the general lists formed: each coverage item (a niche site's or
 * a forum's title) joins the one event it is closest to, by the linkage the clustering merges by
 * (cluster.ts), when that reaches the threshold and none of the event's items is kept apart from
 * it; otherwise it joins nothing. Coverage items are never compared with each other, so they form
 * no event and never bridge two: five tech sites on one gadget cannot outweigh the day's story,
 * nor a forum post chain two general events. Pure; no I/O.
 */
import { DEFAULT_CLUSTER, INDEX_MAX_ITEMS, INDEX_MIN_WEIGHT, type ClusterOptions } from './cluster.ts';
import { keptApart, overlapScore, type Weighted } from './similarity.ts';

/**
 * For each coverage item, the index of the event (a list of general items' features) it joins,
 * or undefined. A tie goes to the earlier event: pass them best first.
 */
export function attachCoverage(events: readonly (readonly Weighted[])[], coverage: readonly Weighted[], o: ClusterOptions = DEFAULT_CLUSTER): (number | undefined)[] {
  // General items by the features they could be looked up by, as the clustering looks up neighbours.
  const byFeature = new Map<string, { event: number; item: Weighted }[]>();
  events.forEach((items, event) => {
    for (const item of items) {
      for (const [f, w] of item.weights) {
        if (w < INDEX_MIN_WEIGHT) continue;
        const list = byFeature.get(f);
        if (list) list.push({ event, item });
        else byFeature.set(f, [{ event, item }]);
      }
    }
  });
  return coverage.map((c) => {
    // Its neighbours among the general items, by event: the sum and peak of their similarity, or kept apart.
    const near = new Map<number, { sum: number; peak: number; apart: boolean }>();
    const compared = new Set<Weighted>();
    for (const [f, w] of c.weights) {
      if (w < INDEX_MIN_WEIGHT) continue;
      const list = byFeature.get(f);
      if (!list || list.length > INDEX_MAX_ITEMS) continue;
      for (const { event, item } of list) {
        if (compared.has(item)) continue;
        compared.add(item);
        const n = near.get(event) ?? { sum: 0, peak: 0, apart: false };
        near.set(event, n);
        if (keptApart(c.features, item.features)) n.apart = true;
        else {
          const s = overlapScore(c, item, o);
          n.sum += s;
          n.peak = Math.max(n.peak, s);
        }
      }
    }
    let best: { event: number; linkage: number } | undefined;
    for (const [event, n] of near) {
      if (n.apart) continue;
      const mean = n.sum / events[event]!.length;
      const linkage = mean + o.peakWeight * (n.peak - mean);
      if (linkage < o.threshold) continue;
      if (!best || linkage > best.linkage || (linkage === best.linkage && event < best.event)) best = { event, linkage };
    }
    return best?.event;
  });
}
