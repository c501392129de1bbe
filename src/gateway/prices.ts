/**
 * The price table: what one request costs in US dollars, per model pattern. Built-in defaults
 * (public list prices of common models, a starting point), then AI_PRICES_FILE, then AI_PRICES
 * (JSON objects of the same shape) override entries by pattern. A model uses the entry whose
 * pattern matches it most specifically (an exact name first, then the pattern with the most
 * literal characters); a field that entry lacks is taken from the `*` entry.
 *
 * Entry fields (all optional, USD, >= 0):
 *   input, cached_input, output   per 1M tokens (cached: prompt tokens read from the cache)
 *   cache_write, cache_write_1h   per 1M prompt tokens written to the cache (5-minute and one-hour; default: input)
 *   audio_input, audio_output     per 1M audio tokens (default: input, output)
 *   image_input                   per 1M prompt tokens that are images (default: input); an entry with it is a
 *                                 token-billed image model (GPT image): its prompt is billed beside its images
 *   tiers                         [{"above": N, ...any of the token prices above}]: the prices of a request whose
 *                                 prompt is more than N tokens (all its tokens, output included), e.g. Gemini 2.5 Pro above 200k
 *   image                         per image: a number, or {"SIZE/QUALITY": n, "SIZE": n, "default": n}
 *                                 (`auto` or no size or quality: priced as image-quality.ts says)
 *   audio_in_second               per second of audio sent (transcription, translation)
 *   audio_out_second              per second of audio generated (speech)
 *   video_second, video_call      per second of generated video, or per video request
 *   music_task                    per music generation task
 *   rerank_search                 per rerank request
 *
 * A request billed by a unit (an image, an audio second, a video, a music task, a rerank
 * search) whose price is above 0 is billed by that unit only, not by its tokens as well; but a
 * GPT image model's images (its output) are billed with its prompt's tokens, text and images
 * at their own prices, as OpenAI bills them (an entry with `image_input`).
 */
import fs from 'node:fs';
import { ConfigError } from '../config.ts';
import { pricedImageChoice, type ImageChoice } from './image-quality.ts';

/** The token prices a tier overrides. */
export interface TokenPrices {
  input?: number;
  cached_input?: number;
  cache_write?: number;
  cache_write_1h?: number;
  output?: number;
  audio_input?: number;
  audio_output?: number;
  image_input?: number;
}

export interface PriceTier extends TokenPrices {
  /** Applies to a request whose prompt has more tokens than this. */
  above: number;
}

export interface PriceEntry extends TokenPrices {
  tiers?: PriceTier[];
  image?: number | Record<string, number>;
  audio_in_second?: number;
  audio_out_second?: number;
  video_second?: number;
  video_call?: number;
  music_task?: number;
  rerank_search?: number;
}

const TOKEN_FIELDS = ['input', 'cached_input', 'cache_write', 'cache_write_1h', 'output', 'audio_input', 'audio_output', 'image_input'] as const;
const NUMBER_FIELDS = [...TOKEN_FIELDS, 'audio_in_second', 'audio_out_second', 'video_second', 'video_call', 'music_task', 'rerank_search'] as const;
const FIELDS = [...NUMBER_FIELDS, 'image', 'tiers'] as const;

const GPT_IMAGE_1 = {
  '1024x1024/low': 0.011, '1024x1024/medium': 0.042, '1024x1024/high': 0.167,
  '1024x1536/low': 0.016, '1024x1536/medium': 0.063, '1024x1536/high': 0.25,
  '1536x1024/low': 0.016, '1536x1024/medium': 0.063, '1536x1024/high': 0.25,
  default: 0.042,
};

const GPT_IMAGE_1_5 = {
  '1024x1024/low': 0.009, '1024x1024/medium': 0.034, '1024x1024/high': 0.133,
  '1024x1536/low': 0.013, '1024x1536/medium': 0.05, '1024x1536/high': 0.2,
  '1536x1024/low': 0.013, '1536x1024/medium': 0.05, '1536x1024/high': 0.2,
  default: 0.034,
};

const GPT_IMAGE_1_MINI = {
  '1024x1024/low': 0.005, '1024x1024/medium': 0.011, '1024x1024/high': 0.036,
  '1024x1536/low': 0.006, '1024x1536/medium': 0.015, '1024x1536/high': 0.052,
  '1536x1024/low': 0.006, '1536x1024/medium': 0.015, '1536x1024/high': 0.052,
  default: 0.011,
};

