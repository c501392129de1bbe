/**
 * A package loaded on its first use instead of at start-up: the heavy ones that only some
 * requests, sources or settings need (cheerio, fontkit, pg, ioredis, tyme4ts, busboy, feed) would
 * otherwise add to every start's time and memory. They load through their CommonJS entry,
 * synchronously; a package that has only an ES module entry (feed) loads through `lazyImport`.
 * scripts/build.mjs keeps each of them out of the bundle.
 */
import { createRequire } from 'node:module';

const requireFromHere = createRequire(import.meta.url);

export function lazyModule<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireFromHere(name) as T);
}

export function lazyImport<T>(name: string): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= import(name) as Promise<T>);
}
