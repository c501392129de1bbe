/**
 * QR symbols drawn as a 1-bit greyscale PNG, an SVG or text art, with a quiet zone of
 * QR_MARGIN modules. Each (text, level, size, format) is drawn once: the images are kept in a
 * cache bounded by their bytes, least recently used dropped first.
 */
import { greyscalePng, scanlineBytes } from '../../src/encoding/png.ts';
import { ByteLru } from '../../src/kernel/byte-lru.ts';
import { qrSymbol, type EcLevel, type QrSymbol } from './qr-symbol.ts';

export const QR_MARGIN = 2;
/** Fewer pixels per module than this and phone cameras struggle: a smaller size grows to it. */
export const MIN_PIXELS_PER_MODULE = 2;
export const QR_CACHE_BYTES = 16 * 1024 * 1024;

export type QrFormat = 'png' | 'svg';

export interface QrImage {
  symbol: QrSymbol;
  mimeType: string;
  /** PNG bytes, or the SVG text as UTF-8. */
  body: Buffer;
  base64: string;
  dataUri: string;
}

/** Pixel width of the image, whole pixels per module, and where the symbol starts. */
export function pixelLayout(size: number, modules: number): { width: number; scale: number; offset: number } {
  const total = modules + 2 * QR_MARGIN;
  const width = Math.max(size, total * MIN_PIXELS_PER_MODULE);
  const scale = Math.floor(width / total);
  return { width, scale, offset: Math.floor((width - modules * scale) / 2) };
}

/** A 1-bit PNG (0 black, 1 white), `size` pixels square (or larger, see MIN_PIXELS_PER_MODULE). */
export function qrPng(symbol: QrSymbol, size: number): Buffer {
  const { width, scale, offset } = pixelLayout(size, symbol.size);
  const stride = scanlineBytes(width, 1);
  const lines = new Uint8Array(stride * width).fill(0xff);
  for (let y = 0; y < width; y++) lines[y * stride] = 0; // filter type: none
  const line = new Uint8Array(stride);
  for (let my = 0; my < symbol.size; my++) {
    line.fill(0xff);
    line[0] = 0;
    for (let mx = 0; mx < symbol.size; mx++) {
      if (!symbol.modules[my * symbol.size + mx]) continue;
      for (let px = offset + mx * scale, end = px + scale; px < end; px++) line[1 + (px >>> 3)]! &= ~(0x80 >>> (px & 7));
    }
    for (let y = offset + my * scale, end = y + scale; y < end; y++) lines.set(line, y * stride);
  }
  return greyscalePng(width, width, 1, lines);
}

/** An SVG of `size` pixels: a white square and one path of the dark runs of each row. */
export function qrSvg(symbol: QrSymbol, size: number): string {
  const n = symbol.size;
  const total = n + 2 * QR_MARGIN;
  let d = '';
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; ) {
      if (!symbol.modules[y * n + x]) {
        x++;
        continue;
      }
      let run = 1;
      while (x + run < n && symbol.modules[y * n + x + run]) run++;
      d += `M${x + QR_MARGIN} ${y + QR_MARGIN}h${run}v1h-${run}z`;
      x += run;
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${total} ${total}" shape-rendering="crispEdges"><path fill="#ffffff" d="M0 0h${total}v${total}H0z"/><path fill="#000000" d="${d}"/></svg>\n`;
}

/** Text art, two module rows per line: █ both dark, ▀ top dark, ▄ bottom dark, space both light. */
export function qrTextArt(symbol: QrSymbol): string {
  const n = symbol.size;
  const dark = (x: number, y: number) => y < n && symbol.modules[y * n + x] === 1;
  const side = ' '.repeat(QR_MARGIN);
  const blank = ' '.repeat(n + 2 * QR_MARGIN);
  const lines = [blank];
  for (let y = 0; y < n; y += 2) {
    let line = side;
    for (let x = 0; x < n; x++) {
      const top = dark(x, y);
      const bottom = dark(x, y + 1);
      line += top && bottom ? '█' : top ? '▀' : bottom ? '▄' : ' ';
    }
    lines.push(line + side);
  }
  lines.push(blank);
  return `${lines.join('\n')}\n`;
}

/** Images of parameters asked for again while among the last 16 drawn (a stream of new texts is not kept). */
const cache = new ByteLru<QrImage>(QR_CACHE_BYTES, { probation: 16 });

/** The image of `text`, kept from the second time its (text, level, size, format) is asked; throws RangeError when it does not fit. */
export function qrImage(text: string, level: EcLevel, size: number, format: QrFormat): QrImage {
  const key = `${level}${size}${format}|${text}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const symbol = qrSymbol(text, level);
  const mimeType = format === 'svg' ? 'image/svg+xml' : 'image/png';
  const body = format === 'svg' ? Buffer.from(qrSvg(symbol, size)) : qrPng(symbol, size);
  const base64 = body.toString('base64');
  const image: QrImage = { symbol, mimeType, body, base64, dataUri: `data:${mimeType};base64,${base64}` };
  cache.set(key, image, body.length + 2 * base64.length + symbol.modules.length + 2 * key.length);
  return image;
}