/**
 * List prices (USD) of common models as published by their vendors; override with AI_PRICES.
 * Sources (checked 2026-11-26):
 * - OpenAI: https://platform.openai.com/docs/pricing (text tokens; audio tokens of gpt-audio,
 *   gpt-realtime and gpt-4o-mini-audio; images).
 * - Anthropic: https://platform.claude.com/docs/en/about-claude/pricing ("Model pricing": base
 *   input, 5-minute and 1-hour cache writes, cache hits, output; "Long context pricing": Sonnet 4
 *   and 4.5 above 200K input tokens at $6 / $22.50, cache prices scaled alike).
 * - Google: https://ai.google.dev/gemini-api/docs/pricing (Gemini 2.5 Pro and 3 Pro: prompts up to
 *   200k tokens and above; audio input of the Flash models; context caching; output includes
 *   thinking tokens).
 * - DeepSeek: https://api-docs.deepseek.com/quick_start/pricing (deepseek-chat and
 *   deepseek-reasoner from 2025-09-05: cache hit, cache miss, output).
 */
export const DEFAULT_PRICES: Readonly<Record<string, PriceEntry>> = {
  '*': { input: 2.5, cached_input: 1.25, output: 10, image: 0.04, audio_in_second: 0.0001, audio_out_second: 0.00025, video_second: 0.1, video_call: 0, music_task: 0.05, rerank_search: 0.002 },
  // OpenAI
  'gpt-4o*': { input: 2.5, cached_input: 1.25, output: 10 },
  'gpt-4o-mini*': { input: 0.15, cached_input: 0.075, output: 0.6 },
  'gpt-4o-audio*': { input: 2.5, output: 10, audio_input: 40, audio_output: 80 },
  'gpt-4o-mini-audio*': { input: 0.15, output: 0.6, audio_input: 10, audio_output: 20 },
  'gpt-audio*': { input: 2.5, output: 10, audio_input: 32, audio_output: 64 },
  'gpt-realtime*': { input: 4, cached_input: 0.4, output: 16, audio_input: 32, audio_output: 64 },
  'gpt-4.1*': { input: 2, cached_input: 0.5, output: 8 },
  'gpt-4.1-mini*': { input: 0.4, cached_input: 0.1, output: 1.6 },
  'gpt-4.1-nano*': { input: 0.1, cached_input: 0.025, output: 0.4 },
  'gpt-5*': { input: 1.25, cached_input: 0.125, output: 10 },
  'gpt-5-mini*': { input: 0.25, cached_input: 0.025, output: 2 },
  'gpt-5-nano*': { input: 0.05, cached_input: 0.005, output: 0.4 },
  'o3*': { input: 2, cached_input: 0.5, output: 8 },
  'o4-mini*': { input: 1.1, cached_input: 0.275, output: 4.4 },
  // Google (output prices include thinking tokens)
  'gemini-2.0-flash*': { input: 0.1, cached_input: 0.025, output: 0.4, audio_input: 0.7 },
  'gemini-2.5-flash*': { input: 0.3, cached_input: 0.03, output: 2.5, audio_input: 1 },
  'gemini-2.5-flash-lite*': { input: 0.1, cached_input: 0.01, output: 0.4, audio_input: 0.3 },
  'gemini-2.5-pro*': { input: 1.25, cached_input: 0.125, output: 10, tiers: [{ above: 200_000, input: 2.5, cached_input: 0.25, output: 15 }] },
  'gemini-3-pro*': { input: 2, cached_input: 0.2, output: 12, tiers: [{ above: 200_000, input: 4, cached_input: 0.4, output: 18 }] },
  'gemini-3-flash*': { input: 0.5, cached_input: 0.05, output: 3, audio_input: 1 },
  // Anthropic (cache_write: 5-minute writes, 1.25 × input; cache_write_1h: 2 × input; cache hits 0.1 × input)
  'claude-*opus*': { input: 15, cached_input: 1.5, cache_write: 18.75, cache_write_1h: 30, output: 75 },
  'claude-opus-4*': { input: 15, cached_input: 1.5, cache_write: 18.75, cache_write_1h: 30, output: 75 },
  'claude-opus-4-5*': { input: 5, cached_input: 0.5, cache_write: 6.25, cache_write_1h: 10, output: 25 },
  'claude-opus-4-6*': { input: 5, cached_input: 0.5, cache_write: 6.25, cache_write_1h: 10, output: 25 },
  'claude-opus-4-7*': { input: 5, cached_input: 0.5, cache_write: 6.25, cache_write_1h: 10, output: 25 },
  'claude-opus-4-8*': { input: 5, cached_input: 0.5, cache_write: 6.25, cache_write_1h: 10, output: 25 },
  'claude-opus-5*': { input: 5, cached_input: 0.5, cache_write: 6.25, cache_write_1h: 10, output: 25 },
  'claude-*sonnet*': { input: 3, cached_input: 0.3, cache_write: 3.75, cache_write_1h: 6, output: 15 },
  'claude-sonnet-4*': { input: 3, cached_input: 0.3, cache_write: 3.75, cache_write_1h: 6, output: 15, tiers: [{ above: 200_000, input: 6, cached_input: 0.6, cache_write: 7.5, cache_write_1h: 12, output: 22.5 }] },
  // Sonnet 4.6 has its 1M context at the standard prices (no long-context tier).
  'claude-sonnet-4-6*': { input: 3, cached_input: 0.3, cache_write: 3.75, cache_write_1h: 6, output: 15 },
  'claude-*haiku*': { input: 0.8, cached_input: 0.08, cache_write: 1, cache_write_1h: 1.6, output: 4 },
  'claude-haiku-4*': { input: 1, cached_input: 0.1, cache_write: 1.25, cache_write_1h: 2, output: 5 },
  // DeepSeek
  'deepseek-chat*': { input: 0.56, cached_input: 0.07, output: 1.68 },
  'deepseek-reasoner*': { input: 0.56, cached_input: 0.07, output: 1.68 },
  'text-embedding-3-small*': { input: 0.02 },
  'text-embedding-3-large*': { input: 0.13 },
  'gpt-image-1*': { input: 5, cached_input: 1.25, image_input: 10, output: 40, image: GPT_IMAGE_1 },
  'gpt-image-1.5*': { input: 5, cached_input: 1.25, image_input: 8, output: 32, image: GPT_IMAGE_1_5 },
  'gpt-image-1-mini*': { input: 2, cached_input: 0.2, image_input: 2.5, output: 8, image: GPT_IMAGE_1_MINI },
  'dall-e-3*': { image: { '1024x1024/standard': 0.04, '1024x1024/hd': 0.08, '1024x1792/standard': 0.08, '1792x1024/standard': 0.08, '1024x1792/hd': 0.12, '1792x1024/hd': 0.12, default: 0.04 } },
  'dall-e-2*': { image: { '256x256': 0.016, '512x512': 0.018, '1024x1024': 0.02, default: 0.02 } },
  'whisper-1*': { audio_in_second: 0.0001 },
  'gpt-4o-transcribe*': { audio_in_second: 0.0001 },
  'gpt-4o-mini-transcribe*': { audio_in_second: 0.00005 },
  'tts-1*': { audio_out_second: 0.000225 },
  'tts-1-hd*': { audio_out_second: 0.00045 },
  'gpt-4o-mini-tts*': { audio_out_second: 0.00025 },
  'sora-2*': { video_second: 0.1 },
  'sora-2-pro*': { video_second: 0.3 },
  'veo-3*': { video_second: 0.4 },
  '*rerank*': { rerank_search: 0.002 },
  'suno*': { music_task: 0.05 },
  'chirp*': { music_task: 0.05 },
};

