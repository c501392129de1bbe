/**
 * Coverage joining scored on the labelled moments: each platform of a moment in turn is made a
 * coverage list, and its joins are scored as the merger's pairs are (score.ts): the pairs its items
 * make in the events they join, and the platform pairs of the labelled groups it is in that they
 * find. The general lists' own pairs are the same with or without it, so the difference of the
 * two scores is the coverage list's.
 */
import type { ClusterOptions } from '../../sources/_shared/events/cluster.ts';
import { mergeEvents, type FeatureFrequencies, type TrendingEvent } from '../../sources/_shared/trending.ts';
import type { Moment } from './moments.ts';
import { scoreMoment } from './score.ts';

export interface CoverageScore {
  pairs: number;
  rightPairs: number;
  platformPairs: number;
  foundPlatformPairs: number;
  /** Wrong pairs a coverage item made, as `platform#rank`, the coverage item first. */
  wrong: [string, string][];
}

const ids = (events: readonly TrendingEvent[]) => events.map((e) => e.platforms.map((p) => `${p.sourceId}#${p.rank}`));
const platformOf = (item: string) => item.slice(0, item.lastIndexOf('#'));

export function scoreCoverage(m: Moment, frequencies: FeatureFrequencies, coverage?: ClusterOptions): CoverageScore {
  const total: CoverageScore = { pairs: 0, rightPairs: 0, platformPairs: 0, foundPlatformPairs: 0, wrong: [] };
  for (const c of m.lists) {
    const others = m.lists.filter((l) => l !== c);
    const without = scoreMoment(ids(mergeEvents(others, { frequencies })), m.labels!);
    const withIt = scoreMoment(ids(mergeEvents([...others, { ...c, role: 'coverage' }], { frequencies, coverage })), m.labels!);
    total.pairs += withIt.pairs - without.pairs;
    total.rightPairs += withIt.rightPairs - without.rightPairs;
    total.foundPlatformPairs += withIt.foundPlatformPairs - without.foundPlatformPairs;
    for (const g of m.labels!.groups) {
      const platforms = new Set(g.items.map(platformOf));
      if (platforms.has(c.sourceId)) total.platformPairs += platforms.size - 1;
    }
    for (const [a, b] of withIt.wrong) {
      if (platformOf(a) === c.sourceId) total.wrong.push([a, b]);
      else if (platformOf(b) === c.sourceId) total.wrong.push([b, a]);
    }
  }
  return total;
}
