/**
 * Reference shapes of the digits 0–9 for the font decoder: the centre line of each digit in a
 * plain sans-serif design, as polylines in a box one unit high (y up, like font outlines).
 * `strokeOutline` draws them with a round pen, which gives the references' counters (holes)
 * through the same fingerprinting as the glyphs of a downloaded font.
 */

export type Point = readonly [number, number];
export type Polyline = readonly Point[];

function arc(cx: number, cy: number, rx: number, ry: number, fromDeg: number, toDeg: number, steps = 24): Point[] {
  const out: Point[] = [];
  for (let i = 0; i <= steps; i += 1) {
    const a = ((fromDeg + ((toDeg - fromDeg) * i) / steps) * Math.PI) / 180;
    out.push([cx + rx * Math.cos(a), cy + ry * Math.sin(a)]);
  }
  return out;
}

const rotate180 = (lines: Polyline[]): Polyline[] => lines.map((l) => l.map(([x, y]) => [0.6 - x, 1 - y] as const));

const SIX: Polyline[] = [arc(0.3, 0.29, 0.24, 0.26, 0, 360), arc(0.52, 0.34, 0.46, 0.62, 188, 97)];

/** One centre-line drawing per digit, index = digit. */
export const DIGIT_SKELETONS: readonly (readonly Polyline[])[] = [
  /* 0 */ [arc(0.3, 0.5, 0.25, 0.47, 0, 360, 32)],
  /* 1 */ [[[0.1, 0.78], [0.33, 0.97], [0.33, 0.03]]],
  /* 2 */ [[...arc(0.3, 0.71, 0.24, 0.25, 165, -35), [0.06, 0.03], [0.56, 0.03]]],
  /* 3 */ [arc(0.29, 0.75, 0.21, 0.22, 150, -90), arc(0.29, 0.28, 0.25, 0.25, 90, -150)],
  /* 4 */ [[[0.42, 0.03], [0.42, 0.97], [0.03, 0.31], [0.57, 0.31]]],
  /* 5 */ [[[0.52, 0.97], [0.13, 0.97], [0.09, 0.54]], arc(0.3, 0.32, 0.25, 0.29, 140, -150)],
  /* 6 */ SIX,
  /* 7 */ [[[0.04, 0.97], [0.56, 0.97], [0.2, 0.03]]],
  /* 8 */ [arc(0.3, 0.75, 0.2, 0.22, 0, 360), arc(0.3, 0.28, 0.25, 0.25, 0, 360)],
  /* 9 */ rotate180(SIX),
];

/** Other common designs of a digit, also accepted: a 1 with a foot serif. */
export const DIGIT_VARIANTS: readonly { digit: number; lines: readonly Polyline[] }[] = [
  { digit: 1, lines: [[[0.1, 0.78], [0.33, 0.97], [0.33, 0.03]], [[0.08, 0.03], [0.56, 0.03]]] },
];

/**
 * A filled outline of polylines drawn with a round pen of width `width`: one rectangle per
 * segment and one disc per vertex, all wound the same way, so the non-zero fill is their union.
 */
export function strokeOutline(lines: readonly Polyline[], width: number): Point[][] {
  const r = width / 2;
  const contours: Point[][] = [];
  for (const line of lines) {
    for (let i = 0; i < line.length; i += 1) {
      const [x, y] = line[i]!;
      const disc: Point[] = [];
      for (let k = 0; k < 12; k += 1) {
        const a = (k * Math.PI) / 6;
        disc.push([x + r * Math.cos(a), y + r * Math.sin(a)]);
      }
      contours.push(disc);
      const next = line[i + 1];
      if (!next) continue;
      const [x2, y2] = next;
      const len = Math.hypot(x2 - x, y2 - y);
      if (len === 0) continue;
      const nx = (-(y2 - y) / len) * r;
      const ny = ((x2 - x) / len) * r;
      contours.push([
        [x - nx, y - ny],
        [x2 - nx, y2 - ny],
        [x2 + nx, y2 + ny],
        [x + nx, y + ny],
      ]);
    }
  }
  return contours;
}
