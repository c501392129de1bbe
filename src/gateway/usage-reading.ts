/**
 * Token usage as each API style reports it, read into one normalized usage the price table
 * bills. The usage object of an answer or stream event is flattened into its counters by the
 * vendor's own field names (nested details as dotted paths, Gemini's per-modality lists as
 * `promptTokensDetails.AUDIO`); the counters of a stream are merged field by field (Anthropic
 * sends its input counts in `message_start` and the running output count in `message_delta`),
 * then normalized by the style's rules:
 *
 * - OpenAI chat completions: `prompt_tokens` includes `prompt_tokens_details.cached_tokens` and
 *   `.audio_tokens`; `completion_tokens` includes `completion_tokens_details.reasoning_tokens`
 *   and `.audio_tokens` (https://platform.openai.com/docs/api-reference/chat/object).
 * - OpenAI Responses: `input_tokens` with `input_tokens_details.cached_tokens`, `output_tokens`
 *   with `output_tokens_details.reasoning_tokens`, in the answer or in the `response` of its
 *   `response.completed`/`response.incomplete` event (https://platform.openai.com/docs/api-reference/responses/object).
 * - DeepSeek: `prompt_tokens` = `prompt_cache_hit_tokens` + `prompt_cache_miss_tokens`
 *   (https://api-docs.deepseek.com/guides/kv_cache).
 * - Anthropic: `input_tokens` excludes `cache_read_input_tokens` and
 *   `cache_creation_input_tokens` (of which `cache_creation.ephemeral_1h_input_tokens` are
 *   one-hour writes); the prompt is their sum (https://docs.claude.com/en/api/messages).
 * - Gemini: `promptTokenCount` includes `cachedContentTokenCount`; `toolUsePromptTokenCount` is
 *   prompt beside it; `thoughtsTokenCount` is output beside `candidatesTokenCount`, billed as
 *   output (https://ai.google.dev/api/generate-content#UsageMetadata).
 */
import { isObject } from './body.ts';

/** The usage counters of answers in this style (`none`: the route reports no token usage). */
export type UsageStyle = 'openai' | 'anthropic' | 'gemini' | 'none';

/** One request's tokens. `prompt` and `completion` hold every kind; the others say what part of them is what. */
export interface TokenUsage {
  prompt: number;
  completion: number;
  total: number;
  /** Prompt tokens read from the upstream's cache (billed at the cached-input price). */
  cached?: number;
  /** Prompt tokens written to the cache (Anthropic), and the part of them kept an hour. */
  cacheWrite?: number;
  cacheWrite1h?: number;
  /** Completion tokens spent on reasoning or thinking. */
  reasoning?: number;
  /** Audio tokens of the prompt and of the completion. */
  audioIn?: number;
  audioOut?: number;
  /** Image tokens of the prompt (an image model's input pictures). */
  imageIn?: number;
}

/** Counters by their field path in the vendor's usage object. */
export type UsageFields = Record<string, number>;

const MAX_DEPTH = 3;

function flatten(x: Record<string, unknown>, prefix: string, out: UsageFields, depth: number): void {
  for (const [k, v] of Object.entries(x)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) out[key] = Math.round(v);
    else if (depth < MAX_DEPTH && isObject(v)) flatten(v, key, out, depth + 1);
    else if (Array.isArray(v)) {
      // Gemini's ModalityTokenCount lists: [{modality: "AUDIO", tokenCount: 12}].
      for (const item of v) if (isObject(item) && typeof item.modality === 'string' && typeof item.tokenCount === 'number') out[`${key}.${item.modality}`] = item.tokenCount;
    }
  }
}

/** The usage object of an answer or stream event of this style, if it has one. */
function usageObject(style: UsageStyle, body: unknown): Record<string, unknown> | undefined {
  if (!isObject(body)) return undefined;
  switch (style) {
    case 'openai':
      if (isObject(body.usage)) return body.usage;
      // Responses stream events carry the response, usage and all, in `response`.
      return isObject(body.response) && isObject(body.response.usage) ? body.response.usage : undefined;
    case 'anthropic':
      if (isObject(body.usage)) return body.usage;
      return isObject(body.message) && isObject(body.message.usage) ? body.message.usage : undefined;
    case 'gemini':
      return isObject(body.usageMetadata) ? body.usageMetadata : undefined;
    case 'none':
      return undefined;
  }
}

