/**
 * Decoding the box office's digit font. The dashboard sends its numbers as private-use
 * characters (`&#xe8f1;`) plus an @font-face whose glyphs draw the digits; the code points and
 * the glyph order change with every answer and the outlines are redrawn with small random
 * changes, so neither code points nor exact coordinates nor command sequences can be looked up.
 *
 * Fingerprint (what stays the same is the digit's shape):
 * 1. The outline is flattened to polygons (quadratic and cubic curves alike).
 * 2. Its stroke width is estimated as 2·area/perimeter, and the bounding box is shrunk by half
 *    of it, so that the box spans where the pen's centre ran. That box is scaled to height 1 and
 *    centred: units-per-em, position, size and font weight drop out.
 * 3. It is filled with the non-zero rule on a 48×56 grid. Point count, start point, contour
 *    direction and jitter of a few units no longer matter.
 * 4. Enclosed counters are counted and their heights noted (8 has two, 6 one low, 9 one high).
 *
 * Each glyph is scored against reference centre lines of the digits (digit-shapes.ts) by
 * recall (how much of the digit's line the glyph's ink covers) and precision (how much ink lies
 * along that line, allowing for the glyph's stroke width); a different number or height of
 * counters costs a fixed share. Glyphs and digits are then paired as one assignment problem
 * (each digit at most once), which keeps look-alikes such as 1/7, 3/8 and 6/9 apart. A glyph
 * whose pairing still scores poorly fails the parse: no guessed numbers.
 */
import type * as Fontkit from 'fontkit';
import { lazyModule } from '../../src/kernel/lazy-module.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { DIGIT_SKELETONS, DIGIT_VARIANTS, strokeOutline, type Point } from './digit-shapes.ts';

/** Below this score (0–1) a glyph is not taken for the digit it was paired with. */
const fontkit = lazyModule<typeof Fontkit>('fontkit');

export const MIN_SCORE = 0.7;

/** The comparison grid, in digit heights: centre lines span y 0…1 and are centred on x 0.3. */
const CELL = 0.025;
const X0 = -0.3;
const Y0 = -0.2;
const COLS = 48;
const ROWS = 56;
/** Distances within TOL count fully, then fade out over FADE (units of the digit height). */
const TOL = 0.05;
const FADE = 0.07;
const REFERENCE_STROKE = 0.13;
const HOLE_COUNT_PENALTY = 0.8;
const HOLE_PLACE_PENALTY = 0.85;
/** Stroke width over digit height: bold type stays near 0.2; a filled box is above 0.4. */
const MAX_STROKE = 0.3;

export interface PathCommand {
  command: string;
  args: readonly number[];
}

/** Path commands (moveTo, lineTo, quadraticCurveTo, bezierCurveTo, closePath) → closed polygons. */
export function flatten(commands: readonly PathCommand[], steps = 8): Point[][] {
  const contours: Point[][] = [];
  let cur: Point[] = [];
  let x = 0;
  let y = 0;
  const close = () => {
    if (cur.length > 2) contours.push(cur);
    cur = [];
  };
  for (const { command, args: a } of commands) {
    const n = (i: number) => a[i] ?? 0;
    switch (command) {
      case 'moveTo':
        close();
        x = n(0);
        y = n(1);
        cur.push([x, y]);
        break;
      case 'lineTo':
        x = n(0);
        y = n(1);
        cur.push([x, y]);
        break;
      case 'quadraticCurveTo':
        for (let s = 1; s <= steps; s += 1) {
          const t = s / steps;
          const u = 1 - t;
          cur.push([u * u * x + 2 * u * t * n(0) + t * t * n(2), u * u * y + 2 * u * t * n(1) + t * t * n(3)]);
        }
        x = n(2);
        y = n(3);
        break;
      case 'bezierCurveTo':
        for (let s = 1; s <= steps; s += 1) {
          const t = s / steps;
          const u = 1 - t;
          cur.push([
            u * u * u * x + 3 * u * u * t * n(0) + 3 * u * t * t * n(2) + t * t * t * n(4),
            u * u * u * y + 3 * u * u * t * n(1) + 3 * u * t * t * n(3) + t * t * t * n(5),
          ]);
        }
        x = n(4);
        y = n(5);
        break;
      case 'closePath':
        close();
        break;
      default:
        break;
    }
  }
  close();
  return contours;
}

