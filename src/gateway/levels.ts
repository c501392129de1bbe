/**
 * Account levels: requests per minute (rpm), requests per day (rpd) and tokens per minute (tpm).
 * Built-in defaults, then AI_LEVELS_FILE, then AI_LEVELS (both JSON objects of the same shape)
 * override levels by name. 0 means "no limit" for that window.
 */
import fs from 'node:fs';
import { ConfigError } from '../config.ts';
import type { GatewaySettings } from './settings.ts';

export interface Level {
  rpm: number;
  rpd: number;
  tpm: number;
}

export const DEFAULT_LEVELS: Readonly<Record<string, Level>> = {
  free: { rpm: 10, rpd: 200, tpm: 20_000 },
  default: { rpm: 60, rpd: 5_000, tpm: 200_000 },
  pro: { rpm: 600, rpd: 100_000, tpm: 2_000_000 },
};

export interface Levels {
  get(name: string): Level | undefined;
  names(): string[];
  defaultLevel: string;
}

const LEVEL_NAME = /^[A-Za-z0-9_-]{1,32}$/;
const WINDOWS = ['rpm', 'rpd', 'tpm'] as const;

function parseLevels(json: string, origin: string, problems: string[]): Record<string, Level> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    problems.push(`${origin} is not valid JSON (${(err as Error).message}); expected e.g. {"free":{"rpm":10,"rpd":200,"tpm":20000}}`);
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push(`${origin} must be a JSON object of levels, e.g. {"free":{"rpm":10,"rpd":200,"tpm":20000}}`);
    return {};
  }
  const out: Record<string, Level> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (!LEVEL_NAME.test(name)) {
      problems.push(`${origin}: level name "${name}" must be 1-32 letters, digits, "_" or "-"`);
      continue;
    }
    const fields = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
    const level: Partial<Level> = {};
    for (const w of WINDOWS) {
      const n = fields[w];
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) problems.push(`${origin}: level "${name}" needs "${w}" as a whole number >= 0 (0 = unlimited)`);
      else level[w] = n;
    }
    if (level.rpm !== undefined && level.rpd !== undefined && level.tpm !== undefined) out[name] = level as Level;
  }
  return out;
}

export function loadLevels(opts: { json: string | undefined; file: string | undefined; defaultLevel: string }): Levels {
  const problems: string[] = [];
  const all: Record<string, Level> = { ...DEFAULT_LEVELS };
  if (opts.file !== undefined) {
    let text: string | undefined;
    try {
      text = fs.readFileSync(opts.file, 'utf8');
    } catch (err) {
      problems.push(`AI_LEVELS_FILE "${opts.file}" cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    if (text !== undefined) Object.assign(all, parseLevels(text, `AI_LEVELS_FILE "${opts.file}"`, problems));
  }
  if (opts.json !== undefined) Object.assign(all, parseLevels(opts.json, 'AI_LEVELS', problems));
  if (!(opts.defaultLevel in all)) problems.push(`AI_DEFAULT_LEVEL "${opts.defaultLevel}" is not a configured level (known: ${Object.keys(all).join(', ')})`);
  if (problems.length) throw new ConfigError(problems);
  const map = new Map(Object.entries(all));
  return { get: (name) => map.get(name), names: () => [...map.keys()], defaultLevel: opts.defaultLevel };
}

/** The levels AI_LEVELS, AI_LEVELS_FILE and AI_DEFAULT_LEVEL configure. */
export function levelsFromSettings(settings: Pick<GatewaySettings, 'levelsJson' | 'levelsFile' | 'defaultLevel'>): Levels {
  return loadLevels({ json: settings.levelsJson, file: settings.levelsFile, defaultLevel: settings.defaultLevel });
}
