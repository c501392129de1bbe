/**
 * The most output a request can generate, read from its body in each API style, so a credit
 * reservation is an upper bound: the per-answer cap (`max_tokens`, `max_completion_tokens`,
 * `max_output_tokens`, Gemini `generationConfig.maxOutputTokens`) times the answers asked for
 * (`n`, `best_of`, `candidateCount`). A request that names no cap gets one (the reserved
 * `fallbackCap` per answer) written into the body forwarded, where the style has a field for it.
 * Reasoning and thinking tokens count inside these caps in every vendor's API.
 */
import { isObject, withFields, type JsonObject } from './body.ts';
import { badRequest } from './errors.ts';

export type OutputStyle = 'chat' | 'completions' | 'responses' | 'anthropic' | 'gemini';

export interface OutputBound {
  /** Output tokens the request may generate in all its answers together. */
  tokens: number;
  /** The cap per answer. */
  perAnswer: number;
  /** Answers generated (n, best_of, candidateCount). */
  answers: number;
  /** Whether the request named its cap (else `fallbackCap` is imposed). */
  given: boolean;
  /** Whether the answer may be audio (reserved at the audio output price). */
  audio: boolean;
}

function asksAudio(modalities: unknown): boolean {
  return Array.isArray(modalities) && modalities.some((m) => typeof m === 'string' && m.toLowerCase() === 'audio');
}

/** OpenAI allows n up to 128; candidateCount and best_of are smaller still. */
const MAX_ANSWERS = 128;
/** Far above any model's output window; a larger cap is refused as a mistake. */
const MAX_CAP = 100_000_000;

function cap(body: JsonObject, name: string, where = name): number | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_CAP) throw badRequest(`Parameter "${where}" must be a whole number of tokens from 0 to ${MAX_CAP}.`, where);
  return v;
}

function count(body: JsonObject, name: string, where = name): number {
  const v = body[name];
  if (v === undefined || v === null) return 1;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_ANSWERS) throw badRequest(`Parameter "${where}" must be a whole number from 1 to ${MAX_ANSWERS}.`, where);
  return v;
}

function generationConfig(body: JsonObject): JsonObject {
  const g = body.generationConfig ?? body.generation_config;
  if (g === undefined || g === null) return {};
  if (!isObject(g)) throw badRequest('Field "generationConfig" must be an object such as {"maxOutputTokens": 1024}.', 'generationConfig');
  return g;
}

/** The output bound of a request body of this style; `fallbackCap` per answer when it names none. */
export function outputBound(style: OutputStyle, body: JsonObject, fallbackCap: number): OutputBound {
  let given: number | undefined;
  let answers = 1;
  let audio = false;
  switch (style) {
    case 'chat':
      // max_completion_tokens supersedes max_tokens where both are sent.
      given = cap(body, 'max_completion_tokens') ?? cap(body, 'max_tokens');
      answers = count(body, 'n');
      audio = asksAudio(body.modalities) || isObject(body.audio);
      break;
    case 'completions':
      given = cap(body, 'max_tokens');
      // best_of answers are generated server-side and all billed; n of them are returned.
      answers = Math.max(count(body, 'n'), count(body, 'best_of'));
      break;
    case 'responses':
      given = cap(body, 'max_output_tokens');
      break;
    case 'anthropic':
      given = cap(body, 'max_tokens');
      break;
    case 'gemini': {
      const g = generationConfig(body);
      given = cap(g, 'maxOutputTokens', 'generationConfig.maxOutputTokens') ?? cap(g, 'max_output_tokens', 'generationConfig.maxOutputTokens');
      answers = count(g, 'candidateCount', 'generationConfig.candidateCount');
      audio = asksAudio(g.responseModalities ?? g.response_modalities);
      break;
    }
  }
  const perAnswer = given ?? fallbackCap;
  return { tokens: perAnswer * answers, perAnswer, answers, given: given !== undefined, audio };
}

/**
 * The body to forward with the cap imposed per answer (the request named none), or `undefined`
 * when the style has no field for it (the gateway then stops the stream itself).
 */
export function withOutputCap(style: OutputStyle, body: JsonObject, perAnswer: number): JsonObject | undefined {
  switch (style) {
    case 'chat':
      // The current field: accepted by every OpenAI model (max_tokens is refused by reasoning models).
      return withFields(body, { max_completion_tokens: perAnswer });
    case 'completions':
    case 'anthropic':
      return withFields(body, { max_tokens: perAnswer });
    case 'responses':
      return withFields(body, { max_output_tokens: perAnswer });
    case 'gemini': {
      const key = body.generation_config !== undefined && body.generationConfig === undefined ? 'generation_config' : 'generationConfig';
      return withFields(body, { [key]: withFields(generationConfig(body), { maxOutputTokens: perAnswer }) });
    }
  }
}

/**
 * Anthropic prompt caching: the parts of a request marked `cache_control` may be written to the
 * cache, at a price above the input price (1.25×, or 2× with `"ttl": "1h"`). Which kind of write
 * the prompt bound is priced at: the dearest one the request asks for, or none.
 */
export function cacheWriteKind(body: JsonObject): 'none' | '5m' | '1h' {
  let kind: 'none' | '5m' | '1h' = 'none';
  const walk = (x: unknown, depth: number): void => {
    if (kind === '1h' || depth > 32) return;
    if (Array.isArray(x)) {
      for (const v of x) walk(v, depth + 1);
      return;
    }
    if (!isObject(x)) return;
    if (isObject(x.cache_control)) kind = x.cache_control.ttl === '1h' ? '1h' : '5m';
    for (const [k, v] of Object.entries(x)) if (k !== 'cache_control' && typeof v === 'object' && v !== null) walk(v, depth + 1);
  };
  walk(body, 0);
  return kind;
}