/** Two-pass chamfer distance (in digit heights) from every grid cell to the nearest marked cell. */
function distanceField(marked: Uint8Array): Float32Array {
  const d = new Float32Array(COLS * ROWS);
  for (let i = 0; i < d.length; i += 1) d[i] = marked[i] ? 0 : Infinity;
  const diag = Math.SQRT2;
  const relax = (i: number, j: number, w: number) => {
    if (d[j]! + w < d[i]!) d[i] = d[j]! + w;
  };
  for (let r = 0; r < ROWS; r += 1) {
    for (let c = 0; c < COLS; c += 1) {
      const i = r * COLS + c;
      if (c > 0) relax(i, i - 1, 1);
      if (r > 0) {
        relax(i, i - COLS, 1);
        if (c > 0) relax(i, i - COLS - 1, diag);
        if (c < COLS - 1) relax(i, i - COLS + 1, diag);
      }
    }
  }
  for (let r = ROWS - 1; r >= 0; r -= 1) {
    for (let c = COLS - 1; c >= 0; c -= 1) {
      const i = r * COLS + c;
      if (c < COLS - 1) relax(i, i + 1, 1);
      if (r < ROWS - 1) {
        relax(i, i + COLS, 1);
        if (c < COLS - 1) relax(i, i + COLS + 1, diag);
        if (c > 0) relax(i, i + COLS - 1, diag);
      }
    }
  }
  for (let i = 0; i < d.length; i += 1) d[i] = d[i]! * CELL;
  return d;
}

function cellOf(x: number, y: number): number | undefined {
  const c = Math.floor((x - X0) / CELL);
  const r = Math.floor((y - Y0) / CELL);
  return c < 0 || c >= COLS || r < 0 || r >= ROWS ? undefined : r * COLS + c;
}

/** A glyph in comparison space: its filled cells, its distance field and its stroke width. */
export interface GlyphPrint {
  filled: Uint32Array;
  toFill: Float32Array;
  stroke: number;
  /** Heights (0 bottom … 1 top) of the enclosed counters, bottom first: 8 has two, 6 one low, 9 one high. */
  holes: number[];
  /** Far too heavy for a pen stroke (a box, a blot): matches no digit. */
  solid: boolean;
}

/** Centre heights of the background regions that do not reach the grid border (counters). */
function counters(mask: Uint8Array): number[] {
  const seen = new Uint8Array(mask.length);
  const out: number[] = [];
  for (let start = 0; start < mask.length; start += 1) {
    if (mask[start] || seen[start]) continue;
    const stack = [start];
    seen[start] = 1;
    let size = 0;
    let rows = 0;
    let open = false;
    while (stack.length) {
      const i = stack.pop()!;
      const r = Math.floor(i / COLS);
      const c = i % COLS;
      size += 1;
      rows += r;
      if (r === 0 || c === 0 || r === ROWS - 1 || c === COLS - 1) open = true;
      for (const j of [c > 0 ? i - 1 : -1, c < COLS - 1 ? i + 1 : -1, r > 0 ? i - COLS : -1, r < ROWS - 1 ? i + COLS : -1]) {
        if (j >= 0 && !mask[j] && !seen[j]) {
          seen[j] = 1;
          stack.push(j);
        }
      }
    }
    // A few cells are raster noise where strokes meet, not a counter.
    if (!open && size >= 4) out.push(Y0 + (rows / size + 0.5) * CELL);
  }
  return out.sort((a, b) => a - b);
}

