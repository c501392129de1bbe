/**
 * Colour tools, computed locally: /color/random (one colour in every common model, with WCAG
 * contrast checks) and /color/palette (palettes by colour theory). `color` is a hex triplet of 3
 * or 6 digits with or without `#` (write `#` as `%23` in a URL); a random colour when absent.
 *
 * Conversions: sRGB ↔ HSL/HSV (the usual hexcone formulas), CMYK (naive, no ICC profile), CIE
 * L*a*b* with the D65 white point (sRGB companding, the sRGB → XYZ matrix of IEC 61966-2-1, then
 * CIE 1976). Contrast ratio and relative luminance per WCAG 2.x; AA needs 4.5 (3 for large
 * text), AAA 7 (4.5 for large text).
 */
import { randomInt } from 'node:crypto';
import { escapeHtml } from '../src/encoding/escape.ts';
import { defineSource, type StringParam } from '../src/kernel/source.ts';

export interface Rgb {
  r: number;
  g: number;
  b: number;
}
export interface Hsl {
  h: number;
  s: number;
  l: number;
}

const r1 = (n: number) => Math.round(n * 10) / 10;
const r2 = (n: number) => Math.round(n * 100) / 100;
const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

export const HEX_PATTERN = /^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

export function parseHex(input: string): Rgb {
  let h = input.trim().replace(/^#/, '');
  if (h.length === 3) h = [...h].map((c) => c + c).join('');
  const n = parseInt(h, 16);
  return { r: (n >> 16) & 255, g: (n >> 8) & 255, b: n & 255 };
}

export function toHex({ r, g, b }: Rgb): string {
  return `#${[r, g, b].map((v) => clamp(Math.round(v), 0, 255).toString(16).padStart(2, '0')).join('').toUpperCase()}`;
}

/** HSL with h in degrees [0, 360), s and l in percent. */
export function rgbToHsl({ r, g, b }: Rgb): Hsl {
  const [R, G, B] = [r / 255, g / 255, b / 255];
  const max = Math.max(R, G, B);
  const min = Math.min(R, G, B);
  const l = (max + min) / 2;
  const d = max - min;
  if (d === 0) return { h: 0, s: 0, l: l * 100 };
  const s = d / (1 - Math.abs(2 * l - 1));
  let h: number;
  if (max === R) h = ((G - B) / d) % 6;
  else if (max === G) h = (B - R) / d + 2;
  else h = (R - G) / d + 4;
  h *= 60;
  if (h < 0) h += 360;
  return { h, s: s * 100, l: l * 100 };
}

export function hslToRgb({ h, s, l }: Hsl): Rgb {
  const S = s / 100;
  const L = l / 100;
  const c = (1 - Math.abs(2 * L - 1)) * S;
  const hh = (((h % 360) + 360) % 360) / 60;
  const x = c * (1 - Math.abs((hh % 2) - 1));
  const [r, g, b] = hh < 1 ? [c, x, 0] : hh < 2 ? [x, c, 0] : hh < 3 ? [0, c, x] : hh < 4 ? [0, x, c] : hh < 5 ? [x, 0, c] : [c, 0, x];
  const m = L - c / 2;
  return { r: (r + m) * 255, g: (g + m) * 255, b: (b + m) * 255 };
}

export function rgbToHsv({ r, g, b }: Rgb): { h: number; s: number; v: number } {
  const max = Math.max(r, g, b) / 255;
  const min = Math.min(r, g, b) / 255;
  return { h: rgbToHsl({ r, g, b }).h, s: max === 0 ? 0 : ((max - min) / max) * 100, v: max * 100 };
}

export function rgbToCmyk({ r, g, b }: Rgb): { c: number; m: number; y: number; k: number } {
  const k = 1 - Math.max(r, g, b) / 255;
  if (k >= 1) return { c: 0, m: 0, y: 0, k: 100 };
  const f = (v: number) => ((1 - v / 255 - k) / (1 - k)) * 100;
  return { c: f(r), m: f(g), y: f(b), k: k * 100 };
}

const linear = (v: number) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};

/** CIE L*a*b* (D65). */
export function rgbToLab({ r, g, b }: Rgb): { l: number; a: number; b: number } {
  const [R, G, B] = [linear(r), linear(g), linear(b)];
  const x = (0.4124564 * R + 0.3575761 * G + 0.1804375 * B) / 0.95047;
  const y = 0.2126729 * R + 0.7151522 * G + 0.072175 * B;
  const z = (0.0193339 * R + 0.119192 * G + 0.9503041 * B) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 * t + 16) / 116);
  const [fx, fy, fz] = [f(x), f(y), f(z)];
  return { l: 116 * fy - 16, a: 500 * (fx - fy), b: 200 * (fy - fz) };
}

