/** Asia/Shanghai formatting: the fixed-offset arithmetic agrees with the time-zone database. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime } from '../../src/kernel/time.ts';

const intl = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Shanghai', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });

describe('formatDateTime / formatDate', () => {
  it('equal Intl in Asia/Shanghai for any time from 1970 to 2200 (DST years 1986–1991 included)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.UTC(2200, 0, 1) }), (ms) => {
        expect(formatDateTime(ms)).toBe(intl.format(ms));
        expect(formatDate(ms)).toBe(intl.format(ms).slice(0, 10));
      }),
      { numRuns: 5000 },
    );
  });

  it('around midnight and the 1991 switch', () => {
    expect(formatDateTime(Date.parse('2026-11-20T16:00:00Z'))).toBe('2026-11-21 00:00:00');
    expect(formatDateTime(Date.parse('2026-11-20T15:59:59Z'))).toBe('2026-11-20 23:59:59');
    expect(formatDateTime(Date.parse('1991-12-31T15:59:59Z'))).toBe('1991-12-31 23:59:59');
    expect(formatDateTime(Date.parse('1991-07-01T00:00:00Z'))).toBe(intl.format(Date.parse('1991-07-01T00:00:00Z')));
  });
});
