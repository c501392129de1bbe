/**
 * Items into events by agglomerative clustering: the two events with the highest linkage merge
 * first, again and again, while it reaches the threshold. The linkage lies between the average
 * similarity of their items (which alone splits a story told from several angles) and their
 * closest pair (which alone chains topics): `peakWeight` of the way from the one to the other.
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
export const INDEX_MIN_WEIGHT = 0.2;
/**
 * Nor features that this many items hold: a word in every title tells no event apart, and
 * comparing all of their pairs would make the merge quadratic in the lists' length.
 */
export const INDEX_MAX_ITEMS = 300;

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
    if (list.length > INDEX_MAX_ITEMS) continue;
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
  // Candidate merges, best linkage first; an entry is stale once either cluster changed since.
  const version = new Map<number, number>(items.map((_, n) => [n, 0]));
  const heap = new LinkageHeap();
  const linkage = (a: number, b: number) => {
    const mean = sums.get(a)!.get(b)! / (members.get(a)!.length * members.get(b)!.length);
    return mean + o.peakWeight * (peaks.get(a)!.get(b)! - mean);
  };
  const offer = (a: number, b: number) => {
    if (apart.get(a)!.has(b)) return;
    const l = linkage(a, b);
    if (l >= o.threshold) heap.push({ linkage: l, a: Math.min(a, b), b: Math.max(a, b), va: version.get(Math.min(a, b))!, vb: version.get(Math.max(a, b))! });
  };
  for (const [a, m] of sums) for (const b of m.keys()) if (a < b) offer(a, b);
  for (let top = heap.pop(); top; top = heap.pop()) {
    const { a, b } = top;
    if (version.get(a) !== top.va || version.get(b) !== top.vb) continue;
    members.get(a)!.push(...members.get(b)!);
    members.delete(b);
    version.set(a, top.va + 1);
    version.delete(b);
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
    for (const c of sa.keys()) offer(a, c);
  }
  return [...members.values()].map((m) => m.sort((x, y) => x - y)).sort((x, y) => x[0]! - y[0]!);
}

interface Candidate {
  linkage: number;
  a: number;
  b: number;
  va: number;
  vb: number;
}

/** A binary max-heap of candidate merges: highest linkage first, then the lowest pair of indexes. */
class LinkageHeap {
  private readonly h: Candidate[] = [];

  private before(x: Candidate, y: Candidate): boolean {
    return x.linkage > y.linkage || (x.linkage === y.linkage && (x.a < y.a || (x.a === y.a && x.b < y.b)));
  }

  push(c: Candidate): void {
    const h = this.h;
    h.push(c);
    for (let i = h.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!this.before(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  pop(): Candidate | undefined {
    const h = this.h;
    const top = h[0];
    const last = h.pop();
    if (h.length && last) {
      h[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.before(h[l]!, h[m]!)) m = l;
        if (r < h.length && this.before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}
