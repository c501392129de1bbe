/**
 * Password generator (/password), and the strength analysis that /password/check
 * (password-check.ts) and the generator's report share.
 *
 * Generation uses node:crypto only: every character is `randomInt` over its set (uniform, no
 * modulo bias), one character of each enabled class is placed first so every class is present,
 * and a Fisher–Yates shuffle with `randomInt` mixes their positions.
 *
 * The check is deterministic and explains itself:
 * - entropy = length × log2(pool), the pool being the sum of the classes present (26 lowercase,
 *   26 uppercase, 10 digits, 33 ASCII symbols and space, 100 for any other character);
 * - score (0–100) = min(70, 0.7 × entropy) + 5 per class present + 10 when length ≥ 12,
 *   − 15 for a sequence (abc, 321, qwe: 3 or more in a row), − 10 for a character repeated 3 or
 *   more times in a row, − 10 for a repeated block (abab); capped at 30 below 8 characters and at
 *   10 when the password, or its word part, is a common password (data/common-passwords.txt,
 *   also after undoing l33t substitutions such as 0→o, @→a);
 * - strength: < 20 very weak, < 40 weak, < 60 medium, < 80 strong, otherwise very strong;
 * - crack time: half the search space at 10¹⁰ guesses per second (a fast offline attack);
 *   "instantly" for common passwords.
 */
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/kernel/project-root.ts';
import { escapeMarkdown } from '../src/encoding/escape.ts';
import { AppError } from '../src/kernel/errors.ts';
import { defineSource } from '../src/kernel/source.ts';

export const MIN_LENGTH = 4;
export const MAX_LENGTH = 128;

export const LOWERCASE = 'abcdefghijklmnopqrstuvwxyz';
export const UPPERCASE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const NUMBERS = '0123456789';
/** Symbols that are easy to type and read everywhere. */
const PLAIN_SYMBOLS = '!@#$%^&*-_=+?';
/** Symbols that are easy to confuse or that break quoting in shells, URLs and config files. */
export const AMBIGUOUS = '()[]{}<>/\\|\'"`~,;:.';
export const SYMBOLS = PLAIN_SYMBOLS + AMBIGUOUS;
/** Characters that look alike in many fonts. */
export const SIMILAR = 'il1Lo0OI';

export interface GenerateOptions {
  length: number;
  numbers: boolean;
  uppercase: boolean;
  lowercase: boolean;
  symbols: boolean;
  exclude_similar: boolean;
  exclude_ambiguous: boolean;
}

export type ClassName = 'lowercase' | 'uppercase' | 'numbers' | 'symbols';

/** The character sets of the enabled classes after the exclusions, in a fixed order. */
export function characterSets(o: GenerateOptions): Record<ClassName, string> {
  const strip = (set: string) => [...set].filter((c) => !(o.exclude_similar && SIMILAR.includes(c)) && !(o.exclude_ambiguous && AMBIGUOUS.includes(c))).join('');
  return {
    lowercase: o.lowercase ? strip(LOWERCASE) : '',
    uppercase: o.uppercase ? strip(UPPERCASE) : '',
    numbers: o.numbers ? strip(NUMBERS) : '',
    symbols: o.symbols ? strip(SYMBOLS) : '',
  };
}

function pickFrom(set: string): string {
  return set[randomInt(set.length)] as string;
}

/** In-place Fisher–Yates shuffle with node:crypto. */
export function shuffle<T>(a: T[]): T[] {
  for (let i = a.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [a[i], a[j]] = [a[j] as T, a[i] as T];
  }
  return a;
}

export function generatePassword(o: GenerateOptions): string {
  const sets = Object.values(characterSets(o)).filter((s) => s.length > 0);
  if (!sets.length) throw new AppError(400, 'Invalid parameters "numbers", "uppercase", "lowercase", "symbols": enable at least one character class (e.g. lowercase=true).');
  if (o.length < sets.length) throw new AppError(400, `Invalid parameter "length": at least ${sets.length} characters are needed for the enabled classes.`);
  const pool = sets.join('');
  const chars = sets.map(pickFrom);
  while (chars.length < o.length) chars.push(pickFrom(pool));
  return shuffle(chars).join('');
}

