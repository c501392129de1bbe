/**
 * The clustering threshold of `eval:trending --leave-one-out`: tuned on some moments' scores, the
 * one with the best platform-pair recall at ≥ MIN_PRECISION pooled precision; on equal recall the
 * more precise one (precision first), not the loosest.
 */
import type { MomentScore } from './score.ts';

export const MIN_PRECISION = 0.97;

type Counts = Pick<MomentScore, 'pairs' | 'rightPairs' | 'platformPairs' | 'foundPlatformPairs'>;

/** `scores` holds, per threshold (ascending), the scores of the moments it is tuned on. */
export function chooseThreshold(scores: ReadonlyMap<number, readonly Counts[]>): number | undefined {
  const sum = (xs: readonly Counts[], k: keyof Counts) => xs.reduce((a, x) => a + x[k], 0);
  let chosen: number | undefined;
  let bestRecall = -1;
  let bestPrecision = -1;
  for (const [t, xs] of scores) {
    const precision = sum(xs, 'rightPairs') / Math.max(1, sum(xs, 'pairs'));
    const recall = sum(xs, 'foundPlatformPairs') / Math.max(1, sum(xs, 'platformPairs'));
    if (precision >= MIN_PRECISION && (recall > bestRecall || (recall === bestRecall && precision > bestPrecision))) {
      bestRecall = recall;
      bestPrecision = precision;
      chosen = t;
    }
  }
  return chosen;
}
