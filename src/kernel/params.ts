/** Parameter validation: raw request values in, typed values or a 400 naming the parameter out. */
import { badParam, missingParam } from './errors.ts';
import type { AnyParams, ParamSpec, ParamSpecs, ParamValue } from './source.ts';
import { isIsoDate } from './time.ts';

const DEFAULT_MAX_LENGTH = 2048;
const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on', '']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);

/** What a parameter accepts, in words, for error messages and the catalogue. */
export function describeAccepted(spec: ParamSpec): string {
  switch (spec.type) {
    case 'string':
      if (spec.enum) return `one of ${spec.enum.join(', ')}`;
      if (spec.patternDoc) return spec.patternDoc;
      return `a string of at most ${spec.maxLength ?? DEFAULT_MAX_LENGTH} characters`;
    case 'integer':
      if (spec.min !== undefined && spec.max !== undefined) return `a whole number from ${spec.min} to ${spec.max}`;
      if (spec.min !== undefined) return `a whole number of at least ${spec.min}`;
      if (spec.max !== undefined) return `a whole number of at most ${spec.max}`;
      return 'a whole number';
    case 'boolean':
      return 'true or false (also 1 or 0)';
    case 'date':
      return 'a date in the form YYYY-MM-DD';
  }
}

/**
 * Lone UTF-16 surrogates (possible from a JSON body, never from UTF-8 bytes) become U+FFFD, as
 * UTF-8 encoding would make them; otherwise they break encodeURIComponent (cache keys) and hashing.
 */
export function wellFormed(s: string): string {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

function parseOne(name: string, spec: ParamSpec, raw: string): ParamValue {
  switch (spec.type) {
    case 'string': {
      const v = wellFormed(spec.trim === false ? raw : raw.trim());
      const max = spec.maxLength ?? DEFAULT_MAX_LENGTH;
      if (v.length > max) throw badParam(name, `at most ${max} characters are accepted (got ${v.length})`);
      if (spec.enum && !spec.enum.includes(v)) throw badParam(name, describeAccepted(spec));
      if (spec.pattern && !spec.pattern.test(v)) throw badParam(name, describeAccepted(spec));
      return spec.normalize ? spec.normalize(v) : v;
    }
    case 'integer': {
      const v = raw.trim();
      if (!/^[+-]?\d{1,15}$/.test(v)) throw badParam(name, describeAccepted(spec));
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
      const v = raw.trim();
      if (!isIsoDate(v)) throw badParam(name, describeAccepted(spec));
      return v;
    }
  }
}

/**
 * Validate raw values against the specs. Values for undeclared names are ignored. Empty
 * strings count as absent, except for booleans (where `?flag` means true).
 */
export function parseParams(specs: ParamSpecs | undefined, raw: Record<string, string | undefined>): AnyParams {
  const out: Record<string, ParamValue> = {};
  for (const [name, spec] of Object.entries(specs ?? {})) {
    const value = raw[name];
    const absent = value === undefined || (spec.type !== 'boolean' && value.trim() === '');
    if (absent) {
      if (spec.required) throw missingParam(name, describeAccepted(spec));
      out[name] = spec.default;
      continue;
    }
    out[name] = parseOne(name, spec, value);
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
