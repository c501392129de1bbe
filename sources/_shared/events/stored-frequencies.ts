/**
 * Feature rarity from the service's own stored titles: every title on any list during the
 * FREQUENCY_DAYS before a moment (the item index), most recent first, at most MAX_TITLES. Built
 * once per FREQUENCY_BUCKET_MS of moments and kept: rarity moves slowly, titles arrive quickly.
 */
import { setBounded } from '../../../src/kernel/bounded-map.ts';
import type { ListAccess } from '../../../src/kernel/list-access.ts';
import { DAY_MS } from '../../../src/kernel/time.ts';
import { FeatureFrequencies } from './frequencies.ts';

export const FREQUENCY_DAYS = 30;
export const MAX_TITLES = 30_000;
export const FREQUENCY_BUCKET_MS = 6 * 60 * 60_000;

/** By the service's list access (one per service), then by bucket. */
const builtBy = new WeakMap<ListAccess, Map<number, Promise<FeatureFrequencies>>>();

/** Which table answers a moment: tables are built per bucket of FREQUENCY_BUCKET_MS. */
export const frequencyBucket = (at: number) => Math.floor(at / FREQUENCY_BUCKET_MS);

export function storedFrequencies(access: ListAccess, at: number): Promise<FeatureFrequencies> {
  let built = builtBy.get(access);
  if (!built) builtBy.set(access, (built = new Map()));
  const bucket = frequencyBucket(at);
  let f = built.get(bucket);
  if (!f) {
    const to = (bucket + 1) * FREQUENCY_BUCKET_MS;
    f = access.titles({ from: to - FREQUENCY_DAYS * DAY_MS, to, limit: MAX_TITLES }).then((titles) => FeatureFrequencies.ofAsync(titles));
    // A failed read is not kept: the next request tries again.
    f.catch(() => built!.delete(bucket));
    // Now's table and one of a past moment (a table of 30,000 titles holds some 10 MB).
    setBounded(built, bucket, f, 2);
  }
  return f;
}