/**
 * Normalise a filled outline (see the file comment) and raster it. The stroke width is
 * estimated as 2·area/perimeter (exact for a long uniform stroke), so the outline can be
 * shrunk to where its centre line runs, whatever the weight of the font.
 */
export function fingerprint(contours: readonly (readonly Point[])[]): GlyphPrint | undefined {
  let xMin = Infinity;
  let xMax = -Infinity;
  let yMin = Infinity;
  let yMax = -Infinity;
  let area = 0;
  let perimeter = 0;
  for (const c of contours) {
    for (let i = 0; i < c.length; i += 1) {
      const [x1, y1] = c[i]!;
      const [x2, y2] = c[(i + 1) % c.length]!;
      xMin = Math.min(xMin, x1);
      xMax = Math.max(xMax, x1);
      yMin = Math.min(yMin, y1);
      yMax = Math.max(yMax, y1);
      area += x1 * y2 - x2 * y1;
      perimeter += Math.hypot(x2 - x1, y2 - y1);
    }
  }
  const h = yMax - yMin;
  if (!(h > 0) || !(perimeter > 0)) return undefined;
  const solid = Math.abs(area) / perimeter > MAX_STROKE * h;
  const stroke = Math.min(Math.abs(area) / perimeter, MAX_STROKE * h);
  const k = 1 / (h - stroke);
  const xc = (xMin + xMax) / 2;
  const edges: [number, number, number, number][] = [];
  for (const c of contours) {
    for (let i = 0; i < c.length; i += 1) {
      const [x1, y1] = c[i]!;
      const [x2, y2] = c[(i + 1) % c.length]!;
      edges.push([(x1 - xc) * k + 0.3, (y1 - yMin - stroke / 2) * k, (x2 - xc) * k + 0.3, (y2 - yMin - stroke / 2) * k]);
    }
  }
  const mask = new Uint8Array(COLS * ROWS);
  const crossings: [number, number][] = [];
  for (let r = 0; r < ROWS; r += 1) {
    const sy = Y0 + (r + 0.5) * CELL;
    crossings.length = 0;
    for (const [x1, y1, x2, y2] of edges) {
      if (y1 <= sy === y2 <= sy) continue;
      crossings.push([x1 + ((sy - y1) * (x2 - x1)) / (y2 - y1), y2 > y1 ? 1 : -1]);
    }
    crossings.sort((p, q) => p[0] - q[0]);
    let winding = 0;
    let j = 0;
    for (let c = 0; c < COLS; c += 1) {
      const sx = X0 + (c + 0.5) * CELL;
      while (j < crossings.length && crossings[j]![0] < sx) winding += crossings[j++]![1];
      if (winding !== 0) mask[r * COLS + c] = 1;
    }
  }
  const filled: number[] = [];
  for (let i = 0; i < mask.length; i += 1) if (mask[i]) filled.push(i);
  if (!filled.length) return undefined;
  return { filled: Uint32Array.from(filled), toFill: distanceField(mask), stroke: stroke * k, holes: counters(mask), solid };
}

/** A reference digit in comparison space: points along its centre line and its distance field. */
interface ReferencePrint {
  samples: Uint32Array;
  toLine: Float32Array;
  holes: number[];
}

