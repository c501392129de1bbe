/**
 * The labelled real hot lists of ../shared/fixtures/hotlists-archive (beside the checkout; see its
 * README): each moment's lists as the merger takes them, and its labels when it has them. Read,
 * never copied into the project.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { PlatformList } from '../../sources/_shared/trending.ts';

export const ARCHIVE_DIR = path.resolve(import.meta.dirname, '../../../shared/fixtures/hotlists-archive');

export interface Labels {
  /** Items as `platform#rank` that name one real-world occurrence. */
  groups: { event: string; items: string[] }[];
  /** Lists whose pairs are doubtful: not scored. */
  uncertain: string[][];
}

export interface Moment {
  date: string;
  lists: PlatformList[];
  labels: Labels | undefined;
}

function field(o: unknown, key: string, where: string): unknown {
  if (!o || typeof o !== 'object' || !(key in o)) throw new Error(`${where}: no "${key}"`);
  return (o as Record<string, unknown>)[key];
}

function readList(file: string, platform: string): PlatformList {
  const raw: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const items = field(raw, 'items', file);
  if (!Array.isArray(items)) throw new Error(`${file}: items is not an array`);
  return {
    sourceId: platform,
    name: platform,
    // rank = position in the file, as the labels count it.
    items: items.map((it: unknown, i) => {
      const title = field(it, 'title', `${file} items[${i}]`);
      if (typeof title !== 'string') throw new Error(`${file} items[${i}].title is not a string`);
      const hot = (it as Record<string, unknown>).hot;
      return { rank: i + 1, title, link: undefined, hot: typeof hot === 'number' ? hot : undefined };
    }),
  };
}

function readLabels(file: string): Labels {
  const raw: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const groups = field(raw, 'groups', file);
  if (!Array.isArray(groups)) throw new Error(`${file}: groups is not an array`);
  const uncertain = (raw as Record<string, unknown>).uncertain ?? [];
  if (!Array.isArray(uncertain)) throw new Error(`${file}: uncertain is not an array`);
  return {
    groups: groups.map((g: unknown, i) => {
      const items = field(g, 'items', `${file} groups[${i}]`);
      if (!Array.isArray(items) || !items.every((x) => typeof x === 'string')) throw new Error(`${file} groups[${i}].items is not a list of strings`);
      return { event: String((g as Record<string, unknown>).event ?? ''), items: items as string[] };
    }),
    uncertain: uncertain.filter((u): u is string[] => Array.isArray(u) && u.every((x) => typeof x === 'string')),
  };
}

/** Every moment of the archive, oldest first; undefined when the folder is absent. */
export function readMoments(dir = ARCHIVE_DIR): Moment[] | undefined {
  if (!existsSync(dir)) return undefined;
  return readdirSync(dir)
    .filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d))
    .sort()
    .map((date) => {
      const lists = readdirSync(path.join(dir, date))
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => readList(path.join(dir, date, f), f.slice(0, -'.json'.length)));
      const labelFile = path.join(dir, 'labels', `${date}.json`);
      return { date, lists, labels: existsSync(labelFile) ? readLabels(labelFile) : undefined };
    });
}
