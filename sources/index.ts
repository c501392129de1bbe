/**
 * Every source, registered explicitly (type-checked, greppable, no directory scan). Adding a
 * source = one file in sources/, one line here, its fixtures and its tests.
 */
import type { AnySource } from '../src/kernel/source.ts';
import sixtySeconds from './60s.ts';
import hotMicroblog from './hot-microblog.ts';
import qrcode from './qrcode.ts';

export const sources: readonly AnySource[] = [
  // Periodic information
  sixtySeconds,
  // Hot lists and rankings
  hotMicroblog,
  // Utilities
  qrcode,
];