function referencePrint(lines: readonly (readonly Point[])[]): ReferencePrint {
  let xMin = Infinity;
  let xMax = -Infinity;
  let yMin = Infinity;
  let yMax = -Infinity;
  for (const l of lines) {
    for (const [x, y] of l) {
      xMin = Math.min(xMin, x);
      xMax = Math.max(xMax, x);
      yMin = Math.min(yMin, y);
      yMax = Math.max(yMax, y);
    }
  }
  const k = 1 / (yMax - yMin);
  const xc = (xMin + xMax) / 2;
  const marked = new Uint8Array(COLS * ROWS);
  const samples: number[] = [];
  for (const l of lines) {
    for (let i = 0; i + 1 < l.length; i += 1) {
      const [x1, y1] = l[i]!;
      const [x2, y2] = l[i + 1]!;
      const steps = Math.max(1, Math.ceil((Math.hypot(x2 - x1, y2 - y1) * k) / (CELL / 4)));
      for (let s = 0; s <= steps; s += 1) {
        const t = s / steps;
        const cell = cellOf((x1 + (x2 - x1) * t - xc) * k + 0.3, (y1 + (y2 - y1) * t - yMin) * k);
        if (cell === undefined || marked[cell]) continue;
        marked[cell] = 1;
        samples.push(cell);
      }
    }
  }
  const holes = fingerprint(strokeOutline(lines, REFERENCE_STROKE))?.holes ?? [];
  return { samples: Uint32Array.from(samples), toLine: distanceField(marked), holes };
}

const fade = (d: number, limit: number) => (d <= limit ? 1 : Math.max(0, 1 - (d - limit) / FADE));

/**
 * How well a glyph draws a reference digit (0–1): the harmonic mean of recall (how much of the
 * digit's centre line the glyph covers) and precision (how much of the glyph's ink lies along
 * that centre line, allowing for the glyph's own stroke width).
 */
export function similarity(g: GlyphPrint, ref: ReferencePrint): number {
  if (g.solid) return 0;
  let recall = 0;
  for (const cell of ref.samples) recall += fade(g.toFill[cell]!, TOL);
  recall /= ref.samples.length;
  let precision = 0;
  const limit = g.stroke / 2 + TOL;
  for (const cell of g.filled) precision += fade(ref.toLine[cell]!, limit);
  precision /= g.filled.length;
  let score = recall + precision > 0 ? (2 * recall * precision) / (recall + precision) : 0;
  // Counters are the most stable trait across type designs: a different number, or a counter
  // at another height (6 against 9), costs a fixed share of the score.
  if (g.holes.length !== ref.holes.length) score *= HOLE_COUNT_PENALTY;
  else if (g.holes.some((y, i) => Math.abs(y - ref.holes[i]!) > 0.2)) score *= HOLE_PLACE_PENALTY;
  return score;
}

let references: { digit: number; print: ReferencePrint }[] | undefined;
/** The reference drawings in comparison space (computed once). */
function referencePrints(): { digit: number; print: ReferencePrint }[] {
  references ??= [...DIGIT_SKELETONS.map((lines, digit) => ({ digit, lines })), ...DIGIT_VARIANTS].map((r) => ({ digit: r.digit, print: referencePrint(r.lines) }));
  return references;
}

/** Similarity of a glyph to each digit 0–9 (its best drawing). */
export function digitScores(g: GlyphPrint): number[] {
  const out = new Array<number>(10).fill(0);
  for (const r of referencePrints()) out[r.digit] = Math.max(out[r.digit]!, similarity(g, r.print));
  return out;
}

/**
 * Minimum-cost assignment of rows to distinct columns (Hungarian method, rows ≤ columns).
 * Returns the column of each row.
 */
