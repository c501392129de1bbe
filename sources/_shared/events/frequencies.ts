/**
 * How rare each feature is across stored titles (document frequency over the archive's last days
 * of titles): names and places are rare and weigh 1, words that every day's headlines use (回应,
 * 最新, 现场) weigh less. With fewer than MIN_DOCUMENTS titles stored every feature weighs 1, and
 * the bundled boilerplate list of features.ts alone tells common words from rare ones.
 */
import { keyFeatures } from './features.ts';
import { normaliseTitle } from './normalise.ts';

/** The least a feature weighs, however common: a common word still says something. */
const FLOOR = 0.15;
/**
 * Fewer distinct titles than this are too few to tell rare from common (a day's burst of one
 * story would look common): every feature then weighs 1, and the bundled boilerplate list decides.
 */
export const MIN_DOCUMENTS = 1000;

export class FeatureFrequencies {
  private readonly df = new Map<string, number>();
  private docs = 0;
  private readonly seen = new Set<string>();

  /** Count a title once, whatever how many lists and snapshots carried it. */
  add(title: string): void {
    const key = normaliseTitle(title);
    if (!key || this.seen.has(key)) return;
    this.seen.add(key);
    this.docs++;
    for (const f of keyFeatures(key).keys()) this.df.set(f, (this.df.get(f) ?? 0) + 1);
  }

  get size(): number {
    return this.docs;
  }

  /** 1 for a feature no stored title has, falling with the share of titles that have it. */
  weight(feature: string): number {
    if (this.docs < MIN_DOCUMENTS) return 1;
    const idf = Math.log((this.docs + 1) / ((this.df.get(feature) ?? 0) + 1)) / Math.log(this.docs + 1);
    return Math.max(FLOOR, idf);
  }

  static of(titles: Iterable<string>): FeatureFrequencies {
    const f = new FeatureFrequencies();
    for (const t of titles) f.add(t);
    return f;
  }
}
