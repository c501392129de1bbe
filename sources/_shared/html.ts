/** cheerio's `load`, with cheerio loaded when a source first parses HTML (see lazy-module.ts). */
import type * as Cheerio from 'cheerio';
import { lazyModule } from '../../src/kernel/lazy-module.ts';

const cheerio = lazyModule<typeof Cheerio>('cheerio');

export const load: typeof Cheerio.load = (...args) => cheerio().load(...args);