// ---- strength analysis ----

const COMMON: ReadonlySet<string> = new Set(
  fs
    .readFileSync(path.join(PROJECT_ROOT, 'data/common-passwords.txt'), 'utf8')
    .split(/\r?\n/)
    .map((l) => l.trim().toLowerCase())
    .filter((l) => l && !l.startsWith('#')),
);

export function isCommonPassword(p: string): boolean {
  return COMMON.has(p.toLowerCase());
}

const LEET: Record<string, string> = { '0': 'o', '1': 'l', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's', '!': 'i' };
const ROWS = ['abcdefghijklmnopqrstuvwxyz', '0123456789', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm', '1234567890'];

/** Sequences of 3 or more characters, ascending or descending, of the alphabet, the digits or a keyboard row. */
export function findSequences(p: string): string[] {
  const s = p.toLowerCase();
  const found: string[] = [];
  let i = 0;
  while (i < s.length - 2) {
    let best = 0;
    for (const row of ROWS) {
      for (const dir of [1, -1]) {
        let n = 1;
        while (i + n < s.length) {
          const a = row.indexOf(s[i + n - 1] as string);
          const b = row.indexOf(s[i + n] as string);
          if (a < 0 || b < 0 || b - a !== dir) break;
          n++;
        }
        best = Math.max(best, n);
      }
    }
    if (best >= 3) {
      found.push(p.slice(i, i + best));
      i += best;
    } else i++;
  }
  return found;
}

const POOLS = { lowercase: 26, uppercase: 26, numbers: 10, symbols: 33, other: 100 } as const;

export interface Analysis {
  has_lowercase: boolean;
  has_uppercase: boolean;
  has_numbers: boolean;
  has_symbols: boolean;
  has_other: boolean;
  character_variety: number;
  pool_size: number;
  entropy_bits: number;
  sequences: string[];
  has_sequential: boolean;
  has_repeated: boolean;
  has_repeated_pattern: boolean;
  is_common: boolean;
}

export function analyse(p: string): Analysis {
  const chars = [...p];
  const has = {
    lowercase: /[a-z]/.test(p),
    uppercase: /[A-Z]/.test(p),
    numbers: /[0-9]/.test(p),
    symbols: /[\x20-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/.test(p),
    other: chars.some((c) => c.codePointAt(0)! > 0x7e || c.codePointAt(0)! < 0x20),
  };
  const pool = (Object.keys(POOLS) as (keyof typeof POOLS)[]).reduce((n, k) => n + (has[k] ? POOLS[k] : 0), 0);
  const lower = p.toLowerCase();
  const deLeet = [...lower].map((c) => LEET[c] ?? c).join('');
  const word = (s: string) => s.replace(/^[^a-z]+|[^a-z]+$/g, '');
  const sequences = findSequences(p);
  return {
    has_lowercase: has.lowercase,
    has_uppercase: has.uppercase,
    has_numbers: has.numbers,
    has_symbols: has.symbols,
    has_other: has.other,
    character_variety: [has.lowercase, has.uppercase, has.numbers, has.symbols, has.other].filter(Boolean).length,
    pool_size: pool,
    entropy_bits: pool ? Math.round(chars.length * Math.log2(pool) * 10) / 10 : 0,
    sequences,
    has_sequential: sequences.length > 0,
    has_repeated: /(.)\1\1/u.test(p),
    has_repeated_pattern: /(.{2,})\1/u.test(p),
    is_common: [lower, deLeet, word(lower), word(deLeet)].some((s) => s.length >= 3 && COMMON.has(s)) || COMMON.has(lower),
  };
}

export function scoreOf(p: string, a: Analysis): number {
  const length = [...p].length;
  let score = Math.min(70, a.entropy_bits * 0.7) + 5 * Math.min(4, [a.has_lowercase, a.has_uppercase, a.has_numbers, a.has_symbols || a.has_other].filter(Boolean).length);
  if (length >= 12) score += 10;
  if (a.has_sequential) score -= 15;
  if (a.has_repeated) score -= 10;
  if (a.has_repeated_pattern) score -= 10;
  if (length < 8) score = Math.min(score, 30);
  if (a.is_common) score = Math.min(score, 10);
  return Math.max(0, Math.min(100, Math.round(score)));
}

export const STRENGTHS = [
  { below: 20, label: '极弱', label_en: 'very weak' },
  { below: 40, label: '弱', label_en: 'weak' },
  { below: 60, label: '中等', label_en: 'medium' },
  { below: 80, label: '强', label_en: 'strong' },
  { below: Infinity, label: '极强', label_en: 'very strong' },
] as const;

export function strengthOf(score: number): { strength: string; strength_en: string } {
  const s = STRENGTHS.find((x) => score < x.below) ?? STRENGTHS[4];
  return { strength: s.label, strength_en: s.label_en };
}

const GUESSES_PER_SECOND = 1e10;

/** Seconds to find the password by brute force (half the space), and that time in words. */
export function crackTime(entropyBits: number, common: boolean): { crack_time_seconds: number; crack_time: string } {
  if (common || entropyBits <= 0) return { crack_time_seconds: 0, crack_time: '瞬间 (instantly)' };
  const seconds = 2 ** entropyBits / 2 / GUESSES_PER_SECOND;
  const units: [number, string][] = [
    [100 * 365.25 * 86400, '世纪'],
    [365.25 * 86400, '年'],
    [86400, '天'],
    [3600, '小时'],
    [60, '分钟'],
    [1, '秒'],
  ];
  if (seconds < 1) return { crack_time_seconds: seconds, crack_time: '不到 1 秒 (under a second)' };
  if (seconds > 1e12 * 365.25 * 86400) return { crack_time_seconds: seconds, crack_time: '超过一万亿年 (over a trillion years)' };
  const [size, name] = units.find(([u]) => seconds >= u) as [number, string];
  const n = seconds / size;
  return { crack_time_seconds: seconds, crack_time: `约 ${n >= 100 ? Math.round(n).toLocaleString('en-US') : Math.round(n * 10) / 10} ${name}` };
}

export interface GeneratedPassword {
  password: string;
  length: number;
  /** Our option names, and 60s's `include_*` names of the same choices. */
  config: GenerateOptions & { include_numbers: boolean; include_symbols: boolean; include_lowercase: boolean; include_uppercase: boolean };
  /** The characters drawn from per class (empty for a class left out), and the classes used. */
  character_sets: Record<ClassName, string> & { used_sets: ClassName[] };
  /** 60s's summary: entropy in bits, strength label, crack time. */
  generation_info: { entropy: number; strength: string; time_to_crack: string };
  pool_size: number;
  entropy_bits: number;
  strength: string;
  strength_en: string;
  crack_time: string;
  crack_time_seconds: number;
}

export interface PasswordCheck extends Analysis {
  password: string;
  length: number;
  score: number;
  strength: string;
  strength_en: string;
  /** Same as `entropy_bits` (60s's name). */
  entropy: number;
  crack_time: string;
  /** Same as `crack_time` (60s's name). */
  time_to_crack: string;
  crack_time_seconds: number;
  /** 60s's grouping of the character facts. */
  character_analysis: {
    has_lowercase: boolean;
    has_uppercase: boolean;
    has_numbers: boolean;
    has_symbols: boolean;
    has_repeated: boolean;
    has_sequential: boolean;
    character_variety: number;
  };
  recommendations: string[];
  /** General advice, the same for every password. */
  security_tips: string[];
}

export const SECURITY_TIPS: readonly string[] = [
  '每个网站使用不同的密码，一处泄露不会连累其他账号。',
  '用密码管理器生成并保存长而随机的密码。',
  '重要账号开启两步验证（验证码、安全密钥或验证器应用）。',
  '不要用生日、手机号、姓名拼音或键盘连续按键作为密码。',
  '收到可疑的登录提醒或泄露通知时，立即更换密码。',
];

export function checkPassword(p: string): PasswordCheck {
  const a = analyse(p);
  const length = [...p].length;
  const score = scoreOf(p, a);
  const rec: string[] = [];
  if (a.is_common) rec.push('这是常见密码或其变体，请立即更换为随机生成的密码。');
  if (length < 12) rec.push('使用至少 12 个字符，长度比复杂度更重要。');
  if (!a.has_uppercase) rec.push('加入大写字母。');
  if (!a.has_lowercase) rec.push('加入小写字母。');
  if (!a.has_numbers) rec.push('加入数字。');
  if (!a.has_symbols) rec.push('加入符号，如 !@#$%^&*。');
  if (a.has_sequential) rec.push(`避免连续字符（${a.sequences.join('、')}）。`);
  if (a.has_repeated || a.has_repeated_pattern) rec.push('避免重复的字符或片段。');
  if (!rec.length) rec.push('密码强度很好；请勿在多个网站重复使用，并开启两步验证。');
  const crack = crackTime(a.entropy_bits, a.is_common);
  return {
    password: p,
    length,
    score,
    ...strengthOf(score),
    entropy: a.entropy_bits,
    ...crack,
    time_to_crack: crack.crack_time,
    ...a,
    character_analysis: {
      has_lowercase: a.has_lowercase,
      has_uppercase: a.has_uppercase,
      has_numbers: a.has_numbers,
      has_symbols: a.has_symbols,
      has_repeated: a.has_repeated,
      has_sequential: a.has_sequential,
      character_variety: a.character_variety,
    },
    recommendations: rec,
    security_tips: [...SECURITY_TIPS],
  };
}

const bool = (doc: string, dflt: boolean) => ({ type: 'boolean' as const, default: dflt, doc: `${doc} (default ${dflt}).` });

export default defineSource({
  id: 'password',
  name: '密码生成',
  description: `Generates a random password with node:crypto: length ${MIN_LENGTH}–${MAX_LENGTH}, chosen character classes (each guaranteed to appear), optional exclusion of look-alike and ambiguous characters. encoding=text answers the bare password.`,
  routes: [{ path: '/password' }],
  params: {
    length: { type: 'integer', min: MIN_LENGTH, max: MAX_LENGTH, default: 16, doc: 'Number of characters.' },
    numbers: bool('Include digits', true),
    uppercase: bool('Include uppercase letters', true),
    lowercase: bool('Include lowercase letters', true),
    symbols: bool('Include symbols', false),
    exclude_similar: bool(`Leave out look-alike characters ${SIMILAR}`, true),
    exclude_ambiguous: bool(`Leave out symbols that are easy to confuse or break quoting: ${AMBIGUOUS}`, true),
  },
  mode: 'local',
  compute(_ctx, p): GeneratedPassword {
    const config: GenerateOptions = {
      length: p.length,
      numbers: p.numbers,
      uppercase: p.uppercase,
      lowercase: p.lowercase,
      symbols: p.symbols,
      exclude_similar: p.exclude_similar,
      exclude_ambiguous: p.exclude_ambiguous,
    };
    const password = generatePassword(config);
    const sets = characterSets(config);
    const pool = Object.values(sets).join('').length;
    const entropy = Math.round(config.length * Math.log2(pool) * 10) / 10;
    const strength = strengthOf(scoreOf(password, analyse(password)));
    const crack = crackTime(entropy, false);
    return {
      password,
      length: password.length,
      config: { ...config, include_numbers: config.numbers, include_symbols: config.symbols, include_lowercase: config.lowercase, include_uppercase: config.uppercase },
      character_sets: { ...sets, used_sets: (Object.keys(sets) as ClassName[]).filter((k) => sets[k]) },
      generation_info: { entropy, strength: strength.strength, time_to_crack: crack.crack_time },
      pool_size: pool,
      entropy_bits: entropy,
      ...strength,
      ...crack,
    };
  },
  view: {
    title: () => '密码生成',
    text: (d) => d.password,
    markdown: (d) =>
      [
        '# 🔐 密码生成',
        '',
        '```',
        d.password,
        '```',
        '',
        `- 长度：${d.length}`,
        `- 字符池：${d.pool_size} 个字符（${d.character_sets.used_sets.join(', ')}）`,
        `- 熵：${d.entropy_bits} bits`,
        `- 强度：${d.strength}（${d.strength_en}）`,
        `- 暴力破解时间：${escapeMarkdown(d.crack_time)}`,
        '',
      ].join('\n'),
  },
  example: '/v2/apis/password?length=20&symbols=true&encoding=text',
});
