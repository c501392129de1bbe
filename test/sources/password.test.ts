import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { AMBIGUOUS, characterSets, generatePassword, LOWERCASE, MAX_LENGTH, MIN_LENGTH, NUMBERS, shuffle, SIMILAR, SYMBOLS, UPPERCASE, type GenerateOptions } from '../../sources/password.ts';
import { expectNoServerErrors, getJson, useService } from './_corpus.ts';

const options = fc.record({
  length: fc.integer({ min: MIN_LENGTH, max: MAX_LENGTH }),
  numbers: fc.boolean(),
  uppercase: fc.boolean(),
  lowercase: fc.boolean(),
  symbols: fc.boolean(),
  exclude_similar: fc.boolean(),
  exclude_ambiguous: fc.boolean(),
}).filter((o) => o.numbers || o.uppercase || o.lowercase || o.symbols);

describe('password generation (property-based)', () => {
  it('has the requested length, every enabled class, and nothing else', () => {
    fc.assert(
      fc.property(options, (o: GenerateOptions) => {
        const p = generatePassword(o);
        const sets = characterSets(o);
        const all = Object.values(sets).join('');
        expect([...p]).toHaveLength(o.length);
        for (const c of p) expect(all).toContain(c);
        for (const set of Object.values(sets)) if (set) expect([...p].some((c) => set.includes(c))).toBe(true);
        if (!o.numbers) expect(p).not.toMatch(/[0-9]/);
        if (!o.uppercase) expect(p).not.toMatch(/[A-Z]/);
        if (!o.lowercase) expect(p).not.toMatch(/[a-z]/);
        if (!o.symbols) expect(p).toMatch(/^[A-Za-z0-9]*$/);
        if (o.exclude_similar) for (const c of SIMILAR) expect(p).not.toContain(c);
        if (o.exclude_ambiguous) for (const c of AMBIGUOUS) expect(p).not.toContain(c);
      }),
      { numRuns: 300 },
    );
  });

  it('the shuffle is a permutation', () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), (a) => {
        expect(shuffle([...a]).sort()).toEqual([...a].sort());
      }),
    );
  });
});

describe('password generation', () => {
  it('uses node:crypto only: no Math.random in the module', () => {
    const src = fs.readFileSync(new URL('../../sources/password.ts', import.meta.url), 'utf8');
    expect(src).not.toMatch(/Math\.random/);
    expect(src).toMatch(/randomInt/);
    const spy = vi.spyOn(Math, 'random');
    generatePassword({ length: 32, numbers: true, uppercase: true, lowercase: true, symbols: true, exclude_similar: false, exclude_ambiguous: false });
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });

  it('is roughly uniform over the pool (no modulo bias, no position bias)', () => {
    const o = { length: 64, numbers: true, uppercase: false, lowercase: false, symbols: false, exclude_similar: false, exclude_ambiguous: false };
    const counts = new Map<string, number>();
    const first = new Map<string, number>();
    for (let i = 0; i < 400; i++) {
      const p = generatePassword(o);
      for (const c of p) counts.set(c, (counts.get(c) ?? 0) + 1);
      first.set(p[0]!, (first.get(p[0]!) ?? 0) + 1);
    }
    // 25 600 digits: each of the 10 is expected 2 560 times (σ ≈ 48).
    for (const d of NUMBERS) expect(Math.abs((counts.get(d) ?? 0) - 2560), d).toBeLessThan(300);
    for (const d of NUMBERS) expect(first.get(d) ?? 0, `first position ${d}`).toBeGreaterThan(10);
  });

  it('class sets and exclusions', () => {
    const s = characterSets({ length: 8, numbers: true, uppercase: true, lowercase: true, symbols: true, exclude_similar: true, exclude_ambiguous: true });
    expect(s.lowercase).toBe([...LOWERCASE].filter((c) => !'ilo'.includes(c)).join(''));
    expect(s.uppercase).toBe([...UPPERCASE].filter((c) => !'LOI'.includes(c)).join(''));
    expect(s.numbers).toBe('23456789');
    expect(s.symbols).toBe('!@#$%^&*-_=+?');
    const all = characterSets({ length: 8, numbers: true, uppercase: true, lowercase: true, symbols: true, exclude_similar: false, exclude_ambiguous: false });
    expect(all.symbols).toBe(SYMBOLS);
  });
});

describe('password through the server', () => {
  const { svc } = useService();

  it('defaults: 16 characters of digits, upper and lower case; text is the bare password', async () => {
    const { status, body } = await getJson<{ password: string; length: number; config: GenerateOptions; entropy_bits: number; strength: string; generation_info: unknown; character_sets: { used_sets: string[] } }>(svc(), '/v2/apis/password');
    expect(status).toBe(200);
    expect(body.data.password).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(body.data.config).toEqual({
      length: 16,
      numbers: true,
      uppercase: true,
      lowercase: true,
      symbols: false,
      exclude_similar: true,
      exclude_ambiguous: true,
      include_numbers: true,
      include_uppercase: true,
      include_lowercase: true,
      include_symbols: false,
    });
    // pool 23 + 23 + 8 = 54 characters: 16 × log2(54) = 92.1 bits
    expect(body.data.entropy_bits).toBe(92.1);
    expect(body.data.generation_info).toEqual({ entropy: 92.1, strength: body.data.strength, time_to_crack: expect.any(String) });
    expect(body.data.character_sets.used_sets).toEqual(['lowercase', 'uppercase', 'numbers']);
    const t = await svc().get('/v2/apis/password?length=20&symbols=true&encoding=text');
    expect(t.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const pw = await t.text();
    expect(pw).toHaveLength(20);
    expect(pw).not.toMatch(/\s/);
    expect(await (await svc().get('/v2/apis/password?encoding=markdown')).text()).toMatch(/^# 🔐 密码生成\n\n```\n\S{16}\n```/);
  });

  it('booleans accept true/false/1/0; an empty flag means true', async () => {
    const a = await getJson<{ password: string }>(svc(), '/v2/apis/password?numbers=0&uppercase=false&lowercase=1&length=40');
    expect(a.body.data.password).toMatch(/^[a-z]{40}$/);
    const b = await getJson<{ config: { symbols: boolean } }>(svc(), '/v2/apis/password?symbols');
    expect(b.body.data.config.symbols).toBe(true);
  });

  it(`length ${MIN_LENGTH}..${MAX_LENGTH}, booleans and at least one class are validated with 400s`, async () => {
    for (const [q, name] of [
      ['length=3', 'length'],
      ['length=129', 'length'],
      ['length=abc', 'length'],
      ['numbers=maybe', 'numbers'],
      ['exclude_similar=2', 'exclude_similar'],
      ['numbers=0&uppercase=0&lowercase=0&symbols=0', 'numbers'],
    ]) {
      const { status, body } = await getJson(svc(), `/v2/apis/password?${q}`);
      expect(status, q).toBe(400);
      expect(body.message, q).toContain(`"${name}"`);
    }
    const edge = await getJson<{ password: string }>(svc(), `/v2/apis/password?length=${MAX_LENGTH}&symbols=1`);
    expect(edge.body.data.password).toHaveLength(MAX_LENGTH);
  });

  it('odd inputs never answer 500', async () => {
    await expectNoServerErrors(svc(), '/v2/apis/password', ['length', 'numbers', 'uppercase', 'lowercase', 'symbols', 'exclude_similar', 'exclude_ambiguous']);
  });
});
