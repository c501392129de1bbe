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
/** Titles counted between two yields to the event loop (about 20 ms of work). */
const CHUNK = 500;

export class FeatureFrequencies {
  private readonly df = new Map<string, number>();
  private docs = 0;
  /** Weight by document count, while the count of titles stays the same. */
  private readonly byCount = new Map<number, number>();

  /** Count a title (the builders count each distinct title once, whatever how many lists carried it). */
  private add(key: string): void {
    this.docs++;
    this.byCount.clear();
    for (const f of keyFeatures(key).keys()) this.df.set(f, (this.df.get(f) ?? 0) + 1);
  }

  get size(): number {
    return this.docs;
  }

  /** 1 for a feature no stored title has, falling with the share of titles that have it. */
  weight(feature: string): number {
    if (this.docs < MIN_DOCUMENTS) return 1;
    const df = this.df.get(feature) ?? 0;
    let w = this.byCount.get(df);
    if (w === undefined) {
      w = Math.max(FLOOR, Math.log((this.docs + 1) / (df + 1)) / Math.log(this.docs + 1));
      this.byCount.set(df, w);
    }
    return w;
  }

  static of(titles: Iterable<string>): FeatureFrequencies {
    const f = new FeatureFrequencies();
    const seen = new Set<string>();
    for (const t of titles) f.addOnce(t, seen);
    return f;
  }

  /** Like `of`, yielding to the event loop every CHUNK titles: thousands of titles take seconds. */
  static async ofAsync(titles: readonly string[]): Promise<FeatureFrequencies> {
    const f = new FeatureFrequencies();
    const seen = new Set<string>();
    for (let i = 0; i < titles.length; i += CHUNK) {
      for (const t of titles.slice(i, i + CHUNK)) f.addOnce(t, seen);
      await new Promise((resolve) => setImmediate(resolve));
    }
    return f;
  }

  private addOnce(title: string, seen: Set<string>): void {
    const key = normaliseTitle(title);
    if (!key || seen.has(key)) return;
    seen.add(key);
    this.add(key);
  }
}
