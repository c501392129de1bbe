/**
 * The part of undici the gateway uses (`Pool`, `errors`), loaded on first use: the compiled
 * bundle (scripts/build.mjs) points the gateway's `undici` import here, so the 1 MB package is
 * not parsed at every start, only when an upstream pool is made or an upstream error is sorted.
 * Under tsx and in tests the gateway imports undici itself; both are the same classes.
 */
import type * as Undici from 'undici';
import { lazyModule } from './lazy-module.ts';

const undici = lazyModule<typeof Undici>('undici');

/** `new Pool(origin, options)`: a real undici Pool. */
export const Pool = function Pool(...args: ConstructorParameters<typeof Undici.Pool>) {
  return new (undici().Pool)(...args);
} as unknown as typeof Undici.Pool;

/** undici's error classes, for `instanceof`. */
export const errors = new Proxy({} as typeof Undici.errors, { get: (_, name) => undici().errors[name as keyof typeof Undici.errors] });
