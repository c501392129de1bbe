/**
 * `npm run eval:trending`: the trending merger on the real hot lists of
 * ../shared/fixtures/hotlists-archive, per moment: precision of merged cross-platform item pairs,
 * platform-pair recall, and whether the biggest labelled story is in the top 5 (see the README of
 * that folder). `--verbose` also prints the wrong pairs, the missed platform pairs and, for the
 * moments without labels, the cross-platform events to read.
 *
 * `--leave-one-out` sweeps the clustering threshold: for each labelled moment it picks the threshold
 * with the best recall at ≥ 97 % precision on the other four (on equal recall, the best precision;
 * see trending-eval/threshold.ts), and scores the moment with it.
 *
 * `--coverage` scores coverage joining (sources/_shared/events/coverage.ts): each labelled platform
 * in turn as a coverage list, the precision of the pairs its items make in the events they join and
 * the share of its labelled platform pairs they find, at the clustering's threshold and stricter
 * ones (`--verbose`: the wrong pairs at the default).
 *
 * Word rarity comes, for each moment, from the titles of the other moments: the service takes it
 * from its own archive of earlier days, which never holds the moment being merged.
 */
import { FeatureFrequencies, mergeEvents, type MergeOptions } from '../sources/_shared/trending.ts';
import { ARCHIVE_DIR, readMoments } from './trending-eval/moments.ts';
import { scoreCoverage } from './trending-eval/coverage.ts';
import { scoreMoment } from './trending-eval/score.ts';
import { chooseThreshold } from './trending-eval/threshold.ts';

import { DEFAULT_CLUSTER } from '../sources/_shared/events/cluster.ts';
import type { Moment } from './trending-eval/moments.ts';
import type { MomentScore } from './trending-eval/score.ts';

const verbose = process.argv.includes('--verbose');
const moments = readMoments();
if (!moments) {
  console.log(`Skipped: ${ARCHIVE_DIR} is absent (the labelled hot lists live beside the checkout, in ../shared).`);
  process.exit(0);
}

function frequenciesBeside(m: Moment, all: readonly Moment[]): FeatureFrequencies {
  return FeatureFrequencies.of(all.filter((o) => o !== m).flatMap((o) => o.lists.flatMap((l) => l.items.map((i) => i.title))));
}

if (process.argv.includes('--leave-one-out')) {
  const labelledMoments = moments.filter((m) => m.labels);
  const thresholds = Array.from({ length: 15 }, (_, i) => Math.round((0.25 + i * 0.025) * 1000) / 1000);
  const scores = new Map<number, MomentScore[]>();
  for (const t of thresholds) {
    scores.set(
      t,
      labelledMoments.map((m) => {
        const events = mergeEvents(m.lists, { frequencies: frequenciesBeside(m, moments), cluster: { ...DEFAULT_CLUSTER, threshold: t } });
        return scoreMoment(events.map((e) => e.platforms.map((p) => `${p.sourceId}#${p.rank}`)), m.labels!);
      }),
    );
  }
  console.log('threshold  ' + labelledMoments.map((m) => m.date.padEnd(24)).join(''));
  for (const t of thresholds) console.log(`${t.toFixed(3)}      ` + scores.get(t)!.map((x) => `${((100 * x.rightPairs) / Math.max(1, x.pairs)).toFixed(0)}% ${((100 * x.foundPlatformPairs) / x.platformPairs).toFixed(0)}% ${x.biggestInTop5 ? 'top5' : '----'}`.padEnd(24)).join(''));
  labelledMoments.forEach((m, k) => {
    const others = new Map([...scores].map(([t, xs]) => [t, xs.filter((_, j) => j !== k)]));
    const chosen = chooseThreshold(others) ?? thresholds[thresholds.length - 1]!;
    const x = scores.get(chosen)![k]!;
    console.log(`held out ${m.date}: threshold ${chosen} (tuned on the other four) gives precision ${x.rightPairs}/${x.pairs}, recall ${x.foundPlatformPairs}/${x.platformPairs}, biggest in top 5: ${x.biggestInTop5 ? 'yes' : 'no'}`);
  });
  process.exit(0);
}

const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : 'n/a');

