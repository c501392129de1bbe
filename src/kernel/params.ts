/** Parameter validation: raw request values in, typed values or a 400 naming the parameter out. */
import { badParam, missingParam } from './errors.ts';
import type { AnyParams, ParamSpec, ParamSpecs, ParamValue } from './source.ts';
import { formatDate, isIsoDate } from './time.ts';

const DEFAULT_MAX_LENGTH = 2048;
const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on', '']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);

/** What a parameter accepts, in words, for error messages and the catalogue. */
export function describeAccepted(spec: ParamSpec): string {
  switch (spec.type) {
    case 'string':
      if (spec.enum) return `one of ${spec.enum.join(', ')}${spec.ignoreCase ? ' (in any case)' : ''}`;
      if (spec.patternDoc) return spec.patternDoc;
      return `a string of at most ${spec.maxLength ?? DEFAULT_MAX_LENGTH} characters`;
    case 'integer':
    case 'number': {
      const what = spec.type === 'integer' ? 'a whole number' : 'a number (decimals allowed)';
      if (spec.min !== undefined && spec.max !== undefined) return `${what} from ${spec.min} to ${spec.max}`;
      if (spec.min !== undefined) return `${what} of at least ${spec.min}`;
      if (spec.max !== undefined) return `${what} of at most ${spec.max}`;
      return what;
    }
    case 'boolean':
      return 'true or false (also 1 or 0)';
    case 'date':
      return `a date YYYY-MM-DD (also YYYY/M/D, YYYYMMDD${spec.monthDay ? ', a month and day such as 11-21' : ''} or a Unix timestamp in seconds or ms)`;
  }
}

/** `YYYY-M-D`, `YYYY/M/D` or `YYYY.M.D`, optionally followed by a time of day (ignored), as 60s's clients write days. */
const LOOSE_DATE = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ](?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,3})?)?)?$/i;
const COMPACT_DATE = /^(\d{4})(\d{2})(\d{2})$/;
const MONTH_DAY = /^(\d{1,2})[-/](\d{1,2})$/;

/**
 * A day given in any accepted form as `YYYY-MM-DD` (Asia/Shanghai), or undefined when it is none
 * or no real calendar day.
 */
export function normalizeDate(value: string, monthDay: boolean, now: number): string | undefined {
  const v = value.trim();
  if (/^\d{10}$/.test(v)) return formatDate(Number(v) * 1000);
  if (/^\d{13}$/.test(v)) return formatDate(Number(v));
  let y: string | undefined;
  let m: string | undefined;
  let d: string | undefined;
  const full = LOOSE_DATE.exec(v) ?? COMPACT_DATE.exec(v);
  if (full) [, y, m, d] = full;
  else if (monthDay) {
    const md = MONTH_DAY.exec(v);
    if (md) [y, m, d] = [formatDate(now).slice(0, 4), md[1], md[2]];
  }
  if (!y || !m || !d) return undefined;
  const iso = `${y}-${m.padStart(2, '0')}-${d.padStart(2, '0')}`;
  return isIsoDate(iso) ? iso : undefined;
}

/**
 * Lone UTF-16 surrogates (possible from a JSON body, never from UTF-8 bytes) become U+FFFD, as
 * UTF-8 encoding would make them; otherwise they break encodeURIComponent (cache keys) and hashing.
 */
export function wellFormed(s: string): string {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

function parseOne(name: string, spec: ParamSpec, raw: string, now: number): ParamValue {
  switch (spec.type) {
    case 'string': {
      const v = wellFormed(spec.trim === false ? raw : raw.trim());
      const max = spec.maxLength ?? DEFAULT_MAX_LENGTH;
      if (v.length > max) throw badParam(name, `at most ${max} characters are accepted (got ${v.length})`);
      if (spec.enum) {
        const known = spec.ignoreCase ? spec.enum.find((e) => e.toLowerCase() === v.toLowerCase()) : spec.enum.includes(v) ? v : undefined;
        // The value is named too: among many choices (a province, a chart) a near miss is then plain to see.
        if (known === undefined) throw badParam(name, `${describeAccepted(spec)}, not ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`);
        return spec.normalize ? spec.normalize(known) : known;
      }
      if (spec.pattern && !spec.pattern.test(v)) throw badParam(name, describeAccepted(spec));
      return spec.normalize ? spec.normalize(v) : v;
    }
    case 'integer':
    case 'number': {
      const v = raw.trim();
      if (!(spec.type === 'integer' ? /^[+-]?\d{1,15}$/ : /^[+-]?\d{1,15}(?:\.\d{1,6})?$/).test(v)) throw badParam(name, describeAccepted(spec));
      const n = Number(v);
      if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) throw badParam(name, describeAccepted(spec));
      return n;
    }
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (TRUE_WORDS.has(v)) return true;
      if (FALSE_WORDS.has(v)) return false;
      throw badParam(name, describeAccepted(spec));
    }
    case 'date': {
      const v = raw.length > 40 ? undefined : normalizeDate(raw, spec.monthDay ?? false, now);
      if (v === undefined) throw badParam(name, describeAccepted(spec));
      return v;
    }
  }
}

/**
 * Validate raw values against the specs. Values for undeclared names are ignored. Empty
 * strings count as absent, except for booleans (where `?flag` means true). `now` (ms) dates a
 * month-day date (see DateParam.monthDay).
 */
export function parseParams(specs: ParamSpecs | undefined, raw: Record<string, string | undefined>, now = Date.now()): AnyParams {
  const out: Record<string, ParamValue> = {};
  for (const [name, spec] of Object.entries(specs ?? {})) {
    const value = raw[name];
    const absent = value === undefined || (spec.type !== 'boolean' && value.trim() === '');
    if (absent) {
      if (spec.required) throw missingParam(name, describeAccepted(spec));
      out[name] = spec.default;
      continue;
    }
    out[name] = parseOne(name, spec, value, now);
  }
  return out;
}

/** Canonical key of a parameter set: sorted `name=value` pairs of the set values, `&`-joined. */
export function paramsKey(params: AnyParams, omit?: string): string {
  return Object.keys(params)
    .filter((k) => k !== omit && params[k] !== undefined)
    .sort()
    .map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(String(params[k]))}`)
    .join('&');
}
