/**
 * Narrowing a client's JSON body from `unknown`, each miss a TranslationError (400) naming the
 * path of the field, such as `messages[2].content[0].source.data`.
 */
import { isObject, type JsonObject } from '../body.ts';
import { TranslationError } from './types.ts';

export function objectAt(x: unknown, path: string, what: string): JsonObject {
  if (!isObject(x)) throw new TranslationError(`"${path}" must be ${what}.`, path);
  return x;
}

export function arrayAt(x: unknown, path: string, what: string): unknown[] {
  if (!Array.isArray(x)) throw new TranslationError(`"${path}" must be ${what}.`, path);
  return x;
}

export function stringAt(x: unknown, path: string, what: string): string {
  if (typeof x !== 'string') throw new TranslationError(`"${path}" must be ${what}.`, path);
  return x;
}

export function optionalStringAt(x: unknown, path: string): string | undefined {
  if (x === undefined || x === null) return undefined;
  return stringAt(x, path, 'a string');
}

export function optionalNumberAt(x: unknown, path: string, min = -Infinity, max = Infinity): number | undefined {
  if (x === undefined || x === null) return undefined;
  if (typeof x !== 'number' || !Number.isFinite(x) || x < min || x > max) throw new TranslationError(`"${path}" must be a number${Number.isFinite(min) ? ` from ${min}` : ''}${Number.isFinite(max) ? ` to ${max}` : ''}.`, path);
  return x;
}

export function optionalIntAt(x: unknown, path: string, min = 0): number | undefined {
  const n = optionalNumberAt(x, path, min);
  if (n !== undefined && !Number.isInteger(n)) throw new TranslationError(`"${path}" must be a whole number.`, path);
  return n;
}

export function optionalBooleanAt(x: unknown, path: string): boolean | undefined {
  if (x === undefined || x === null) return undefined;
  if (typeof x !== 'boolean') throw new TranslationError(`"${path}" must be true or false.`, path);
  return x;
}

/** A tool call's arguments, JSON text of an object ('' is no arguments), as the styles that take an object need them. */
export function argumentsObjectAt(args: string, path: string): JsonObject {
  if (args.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(args);
    if (isObject(parsed)) return parsed;
  } catch {
    // reported below
  }
  throw new TranslationError(`"${path}" must be a JSON object in text (the tool call's arguments).`, path);
}

/** A field this style has that cannot be carried to the other side without changing what the request means. */
export function untranslatable(path: string, why: string): TranslationError {
  return new TranslationError(`"${path}" cannot be translated for the upstream serving this model: ${why}.`, path, 'unsupported_parameter');
}
