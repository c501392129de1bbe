/**
 * QR code symbols (ISO/IEC 18004, model 2): a text becomes a square matrix of dark and light
 * modules. The whole text is one segment: numeric or alphanumeric mode when every character
 * allows it, otherwise byte mode holding its UTF-8 bytes. Text with any non-ASCII character is
 * preceded by the ECI designator 26 (UTF-8), without which decoders guess the charset (zbarimg,
 * for one, reads Chinese as Shift JIS). Version and mask are the smallest version that holds the
 * text and the mask with the lowest penalty score.
 */

export type EcLevel = 'L' | 'M' | 'Q' | 'H';

export interface QrSymbol {
  version: number;
  /** Modules per side (17 + 4 × version). */
  size: number;
  /** Row-major, size × size: 1 dark, 0 light. */
  modules: Uint8Array;
  mask: number;
  /** Whether the bit stream starts with the UTF-8 ECI designator. */
  eci: boolean;
}

const LEVEL_INDEX: Record<EcLevel, number> = { L: 0, M: 1, Q: 2, H: 3 };
/** The two format-information bits of each level. */
const LEVEL_FORMAT_BITS: Record<EcLevel, number> = { L: 1, M: 0, Q: 3, H: 2 };

// Per level (L, M, Q, H), indexed by version (index 0 unused): error-correction codewords per
// block, and the number of blocks.
// prettier-ignore
const EC_CODEWORDS_PER_BLOCK: readonly (readonly number[])[] = [
  [0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
  [0, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  [0, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
];
// prettier-ignore
const EC_BLOCKS: readonly (readonly number[])[] = [
  [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
  [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
  [0, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
  [0, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
];

/** Modules available for data and error correction (everything but function patterns). */
function rawDataModules(version: number): number {
  let n = (16 * version + 128) * version + 64;
  if (version >= 2) {
    const align = Math.floor(version / 7) + 2;
    n -= (25 * align - 10) * align - 55;
    if (version >= 7) n -= 36;
  }
  return n;
}

export function dataCodewords(version: number, level: EcLevel): number {
  const l = LEVEL_INDEX[level];
  return Math.floor(rawDataModules(version) / 8) - (EC_CODEWORDS_PER_BLOCK[l]![version]! * EC_BLOCKS[l]![version]!);
}

// ------------------------------------------------------------------ segment

const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:';
const NUMERIC_RE = /^[0-9]*$/;
const ALPHANUMERIC_RE = /^[0-9A-Z $%*+\-./:]*$/;
const ASCII_RE = /^[\x00-\x7f]*$/;
const UTF8_ECI = 26;

interface Segment {
  /** Mode indicator (4 bits). */
  mode: number;
  /** Character count indicator widths for versions 1–9, 10–26, 27–40. */
  countBits: readonly [number, number, number];
  count: number;
  dataBits: number;
  write(out: BitWriter): void;
}

class BitWriter {
  readonly bytes: Uint8Array;
  bits = 0;
  constructor(capacityBytes: number) {
    this.bytes = new Uint8Array(capacityBytes);
  }
  put(value: number, length: number): void {
    for (let i = length - 1; i >= 0; i--) {
      if ((value >>> i) & 1) this.bytes[this.bits >>> 3]! |= 0x80 >>> (this.bits & 7);
      this.bits++;
    }
  }
}

function segmentOf(text: string): { segment: Segment; eci: boolean } {
  if (NUMERIC_RE.test(text)) {
    const n = text.length;
    return {
      eci: false,
      segment: {
        mode: 0b0001,
        countBits: [10, 12, 14],
        count: n,
        dataBits: Math.floor(n / 3) * 10 + [0, 4, 7][n % 3]!,
        write(out) {
          for (let i = 0; i < n; i += 3) {
            const group = text.slice(i, i + 3);
            out.put(Number(group), group.length * 3 + 1);
          }
        },
      },
    };
  }
  if (ALPHANUMERIC_RE.test(text)) {
    const n = text.length;
    return {
      eci: false,
      segment: {
        mode: 0b0010,
        countBits: [9, 11, 13],
        count: n,
        dataBits: Math.floor(n / 2) * 11 + (n % 2) * 6,
        write(out) {
          for (let i = 0; i + 1 < n; i += 2) out.put(ALPHANUMERIC.indexOf(text[i]!) * 45 + ALPHANUMERIC.indexOf(text[i + 1]!), 11);
          if (n % 2) out.put(ALPHANUMERIC.indexOf(text[n - 1]!), 6);
        },
      },
    };
  }
  const bytes = Buffer.from(text, 'utf8');
  return {
    eci: !ASCII_RE.test(text),
    segment: {
      mode: 0b0100,
      countBits: [8, 16, 16],
      count: bytes.length,
      dataBits: bytes.length * 8,
      write(out) {
        for (const b of bytes) out.put(b, 8);
      },
    },
  };
}

function countBitsAt(segment: Segment, version: number): number {
  return segment.countBits[version < 10 ? 0 : version < 27 ? 1 : 2];
}

/** Bits of the whole stream before padding: ECI header, mode, count and data. */
function streamBits(segment: Segment, eci: boolean, version: number): number {
  return (eci ? 12 : 0) + 4 + countBitsAt(segment, version) + segment.dataBits;
}

function smallestVersion(segment: Segment, eci: boolean, level: EcLevel): number | undefined {
  for (let v = 1; v <= 40; v++) {
    if (segment.count < 1 << countBitsAt(segment, v) && streamBits(segment, eci, v) <= dataCodewords(v, level) * 8) return v;
  }
  return undefined;
}

// ------------------------------------------------------------------ Reed–Solomon over GF(2^8), polynomial 0x11D

const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
{
  let x = 1;
  for (let i = 0; i < 255; i++) {
    EXP[i] = x;
    LOG[x] = i;
    x <<= 1;
    if (x & 0x100) x ^= 0x11d;
  }
  for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255]!;
}

function gfMul(a: number, b: number): number {
  return a === 0 || b === 0 ? 0 : EXP[LOG[a]! + LOG[b]!]!;
}

const generators = new Map<number, Uint8Array>();

/** Coefficients of ∏(x − αⁱ), i < degree, highest power first, leading 1 dropped. */
function generator(degree: number): Uint8Array {
  let g = generators.get(degree);
  if (g) return g;
  g = new Uint8Array(degree);
  g[degree - 1] = 1;
  let root = 1;
  for (let i = 0; i < degree; i++) {
    for (let j = 0; j < degree; j++) {
      g[j] = gfMul(g[j]!, root) ^ (j + 1 < degree ? g[j + 1]! : 0);
    }
    root = gfMul(root, 2);
  }
  generators.set(degree, g);
  return g;
}

function remainder(data: Uint8Array, degree: number): Uint8Array {
  const g = generator(degree);
  const out = new Uint8Array(degree);
  for (const b of data) {
    const factor = b ^ out[0]!;
    out.copyWithin(0, 1);
    out[degree - 1] = 0;
    if (factor) for (let i = 0; i < degree; i++) out[i]! ^= gfMul(g[i]!, factor);
  }
  return out;
}

/** Data codewords split into blocks, each followed by its error correction, interleaved. */
function withErrorCorrection(data: Uint8Array, version: number, level: EcLevel): Uint8Array {
  const l = LEVEL_INDEX[level];
  const blocks = EC_BLOCKS[l]![version]!;
  const ecLen = EC_CODEWORDS_PER_BLOCK[l]![version]!;
  const raw = Math.floor(rawDataModules(version) / 8);
  const shortBlocks = blocks - (raw % blocks);
  const shortDataLen = Math.floor(raw / blocks) - ecLen;
  const dataBlocks: Uint8Array[] = [];
  const ecBlocks: Uint8Array[] = [];
  for (let i = 0, k = 0; i < blocks; i++) {
    const len = shortDataLen + (i < shortBlocks ? 0 : 1);
    const block = data.subarray(k, k + len);
    k += len;
    dataBlocks.push(block);
    ecBlocks.push(remainder(block, ecLen));
  }
  const out = new Uint8Array(raw);
  let o = 0;
  for (let i = 0; i <= shortDataLen; i++) for (const block of dataBlocks) if (i < block.length) out[o++] = block[i]!;
  for (let i = 0; i < ecLen; i++) for (const block of ecBlocks) out[o++] = block[i]!;
  return out;
}

// ------------------------------------------------------------------ matrix

class Matrix {
  readonly modules: Uint8Array;
  readonly reserved: Uint8Array;
  constructor(readonly size: number) {
    this.modules = new Uint8Array(size * size);
    this.reserved = new Uint8Array(size * size);
  }
  fn(x: number, y: number, dark: boolean): void {
    const i = y * this.size + x;
    this.modules[i] = dark ? 1 : 0;
    this.reserved[i] = 1;
  }
}

function alignmentPositions(version: number): number[] {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const size = version * 4 + 17;
  const step = version === 32 ? 26 : Math.ceil((version * 4 + 4) / (count * 2 - 2)) * 2;
  const out = [6];
  for (let pos = size - 7; out.length < count; pos -= step) out.splice(1, 0, pos);
  return out;
}

function drawFunctionPatterns(m: Matrix, version: number): void {
  const size = m.size;
  for (let i = 0; i < size; i++) {
    m.fn(6, i, i % 2 === 0);
    m.fn(i, 6, i % 2 === 0);
  }
  for (const [cx, cy] of [
    [3, 3],
    [size - 4, 3],
    [3, size - 4],
  ] as const) {
    for (let dy = -4; dy <= 4; dy++) {
      for (let dx = -4; dx <= 4; dx++) {
        const x = cx + dx;
        const y = cy + dy;
        if (x < 0 || y < 0 || x >= size || y >= size) continue;
        const d = Math.max(Math.abs(dx), Math.abs(dy));
        m.fn(x, y, d !== 2 && d !== 4);
      }
    }
  }
  const align = alignmentPositions(version);
  const last = align.length - 1;
  for (let i = 0; i <= last; i++) {
    for (let j = 0; j <= last; j++) {
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) continue;
      for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) m.fn(align[i]! + dx, align[j]! + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
    }
  }
  drawFormatBits(m, 'L', 0); // reserves the area; drawn for real once the mask is chosen
  if (version >= 7) {
    let rem = version;
    for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
    const bits = (version << 12) | rem;
    for (let i = 0; i < 18; i++) {
      const dark = ((bits >>> i) & 1) === 1;
      const a = size - 11 + (i % 3);
      const b = Math.floor(i / 3);
      m.fn(a, b, dark);
      m.fn(b, a, dark);
    }
  }
}

function drawFormatBits(m: Matrix, level: EcLevel, mask: number): void {
  const data = (LEVEL_FORMAT_BITS[level] << 3) | mask;
  let rem = data;
  for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
  const bits = ((data << 10) | rem) ^ 0x5412;
  const bit = (i: number) => ((bits >>> i) & 1) === 1;
  const size = m.size;
  for (let i = 0; i <= 5; i++) m.fn(8, i, bit(i));
  m.fn(8, 7, bit(6));
  m.fn(8, 8, bit(7));
  m.fn(7, 8, bit(8));
  for (let i = 9; i < 15; i++) m.fn(14 - i, 8, bit(i));
  for (let i = 0; i < 8; i++) m.fn(size - 1 - i, 8, bit(i));
  for (let i = 8; i < 15; i++) m.fn(8, size - 15 + i, bit(i));
  m.fn(8, size - 8, true);
}

function placeCodewords(m: Matrix, codewords: Uint8Array): void {
  const size = m.size;
  const total = codewords.length * 8;
  let i = 0;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    const upward = ((right + 1) & 2) === 0;
    for (let vert = 0; vert < size; vert++) {
      const y = upward ? size - 1 - vert : vert;
      for (let j = 0; j < 2; j++) {
        const idx = y * size + right - j;
        if (m.reserved[idx] || i >= total) continue;
        m.modules[idx] = (codewords[i >>> 3]! >>> (7 - (i & 7))) & 1;
        i++;
      }
    }
  }
}

const MASKS: readonly ((x: number, y: number) => boolean)[] = [
  (x, y) => (x + y) % 2 === 0,
  (_x, y) => y % 2 === 0,
  (x) => x % 3 === 0,
  (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
  (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
  (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
  (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

/** Per mask, the modules it flips (1) among those that are not reserved. */
function maskLayers(m: Matrix): Uint8Array[] {
  const size = m.size;
  return MASKS.map((f) => {
    const layer = new Uint8Array(size * size);
    for (let y = 0, i = 0; y < size; y++) for (let x = 0; x < size; x++, i++) layer[i] = !m.reserved[i] && f(x, y) ? 1 : 0;
    return layer;
  });
}

function applyMask(m: Matrix, layer: Uint8Array): void {
  const modules = m.modules;
  for (let i = 0; i < modules.length; i++) modules[i]! ^= layer[i]!;
}

/** Penalty rules 1 and 3 along one line of modules: `step` apart, starting at `start`. */
function linePenalty(modules: Uint8Array, start: number, step: number, size: number): number {
  let score = 0;
  let run = 0;
  let prev = -1;
  let pattern = 0;
  for (let b = 0, i = start; b < size; b++, i += step) {
    const v = modules[i]!;
    if (v === prev) {
      run++;
    } else {
      if (run >= 5) score += run - 2;
      run = 1;
      prev = v;
    }
    // rule 3: 1011101 with four light modules on one side, as an 11-bit window
    pattern = ((pattern << 1) | v) & 0x7ff;
    if (b >= 10 && (pattern === 0b10111010000 || pattern === 0b00001011101)) score += 40;
  }
  if (run >= 5) score += run - 2;
  return score;
}

/** The standard's penalty score (rules 1–4); lower is easier to scan. */
function penalty(modules: Uint8Array, size: number): number {
  let score = 0;
  for (let a = 0; a < size; a++) score += linePenalty(modules, a * size, 1, size) + linePenalty(modules, a, size, size);
  let dark = 0;
  for (let i = 0; i < modules.length; i++) dark += modules[i]!;
  for (let y = 0; y + 1 < size; y++) {
    for (let x = 0, i = y * size; x + 1 < size; x++, i++) {
      const v = modules[i]!;
      if (v === modules[i + 1] && v === modules[i + size] && v === modules[i + size + 1]) score += 3;
    }
  }
  const total = size * size;
  score += (Math.ceil(Math.abs(dark * 20 - total * 10) / total) - 1) * 10;
  return score;
}

/** What every symbol of a version shares: its function patterns and its eight mask layers. */
const templates = new Map<number, { template: Matrix; layers: Uint8Array[] }>();

function versionTemplate(version: number): { template: Matrix; layers: Uint8Array[] } {
  let t = templates.get(version);
  if (!t) {
    const template = new Matrix(version * 4 + 17);
    drawFunctionPatterns(template, version);
    t = { template, layers: maskLayers(template) };
    templates.set(version, t);
  }
  return t;
}

/** The QR symbol of `text` at `level`; throws a RangeError when no version holds it. */
export function qrSymbol(text: string, level: EcLevel): QrSymbol {
  const { segment, eci } = segmentOf(text);
  const version = smallestVersion(segment, eci, level);
  if (version === undefined) throw new RangeError(`the text does not fit in a QR code at level ${level}`);
  const capacity = dataCodewords(version, level);
  const out = new BitWriter(capacity);
  if (eci) {
    out.put(0b0111, 4);
    out.put(UTF8_ECI, 8);
  }
  out.put(segment.mode, 4);
  out.put(segment.count, countBitsAt(segment, version));
  segment.write(out);
  out.put(0, Math.min(4, capacity * 8 - out.bits));
  out.bits = Math.ceil(out.bits / 8) * 8;
  for (let pad = 0xec; out.bits < capacity * 8; pad ^= 0xec ^ 0x11) out.put(pad, 8);

  const { template, layers } = versionTemplate(version);
  const m = new Matrix(template.size);
  m.modules.set(template.modules);
  m.reserved.set(template.reserved);
  placeCodewords(m, withErrorCorrection(out.bytes, version, level));
  let best = 0;
  let bestScore = Infinity;
  for (let mask = 0; mask < 8; mask++) {
    applyMask(m, layers[mask]!);
    drawFormatBits(m, level, mask);
    const score = penalty(m.modules, m.size);
    if (score < bestScore) {
      best = mask;
      bestScore = score;
    }
    applyMask(m, layers[mask]!); // XOR again: undone
  }
  applyMask(m, layers[best]!);
  drawFormatBits(m, level, best);
  return { version, size: m.size, modules: m.modules, mask: best, eci };
}
