/**
 * What a title says, as weighted features: its words (Node's built-in ICU word segmenter,
 * `Intl.Segmenter('zh', {granularity: 'word'})`) and its character bigrams (which catch the words
 * the segmenter splits: 倾/覆, 失/联, 王/毅). A feature weighs as much as it is rare across the
 * stored titles (see frequencies.ts); the boilerplate of hot-list titles weighs a quarter.
 */
import { setBounded } from '../../../src/kernel/bounded-map.ts';
import { normaliseTitle } from './normalise.ts';

const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });

/** Boilerplate of hot-list titles (normalised form): what a title says about any event. */
export const GENERIC_WORDS: ReadonlySet<string> = new Set([
  '如何看待', '如何评价', '为什么', '怎么看', '是什么', '有哪些', '发布会', '进行时', '最新消息', '哪些信息',
  '值得关注', '暴露', '哪些', '问题', '如何', '怎么', '什么', '网友', '热议', '回应', '官宣', '最新', '曝光', '正式',
  '首次', '今日', '今天', '今起', '发布', '新品', '新款', '开幕', '闭幕', '多地', '迎来', '比赛', '决赛', '战胜',
  '不敌', '横扫', '对阵', '夺冠', '宣布', '公布', '揭晓', '现场', '视频', '直播', '消息', '进展', '结果', '出炉',
  '陆续', '上映', '定档', '开售', '开启', '完成', '成功', '圆满', '火爆', '来了', '终于', '突然', '重磅', '刚刚',
  '全国', '开始', '已经', '目前', '当地', '网传', '通报', '表示', '称', '发声', '画面', '真的', '这个', '这些',
  '一个', '我们', '你们', '他们', '没有', '可以', '不是', '就是', '还是', '事件', '原因', '背后', '中国', 'vs', 'pk',
  '推荐', '攻略', '指南', '盘点', '合集', '周末', '城市', '路线', '生活', '时间', '方法', '技巧', '需要', '准备',
]);
export const GENERIC_CHARS: ReadonlySet<string> = new Set([...'了的是在将被吗呢啊已又再和与及也都还就后上中新']);
/** The generic phrases as characters, by their first character, longest first. */
const PHRASES_BY_FIRST = new Map<string, string[][]>();
for (const w of [...GENERIC_WORDS].map((x) => [...x]).filter((x) => x.length > 1).sort((a, b) => b.length - a.length)) {
  const list = PHRASES_BY_FIRST.get(w[0]!) ?? [];
  list.push(w);
  PHRASES_BY_FIRST.set(w[0]!, list);
}

/** Which characters of a key are boilerplate: inside a generic phrase, or (unless phrasesOnly) a function character. */
export function genericMask(chars: readonly string[], phrasesOnly = false): boolean[] {
  const mask = chars.map((c) => !phrasesOnly && GENERIC_CHARS.has(c));
  for (let i = 0; i < chars.length; i++) {
    const phrases = PHRASES_BY_FIRST.get(chars[i]!);
    if (!phrases) continue;
    const hit = phrases.find((g) => g.every((c, j) => chars[i + j] === c));
    if (hit) for (let j = 0; j < hit.length; j++) mask[i + j] = true;
  }
  return mask;
}
export const GENERIC_FACTOR = 0.25;

export interface TitleFeatures {
  key: string;
  /** Feature → how much of the title it is (1, or GENERIC_FACTOR for boilerplate). */
  own: Map<string, number>;
  /** Numbers of the title with the character after them ("68级", "3比0", "2026年"). */
  numbers: string[];
  /** Its words of two or more characters (and pairs of characters the segmenter left alone), with where each starts in the key (UTF-16), in order. */
  words: { text: string; at: number }[];
}

