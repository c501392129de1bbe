/**
 * Items into events by agglomerative clustering with average linkage: the two events whose items
 * are closest on average merge first, again and again, while that average reaches the threshold.
 * A merge that would put two titles the guards keep apart into one event never happens, so a title
 * close to two different events cannot chain them. Pure; no I/O.
 */
import { keptApart, overlapScore, type SimilarityOptions, DEFAULT_SIMILARITY, type Weighted } from './similarity.ts';

export interface ClusterOptions extends SimilarityOptions {
  /** Linkage two events need to merge. */
  threshold: number;
  /** How far the linkage moves from the average similarity of their items toward their closest pair (0: average linkage). */
  peakWeight: number;
}

export const DEFAULT_CLUSTER: ClusterOptions = { ...DEFAULT_SIMILARITY, threshold: 0.4, peakWeight: 0.5 };

/** Features this light are not worth looking up neighbours by (boilerplate in any title). */
const INDEX_MIN_WEIGHT = 0.2;

/** Pairs of items that share a feature, with their similarity (> 0) or -1 when kept apart. */
function neighbours(items: readonly Weighted[], o: ClusterOptions): Map<number, Map<number, number>> {
  const byFeature = new Map<string, number[]>();
  items.forEach((it, n) => {
    for (const [f, w] of it.weights) {
      if (w < INDEX_MIN_WEIGHT) continue;
      const list = byFeature.get(f);
      if (list) list.push(n);
      else byFeature.set(f, [n]);
    }
  });
  const out = new Map<number, Map<number, number>>(items.map((_, n) => [n, new Map()]));
  for (const list of byFeature.values()) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const a = list[i]!;
        const b = list[j]!;
        if (out.get(a)!.has(b)) continue;
        const s = keptApart(items[a]!.features, items[b]!.features) ? -1 : overlapScore(items[a]!, items[b]!, o);
        out.get(a)!.set(b, s);
        out.get(b)!.set(a, s);
      }
    }
  }
  return out;
}

/** The events, as lists of item indexes (each list in index order; events by their first index). */
export function clusterItems(items: readonly Weighted[], o: ClusterOptions = DEFAULT_CLUSTER): number[][] {
  const pairs = neighbours(items, o);
  const members = new Map<number, number[]>(items.map((_, n) => [n, [n]]));
  // Between live clusters: the sum of their items' similarities, and whether any pair is kept apart.
  const sums = new Map<number, Map<number, number>>();
  const peaks = new Map<number, Map<number, number>>();
  const apart = new Map<number, Set<number>>();
  for (const [a, m] of pairs) {
    sums.set(a, new Map());
    peaks.set(a, new Map());
    apart.set(a, new Set());
    for (const [b, s] of m) {
      if (s < 0) apart.get(a)!.add(b);
      else {
        sums.get(a)!.set(b, s);
        peaks.get(a)!.set(b, s);
      }
    }
  }
  for (;;) {
    let best: [number, number] | undefined;
    let bestAverage = o.threshold;
    for (const [a, m] of sums) {
      const sizeA = members.get(a)!.length;
      for (const [b, sum] of m) {
        if (b <= a || apart.get(a)!.has(b)) continue;
        const mean = sum / (sizeA * members.get(b)!.length);
        const average = mean + o.peakWeight * (peaks.get(a)!.get(b)! - mean);
        if (average >= bestAverage && (!best || average > bestAverage || a < best[0])) {
          best = [a, b];
          bestAverage = average;
        }
      }
    }
    if (!best) break;
    const [a, b] = best;
    members.get(a)!.push(...members.get(b)!);
    members.delete(b);
    const sa = sums.get(a)!;
    const pk = peaks.get(a)!;
    for (const [c, s] of sums.get(b)!) {
      if (c === a) continue;
      sa.set(c, (sa.get(c) ?? 0) + s);
      const sc = sums.get(c)!;
      sc.set(a, (sc.get(a) ?? 0) + s);
      sc.delete(b);
      const peak = Math.max(pk.get(c) ?? 0, peaks.get(b)!.get(c)!);
      pk.set(c, peak);
      peaks.get(c)!.set(a, peak);
      peaks.get(c)!.delete(b);
    }
    sa.delete(b);
    sums.delete(b);
    pk.delete(b);
    peaks.delete(b);
    const pa = apart.get(a)!;
    for (const c of apart.get(b)!) {
      if (c === a) continue;
      pa.add(c);
      apart.get(c)!.delete(b);
      apart.get(c)!.add(a);
    }
    pa.delete(b);
    apart.delete(b);
  }
  return [...members.values()].map((m) => m.sort((x, y) => x - y)).sort((x, y) => x[0]! - y[0]!);
}