/** WCAG relative luminance, 0 (black) to 1 (white). */
export function luminance({ r, g, b }: Rgb): number {
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** WCAG contrast ratio, 1 to 21, symmetric. */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const [la, lb] = [luminance(a), luminance(b)];
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/** A rough colour family in Chinese, from hue, saturation and lightness. */
export function colourName({ h, s, l }: Hsl): string {
  if (l < 10) return '黑色系';
  if (l > 94) return '白色系';
  if (s < 12) return '灰色系';
  if (h < 15 || h >= 345) return '红色系';
  if (h < 45) return l < 35 ? '棕色系' : '橙色系';
  if (h < 70) return '黄色系';
  if (h < 160) return '绿色系';
  if (h < 195) return '青色系';
  if (h < 255) return '蓝色系';
  if (h < 290) return '紫色系';
  return '粉色系';
}

const WHITE: Rgb = { r: 255, g: 255, b: 255 };
const BLACK: Rgb = { r: 0, g: 0, b: 0 };

function wcag(ratio: number) {
  return { ratio: r2(ratio), aa_normal: ratio >= 4.5, aa_large: ratio >= 3, aaa_normal: ratio >= 7, aaa_large: ratio >= 4.5 };
}

function rotate(hsl: Hsl, deg: number): string {
  return toHex(hslToRgb({ ...hsl, h: (hsl.h + deg + 360) % 360 }));
}

export interface ColorInfo {
  hex: string;
  name: string;
  rgb: Rgb & { string: string };
  hsl: Hsl & { string: string };
  hsv: { h: number; s: number; v: number; string: string };
  cmyk: { c: number; m: number; y: number; k: number; string: string };
  lab: { l: number; a: number; b: number; string: string };
  luminance: number;
  /** Perceived brightness 0–255 (W3C formula (299 R + 587 G + 114 B) / 1000). */
  brightness: number;
  is_light: boolean;
  contrast: { white: number; black: number };
  accessibility: {
    /** 60s's flags: the check passes with white or with black text. */
    aa_normal: boolean;
    aa_large: boolean;
    aaa_normal: boolean;
    aaa_large: boolean;
    on_white: ReturnType<typeof wcag>;
    on_black: ReturnType<typeof wcag>;
    best_text_color: '#FFFFFF' | '#000000';
  };
  complementary: string;
  analogous: string[];
  triadic: string[];
}

export function colorInfo(rgb: Rgb): ColorInfo {
  const hslRaw = rgbToHsl(rgb);
  const hsl = { h: r1(hslRaw.h), s: r1(hslRaw.s), l: r1(hslRaw.l) };
  const hsvRaw = rgbToHsv(rgb);
  const hsv = { h: r1(hsvRaw.h), s: r1(hsvRaw.s), v: r1(hsvRaw.v) };
  const cmykRaw = rgbToCmyk(rgb);
  const cmyk = { c: r1(cmykRaw.c), m: r1(cmykRaw.m), y: r1(cmykRaw.y), k: r1(cmykRaw.k) };
  const labRaw = rgbToLab(rgb);
  const lab = { l: r2(labRaw.l), a: r2(labRaw.a), b: r2(labRaw.b) };
  const onWhite = contrastRatio(rgb, WHITE);
  const onBlack = contrastRatio(rgb, BLACK);
  return {
    hex: toHex(rgb),
    name: colourName(hslRaw),
    rgb: { ...rgb, string: `rgb(${rgb.r}, ${rgb.g}, ${rgb.b})` },
    hsl: { ...hsl, string: `hsl(${hsl.h}, ${hsl.s}%, ${hsl.l}%)` },
    hsv: { ...hsv, string: `hsv(${hsv.h}, ${hsv.s}%, ${hsv.v}%)` },
    cmyk: { ...cmyk, string: `cmyk(${cmyk.c}%, ${cmyk.m}%, ${cmyk.y}%, ${cmyk.k}%)` },
    lab: { ...lab, string: `lab(${lab.l}% ${lab.a} ${lab.b})` },
    luminance: Math.round(luminance(rgb) * 10_000) / 10_000,
    brightness: Math.round((299 * rgb.r + 587 * rgb.g + 114 * rgb.b) / 1000),
    is_light: onBlack > onWhite,
    contrast: { white: r2(onWhite), black: r2(onBlack) },
    accessibility: {
      aa_normal: wcag(onWhite).aa_normal || wcag(onBlack).aa_normal,
      aa_large: wcag(onWhite).aa_large || wcag(onBlack).aa_large,
      aaa_normal: wcag(onWhite).aaa_normal || wcag(onBlack).aaa_normal,
      aaa_large: wcag(onWhite).aaa_large || wcag(onBlack).aaa_large,
      on_white: wcag(onWhite),
      on_black: wcag(onBlack),
      best_text_color: onBlack > onWhite ? '#000000' : '#FFFFFF',
    },
    complementary: rotate(hslRaw, 180),
    analogous: [rotate(hslRaw, -30), rotate(hslRaw, 30)],
    triadic: [rotate(hslRaw, 120), rotate(hslRaw, 240)],
  };
}

export interface PaletteColor {
  hex: string;
  name: string;
  role: string;
  /** How the colour derives from the base colour, e.g. `色相 +180°`. */
  theory: string;
}
export interface Palette {
  name: string;
  name_en: string;
  description: string;
  colors: PaletteColor[];
}

function swatch(hex: string, role: string, theory: string): PaletteColor {
  return { hex, name: colourName(rgbToHsl(parseHex(hex))), role, theory };
}

const BASE = '基础色相';
const hue = (deg: number) => `色相 ${deg < 0 ? '' : '+'}${deg}°`;
const lightness = (dl: number) => `明度 ${dl < 0 ? '' : '+'}${dl}`;

export function palettes(rgb: Rgb): Palette[] {
  const base = rgbToHsl(rgb);
  const hex = toHex(rgb);
  const at = (deg: number) => rotate(base, deg);
  const light = (dl: number) => toHex(hslToRgb({ ...base, l: clamp(base.l + dl, 4, 96) }));
  return [
    {
      name: '单色',
      name_en: 'monochromatic',
      description: '同一色相的深浅变化，统一、安静。',
      colors: [swatch(light(-30), '最深', lightness(-30)), swatch(light(-15), '较深', lightness(-15)), swatch(hex, '基色', BASE), swatch(light(15), '较浅', lightness(15)), swatch(light(30), '最浅', lightness(30))],
    },
    { name: '互补', name_en: 'complementary', description: '色环上相对的两色（相隔 180°），对比最强。', colors: [swatch(hex, '基色', BASE), swatch(at(180), '互补色', hue(180))] },
    { name: '邻近', name_en: 'analogous', description: '色环上相邻的颜色（±30°），和谐自然。', colors: [swatch(at(-30), '邻近色', hue(-30)), swatch(hex, '基色', BASE), swatch(at(30), '邻近色', hue(30))] },
    { name: '三角', name_en: 'triadic', description: '色环上等距的三色（相隔 120°），鲜明而平衡。', colors: [swatch(hex, '基色', BASE), swatch(at(120), '三角色', hue(120)), swatch(at(240), '三角色', hue(240))] },
    {
      name: '分裂互补',
      name_en: 'split-complementary',
      description: '基色加互补色两侧的颜色（180° ± 30°），对比强但比互补柔和。',
      colors: [swatch(hex, '基色', BASE), swatch(at(150), '分裂互补色', hue(150)), swatch(at(210), '分裂互补色', hue(210))],
    },
    {
      name: '四角',
      name_en: 'tetradic',
      description: '两对互补色组成的矩形（0°、60°、180°、240°），丰富多变，宜以一色为主。',
      colors: [swatch(hex, '基色', BASE), swatch(at(60), '辅助色', hue(60)), swatch(at(180), '互补色', hue(180)), swatch(at(240), '辅助互补色', hue(240))],
    },
  ];
}

export const colorParam: StringParam = {
  type: 'string',
  pattern: HEX_PATTERN,
  patternDoc: 'a hex colour of 3 or 6 hex digits, with or without a leading # (written %23 in a URL), e.g. FF5733 or %23f53',
  doc: 'Base colour as a hex triplet (3 or 6 digits, optional #); a random colour when absent.',
  example: 'FF5733',
};

function baseColour(color: string | undefined): Rgb {
  return color ? parseHex(color) : parseHex(randomInt(0x1000000).toString(16).padStart(6, '0'));
}

const ENCODINGS = ['json', 'text', 'markdown', 'html'] as const;

function chip(hex: string, label: string): string {
  const fg = contrastRatio(parseHex(hex), BLACK) > contrastRatio(parseHex(hex), WHITE) ? '#000' : '#fff';
  return `<div class="chip" style="background:${hex};color:${fg}"><b>${escapeHtml(hex)}</b><span>${escapeHtml(label)}</span></div>`;
}

const CHIP_CSS =
  '<style>.row{display:flex;flex-wrap:wrap;gap:.5rem;margin:.5rem 0 1.5rem}.chip{flex:1 1 8rem;min-height:6rem;border-radius:.5rem;padding:.6rem;display:flex;flex-direction:column;justify-content:flex-end;box-shadow:0 0 0 1px #0002}.chip span{font-size:.85em;opacity:.85}.big{min-height:10rem}</style>';

export interface PaletteResult {
  input: { hex: string; name: string; rgb: ColorInfo['rgb']; hsl: ColorInfo['hsl'] };
  palettes: Palette[];
  total: number;
  metadata: { color_theory: string; total_palettes: number; applications: string[] };
}

const PALETTE_METADATA = {
  color_theory: '按色环上的色相关系（互补、邻近、三角、分裂互补、四角）和明度变化，由基色推出的配色方案',
  applications: ['网页与界面设计', '品牌与标识', '海报与插画', '数据可视化', '室内与服装搭配'],
};

const randomView = {
  title: (d: ColorInfo) => `颜色 ${d.hex}（${d.name}）`,
  text: (d: ColorInfo) =>
    [
      `${d.hex}（${d.name}）`,
      `RGB  ${d.rgb.string}`,
      `HSL  ${d.hsl.string}`,
      `HSV  ${d.hsv.string}`,
      `CMYK ${d.cmyk.string}`,
      `Lab  ${d.lab.string}`,
      `对比度：白底 ${d.contrast.white}:1（AA ${d.accessibility.on_white.aa_normal ? '✓' : '✗'}，AAA ${d.accessibility.on_white.aaa_normal ? '✓' : '✗'}），黑底 ${d.contrast.black}:1（AA ${d.accessibility.on_black.aa_normal ? '✓' : '✗'}，AAA ${d.accessibility.on_black.aaa_normal ? '✓' : '✗'}）`,
      `适合的文字颜色：${d.accessibility.best_text_color}`,
      `互补色 ${d.complementary}，邻近色 ${d.analogous.join(' ')}，三角色 ${d.triadic.join(' ')}`,
      '',
    ].join('\n'),
  markdown: (d: ColorInfo) =>
    [
      `# 颜色 ${d.hex}（${d.name}）`,
      '',
      '| 模型 | 值 |',
      '| --- | --- |',
      `| HEX | \`${d.hex}\` |`,
      `| RGB | \`${d.rgb.string}\` |`,
      `| HSL | \`${d.hsl.string}\` |`,
      `| HSV | \`${d.hsv.string}\` |`,
      `| CMYK | \`${d.cmyk.string}\` |`,
      `| Lab | \`${d.lab.string}\` |`,
      '',
      '| 背景 | 对比度 | AA | AA 大字 | AAA | AAA 大字 |',
      '| --- | --- | --- | --- | --- | --- |',
      ...(
        [
          ['白色', d.accessibility.on_white],
          ['黑色', d.accessibility.on_black],
        ] as const
      ).map(([n, a]) => `| ${n} | ${a.ratio}:1 | ${a.aa_normal ? '✓' : '✗'} | ${a.aa_large ? '✓' : '✗'} | ${a.aaa_normal ? '✓' : '✗'} | ${a.aaa_large ? '✓' : '✗'} |`),
      '',
      `互补色 \`${d.complementary}\` · 邻近色 ${d.analogous.map((h) => `\`${h}\``).join(' ')} · 三角色 ${d.triadic.map((h) => `\`${h}\``).join(' ')}`,
      '',
    ].join('\n'),
  htmlBody: (d: ColorInfo) =>
    `${CHIP_CSS}
<div class="row">${chip(d.hex, d.name).replace('class="chip"', 'class="chip big"')}</div>
<table><tbody>${(
        [
          ['RGB', d.rgb.string],
          ['HSL', d.hsl.string],
          ['HSV', d.hsv.string],
          ['CMYK', d.cmyk.string],
          ['Lab (D65)', d.lab.string],
          ['对比度（白底）', `${d.contrast.white}:1 · AA ${d.accessibility.on_white.aa_normal ? '✓' : '✗'} · AAA ${d.accessibility.on_white.aaa_normal ? '✓' : '✗'}`],
          ['对比度（黑底）', `${d.contrast.black}:1 · AA ${d.accessibility.on_black.aa_normal ? '✓' : '✗'} · AAA ${d.accessibility.on_black.aaa_normal ? '✓' : '✗'}`],
          ['文字颜色', d.accessibility.best_text_color],
        ] as const
      )
        .map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
        .join('')}</tbody></table>
<h2>相关颜色</h2>
<div class="row">${chip(d.complementary, '互补色')}${d.analogous.map((h) => chip(h, '邻近色')).join('')}${d.triadic.map((h) => chip(h, '三角色')).join('')}</div>`,
};

const paletteView = {
  title: (d: PaletteResult) => `配色方案 ${d.input.hex}（${d.input.name}）`,
  text: (d: PaletteResult) =>
    [`配色方案：${d.input.hex}（${d.input.name}）`, '', ...d.palettes.map((p) => `${p.name}（${p.name_en}）：${p.colors.map((c) => c.hex).join(' ')}\n  ${p.description}`), ''].join('\n'),
  markdown: (d: PaletteResult) =>
    [
      `# 配色方案 ${d.input.hex}（${d.input.name}）`,
      '',
      ...d.palettes.flatMap((p) => [`## ${p.name}（${p.name_en}）`, '', p.description, '', '| 颜色 | 色系 | 角色 |', '| --- | --- | --- |', ...p.colors.map((c) => `| \`${c.hex}\` | ${c.name} | ${c.role} |`), '']),
    ].join('\n'),
  htmlBody: (d: PaletteResult) =>
    `${CHIP_CSS}
<p class="s">${escapeHtml(d.input.rgb.string)} · ${escapeHtml(d.input.hsl.string)}</p>
${d.palettes
.map((p) => `<h2>${escapeHtml(p.name)} <span class="s">${escapeHtml(p.name_en)}</span></h2><p class="s">${escapeHtml(p.description)}</p><div class="row">${p.colors.map((c) => chip(c.hex, `${c.role} · ${c.name}`)).join('')}</div>`)
.join('\n')}`,
};

