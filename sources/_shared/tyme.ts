/** tyme4ts (the Chinese calendar), loaded when a source first computes a date with it (see lazy-module.ts). */
import type * as Tyme from 'tyme4ts';
import { lazyModule } from '../../src/kernel/lazy-module.ts';

export const tyme = lazyModule<typeof Tyme>('tyme4ts');
