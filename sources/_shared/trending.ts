/**
 * Cross-platform trending: the items now on several hot lists merged into events when their
 * titles name the same thing. Pure functions, no I/O.
 *
 * Titles are compared in `titleKey` form (width, case, hashtags, punctuation and spaces aside)
 * by the overlap of their character bigrams, weighted so that the boilerplate of hot-list titles
 * ("如何看待", "发布会", "官宣", "vs"…) counts a quarter of a bigram that carries a name or a fact.
 * Two titles name the same event when their weighted Dice coefficient reaches DICE_THRESHOLD, or
 * when the shorter is almost wholly contained in the longer (a keyword against a sentence) and
 * carries enough of its own; never when both state numbers (scores, years) that disagree, nor
 * when they are one template with different names in its slot (see slotSubstitution). The
 * thresholds are tested on real-looking pairs in test/sources/trending.test.ts, which includes
 * the false friends: two matches of one team, two companies' launch events.
 */
import type { ListItem } from '../../src/kernel/list-items.ts';
import { titleKey } from '../../src/kernel/title-key.ts';

export const DICE_THRESHOLD = 0.5;
export const CONTAINMENT_THRESHOLD = 0.85;
/** The contained title must carry at least this much weight (three bigrams of names or facts). */
export const MIN_CONTAINED_WEIGHT = 3;
const GENERIC_WEIGHT = 0.25;

/** Boilerplate of hot-list titles, in titleKey form (longest first, so the longest match covers). */
const GENERIC: readonly string[] = [
  '如何看待', '如何评价', '为什么', '怎么看', '是什么', '有哪些', '发布会', '进行时', '最新消息',
  '如何', '怎么', '什么', '网友', '热议', '回应', '官宣', '最新', '曝光', '正式', '首次', '今日', '今天',
  '今起', '发布', '新品', '新款', '开幕', '闭幕', '多地', '迎来', '比赛', '决赛', '战胜', '不敌', '横扫',
  '对阵', '夺冠', '宣布', '公布', '揭晓', '现场', '视频', '直播', '消息', '进展', '结果', '出炉', '陆续',
  '上映', '定档', '开售', '开启', '完成', '成功', '圆满', '火爆', '来了', '终于', '突然', '重磅', '刚刚',
  '全国', '开始', 'vs', 'pk', '了', '的', '是', '在', '将', '被', '吗', '呢', '啊', '已', '又',
  '再', '和', '与', '及', '也', '都', '还', '就', '后', '上', '中', '新',
].sort((a, b) => b.length - a.length);
/** Only the phrases: single function characters (了, 上, 新…) can be part of a name in a slot. */
const GENERIC_PHRASES = GENERIC.filter((g) => [...g].length > 1);

export interface TitleProfile {
  key: string;
  /** The key's characters (code points). */
  chars: string[];
  /** Bigram → weight (the mean of its characters' weights). */
  grams: Map<string, number>;
  weight: number;
  numbers: Set<string>;
}

/** Generic phrases as characters, by their first character, longest first. */
function byFirstChar(phrases: readonly string[]): Map<string, string[][]> {
  const out = new Map<string, string[][]>();
  for (const p of phrases) {
    const chars = [...p];
    const list = out.get(chars[0]!) ?? [];
    list.push(chars);
    out.set(chars[0]!, list);
  }
  return out;
}
const GENERIC_BY_CHAR = byFirstChar(GENERIC);
const PHRASES_BY_CHAR = byFirstChar(GENERIC_PHRASES);

/** Weight of each character (code point) of a key: GENERIC_WEIGHT inside boilerplate, else 1. */
function charWeights(chars: readonly string[], generic = GENERIC_BY_CHAR): number[] {
  const w = chars.map(() => 1);
  for (let i = 0; i < chars.length; i++) {
    const hit = generic.get(chars[i]!)?.find((g) => g.every((c, j) => chars[i + j] === c));
    if (hit) for (let j = 0; j < hit.length; j++) w[i + j] = GENERIC_WEIGHT;
  }
  return w;
}

function bigrams(s: string): Set<string> {
  const c = [...s];
  const out = new Set<string>();
  for (let i = 0; i + 1 < c.length; i++) out.add(c[i]! + c[i + 1]!);
  return out;
}

/**
 * One template with a different name in its slot: the titles share a beginning or an end, and
 * what differs in between is, on both sides, at least two characters of names or facts with no
 * bigram in common ("小米|新品发布会" / "华为|新品发布会", "湖人vs|勇士" / "湖人vs|掘金").
 */
export function slotSubstitution(a: TitleProfile, b: TitleProfile): boolean {
  const A = a.chars;
  const B = b.chars;
  let p = 0;
  while (p < A.length && p < B.length && A[p] === B[p]) p++;
  let s = 0;
  while (s < A.length - p && s < B.length - p && A[A.length - 1 - s] === B[B.length - 1 - s]) s++;
  if (p + s === 0) return false;
  const ma = A.slice(p, A.length - s);
  const mb = B.slice(p, B.length - s);
  const specific = (m: string[]) => charWeights(m, PHRASES_BY_CHAR).filter((w) => w === 1).length;
  if (specific(ma) < 2 || specific(mb) < 2) return false;
  const gb = bigrams(mb.join(''));
  return ![...bigrams(ma.join(''))].some((g) => gb.has(g));
}

/** A key's tokens with their weights: a run of digits is one token, any other character one. */
function tokens(key: string): { text: string; weight: number }[] {
  const chars = [...key];
  const w = charWeights(chars);
  const out: { text: string; weight: number }[] = [];
  for (let i = 0; i < chars.length; i++) {
    if (/\d/.test(chars[i]!) && out.length && /\d$/.test(out[out.length - 1]!.text) && /\d/.test(chars[i - 1]!)) out[out.length - 1]!.text += chars[i];
    else out.push({ text: chars[i]!, weight: w[i]! });
  }
  return out;
}