/** A Han character (the CJK unified ideographs, their extensions and compatibility forms). */
function isCjk(c: string): boolean {
  const x = c.codePointAt(0)!;
  return (x >= 0x4e00 && x <= 0x9fff) || (x >= 0x3400 && x <= 0x4dbf) || (x >= 0xf900 && x <= 0xfaff) || (x >= 0x20000 && x <= 0x3134f);
}

function add(out: Map<string, number>, feature: string, factor: number): void {
  out.set(feature, Math.max(out.get(feature) ?? 0, factor));
}

/** Words ("w:") and bigrams ("b:") of a normalised key. */
export function keyFeatures(key: string): Map<string, number> {
  return analyse(key).own;
}

function analyse(key: string): { own: Map<string, number>; words: { text: string; at: number }[] } {
  const out = new Map<string, number>();
  const words: { text: string; at: number }[] = [];
  const chars = [...key];
  const generic = genericMask(chars);
  // The segment each character belongs to, and whether that segment is a single character.
  const segmentOf: number[] = [];
  const single: boolean[] = [];
  let offset = 0;
  let n = 0;
  for (const s of segmenter.segment(key)) {
    const word = s.segment;
    const len = [...word].length;
    if (s.isWordLike && len >= 2 && !/^\d+$/.test(word)) words.push({ text: word, at: s.index });
    if (s.isWordLike && (len >= 2 || /^[a-z0-9]+$/.test(word))) {
      const boilerplate = GENERIC_WORDS.has(word) || generic.slice(offset, offset + len).every(Boolean);
      add(out, `w:${word}`, boilerplate ? GENERIC_FACTOR : 1);
      // A latin name (iphone18, deepseek) counts twice, as a Chinese word does with its bigram.
      if (/[a-z]/.test(word) && len >= 2 && !boilerplate) add(out, `l:${word}`, 1);
    }
    for (let i = 0; i < len; i++) {
      segmentOf.push(n);
      single.push(len === 1);
    }
    offset += len;
    n++;
  }
  // Bigrams inside a word (a two-character word so counts twice: a word the segmenter knows says
  // more than a pair of characters it could not place), or across characters it left alone
  // (倾/覆, 王/毅); not across the boundary of two words, which says nothing the words do not.
  const unknownWords: { text: string; at: number }[] = [];
  const utf16At: number[] = [];
  for (let i = 0, at = 0; i < chars.length; at += chars[i]!.length, i++) utf16At.push(at);
  for (let i = 0; i + 1 < chars.length; i++) {
    const a = chars[i]!;
    const b = chars[i + 1]!;
    if (!isCjk(a) || !isCjk(b)) continue;
    if (segmentOf[i] !== segmentOf[i + 1] && !(single[i] && single[i + 1])) continue;
    add(out, `b:${a}${b}`, generic[i] && generic[i + 1] ? GENERIC_FACTOR : 1);
    // Two characters the segmenter left alone are a word it does not know (以/军, 王/毅) when
    // neither is a function character.
    if (single[i] && single[i + 1] && !GENERIC_CHARS.has(a) && !GENERIC_CHARS.has(b)) unknownWords.push({ text: a + b, at: utf16At[i]! });
  }
  if (unknownWords.length) {
    words.push(...unknownWords);
    words.sort((x, y) => x.at - y.at);
  }
  return { own: out, words };
}

/** Features of titles met lately: lists change a few items at a time, so most titles come again. */
const known = new Map<string, TitleFeatures>();
const KNOWN_MAX = 20_000;

export function titleFeatures(title: string): TitleFeatures {
  const cached = known.get(title);
  if (cached) return cached;
  const key = normaliseTitle(title);
  const numbers = [...key.matchAll(/(\d+比\d+)|(\d+)(\D?)/g)].map((m) => m[1] ?? `${m[2]}${m[3] && isCjk(m[3]) ? m[3] : ''}`);
  const { own, words } = analyse(key);
  const features = { key, own, numbers, words };
  setBounded(known, title, features, KNOWN_MAX);
  return features;
}
