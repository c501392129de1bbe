/**
 * A package loaded on its first use instead of at start-up: the heavy ones that only some
 * requests, sources or settings need (cheerio, fontkit, pg, ioredis) would otherwise add to
 * every start's time and memory. They load through their CommonJS entry, synchronously.
 */
import { createRequire } from 'node:module';

const requireFromHere = createRequire(import.meta.url);

export function lazyModule<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireFromHere(name) as T);
}
