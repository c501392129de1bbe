/**
 * Which upstream model gateways /v1 forwards to, from AI_UPSTREAM_BASE_URL (a comma-separated
 * list, tried in that order) or AI_UPSTREAMS (a JSON array, inline or in a file, adding names,
 * weights, per-upstream keys and model lists). Pure parsing: every problem is returned as a
 * message for the one ConfigError of src/config.ts.
 */
import fs from 'node:fs';
import { validateModelPattern } from './policy.ts';
import { API_STYLES, type ApiStyle } from './translate/types.ts';

export interface UpstreamSpec {
  /** Label on /v2/status and /metrics: configured, else the URL's host. */
  name: string;
  /**
   * Root URL; the incoming path is appended. A URL whose path holds a version segment
   * (`https://host/v1beta/openai`) replaces the request's own version segment instead.
   */
  url: string;
  apiKey: string | undefined;
  /** Share of first attempts (0 = tried in list order only). */
  weight: number;
  /** Model patterns this upstream serves (`*` wildcards); empty = every model. */
  models: string[];
  /** Public model name -> this upstream's name for it (from a `models` object). */
  aliases: Record<string, string>;
  /** The API styles it speaks natively; a request in another style is translated. */
  api: ApiStyle[];
  /**
   * Whether `api` was configured. An upstream that does not say still gets the routes no codec
   * translates (Gemini's, embeddings, images …) as they come, as before styles were declared.
   */
  apiDeclared: boolean;
}

/** What an upstream speaks when its entry does not say: chat completions and the other OpenAI routes, and Responses. */
export const DEFAULT_API: readonly ApiStyle[] = ['openai', 'responses'];

const NAME = /^[A-Za-z0-9._-]{1,40}$/;
const FIELDS = new Set(['name', 'url', 'key', 'weight', 'models', 'api']);