const MAX_PATTERN = 200;
const EXAMPLE = '{"gpt-4o-mini*":{"input":0.15,"output":0.6},"dall-e-3":{"image":{"1024x1024/hd":0.08,"default":0.04}}}';

function validPrice(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x) && x >= 0;
}

const TIERS_EXAMPLE = '[{"above":200000,"input":2.5,"output":15}]';

function parseTiers(pattern: string, value: unknown, origin: string, problems: string[]): PriceTier[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > 10) {
    problems.push(`${origin}: "${pattern}".tiers must be a list of 1 to 10 tiers such as ${TIERS_EXAMPLE}`);
    return undefined;
  }
  const tiers: PriceTier[] = [];
  for (const [i, t] of value.entries()) {
    if (typeof t !== 'object' || t === null || Array.isArray(t) || typeof (t as { above?: unknown }).above !== 'number' || !Number.isInteger((t as { above: number }).above) || (t as { above: number }).above < 0) {
      problems.push(`${origin}: "${pattern}".tiers[${i}] must be an object with "above" (a whole number of prompt tokens) and token prices, e.g. ${TIERS_EXAMPLE}`);
      return undefined;
    }
    const tier: PriceTier = { above: (t as { above: number }).above };
    for (const [field, v] of Object.entries(t)) {
      if (field === 'above') continue;
      if (!(TOKEN_FIELDS as readonly string[]).includes(field) || !validPrice(v)) {
        problems.push(`${origin}: "${pattern}".tiers[${i}].${field} must be one of ${TOKEN_FIELDS.join(', ')}, a number of USD >= 0`);
        return undefined;
      }
      tier[field as keyof TokenPrices] = v;
    }
    tiers.push(tier);
  }
  return tiers.sort((a, b) => a.above - b.above);
}