if (process.argv.includes('--coverage')) {
  console.log('coverage threshold  joined pairs precision      coverage platform-pair recall  (each labelled platform in turn as coverage)');
  for (const threshold of [0.4, 0.45, 0.5, 0.55, 0.6]) {
    const sum = { pairs: 0, right: 0, found: 0, platformPairs: 0 };
    for (const m of moments.filter((x) => x.labels)) {
      const s = scoreCoverage(m, frequenciesBeside(m, moments), { ...DEFAULT_CLUSTER, threshold });
      sum.pairs += s.pairs;
      sum.right += s.rightPairs;
      sum.found += s.foundPlatformPairs;
      sum.platformPairs += s.platformPairs;
      if (verbose && threshold === DEFAULT_CLUSTER.threshold) {
        const title = (item: string) => m.lists.find((l) => l.sourceId === item.slice(0, item.lastIndexOf('#')))?.items[Number(item.slice(item.lastIndexOf('#') + 1)) - 1]?.title ?? '?';
        for (const [a, b] of s.wrong) console.log(`    ${m.date} wrong: ${a} ${title(a)}  /  ${b} ${title(b)}`);
      }
    }
    console.log(`${threshold.toFixed(2)}                ${pct(sum.right, sum.pairs).padStart(6)} (${sum.right}/${sum.pairs})`.padEnd(50) + `${pct(sum.found, sum.platformPairs).padStart(6)} (${sum.found}/${sum.platformPairs})`);
  }
  process.exit(0);
}

let pairs = 0;
let right = 0;
let platformPairs = 0;
let found = 0;
let top5 = 0;
let labelled = 0;
const precisions: number[] = [];
console.log('moment      lists  precision        platform-pair recall  biggest story in top 5');
for (const m of moments) {
  const options: MergeOptions = { frequencies: frequenciesBeside(m, moments) };
  const events = mergeEvents(m.lists, options).map((e) => e.platforms.map((p) => `${p.sourceId}#${p.rank}`));
  if (!m.labels) {
    const cross = mergeEvents(m.lists, options).filter((e) => e.platformCount > 1);
    console.log(`${m.date}  ${m.lists.length}      (not labelled: ${cross.length} cross-platform events${verbose ? ', below' : '; --verbose prints them'})`);
    if (verbose) for (const e of cross) console.log(`    ${e.platforms.map((p) => `${p.sourceId}#${p.rank} ${p.title}`).join('  |  ')}`);
    continue;
  }
  const s = scoreMoment(events, m.labels);
  labelled++;
  pairs += s.pairs;
  right += s.rightPairs;
  platformPairs += s.platformPairs;
  found += s.foundPlatformPairs;
  if (s.biggestInTop5) top5++;
  if (s.pairs) precisions.push(s.rightPairs / s.pairs);
  console.log(
    `${m.date}  ${m.lists.length}      ${pct(s.rightPairs, s.pairs).padStart(6)} (${s.rightPairs}/${s.pairs})`.padEnd(42) +
      `${pct(s.foundPlatformPairs, s.platformPairs).padStart(6)} (${s.foundPlatformPairs}/${s.platformPairs})`.padEnd(22) +
      `${s.biggestInTop5 ? 'yes' : 'NO '} ${s.biggest}`,
  );
  if (verbose) {
    const title = (item: string) => {
      const [p, r] = [item.slice(0, item.lastIndexOf('#')), Number(item.slice(item.lastIndexOf('#') + 1))];
      return m.lists.find((l) => l.sourceId === p)?.items[r - 1]?.title ?? '?';
    };
    for (const [a, b] of s.wrong) console.log(`    wrong: ${a} ${title(a)}  /  ${b} ${title(b)}`);
    for (const x of s.missed) console.log(`    missed: ${x.platforms.join('-')} of ${x.event}`);
  }
}
console.log(`mean of the moments' precision: ${((100 * precisions.reduce((a, b) => a + b, 0)) / Math.max(1, precisions.length)).toFixed(1)}% (the pooled figure below weighs big events' many pairs more)`);
console.log(`all labelled (${labelled})     ${pct(right, pairs).padStart(6)} (${right}/${pairs})`.padEnd(42) + `${pct(found, platformPairs).padStart(6)} (${found}/${platformPairs})`.padEnd(22) + `${top5}/${labelled}`);