export function assign(cost: readonly (readonly number[])[]): number[] {
  const rows = cost.length;
  const cols = cost[0]?.length ?? 0;
  if (rows > cols) throw new Error('assign: more rows than columns');
  const u = new Float64Array(rows + 1);
  const v = new Float64Array(cols + 1);
  const p = new Int32Array(cols + 1);
  const way = new Int32Array(cols + 1);
  for (let i = 1; i <= rows; i += 1) {
    p[0] = i;
    let j0 = 0;
    const minv = new Float64Array(cols + 1).fill(Infinity);
    const used = new Uint8Array(cols + 1);
    do {
      used[j0] = 1;
      const i0 = p[j0]!;
      let delta = Infinity;
      let j1 = 0;
      for (let j = 1; j <= cols; j += 1) {
        if (used[j]) continue;
        const c = cost[i0 - 1]![j - 1]! - u[i0]! - v[j]!;
        if (c < minv[j]!) {
          minv[j] = c;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= cols; j += 1) {
        if (used[j]) {
          u[p[j]!]! += delta;
          v[j]! -= delta;
        } else {
          minv[j]! -= delta;
        }
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0]!;
      p[j0] = p[j1]!;
      j0 = j1;
    } while (j0);
  }
  const out = new Array<number>(rows).fill(-1);
  for (let j = 1; j <= cols; j += 1) if (p[j]) out[p[j]! - 1] = j - 1;
  return out;
}

export interface DigitMatch {
  codePoint: number;
  digit: number;
  score: number;
}

/** Pair glyphs with digits. Throws `parse` when a glyph does not look like the digit it got. */
export function matchDigits(glyphs: readonly { codePoint: number; print: GlyphPrint }[]): DigitMatch[] {
  const scores = glyphs.map((g) => digitScores(g.print));
  let pairs: [number, number][];
  if (glyphs.length <= 10) {
    pairs = assign(scores.map((row) => row.map((s) => 1 - s))).map((d, g) => [g, d]);
  } else {
    // More glyphs than digits: every digit picks one glyph; the rest stay unknown.
    pairs = assign(Array.from({ length: 10 }, (_, d) => scores.map((row) => 1 - row[d]!))).map((g, d) => [g, d]);
  }
  const out: DigitMatch[] = [];
  for (const [g, d] of pairs) {
    const glyph = glyphs[g]!;
    const score = scores[g]![d]!;
    if (score < MIN_SCORE) {
      throw new SourceError('parse', `digit font: glyph U+${glyph.codePoint.toString(16).toUpperCase()} does not look like any digit (best pairing ${d}, score ${score.toFixed(2)})`);
    }
    out.push({ codePoint: glyph.codePoint, digit: d, score });
  }
  return out;
}

const isPrivateUse = (cp: number) => (cp >= 0xe000 && cp <= 0xf8ff) || (cp >= 0xf0000 && cp <= 0x10fffd);

/** Code point → digit for the private-use glyphs of a font file (WOFF, WOFF2, TTF or OTF). */
export function decodeDigitFont(buffer: Buffer): Map<number, number> {
  let font: Fontkit.Font;
  try {
    const created = fontkit().create(buffer);
    if (!('glyphForCodePoint' in created)) throw new Error('a font collection, not a font');
    font = created;
  } catch (err) {
    throw new SourceError('parse', `digit font could not be read: ${(err as Error).message}`);
  }
  const glyphs: { codePoint: number; print: GlyphPrint }[] = [];
  for (const cp of font.characterSet) {
    if (!isPrivateUse(cp)) continue;
    const print = fingerprint(flatten(font.glyphForCodePoint(cp).path.commands));
    if (print) glyphs.push({ codePoint: cp, print });
  }
  if (!glyphs.length) throw new SourceError('parse', 'digit font has no private-use glyphs');
  return new Map(matchDigits(glyphs).map((m) => [m.codePoint, m.digit]));
}

const ENTITY = /&#(x[0-9a-f]+|\d+);/gi;

/** Code points of the character references (`&#xe8f1;`, `&#59633;`) in a text. */
export function entityCodePoints(text: string): number[] {
  return [...text.matchAll(ENTITY)].map((m) => {
    const ref = m[1]!;
    return ref[0] === 'x' || ref[0] === 'X' ? parseInt(ref.slice(1), 16) : Number(ref);
  });
}

/** Replace character references by their digits. Throws `parse` for a reference the font does not map. */
export function decodeDigits(text: string, digits: ReadonlyMap<number, number>): string {
  return text.replace(ENTITY, (whole, ref: string) => {
    const cp = ref[0] === 'x' || ref[0] === 'X' ? parseInt(ref.slice(1), 16) : Number(ref);
    const d = digits.get(cp);
    if (d === undefined) throw new SourceError('parse', `digit font has no digit for ${whole}`);
    return String(d);
  });
}