function checkUrl(raw: string, where: string, problems: string[]): string | undefined {
  try {
    const u = new URL(raw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') problems.push(`${where} must be an http(s) URL, got "${raw}"`);
    else if (u.username || u.password) problems.push(`${where} must not hold credentials in the URL (use the key): "${u.host}"`);
    else return raw.replace(/\/+$/, '');
  } catch {
    problems.push(`${where} must be a URL such as http://127.0.0.1:9000, got "${raw}"`);
  }
  return undefined;
}

/** The comma-separated AI_UPSTREAM_BASE_URL list (each entry a URL). */
export function parseBaseUrlList(raw: string, problems: string[]): string[] {
  const urls: string[] = [];
  raw.split(',').forEach((part, i) => {
    const entry = part.trim();
    if (!entry) return;
    const url = checkUrl(entry, `AI_UPSTREAM_BASE_URL entry ${i + 1}`, problems);
    if (url) urls.push(url);
  });
  return urls;
}

function defaultName(url: string, taken: Set<string>): string {
  const host = new URL(url).host;
  let name = host;
  for (let n = 2; taken.has(name); n++) name = `${host}#${n}`;
  return name;
}

function readJson(raw: string, problems: string[]): unknown {
  const text = raw.trim();
  let source = 'AI_UPSTREAMS';
  let json = text;
  if (!text.startsWith('[')) {
    source = `AI_UPSTREAMS file "${text}"`;
    try {
      json = fs.readFileSync(text, 'utf8');
    } catch (err) {
      problems.push(`AI_UPSTREAMS must be a JSON array or the path of a JSON file; cannot read "${text}" (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      return undefined;
    }
  }
  try {
    return JSON.parse(json) as unknown;
  } catch (err) {
    problems.push(`${source} is not valid JSON: ${(err as Error).message}`);
    return undefined;
  }
}

function parseEntry(x: unknown, i: number, defaultKey: string | undefined, taken: Set<string>, problems: string[]): UpstreamSpec | undefined {
  const where = `AI_UPSTREAMS[${i}]`;
  if (typeof x !== 'object' || x === null || Array.isArray(x)) {
    problems.push(`${where} must be an object such as {"url":"https://gw.example","weight":1}`);
    return undefined;
  }
  const o = x as Record<string, unknown>;
  const before = problems.length;
  for (const k of Object.keys(o)) if (!FIELDS.has(k)) problems.push(`${where} has an unknown field "${k}" (known: ${[...FIELDS].join(', ')})`);
  const url = typeof o.url === 'string' ? checkUrl(o.url, `${where}.url`, problems) : (problems.push(`${where}.url is required: the upstream's root URL`), undefined);
  if (o.name !== undefined && (typeof o.name !== 'string' || !NAME.test(o.name))) problems.push(`${where}.name must be 1 to 40 letters, digits, ".", "_" or "-"`);
  else if (typeof o.name === 'string' && taken.has(o.name)) problems.push(`${where}.name "${o.name}" is used twice`);
  if (o.key !== undefined && (typeof o.key !== 'string' || o.key.length === 0)) problems.push(`${where}.key must be a non-empty string`);
  if (o.weight !== undefined && (typeof o.weight !== 'number' || !Number.isFinite(o.weight) || o.weight < 0 || o.weight > 1000))
    problems.push(`${where}.weight must be a number from 0 to 1000`);
  let models: string[] = [];
  let aliases: Record<string, string> = {};
  if (o.models !== undefined && typeof o.models === 'object' && o.models !== null && !Array.isArray(o.models)) {
    // {"public name": "this upstream's name"}: the upstream serves exactly these public names.
    const entries = Object.entries(o.models as Record<string, unknown>);
    for (const [pub, own] of entries) if (typeof own !== 'string' || own === '' || pub === '' || pub.includes('*')) problems.push(`${where}.models.${pub || '""'} must map a public model name (no *) to this upstream's model name (a non-empty string)`);
    models = entries.map(([pub]) => pub);
    aliases = Object.fromEntries(entries.filter(([pub, own]) => typeof own === 'string' && own !== pub)) as Record<string, string>;
  } else if (o.models !== undefined) {
    if (!Array.isArray(o.models) || o.models.some((m) => typeof m !== 'string')) problems.push(`${where}.models must be an array of model names or * patterns, or an object mapping public model names to this upstream's names`);
    else {
      models = o.models as string[];
      for (const m of models) {
        const bad = validateModelPattern(m);
        if (bad) problems.push(`${where}.models: ${bad}`);
      }
    }
  }
  let api: ApiStyle[] = [...DEFAULT_API];
  if (o.api !== undefined) {
    if (!Array.isArray(o.api) || o.api.length === 0 || o.api.some((a) => !API_STYLES.includes(a as ApiStyle)))
      problems.push(`${where}.api must be a non-empty array of the styles it speaks: ${API_STYLES.map((a) => `"${a}"`).join(', ')}`);
    else api = [...new Set(o.api as ApiStyle[])];
  }
  if (problems.length > before || !url) return undefined;
  const name = typeof o.name === 'string' ? o.name : defaultName(url, taken);
  taken.add(name);
  return { name, url, apiKey: typeof o.key === 'string' ? o.key : defaultKey, weight: typeof o.weight === 'number' ? o.weight : 0, models, aliases, api, apiDeclared: o.api !== undefined };
}

/**
 * The upstreams: from AI_UPSTREAMS when set, else one per AI_UPSTREAM_BASE_URL entry (with
 * AI_UPSTREAM_API_KEY). Setting both is a problem: one list, one place.
 */
export function parseUpstreams(opts: { baseUrls: string | undefined; json: string | undefined; apiKey: string | undefined }, problems: string[]): UpstreamSpec[] {
  const hasList = opts.baseUrls !== undefined && opts.baseUrls.trim() !== '';
  const hasJson = opts.json !== undefined && opts.json.trim() !== '';
  if (hasList && hasJson) {
    problems.push('AI_UPSTREAM_BASE_URL and AI_UPSTREAMS are both set: list the upstreams in one of them (AI_UPSTREAMS when they need names, weights, keys or model lists)');
    return [];
  }
  const taken = new Set<string>();
  if (hasList) return parseBaseUrlList(opts.baseUrls!, problems).map((url) => {
    const name = defaultName(url, taken);
    taken.add(name);
    return { name, url, apiKey: opts.apiKey, weight: 0, models: [], aliases: {}, api: [...DEFAULT_API], apiDeclared: false };
  });
  if (!hasJson) return [];
  const parsed = readJson(opts.json!, problems);
  if (parsed === undefined) return [];
  if (!Array.isArray(parsed) || parsed.length === 0) {
    problems.push('AI_UPSTREAMS must be a non-empty JSON array of {"url", "name"?, "key"?, "weight"?, "models"?, "api"?} objects');
    return [];
  }
  if (parsed.length > 32) {
    problems.push(`AI_UPSTREAMS lists ${parsed.length} upstreams; at most 32 are supported`);
    return [];
  }
  const out: UpstreamSpec[] = [];
  parsed.forEach((x, i) => {
    const spec = parseEntry(x, i, opts.apiKey, taken, problems);
    if (spec) out.push(spec);
  });
  return out;
}

/** AI_MODEL_FALLBACKS: `{"public model": ["fallback", …]}` (at most 5 each, no model its own fallback). */
export function parseModelFallbacks(raw: string | undefined, problems: string[]): Record<string, string[]> {
  if (raw === undefined || raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    problems.push(`AI_MODEL_FALLBACKS is not valid JSON: ${(err as Error).message}`);
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push('AI_MODEL_FALLBACKS must be a JSON object such as {"gpt-4o":["gpt-4o-mini"]}');
    return {};
  }
  const out: Record<string, string[]> = {};
  for (const [model, list] of Object.entries(parsed as Record<string, unknown>)) {
    if (!Array.isArray(list) || list.length === 0 || list.length > 5 || list.some((m) => typeof m !== 'string' || m === '' || m === model))
      problems.push(`AI_MODEL_FALLBACKS.${model} must be an array of 1 to 5 other model names`);
    else out[model] = list as string[];
  }
  return out;
}