export type ColorData = ColorInfo | PaletteResult;
const isPalette = (d: ColorData): d is PaletteResult => 'palettes' in d;

export default defineSource({
  id: 'color',
  name: '颜色工具',
  description:
    'Colour tools for a base colour (given or random). /color/random: HEX, RGB, HSL, HSV, CMYK and Lab (D65), luminance, WCAG contrast against white and black with AA/AAA checks, related colours. /color/palette: palettes by colour theory (monochromatic, complementary, analogous, triadic, split-complementary, tetradic). encoding=html shows swatches.',
  routes: [
    { path: '/color/random', fixed: { tool: 'random' }, summary: 'One colour (given or random) in HEX, RGB, HSL, HSV, CMYK and Lab (D65), with WCAG contrast and AA/AAA checks; encoding=html shows a swatch page.' },
    { path: '/color/palette', fixed: { tool: 'palette' }, example: '/v2/apis/color/palette?color=3366CC&encoding=html', summary: 'Palettes of a base colour (given or random) by colour theory; encoding=html shows the swatches.' },
  ],
  params: {
    color: colorParam,
    tool: { type: 'string', enum: ['random', 'palette'], default: 'random', doc: 'Which tool answers (set by the route).' },
  },
  mode: 'local',
  compute(_ctx, p): ColorData {
    const rgb = baseColour(p.color);
    if (p.tool !== 'palette') return colorInfo(rgb);
    const info = colorInfo(rgb);
    const list = palettes(rgb);
    return {
      input: { hex: info.hex, name: info.name, rgb: info.rgb, hsl: info.hsl },
      palettes: list,
      total: list.length,
      metadata: { color_theory: PALETTE_METADATA.color_theory, total_palettes: list.length, applications: [...PALETTE_METADATA.applications] },
    };
  },
  view: {
    title: (d) => (isPalette(d) ? paletteView.title(d) : randomView.title(d)),
    encodings: ENCODINGS,
    text: (d) => (isPalette(d) ? paletteView.text(d) : randomView.text(d)),
    markdown: (d) => (isPalette(d) ? paletteView.markdown(d) : randomView.markdown(d)),
    htmlBody: (d) => (isPalette(d) ? paletteView.htmlBody(d) : randomView.htmlBody(d)),
  },
  example: '/v2/apis/color/random?color=FF5733&encoding=html',
});
