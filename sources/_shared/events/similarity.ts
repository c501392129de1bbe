/**
 * How close two titles are: the weighted overlap of their features (Dice, or containment when a
 * short headline sits inside a longer one or a question), and the guards that keep one template
 * with different names or numbers apart (小米|新品发布会 / 华为|新品发布会, 女排3比0 / 女排3比1).
 */
import { genericMask, type TitleFeatures } from './features.ts';
import type { FeatureFrequencies } from './frequencies.ts';

export interface Weighted {
  features: TitleFeatures;
  /** Feature → weight (own factor × rarity). */
  weights: Map<string, number>;
  total: number;
}

export function weigh(features: TitleFeatures, frequencies: FeatureFrequencies, extra?: Map<string, number>): Weighted {
  const weights = new Map<string, number>();
  for (const [f, own] of features.own) weights.set(f, own * frequencies.weight(f));
  // Features of a description count half, and only what the title does not already say.
  if (extra) for (const [f, own] of extra) if (!weights.has(f)) weights.set(f, 0.5 * own * frequencies.weight(f));
  let total = 0;
  for (const w of weights.values()) total += w;
  return { features, weights, total };
}

export interface SimilarityOptions {
  /** The contained title must weigh at least this (about two rare words). */
  minContained: number;
  /** Containment counts this much against Dice. */
  containmentFactor: number;
  /** Titles sharing less than this (one rare two-character word weighs 2) are not compared. */
  minShared: number;
}

export const DEFAULT_SIMILARITY: SimilarityOptions = { minContained: 2.5, containmentFactor: 0.8, minShared: 2 };

export function overlapScore(a: Weighted, b: Weighted, o: SimilarityOptions = DEFAULT_SIMILARITY): number {
  if (!a.total || !b.total) return 0;
  // The same words: the same thing, however short (a bare name on two lists).
  if (a.features.key === b.features.key) return 1;
  const [small, large] = a.weights.size <= b.weights.size ? [a, b] : [b, a];
  let shared = 0;
  for (const [f, w] of small.weights) {
    const v = large.weights.get(f);
    if (v !== undefined) shared += Math.min(w, v);
  }
  if (shared < o.minShared) return 0;
  const dice = (2 * shared) / (a.total + b.total);
  const least = Math.min(a.total, b.total);
  const containment = least >= o.minContained ? shared / least : 0;
  return Math.max(dice, o.containmentFactor * containment);
}

/**
 * Numbers that name which occurrence it is (a score, a year, a magnitude, a season, an episode)
 * rather than count something that grows while the story runs (9死 → 10死, 53人 → 95人).
 */
const IDENTIFYING_UNITS = new Set(['比', '年', '级', '届', '季', '期', '集', '代']);
const unitOf = (n: string) => (n.includes('比') ? '比' : n.replace(/^\d+/, ''));

/**
 * Both titles state an identifying number of the same kind and share no number: two matches,
 * two years, two earthquakes. Counts (70人 / 9死, 9死 / 10死) never clash.
 */
export function numbersDisagree(a: TitleFeatures, b: TitleFeatures): boolean {
  if (!a.numbers.length || !b.numbers.length) return false;
  const bs = new Set(b.numbers);
  if (a.numbers.some((n) => bs.has(n))) return false;
  const units = new Set(b.numbers.map(unitOf).filter((u) => IDENTIFYING_UNITS.has(u)));
  return a.numbers.some((n) => units.has(unitOf(n)));
}

function bigrams(chars: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i + 1 < chars.length; i++) out.add(chars[i]! + chars[i + 1]!);
  return out;
}

/** A slot longer than this is a different angle on one subject, not a different name in a template. */
const MAX_SLOT = 6;

/** Characters a template must share on each side of a slot to enclose it. */
const MIN_ENCLOSING = 2;

const isDigit = (c: string) => c >= '0' && c <= '9';

