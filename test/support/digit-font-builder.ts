/**
 * Builds obfuscated digit fonts like the box-office dashboard serves: the digits 0–9 drawn by
 * glyphs at shuffled private-use code points, with outlines that differ from font to font.
 * Two designs: `stroke` draws the digit centre lines with a flat-ended pen of random width,
 * random jitter on every point, random size, placement and units-per-em, contours wound the
 * TrueType way; `file` takes the digit outlines of an installed font (a different type design).
 * Also: rewriting the `num` fields of a dashboard answer into character references.
 */
import fs from 'node:fs';
import opentype from 'opentype.js';
import { DIGIT_SKELETONS, type Point } from '../../sources/boxoffice-a/digit-shapes.ts';
import { sfntToWoff } from './woff.ts';

/** A small seeded PRNG (mulberry32), so a failing font can be rebuilt from its seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Ten distinct private-use code points; index = digit. */
export function shuffledCodePoints(random: () => number): number[] {
  const out = new Set<number>();
  while (out.size < 10) out.add(0xe000 + Math.floor(random() * 0x1800));
  return [...out];
}

export interface DigitFontOptions {
  /** Code point of each digit (index = digit). */
  codePoints: readonly number[];
  random: () => number;
  /** `stroke` (generated outlines) or the path of a TTF/OTF whose digits are copied. */
  design?: 'stroke' | { file: string };
  format?: 'woff' | 'otf';
}

function strokeGlyphPath(digit: number, random: () => number, upm: number): opentype.Path {
  const height = upm * (0.62 + random() * 0.14);
  const width = 0.09 + random() * 0.07;
  const x0 = upm * (0.04 + random() * 0.08);
  const jitter = () => (random() - 0.5) * 0.012;
  const toFont = ([x, y]: Point): Point => [Math.round(x0 + (x + jitter()) * height), Math.round((y + jitter()) * height)];
  const path = new opentype.Path();
  for (const line of DIGIT_SKELETONS[digit]!) {
    for (let i = 0; i + 1 < line.length; i += 1) {
      const [ax, ay] = line[i]!;
      const [bx, by] = line[i + 1]!;
      const len = Math.hypot(bx - ax, by - ay);
      if (len === 0) continue;
      // Flat pen, slightly overlapping segments; wound clockwise as in TrueType outlines.
      const ext = width / 4;
      const ux = (bx - ax) / len;
      const uy = (by - ay) / len;
      const nx = -uy * (width / 2);
      const ny = ux * (width / 2);
      const a: Point = [ax - ux * ext, ay - uy * ext];
      const b: Point = [bx + ux * ext, by + uy * ext];
      const quad = [toFont([a[0] + nx, a[1] + ny]), toFont([b[0] + nx, b[1] + ny]), toFont([b[0] - nx, b[1] - ny]), toFont([a[0] - nx, a[1] - ny])];
      const start = Math.floor(random() * 4);
      for (let k = 0; k < 4; k += 1) {
        const [px, py] = quad[(start + k) % 4]!;
        if (k === 0) path.moveTo(px, py);
        else path.lineTo(px, py);
      }
      path.close();
    }
  }
  return path;
}

function fileGlyphPaths(file: string): opentype.Path[] {
  const bytes = fs.readFileSync(file);
  const source = opentype.parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  return Array.from({ length: 10 }, (_, d) => source.charToGlyph(String(d)).path as opentype.Path);
}

/** A font whose glyph at `codePoints[d]` draws the digit d, plus `.notdef` and an `x` like the real ones. */
export function buildDigitFont(opts: DigitFontOptions): Buffer {
  const design = opts.design ?? 'stroke';
  const upm = design === 'stroke' ? (opts.random() < 0.5 ? 1000 : 2048) : 1000;
  const copied = design === 'stroke' ? undefined : fileGlyphPaths(design.file);
  const glyphs = [new opentype.Glyph({ name: '.notdef', unicode: 0, advanceWidth: upm / 2, path: new opentype.Path() })];
  const x = new opentype.Path();
  x.moveTo(0, 0);
  x.lineTo(upm * 0.4, upm * 0.5);
  x.lineTo(upm * 0.45, upm * 0.45);
  x.lineTo(upm * 0.05, -upm * 0.05);
  x.close();
  glyphs.push(new opentype.Glyph({ name: 'x', unicode: 0x78, advanceWidth: upm / 2, path: x }));
  // Glyph order shuffled too, as in the real fonts.
  const order = Array.from({ length: 10 }, (_, d) => d).sort(() => opts.random() - 0.5);
  for (const d of order) {
    const cp = opts.codePoints[d]!;
    const path = copied ? copied[d]! : strokeGlyphPath(d, opts.random, upm);
    glyphs.push(new opentype.Glyph({ name: `uni${cp.toString(16).toUpperCase()}`, unicode: cp, advanceWidth: Math.round(upm * 0.55), path }));
  }
  const font = new opentype.Font({ familyName: 'mtsi-font', styleName: 'Regular', unitsPerEm: upm, ascender: Math.round(upm * 0.8), descender: -Math.round(upm * 0.2), glyphs });
  const otf = Buffer.from(font.toArrayBuffer());
  return opts.format === 'otf' ? otf : sfntToWoff(otf);
}

/** Replace every digit of every `num` field with the character reference of its glyph. */
export function encodeNumbers(json: unknown, codePoints: readonly number[]): unknown {
  if (Array.isArray(json)) return json.map((v) => encodeNumbers(v, codePoints));
  if (json && typeof json === 'object') {
    return Object.fromEntries(
      Object.entries(json).map(([k, v]) => [
        k,
        k === 'num' && typeof v === 'string' ? v.replace(/\d/g, (d) => `&#x${codePoints[Number(d)]!.toString(16)};`) : encodeNumbers(v, codePoints),
      ]),
    );
  }
  return json;
}
