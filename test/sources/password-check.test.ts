import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyse, checkPassword, crackTime, findSequences, isCommonPassword, scoreOf, strengthOf } from '../../sources/password.ts';
import { expectNoServerErrors, getJson, useService } from './_corpus.ts';

describe('password analysis', () => {
  it('common passwords and their variants score at most 10', () => {
    for (const p of ['123456', 'password', 'Password123!', 'P@ssw0rd', 'qwerty', 'woaini1314', '5201314', 'iloveyou']) {
      const c = checkPassword(p);
      expect(c.is_common, p).toBe(true);
      expect(c.score, p).toBeLessThanOrEqual(10);
      expect(c.strength_en, p).toBe('very weak');
      expect(c.crack_time, p).toMatch(/instantly/);
    }
    expect(isCommonPassword('QWERTY')).toBe(true);
    expect(isCommonPassword('xK9#mPqL2$vN')).toBe(false);
  });

  it('finds sequences of the alphabet, digits and keyboard rows, both ways', () => {
    expect(findSequences('xabcy')).toEqual(['abc']);
    expect(findSequences('k9876k')).toEqual(['9876']);
    expect(findSequences('Qwer!')).toEqual(['Qwer']);
    expect(findSequences('zyx')).toEqual(['zyx']);
    expect(findSequences('a1b2c3')).toEqual([]);
  });

  it('entropy, classes, repeats: hand-computed cases', () => {
    const a = analyse('Tr0ub4dor&3');
    // 11 characters over 26 + 26 + 10 + 33 = 95: 11 × log2(95) = 72.27
    expect(a).toMatchObject({ has_lowercase: true, has_uppercase: true, has_numbers: true, has_symbols: true, has_other: false, character_variety: 4, pool_size: 95, entropy_bits: 72.3, has_sequential: false, has_repeated: false, is_common: false });
    // 0.7 × 72.27 = 50.6 + 4 × 5 = 70.6 → 71
    expect(scoreOf('Tr0ub4dor&3', a)).toBe(71);
    expect(analyse('aaab').has_repeated).toBe(true);
    expect(analyse('xyxy12').has_repeated_pattern).toBe(true);
    expect(analyse('密码很长很长').has_other).toBe(true);
  });

  it('strength labels and crack times', () => {
    expect(strengthOf(0).strength).toBe('极弱');
    expect(strengthOf(19).strength_en).toBe('very weak');
    expect(strengthOf(20).strength_en).toBe('weak');
    expect(strengthOf(59).strength_en).toBe('medium');
    expect(strengthOf(79).strength_en).toBe('strong');
    expect(strengthOf(100).strength_en).toBe('very strong');
    // 2^40 / 2 / 1e10 = 55 s
    expect(crackTime(40, false)).toMatchObject({ crack_time: '约 55 秒' });
    expect(crackTime(900, false).crack_time).toMatch(/trillion/);
  });

  it('score is always 0–100 and recommendations never empty (property-based)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 128, unit: 'grapheme' }), (p) => {
        const c = checkPassword(p);
        return c.score >= 0 && c.score <= 100 && c.recommendations.length > 0 && Number.isFinite(c.entropy_bits);
      }),
      { numRuns: 300 },
    );
  });

  it('a long random-looking password is very strong', () => {
    const c = checkPassword('h7#Kq2$Vm9!xPw4Z');
    expect(c.score).toBeGreaterThanOrEqual(80);
    expect(c.strength).toBe('极强');
  });
});

describe('password/check through the server', () => {
  const { svc } = useService();

  it('answers the analysis; the password is taken exactly (spaces count)', async () => {
    const { status, body } = await getJson<{ password: string; length: number; score: number; strength: string; recommendations: string[] }>(svc(), `/v2/apis/password/check?password=${encodeURIComponent(' Tr0ub4dor&3 ')}`);
    expect(status).toBe(200);
    expect(body.data.password).toBe(' Tr0ub4dor&3 ');
    expect(body.data.length).toBe(13);
    expect(body.data.recommendations.length).toBeGreaterThan(0);
    const text = await (await svc().get('/v2/apis/password/check?password=123456&encoding=text')).text();
    expect(text).toMatch(/^密码强度：极弱（very weak）/);
    expect(text).toContain('常见密码');
    expect(await (await svc().get('/v2/apis/password/check?password=abc&encoding=markdown')).text()).toMatch(/^# 密码强度检测/);
  });

  it('password is required and at most 128 characters: 400s naming it', async () => {
    for (const q of ['', 'password=', `password=${'a'.repeat(129)}`]) {
      const { status, body } = await getJson(svc(), `/v2/apis/password/check?${q}`);
      expect(status, q).toBe(400);
      expect(body.message).toContain('"password"');
    }
  });

  it('odd inputs never answer 500', async () => {
    await expectNoServerErrors(svc(), '/v2/apis/password/check?password=x', ['password']);
  });
});