function parseEntry(pattern: string, value: unknown, origin: string, problems: string[]): PriceEntry | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push(`${origin}: the price of "${pattern}" must be an object such as {"input":0.15,"output":0.6}`);
    return undefined;
  }
  const entry: PriceEntry = {};
  let ok = true;
  for (const [field, v] of Object.entries(value)) {
    if (!(FIELDS as readonly string[]).includes(field)) {
      problems.push(`${origin}: "${pattern}" has unknown field "${field}" (known: ${FIELDS.join(', ')})`);
      ok = false;
    } else if (field === 'image' && typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const bad = Object.entries(v).filter(([, n]) => !validPrice(n));
      if (bad.length) {
        problems.push(`${origin}: "${pattern}".image.${bad[0]![0]} must be a number of USD >= 0`);
        ok = false;
      } else entry.image = { ...(v as Record<string, number>) };
    } else if (field === 'tiers') {
      const tiers = parseTiers(pattern, v, origin, problems);
      if (tiers) entry.tiers = tiers;
      else ok = false;
    } else if (!validPrice(v)) {
      problems.push(`${origin}: "${pattern}".${field} must be a number of USD >= 0${field === 'image' ? ' (or an object of "SIZE/QUALITY" prices)' : ''}`);
      ok = false;
    } else (entry as Record<string, number>)[field] = v;
  }
  return ok ? entry : undefined;
}

export function parsePrices(json: string, origin: string, problems: string[]): Record<string, PriceEntry> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    problems.push(`${origin} is not valid JSON (${(err as Error).message}); expected e.g. ${EXAMPLE}`);
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push(`${origin} must be a JSON object of model patterns, e.g. ${EXAMPLE}`);
    return {};
  }
  const out: Record<string, PriceEntry> = {};
  for (const [pattern, value] of Object.entries(parsed)) {
    if (pattern.length === 0 || pattern.length > MAX_PATTERN || /\s/.test(pattern)) {
      problems.push(`${origin}: model pattern "${pattern}" must be 1 to ${MAX_PATTERN} characters without whitespace ("*" matches any run of characters)`);
      continue;
    }
    const entry = parseEntry(pattern, value, origin, problems);
    if (entry) out[pattern] = entry;
  }
  return out;
}

/** What one request consumed, in the units prices are given in. */
export interface Consumption {
  /** Every prompt token; the counts below say which of them are cached, cache writes or audio. */
  inputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  /** Of the cache writes, those kept an hour. */
  cacheWrite1hTokens: number;
  audioInputTokens: number;
  /** Prompt tokens that are images (an image model's input pictures). */
  imageInputTokens: number;
  /** Every output token (reasoning included); `audioOutputTokens` of them are audio. */
  outputTokens: number;
  audioOutputTokens: number;
  images: { count: number; size?: string | undefined; quality?: string | undefined } | undefined;
  audioInSeconds: number;
  audioOutSeconds: number;
  videoSeconds: number;
  videoCalls: number;
  musicTasks: number;
  rerankSearches: number;
}

export const NOTHING_CONSUMED: Readonly<Consumption> = {
  inputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, audioInputTokens: 0, imageInputTokens: 0, outputTokens: 0, audioOutputTokens: 0, images: undefined, audioInSeconds: 0, audioOutSeconds: 0, videoSeconds: 0, videoCalls: 0, musicTasks: 0, rerankSearches: 0,
};

export const MICROS_PER_USD = 1_000_000;

/** USD as whole micro-dollars (how credits are stored), rounded to the nearest. */
export function usdToMicros(usd: number): number {
  return Math.round(usd * MICROS_PER_USD);
}

export function microsToUsd(micros: number): number {
  return micros / MICROS_PER_USD;
}

function compile(pattern: string): { re: RegExp; literal: number } {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return { re: new RegExp(`^${body}$`, 's'), literal: pattern.replace(/\*/g, '').length };
}

export class PriceTable {
  private readonly patterns: { pattern: string; re: RegExp; literal: number; entry: PriceEntry }[];
  private readonly fallback: PriceEntry;
  private readonly cache = new Map<string, PriceEntry>();

  constructor(readonly entries: Readonly<Record<string, PriceEntry>>) {
    this.fallback = entries['*'] ?? {};
    this.patterns = Object.entries(entries)
      .filter(([p]) => p !== '*')
      .map(([pattern, entry]) => ({ pattern, entry, ...compile(pattern) }));
  }

