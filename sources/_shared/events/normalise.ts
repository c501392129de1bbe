/**
 * Titles in the one form the event clusterer compares: `titleKey` (width, case, hashtags,
 * punctuation and spaces aside), traditional characters as simplified ones (opencc-js, the
 * JavaScript build of Open Chinese Convert: a table of a few thousand characters and phrases is
 * what it takes to get 發佈/台灣/後 right, not something to keep by hand), and Chinese numerals
 * with a unit character (十, 百, 千, 万, 亿) as digits: 一百 → 100, 三十七 → 37, and a few
 * spellings that headlines use interchangeably for one thing as one (侧翻 = 倾覆, 抢七 = G7).
 */
import { lazyModule } from '../../../src/kernel/lazy-module.ts';
import { titleKey } from '../../../src/kernel/title-key.ts';

// Its tables hold about 11 MiB: loaded when trending first merges, not at every start.
const openccT2cn = lazyModule<typeof import('opencc-js/t2cn')>('opencc-js/t2cn');
let converter: ((text: string) => string) | undefined;
const toSimplified = (text: string): string => (converter ??= openccT2cn().Converter({ from: 't', to: 'cn' }))(text);

const DIGIT: Record<string, number> = { 零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };
const UNIT: Record<string, number> = { 十: 10, 百: 100, 千: 1000 };
const BIG: Record<string, number> = { 万: 10_000, 亿: 100_000_000 };
/** A run of numeral characters that holds a small unit: a number written out, not 一些 or 万一. */
const NUMERAL_RUN = /[零〇一二两三四五六七八九十百千万亿]*[十百千][零〇一二两三四五六七八九十百千万亿]*/g;

/** The value of a written-out Chinese number (一百 → 100, 十五 → 15, 三万五千 → 35000). */
export function chineseNumber(s: string): number | undefined {
  let total = 0;
  let section = 0;
  let digit: number | undefined;
  for (const c of s) {
    if (c in DIGIT) {
      if (digit !== undefined) return undefined;
      digit = DIGIT[c];
    } else if (c in UNIT) {
      section += (digit ?? 1) * UNIT[c]!;
      digit = undefined;
    } else if (c in BIG) {
      total += (section + (digit ?? 0)) * BIG[c]!;
      section = 0;
      digit = undefined;
    } else return undefined;
  }
  return total + section + (digit ?? 0);
}

/** Interchangeable spellings of one thing in headlines, as one (abbreviation → its common form). */
const SAME_THING: readonly [RegExp, string][] = [
  [/侧翻|翻沉|倾翻/g, '倾覆'],
  [/抢七|第七场/g, 'g7'],
  [/通电话/g, '通话'],
  [/俄罗斯/g, '俄'],
  [/会晤/g, '会谈'],
];

export function normaliseTitle(title: string): string {
  let key = titleKey(toSimplified(title));
  for (const [spelling, common] of SAME_THING) key = key.replace(spelling, common);
  return key.replace(NUMERAL_RUN, (run) => {
    const n = chineseNumber(run);
    return n === undefined ? run : String(n);
  });
}
