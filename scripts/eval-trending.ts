/**
 * `npm run eval:trending`: the trending merger on the real hot lists of
 * ../shared/fixtures/hotlists-archive, per moment: precision of merged cross-platform item pairs,
 * platform-pair recall, and whether the biggest labelled story is in the top 5 (see the README of
 * that folder). `--verbose` also prints the wrong pairs, the missed platform pairs and, for the
 * moments without labels, the cross-platform events to read.
 */
import { mergeEvents } from '../sources/_shared/trending.ts';
import { ARCHIVE_DIR, readMoments } from './trending-eval/moments.ts';
import { scoreMoment } from './trending-eval/score.ts';

const verbose = process.argv.includes('--verbose');
const moments = readMoments();
if (!moments) {
  console.log(`Skipped: ${ARCHIVE_DIR} is absent (the labelled hot lists live beside the checkout, in ../shared).`);
  process.exit(0);
}

const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : 'n/a');
let pairs = 0;
let right = 0;
let platformPairs = 0;
let found = 0;
let top5 = 0;
let labelled = 0;
console.log('moment      lists  precision        platform-pair recall  biggest story in top 5');
for (const m of moments) {
  const events = mergeEvents(m.lists).map((e) => e.platforms.map((p) => `${p.sourceId}#${p.rank}`));
  if (!m.labels) {
    const cross = mergeEvents(m.lists).filter((e) => new Set(e.platforms.map((p) => p.sourceId)).size > 1);
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
console.log(`all labelled (${labelled})     ${pct(right, pairs).padStart(6)} (${right}/${pairs})`.padEnd(42) + `${pct(found, platformPairs).padStart(6)} (${found}/${platformPairs})`.padEnd(22) + `${top5}/${labelled}`);