/** The counters of one answer or stream event; `undefined` when it reports none. */
export function usageFields(style: UsageStyle, body: unknown): UsageFields | undefined {
  const u = usageObject(style, body);
  if (!u) return undefined;
  const out: UsageFields = {};
  flatten(u, '', out, 0);
  return Object.keys(out).length ? out : undefined;
}

/** The counters a JSON-array stream (Gemini without `alt=sse`) mentions last, read from its tail. */
export function lastGeminiFields(tail: string): UsageFields | undefined {
  const out: UsageFields = {};
  for (const name of ['promptTokenCount', 'candidatesTokenCount', 'totalTokenCount', 'cachedContentTokenCount', 'thoughtsTokenCount', 'toolUsePromptTokenCount']) {
    const m = [...tail.matchAll(new RegExp(`"${name}"\\s*:\\s*(\\d+)`, 'g'))].at(-1);
    if (m) out[name] = Number(m[1]);
  }
  return out.totalTokenCount === undefined ? undefined : out;
}

function first(f: UsageFields, ...names: string[]): number | undefined {
  for (const n of names) if (f[n] !== undefined) return f[n];
  return undefined;
}

function part(n: number | undefined, of: number): number | undefined {
  return n === undefined || n === 0 ? undefined : Math.min(n, of);
}

function withParts(prompt: number, completion: number, total: number | undefined, parts: Omit<TokenUsage, 'prompt' | 'completion' | 'total'>): TokenUsage {
  const usage: TokenUsage = { prompt, completion, total: total ?? prompt + completion };
  for (const [k, v] of Object.entries(parts) as [keyof typeof parts, number | undefined][]) if (v !== undefined && v > 0) usage[k] = v;
  return usage;
}

/** One normalized usage from the counters of this style; `undefined` when they hold no token count. */
export function normalizeUsage(style: UsageStyle, f: UsageFields): TokenUsage | undefined {
  switch (style) {
    case 'openai': {
      const p = first(f, 'prompt_tokens', 'input_tokens');
      const c = first(f, 'completion_tokens', 'output_tokens');
      const t = first(f, 'total_tokens');
      if (p === undefined && c === undefined && t === undefined) return undefined;
      const prompt = p ?? 0;
      const completion = c ?? 0;
      return withParts(prompt, completion, t, {
        cached: part(first(f, 'prompt_tokens_details.cached_tokens', 'input_tokens_details.cached_tokens', 'prompt_cache_hit_tokens'), prompt),
        audioIn: part(first(f, 'prompt_tokens_details.audio_tokens', 'input_tokens_details.audio_tokens'), prompt),
        imageIn: part(first(f, 'input_tokens_details.image_tokens'), prompt),
        reasoning: part(first(f, 'completion_tokens_details.reasoning_tokens', 'output_tokens_details.reasoning_tokens'), completion),
        audioOut: part(first(f, 'completion_tokens_details.audio_tokens', 'output_tokens_details.audio_tokens'), completion),
      });
    }
    case 'anthropic': {
      const input = f.input_tokens;
      const output = f.output_tokens;
      if (input === undefined && output === undefined) return undefined;
      const read = f.cache_read_input_tokens ?? 0;
      const write = f.cache_creation_input_tokens ?? 0;
      const prompt = (input ?? 0) + read + write;
      return withParts(prompt, output ?? 0, undefined, { cached: part(read, prompt), cacheWrite: part(write, prompt), cacheWrite1h: part(f['cache_creation.ephemeral_1h_input_tokens'], write) });
    }
    case 'gemini': {
      const p = f.promptTokenCount;
      const c = f.candidatesTokenCount;
      const t = f.totalTokenCount;
      if (p === undefined && c === undefined && t === undefined) return undefined;
      const thoughts = f.thoughtsTokenCount ?? 0;
      const prompt = (p ?? 0) + (f.toolUsePromptTokenCount ?? 0);
      const completion = (c ?? 0) + thoughts;
      return withParts(prompt, completion, t, {
        cached: part(f.cachedContentTokenCount, prompt),
        audioIn: part((f['promptTokensDetails.AUDIO'] ?? 0) + (f['toolUsePromptTokensDetails.AUDIO'] ?? 0), prompt),
        reasoning: part(thoughts, completion),
        audioOut: part(f['candidatesTokensDetails.AUDIO'], completion),
      });
    }
    case 'none':
      return undefined;
  }
}

/** The normalized usage of one whole answer. */
export function readUsage(style: UsageStyle, body: unknown): TokenUsage | undefined {
  const f = usageFields(style, body);
  return f && normalizeUsage(style, f);
}