  /** The entry for a model, with the `*` entry's fields filling what it lacks. */
  lookup(model: string | null): PriceEntry {
    const name = model ?? '';
    const hit = this.cache.get(name);
    if (hit) return hit;
    let best: (typeof this.patterns)[number] | undefined;
    for (const p of this.patterns) {
      if (!p.re.test(name)) continue;
      const exact = !p.pattern.includes('*');
      const bestExact = best !== undefined && !best.pattern.includes('*');
      if (!best || (exact && !bestExact) || (exact === bestExact && p.literal >= best.literal)) best = p;
    }
    const entry = { ...this.fallback, ...(best?.entry ?? {}) };
    if (this.cache.size < 10_000) this.cache.set(name, entry);
    return entry;
  }

  imagePrice(entry: PriceEntry, size: string | undefined, quality: string | undefined): number {
    const p = entry.image;
    if (p === undefined) return 0;
    if (typeof p === 'number') return p;
    return (size && quality ? p[`${size}/${quality}`] : undefined) ?? (size ? p[size] : undefined) ?? (quality ? p[quality] : undefined) ?? p.default ?? 0;
  }

  /** The price of one image of `model` at the size and quality asked (`auto` as the vendor documents it). */
  private modelImagePrice(model: string | null, e: PriceEntry, asked: ImageChoice): number {
    const { size, quality } = pricedImageChoice(model, asked);
    return this.imagePrice(e, size, quality);
  }

  /** The cost in USD of what a request of `model` consumed. */
  cost(model: string | null, c: Consumption): number {
    const e = this.lookup(model);
    const units =
      (c.images ? c.images.count * this.modelImagePrice(model, e, c.images) : 0) +
      c.audioInSeconds * (e.audio_in_second ?? 0) +
      c.audioOutSeconds * (e.audio_out_second ?? 0) +
      c.videoSeconds * (e.video_second ?? 0) +
      c.videoCalls * (e.video_call ?? 0) +
      c.musicTasks * (e.music_task ?? 0) +
      c.rerankSearches * (e.rerank_search ?? 0);
    if (units > 0) return units + (c.images && e.image_input !== undefined ? tokenCost(e, { ...c, outputTokens: 0, audioOutputTokens: 0 }) : 0);
    return tokenCost(tierOf(e, c.inputTokens), c);
  }
}

/** The entry's prices for a prompt of `promptTokens`: those of the highest tier it is above. */
export function tierOf(e: PriceEntry, promptTokens: number): TokenPrices {
  let prices: TokenPrices = e;
  for (const t of e.tiers ?? []) if (promptTokens > t.above) prices = { ...e, ...t };
  return prices;
}

/** USD of the tokens consumed at these prices: each kind of prompt and output token at its own price. */
export function tokenCost(p: TokenPrices, c: Consumption): number {
  const input = p.input ?? 0;
  const output = p.output ?? 0;
  const cached = Math.min(c.cachedInputTokens, c.inputTokens);
  const writes = Math.min(c.cacheWriteTokens, c.inputTokens - cached);
  const writes1h = Math.min(c.cacheWrite1hTokens, writes);
  const audioIn = Math.min(c.audioInputTokens, c.inputTokens - cached - writes);
  const imageIn = Math.min(c.imageInputTokens, c.inputTokens - cached - writes - audioIn);
  const plainIn = c.inputTokens - cached - writes - audioIn - imageIn;
  const audioOut = Math.min(c.audioOutputTokens, c.outputTokens);
  const usd =
    plainIn * input +
    cached * (p.cached_input ?? input) +
    (writes - writes1h) * (p.cache_write ?? input) +
    writes1h * (p.cache_write_1h ?? p.cache_write ?? input) +
    audioIn * (p.audio_input ?? input) +
    imageIn * (p.image_input ?? input) +
    (c.outputTokens - audioOut) * output +
    audioOut * (p.audio_output ?? output);
  return usd / 1_000_000;
}

export function loadPrices(opts: { json: string | undefined; file: string | undefined }): PriceTable {
  const problems: string[] = [];
  const all: Record<string, PriceEntry> = { ...DEFAULT_PRICES };
  if (opts.file !== undefined) {
    let text: string | undefined;
    try {
      text = fs.readFileSync(opts.file, 'utf8');
    } catch (err) {
      problems.push(`AI_PRICES_FILE "${opts.file}" cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    if (text !== undefined) Object.assign(all, parsePrices(text, `AI_PRICES_FILE "${opts.file}"`, problems));
  }
  if (opts.json !== undefined) Object.assign(all, parsePrices(opts.json, 'AI_PRICES', problems));
  if (problems.length) throw new ConfigError(problems);
  return new PriceTable(all);
}