/** How long a slot is as a name: boilerplate phrases (进展, 发布会) aside, a number as one character. */
function slotLength(m: readonly string[]): number {
  const generic = genericMask(m, true);
  let n = 0;
  m.forEach((c, i) => {
    if (!generic[i] && !(isDigit(c) && i > 0 && isDigit(m[i - 1]!))) n++;
  });
  return n;
}

/**
 * One template with a different name in its slot: the titles share a beginning or an end, and
 * what differs in between is, on both sides, a name-sized run (two to MAX_SLOT characters, at
 * least two of them names or facts) with no bigram in common ("小米|新品发布会" / "华为|新品发布会",
 * "湖人vs|勇士" / "湖人vs|掘金"); not two accounts of one subject ("贵州游船倾覆事故|70人还在医院救治"
 * / "贵州游船倾覆事故|致9死1失联").
 */
export function slotSubstitution(a: TitleFeatures, b: TitleFeatures): boolean {
  const A = [...a.key];
  const B = [...b.key];
  let p = 0;
  while (p < A.length && p < B.length && A[p] === B[p]) p++;
  let s = 0;
  while (s < A.length - p && s < B.length - p && A[A.length - 1 - s] === B[B.length - 1 - s]) s++;
  if (p + s === 0) return false;
  const ma = A.slice(p, A.length - s);
  const mb = B.slice(p, B.length - s);
  // Two characters of a name or fact, numbers aside: 100比93 against 险胜 is a score against the
  // word for it, not another name.
  const specific = (m: string[]) => genericMask(m, true).filter((g, i) => !g && !isDigit(m[i]!)).length >= 2;
  const numeric = (m: string[]) => m.some(isDigit);
  // A slot enclosed by the template on both sides (年度|流行语|揭晓) is what the template is
  // about, even when it names its thing with a number or boilerplate (科技十大进展); a slot open
  // at one end may be the rest of a sentence, and only a name-sized run without numbers counts.
  const enclosed = p >= MIN_ENCLOSING && s >= MIN_ENCLOSING;
  const length = enclosed ? slotLength : (m: string[]) => m.length;
  // A number in both slots (in either, when open) is a score or a count, not a name: the numbers guard judges those.
  if (enclosed ? numeric(ma) && numeric(mb) : numeric(ma) || numeric(mb)) return false;
  if (length(ma) > MAX_SLOT || length(mb) > MAX_SLOT || !specific(ma) || !specific(mb)) return false;
  const gb = bigrams(mb);
  return ![...bigrams(ma)].some((g) => gb.has(g));
}

/** What says one side acts on the other (对, 向, 袭击…), between the two names. */
const DIRECTED = /对|向|袭击|打击|击中|打死|轰炸|制裁|起诉|指责|谴责/;

/**
 * Two names that both titles hold, in opposite order, each time with one acting on the other
 * between them: 伊朗对以色列… / 以色列对伊朗…, two different occurrences. (Plain reordering, as
 * in 东风5C打击范围覆盖全球 / 覆盖全球的东风5C, says nothing.)
 */
export function rolesReversed(a: TitleFeatures, b: TitleFeatures): boolean {
  const inB = new Map(b.words.map((w) => [w.text, w.at]));
  const shared = a.words.filter((w) => inB.has(w.text));
  for (let i = 0; i < shared.length; i++) {
    for (let j = i + 1; j < shared.length; j++) {
      const x = shared[i]!;
      const y = shared[j]!;
      if (x.text === y.text || x.at > y.at) continue;
      const bx = inB.get(x.text)!;
      const by = inB.get(y.text)!;
      if (by >= bx) continue;
      const betweenA = a.key.slice(x.at + x.text.length, y.at);
      const betweenB = b.key.slice(by + y.text.length, bx);
      if (DIRECTED.test(betweenA) && DIRECTED.test(betweenB)) return true;
    }
  }
  return false;
}

/** Never the same event, however close the words. */
export function keptApart(a: TitleFeatures, b: TitleFeatures): boolean {
  return numbersDisagree(a, b) || slotSubstitution(a, b) || rolesReversed(a, b);
}
