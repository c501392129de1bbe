/**
 * Cross-platform trending: the items now on several hot lists merged into events when they name
 * the same real-world occurrence, and ranked so that the day's biggest stories lead. Pure, no I/O:
 * the word features, their weights by rarity, the guards and the clustering live in ./events/.
 *
 * Every item becomes weighted features (words and character bigrams of its normalised title, plus
 * half of its description's when the title alone is short); events form by agglomerative
 * clustering over all items of the general lists (several items of one platform may join one
 * event), never putting two titles the guards keep apart into one event; the items of coverage
 * lists then join the events they match (./events/coverage.ts). README "Trending" tells the rules.
 */
import type { ListItem } from '../../src/kernel/list-items.ts';
import { attachCoverage } from './events/coverage.ts';
import { clusterItems, DEFAULT_CLUSTER, type ClusterOptions } from './events/cluster.ts';
import { keyFeatures, titleFeatures } from './events/features.ts';
import { FeatureFrequencies } from './events/frequencies.ts';
import { eventScore, itemStrength, latestFirstSeen, placeScore, type RankedItem } from './events/rank.ts';
import { keptApart, overlapScore, weigh, type Weighted } from './events/similarity.ts';
import { normaliseTitle } from './events/normalise.ts';

export { placeScore, FeatureFrequencies };

/** A title weighing less than this (about three rare words) borrows from its description. */
const SHORT_TITLE_WEIGHT = 6;

export interface PlatformList {
  sourceId: string;
  name: string;
  /** General lists form and rank the events; coverage lists only join them (default general; see TrendingRole). */
  role?: 'general' | 'coverage';
  items: readonly (ListItem & { firstSeenAt?: number })[];
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
  /** When this title was first seen on that list (ms), when known. */
  firstSeenAt: number | undefined;
  /** Its list's role: only general entries shape the event's title, score and id. */
  role: 'general' | 'coverage';
}

export interface TrendingEvent {
  /** The title of its strongest entry. */
  title: string;
  /** Its entries, strongest first (coverage lists' after the general ones): several may come from one platform. */
  platforms: PlatformEntry[];
  /** How many distinct platforms carry it (coverage lists included). */
  platformCount: number;
  /** See events/rank.ts: of its general items alone. */
  score: number;
}

export interface MergeOptions {
  /** Rarity of features across stored titles; without it every feature weighs alike. */
  frequencies?: FeatureFrequencies;
  cluster?: ClusterOptions;
  /** How close a coverage item must be to join an event (default: as the clustering merges). */
  coverage?: ClusterOptions;
}

const NO_FREQUENCIES = new FeatureFrequencies();

/** An item's weighted features: its title's, and half its description's when the title is short. */
export function itemFeatures(title: string, description: string | undefined, frequencies = NO_FREQUENCIES): Weighted {
  const features = titleFeatures(title);
  const plain = weigh(features, frequencies);
  if (!description || plain.total >= SHORT_TITLE_WEIGHT) return plain;
  return weigh(features, frequencies, keyFeatures(normaliseTitle(description)));
}

/** Whether two titles alone would be put in one event (for tests and reading; merging is by clusters). */
export function sameEvent(a: string, b: string, o: MergeOptions = {}): boolean {
  const fa = itemFeatures(a, undefined, o.frequencies);
  const fb = itemFeatures(b, undefined, o.frequencies);
  if (!fa.total || !fb.total) return false;
  if (fa.features.key === fb.features.key) return true;
  const cluster = o.cluster ?? DEFAULT_CLUSTER;
  return !keptApart(fa.features, fb.features) && overlapScore(fa, fb, cluster) >= cluster.threshold;
}

interface Entry {
  entry: PlatformEntry;
  ranked: RankedItem;
  weighted: Weighted;
  strength: number;
}

function entriesOf(lists: readonly PlatformList[], o: MergeOptions): Entry[] {
  const entries: Entry[] = [];
  for (const l of lists) {
    const heats = l.items.flatMap((i) => (i.hot !== undefined && i.hot > 0 ? [i.hot] : []));
    const listTopHeat = heats.length ? Math.max(...heats) : undefined;
    for (const i of l.items) {
      const weighted = itemFeatures(i.title, i.description, o.frequencies);
      if (!weighted.features.key) continue;
      const entry: PlatformEntry = { sourceId: l.sourceId, name: l.name, rank: i.rank, title: i.title, link: i.link, hot: i.hot, listSize: l.items.length, firstSeenAt: i.firstSeenAt, role: l.role ?? 'general' };
      const ranked: RankedItem = { sourceId: l.sourceId, rank: i.rank, hot: i.hot, listSize: l.items.length, listTopHeat, firstSeenAt: i.firstSeenAt };
      entries.push({ entry, weighted, ranked, strength: itemStrength(ranked) });
    }
  }
  return entries;
}

const strongestFirst = (a: Entry, b: Entry) => b.strength - a.strength || a.entry.sourceId.localeCompare(b.entry.sourceId) || a.entry.rank - b.entry.rank;

/**
 * Events from the general lists' items, ranked; then each coverage list's item joins the event it
 * is closest to, if any (events/coverage.ts), listed after the event's general items, counted
 * among its platforms but never in its title, score or place.
 */
export function mergeEvents(lists: readonly PlatformList[], o: MergeOptions = {}): TrendingEvent[] {
  const entries = entriesOf(lists, o);
  const general = entries.filter((e) => e.entry.role === 'general');
  const coverage = entries.filter((e) => e.entry.role === 'coverage');
  const events = clusterItems(
    general.map((e) => e.weighted),
    o.cluster,
  )
    .map((members) => {
      const ms = members.map((n) => general[n]!).sort(strongestFirst);
      const ranked = ms.map((m) => m.ranked);
      return { members: ms, title: ms[0]!.entry.title, score: eventScore(ranked), latest: latestFirstSeen(ranked) };
    })
    .sort((a, b) => b.score - a.score || b.latest - a.latest || a.title.localeCompare(b.title));
  const joined = events.map((): Entry[] => []);
  attachCoverage(
    events.map((e) => e.members.map((m) => m.weighted)),
    coverage.map((c) => c.weighted),
    o.coverage ?? o.cluster,
  ).forEach((event, n) => {
    if (event !== undefined) joined[event]!.push(coverage[n]!);
  });
  return events.map((e, n) => {
    const platforms = [...e.members, ...joined[n]!.sort(strongestFirst)].map((m) => m.entry);
    return { title: e.title, platforms, platformCount: new Set(platforms.map((p) => p.sourceId)).size, score: e.score };
  });
}
