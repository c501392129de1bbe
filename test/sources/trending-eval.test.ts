/**
 * The trending merger on the real hot lists of ../shared/fixtures/hotlists-archive (labelled by
 * reading the titles; see that folder's README): the targets of issue 22 on the development
 * moments, the same numbers `npm run eval:trending` prints, and coverage joining (each platform in
 * turn as a coverage list, as `--coverage` prints). Skips when the folder is absent.
 */
import { describe, expect, it } from 'vitest';
import { scoreCoverage } from '../../scripts/trending-eval/coverage.ts';
import { ARCHIVE_DIR, readMoments, type Moment } from '../../scripts/trending-eval/moments.ts';
import { scoreMoment } from '../../scripts/trending-eval/score.ts';
import { chooseThreshold } from '../../scripts/trending-eval/threshold.ts';
import { FeatureFrequencies, mergeEvents, type PlatformList } from '../../sources/_shared/trending.ts';

const moments = readMoments();

describe.skipIf(!moments)(`trending on real archived hot lists${moments ? '' : ` (skipped: ${ARCHIVE_DIR} is absent)`}`, () => {
  const scores = (moments ?? [])
    .filter((m) => m.labels)
    .map((m) => {
      // Word rarity from the other moments' titles, as the service takes it from earlier days.
      const frequencies = FeatureFrequencies.of(moments!.filter((o) => o !== m).flatMap((o) => o.lists.flatMap((l) => l.items.map((i) => i.title))));
      const events = mergeEvents(m.lists, { frequencies }).map((e) => e.platforms.map((p) => `${p.sourceId}#${p.rank}`));
      return { date: m.date, ...scoreMoment(events, m.labels!) };
    });

  it('has the five labelled development moments', () => {
    expect(scores.map((s) => s.date)).toEqual(['2025-01-07', '2025-05-05', '2025-09-03', '2026-03-01', '2026-05-14']);
  });

  it('precision of merged cross-platform pairs is at least 95 %', () => {
    const right = scores.reduce((a, s) => a + s.rightPairs, 0);
    const pairs = scores.reduce((a, s) => a + s.pairs, 0);
    expect(right / pairs).toBeGreaterThanOrEqual(0.95);
  });

  it('platform-pair recall is at least 70 %', () => {
    const found = scores.reduce((a, s) => a + s.foundPlatformPairs, 0);
    const all = scores.reduce((a, s) => a + s.platformPairs, 0);
    expect(found / all).toBeGreaterThanOrEqual(0.7);
  });

  it('the biggest labelled story is in the top 5 of every moment', () => {
    expect(scores.filter((s) => !s.biggestInTop5).map((s) => s.date)).toEqual([]);
  });
});

describe.skipIf(!moments)(`coverage lists on real archived hot lists${moments ? '' : ` (skipped: ${ARCHIVE_DIR} is absent)`}`, () => {
  const labelled = (moments ?? []).filter((m) => m.labels);
  const frequenciesOf = (m: Moment) => FeatureFrequencies.of(moments!.filter((o) => o !== m).flatMap((o) => o.lists.flatMap((l) => l.items.map((i) => i.title))));
  const scores = labelled.map((m) => scoreCoverage(m, frequenciesOf(m)));

  it('each platform in turn as coverage: at least 95 % of the pairs its joins make are right, and they find at least 70 % of its platform pairs', () => {
    const sum = (k: 'pairs' | 'rightPairs' | 'platformPairs' | 'foundPlatformPairs') => scores.reduce((a, s) => a + s[k], 0);
    expect(sum('pairs')).toBeGreaterThan(500);
    expect(sum('rightPairs') / sum('pairs')).toBeGreaterThanOrEqual(0.95);
    expect(sum('foundPlatformPairs') / sum('platformPairs')).toBeGreaterThanOrEqual(0.7);
  });

  it('a coverage list leaves the events of the general lists, their order, titles and scores, as they are without it', () => {
    for (const m of labelled) {
      const frequencies = frequenciesOf(m);
      for (const c of m.lists) {
        const others = m.lists.filter((l) => l !== c);
        const shape = (lists: PlatformList[]) => mergeEvents(lists, { frequencies }).map((e) => [e.title, e.score, e.platforms.filter((p) => p.role === 'general').map((p) => `${p.sourceId}#${p.rank}`)]);
        expect(shape([...others, { ...c, role: 'coverage' }])).toEqual(shape(others));
      }
    }
  });
});

describe('the scorer', () => {
  const labels = { groups: [{ event: 'a', items: ['x#1', 'y#2', 'z#1'] }, { event: 'b', items: ['x#2', 'y#1'] }], uncertain: [['x#3', 'y#3']] };

  it('counts merged cross-platform pairs, leaves uncertain ones out, and finds platform pairs once per group', () => {
    const s = scoreMoment([['x#1', 'y#2', 'y#1'], ['x#3', 'y#3'], ['z#1'], ['x#2']], labels);
    expect([s.rightPairs, s.pairs]).toEqual([1, 2]);
    expect(s.wrong).toEqual([['x#1', 'y#1']]);
    expect([s.foundPlatformPairs, s.platformPairs]).toEqual([1, 4]);
    expect(s.biggestInTop5).toBe(true);
  });

  it('the biggest story counts only when one of the first five events joins it across two platforms', () => {
    const events = [['x#9'], ['x#8'], ['x#7'], ['x#6'], ['x#1', 'x#2'], ['x#1', 'y#2']];
    expect(scoreMoment(events, labels).biggestInTop5).toBe(false);
  });
});

describe('the leave-one-out threshold', () => {
  const counts = (rightPairs: number, pairs: number, foundPlatformPairs: number) => [{ rightPairs, pairs, foundPlatformPairs, platformPairs: 10 }];

  it('takes the best recall at 97 % precision, and on equal recall the more precise threshold, not the loosest', () => {
    const scores = new Map([
      [0.3, counts(90, 100, 9)],
      [0.325, counts(97, 100, 8)],
      [0.35, counts(99, 100, 8)],
      [0.375, counts(100, 100, 7)],
    ]);
    expect(chooseThreshold(scores)).toBe(0.35);
    expect(chooseThreshold(new Map([[0.3, counts(90, 100, 9)]]))).toBeUndefined();
  });
});
