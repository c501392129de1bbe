/**
 * Scoring a merger against labelled moments, as ../shared/fixtures/hotlists-archive/README.md
 * defines it: precision of merged cross-platform item pairs (pairs inside an `uncertain` list
 * left out), platform-pair recall per labelled group, and whether the largest group is joined
 * across two platforms by one of the first five events.
 */
import type { Labels } from './moments.ts';

/** An event as the scorer sees it: its items as `platform#rank`, in rank order of the events. */
export type ScoredEvent = readonly string[];

export interface MomentScore {
  /** Merged cross-platform pairs scored, and how many share a group. */
  pairs: number;
  rightPairs: number;
  /** Platform pairs the groups span, and how many some event joins. */
  platformPairs: number;
  foundPlatformPairs: number;
  biggestInTop5: boolean;
  biggest: string;
  /** Merged pairs that share no group, for reading. */
  wrong: [string, string][];
  /** Platform pairs of a group no event joins. */
  missed: { event: string; platforms: [string, string] }[];
}

const platformOf = (item: string) => item.slice(0, item.lastIndexOf('#'));

export function scoreMoment(events: readonly ScoredEvent[], labels: Labels): MomentScore {
  const groupsOf = new Map<string, Set<number>>();
  labels.groups.forEach((g, n) => {
    for (const item of g.items) {
      const set = groupsOf.get(item) ?? new Set();
      set.add(n);
      groupsOf.set(item, set);
    }
  });
  const uncertain = labels.uncertain.map((u) => new Set(u));
  const doubtful = (a: string, b: string) => uncertain.some((u) => u.has(a) && u.has(b));
  const shareGroup = (a: string, b: string) => [...(groupsOf.get(a) ?? [])].some((g) => groupsOf.get(b)?.has(g));

  let pairs = 0;
  let rightPairs = 0;
  const wrong: [string, string][] = [];
  for (const ev of events) {
    for (let i = 0; i < ev.length; i++) {
      for (let j = i + 1; j < ev.length; j++) {
        const a = ev[i]!;
        const b = ev[j]!;
        if (platformOf(a) === platformOf(b)) continue;
        const right = shareGroup(a, b);
        if (!right && doubtful(a, b)) continue;
        pairs++;
        if (right) rightPairs++;
        else wrong.push([a, b]);
      }
    }
  }

  let platformPairs = 0;
  let foundPlatformPairs = 0;
  const missed: MomentScore['missed'] = [];
  for (const g of labels.groups) {
    const members = new Set(g.items);
    const platforms = [...new Set(g.items.map(platformOf))].sort();
    // For each event, the platforms on which it holds an item of the group.
    const spans = events.map((ev) => new Set(ev.filter((i) => members.has(i)).map(platformOf)));
    for (let i = 0; i < platforms.length; i++) {
      for (let j = i + 1; j < platforms.length; j++) {
        platformPairs++;
        if (spans.some((s) => s.has(platforms[i]!) && s.has(platforms[j]!))) foundPlatformPairs++;
        else missed.push({ event: g.event, platforms: [platforms[i]!, platforms[j]!] });
      }
    }
  }

  const biggestGroup = labels.groups.reduce((best, g) => (g.items.length > best.items.length ? g : best), labels.groups[0] ?? { event: '', items: [] });
  const biggestItems = new Set(biggestGroup.items);
  const biggestInTop5 = events.slice(0, 5).some((ev) => new Set(ev.filter((i) => biggestItems.has(i)).map(platformOf)).size >= 2);
  return { pairs, rightPairs, platformPairs, foundPlatformPairs, biggestInTop5, biggest: biggestGroup.event, wrong, missed };
}