export function profile(title: string): TitleProfile {
  const key = titleKey(title);
  const t = tokens(key);
  const grams = new Map<string, number>();
  if (t.length === 1) grams.set(t[0]!.text, t[0]!.weight);
  for (let i = 0; i + 1 < t.length; i++) {
    const g = `${t[i]!.text}|${t[i + 1]!.text}`;
    grams.set(g, Math.max(grams.get(g) ?? 0, (t[i]!.weight + t[i + 1]!.weight) / 2));
  }
  let weight = 0;
  for (const v of grams.values()) weight += v;
  return { key, chars: [...key], grams, weight, numbers: new Set(key.match(/\d+/g) ?? []) };
}

function subset(a: Set<string>, b: Set<string>): boolean {
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

/** Both state numbers and neither's numbers are all in the other's: different scores, years, models. */
export function numbersDisagree(a: TitleProfile, b: TitleProfile): boolean {
  return a.numbers.size > 0 && b.numbers.size > 0 && !subset(a.numbers, b.numbers) && !subset(b.numbers, a.numbers);
}

/** Weighted Dice coefficient and containment of two titles' bigrams. */
export function overlap(a: TitleProfile, b: TitleProfile): { dice: number; containment: number } {
  if (!a.weight || !b.weight) return { dice: 0, containment: 0 };
  let shared = 0;
  for (const [g, w] of a.grams) {
    const v = b.grams.get(g);
    if (v !== undefined) shared += Math.min(w, v);
  }
  return { dice: (2 * shared) / (a.weight + b.weight), containment: shared / Math.min(a.weight, b.weight) };
}

export function sameEvent(a: TitleProfile, b: TitleProfile): boolean {
  if (a.key === b.key) return a.key !== '';
  const { dice, containment } = overlap(a, b);
  const close = dice >= DICE_THRESHOLD || (containment >= CONTAINMENT_THRESHOLD && Math.min(a.weight, b.weight) >= MIN_CONTAINED_WEIGHT);
  return close && !numbersDisagree(a, b) && !slotSubstitution(a, b);
}

export interface PlatformList {
  sourceId: string;
  name: string;
  items: readonly ListItem[];
}

export interface PlatformEntry {
  sourceId: string;
  name: string;
  rank: number;
  title: string;
  link: string | undefined;
  hot: number | undefined;
  /** Items on that list, for the position score. */
  listSize: number;
}

export interface TrendingEvent {
  /** The title of its best-placed entry. */
  title: string;
  platforms: PlatformEntry[];
  /** Sum over its platforms of how high it stands there (1 for first place, near 0 for last). */
  score: number;
}

/** How high an entry stands on its list: 1 at rank 1, falling linearly to 1/size at the end. */
export function placeScore(rank: number, size: number): number {
  return Math.max(0, (size - Math.min(rank, size) + 1) / Math.max(size, 1));
}

/**
 * Merge the lists into events. Entries are taken best-placed first; each joins the event whose
 * entries it matches best (by Dice) among those without an entry of its platform yet, so one
 * platform never contributes two entries to an event, and a title cannot chain two events
 * together through a third. Events are ranked by platform count, then score.
 */
export function mergeEvents(lists: readonly PlatformList[]): TrendingEvent[] {
  const entries = lists.flatMap((l) =>
    l.items.map((i) => ({
      entry: { sourceId: l.sourceId, name: l.name, rank: i.rank, title: i.title, link: i.link, hot: i.hot, listSize: l.items.length } satisfies PlatformEntry,
      profile: profile(i.title),
    })),
  );
  entries.sort((a, b) => placeScore(b.entry.rank, b.entry.listSize) - placeScore(a.entry.rank, a.entry.listSize) || a.entry.sourceId.localeCompare(b.entry.sourceId));
  const events: { members: typeof entries; platforms: Set<string> }[] = [];
  // Events by the bigrams of their members: only events sharing a bigram with a title can match it.
  const byGram = new Map<string, Set<number>>();
  const index = (n: number, p: TitleProfile) => {
    for (const g of p.grams.keys()) {
      let set = byGram.get(g);
      if (!set) byGram.set(g, (set = new Set()));
      set.add(n);
    }
  };
  for (const e of entries) {
    if (!e.profile.key) continue;
    const candidates = new Set<number>();
    for (const g of e.profile.grams.keys()) for (const n of byGram.get(g) ?? []) candidates.add(n);
    let best: number | undefined;
    let bestDice = -1;
    for (const n of [...candidates].sort((x, y) => x - y)) {
      const ev = events[n]!;
      if (ev.platforms.has(e.entry.sourceId)) continue;
      // Every member must match: a title joins an event only if it names what all its entries name.
      if (!ev.members.every((m) => sameEvent(m.profile, e.profile))) continue;
      const dice = Math.max(...ev.members.map((m) => overlap(m.profile, e.profile).dice));
      if (dice > bestDice) {
        best = n;
        bestDice = dice;
      }
    }
    if (best !== undefined) {
      events[best]!.members.push(e);
      events[best]!.platforms.add(e.entry.sourceId);
      index(best, e.profile);
    } else {
      events.push({ members: [e], platforms: new Set([e.entry.sourceId]) });
      index(events.length - 1, e.profile);
    }
  }
  return events
    .map((ev) => ({
      title: ev.members[0]!.entry.title,
      platforms: ev.members.map((m) => m.entry),
      score: Math.round(ev.members.reduce((sum, m) => sum + placeScore(m.entry.rank, m.entry.listSize), 0) * 1000) / 1000,
    }))
    .sort((a, b) => b.platforms.length - a.platforms.length || b.score - a.score);
}
