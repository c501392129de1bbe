/**
 * The compiled bundle is rewritten to Latin-1 (scripts/latin1-only.mjs) so V8 holds its text at one
 * byte a character: the rewritten code must mean what it meant, in patterns (plain, `u`, classes,
 * identity escapes, characters beyond the BMP), strings and comments.
 */
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { latin1Only } from '../../scripts/latin1-only.mjs';

const run = (code: string): unknown => vm.runInNewContext(code);

describe('latin1Only', () => {
  const programs = [
    String.raw`/(\d+)\s*(万|亿)?/.exec('3.5 万').slice(1).join('|')`,
    String.raw`/^(?:-|前|公元前)\s*(\d+)/.exec('公元前 221')[1]`,
    String.raw`[/[。！？.!?”"」）)…]$/.test('好。'), /[。！？]$/.test('好')]`,
    String.raw`/\万/.test('万') && !/\\万/.test('万') && /\\万/.test('\\万')`,
    String.raw`[/^[😀-🙏]$/u.test('😃'), /^😀$/u.test('😀'), /^😀$/.test('😀'), '😀'.length]`,
    String.raw`(r => new RegExp(r.source, r.flags).test('x日本語'))(/日本語$/i)`,
    "'中文' + `模板${1}` // 注释 */\n/* 注释 ✓ */",
  ];

  it.each(programs)('keeps the meaning of %s', (code) => {
    const rewritten = latin1Only(code);
    expect(rewritten).not.toMatch(/[^\x00-\xff]/);
    expect(run(rewritten)).toEqual(run(code));
  });

  it('leaves Latin-1 text as it is', () => {
    const code = String.raw`/caf\xe9|naïve\\/.test("café") // déjà vu`;
    expect(latin1Only(code)).toBe(code);
  });
});
