/** Parameter parsing: the value forms 60s's clients send, normalised to ours. */
import { describe, expect, it } from 'vitest';
import { normalizeDate, parseParams } from '../../src/kernel/params.ts';
import type { ParamSpecs } from '../../src/kernel/source.ts';

const NOW = Date.parse('2026-11-21T02:00:00Z');

describe('date parameters', () => {
  it('accept the forms 60s reads, as YYYY-MM-DD (Asia/Shanghai)', () => {
    for (const v of ['2026-05-02', '2026-5-2', '2026/05/02', '2026/5/2', '2026.5.2', '20260502', '2026-05-02 10:30', '2026-05-02T23:59:59', '1777694400', '1777694400000'])
      expect(normalizeDate(v, false, NOW), v).toBe('2026-05-02');
    // 16:30 UTC on May 1st is already May 2nd in Shanghai.
    expect(normalizeDate(String(Date.parse('2026-05-01T16:30:00Z')), false, NOW)).toBe('2026-05-02');
  });

  it('take a month and day alone only where the spec says so, in the current year', () => {
    expect(normalizeDate('11-21', true, NOW)).toBe('2026-11-21');
    expect(normalizeDate('1/5', true, NOW)).toBe('2026-01-05');
    expect(normalizeDate('11-21', false, NOW)).toBeUndefined();
  });

  it('refuse what is no calendar day, naming the parameter', () => {
    for (const v of ['2026-02-30', '2026-13-01', '26-05-02', 'yesterday', '123456789', '2026-05-02T25:00']) expect(normalizeDate(v, true, NOW), v).toBeUndefined();
    expect(() => parseParams({ date: { type: 'date', doc: 'd' } }, { date: '2026/02/30' }, NOW)).toThrow(/"date".*YYYY-MM-DD/);
  });
});

describe('enum parameters with ignoreCase', () => {
  const specs: ParamSpecs = {
    level: { type: 'string', enum: ['L', 'M'], ignoreCase: true, doc: 'l' },
    mode: { type: 'string', enum: ['on', 'off'], doc: 'm' },
  };
  it('give the source the enum spelling; without it the case must match', () => {
    expect(parseParams(specs, { level: 'm', mode: 'on' }).level).toBe('M');
    expect(() => parseParams(specs, { mode: 'ON' })).toThrow(/"mode"/);
    expect(() => parseParams(specs, { level: 'x' })).toThrow(/"level": one of L, M \(in any case\)/);
  });
});
