/**
 * QR codes, computed locally (sources/_shared/qr-symbol.ts, qr-image.ts): PNG or SVG image, its
 * base64 and data URI, or text art.
 *
 * `text` is optional (the spec says so): without it the code holds DEFAULT_TEXT. It is encoded as
 * UTF-8 and capped at MAX_TEXT characters; it must also fit the chosen error-correction level
 * (QR version 40 holds 2953 / 2331 / 1663 / 1273 bytes at L / M / Q / H, one less for text with
 * non-ASCII characters, which carries the UTF-8 ECI marker; a Chinese character takes 3 bytes).
 * Too long for the level: a 400 that says how many bytes it has and where it fits.
 * The json keeps 60s's fields (`mime_type`, `text`, `base64`, `data_uri`).
 */
import { AppError } from '../src/kernel/errors.ts';
import { defineSource } from '../src/kernel/source.ts';
import { MIN_PIXELS_PER_MODULE, qrImage, qrTextArt, type QrFormat, type QrImage } from './_shared/qr-image.ts';
import { dataCodewords, type EcLevel } from './_shared/qr-symbol.ts';

/** What the code holds when no `text` is given: a neutral, scannable URL. */
export const DEFAULT_TEXT = 'https://github.com/';
/** Characters; a lower cap than the byte capacity keeps codes scannable and cheap. */
export const MAX_TEXT = 1200;
const LEVELS = ['L', 'M', 'Q', 'H'] as const;

/** Byte-mode capacity of a version-40 code at `level`; 12 bits fewer with the UTF-8 ECI marker. */
export function capacityBytes(level: EcLevel, utf8Marker = false): number {
  return Math.floor((dataCodewords(40, level) * 8 - 4 - 16 - (utf8Marker ? 12 : 0)) / 8);
}
/** Byte-mode capacity of a version-40 code per level (ASCII text). */
export const CAPACITY_BYTES = Object.fromEntries(LEVELS.map((l) => [l, capacityBytes(l)])) as Record<EcLevel, number>;

export interface QrData {
  text: string;
  size: number;
  level: EcLevel;
  format: QrFormat;
  /** Length of `text` in UTF-8 bytes. */
  bytes: number;
  mime_type: string;
  /** The image bytes in base64 (60s's field). */
  base64: string;
  data_uri: string;
}

function build(text: string, size: number, level: EcLevel, format: QrFormat): QrData {
  const bytes = Buffer.byteLength(text, 'utf8');
  const marker = bytes !== text.length;
  if (bytes > capacityBytes(level, marker)) {
    const fits = LEVELS.filter((l) => bytes <= capacityBytes(l, marker));
    throw new AppError(
      400,
      `Invalid parameter "text": it is ${bytes} bytes in UTF-8, more than a QR code holds at level ${level} (${capacityBytes(level, marker)} bytes)${fits.length ? `; it fits at level ${fits.join(', ')}` : `; the most any level holds is ${capacityBytes('L', marker)} bytes (level L)`}.`,
    );
  }
  const image = qrImage(text, level, size, format);
  let data = answers.get(image);
  if (!data) answers.set(image, (data = { text, size, level, format, bytes, mime_type: image.mimeType, base64: image.base64, data_uri: image.dataUri }));
  return data;
}

/** The answer of each kept image: the same object while the image is kept (its JSON is then written once). */
const answers = new WeakMap<QrImage, QrData>();

export default defineSource({
  id: 'qrcode',
  name: 'QR code',
  description: 'Generates a QR code for a text or URL: PNG (or SVG) bytes with encoding=image, its base64 and data URI in json, the bare base64 in text (as 60s), and a scannable text-art code in markdown.',
  routes: [{ path: '/qrcode' }],
  params: {
    text: {
      type: 'string',
      doc: `Text or URL to encode (UTF-8, at most ${MAX_TEXT} characters, and within the level's capacity: ${Object.entries(CAPACITY_BYTES)
        .map(([l, n]) => `${l} ${n}`)
        .join(', ')} bytes, one less with non-ASCII characters); ${DEFAULT_TEXT} by default.`,
      default: DEFAULT_TEXT,
      maxLength: MAX_TEXT,
      trim: false,
      example: 'hello',
    },
    size: { type: 'integer', doc: `Image width and height in pixels (a long text on a small size grows the image to ${MIN_PIXELS_PER_MODULE} pixels per module).`, default: 256, min: 64, max: 2048 },
    level: { type: 'string', doc: 'Error-correction level: L (7%), M (15%), Q (25%), H (30%).', default: 'M', enum: ['L', 'M', 'Q', 'H'], ignoreCase: true },
    format: { type: 'string', doc: 'Image format for encoding=image and the data URI.', default: 'png', enum: ['png', 'svg'] },
  },
  mode: 'local',
  compute: (_ctx, p) => build(p.text, p.size, p.level as EcLevel, p.format as QrFormat),
  view: {
    title: (d) => `QR code: ${d.text}`,
    // 60s's text is the image's bare base64, which scripts decode as it is.
    text: (d) => d.base64,
    markdown: (d) =>
      `# QR code\n\n- text: \`${d.text.replace(/`/g, "'").replace(/\s*\r?\n\s*/g, ' ')}\`\n- size: ${d.size}px, level ${d.level}, ${d.bytes} bytes\n\n![QR code](${d.data_uri})\n\n\`\`\`text\n${qrTextArt(qrImage(d.text, d.level, d.size, d.format).symbol)}\`\`\`\n`,
    // The image compute drew, from qr-image's cache: one drawing per new text, none for a repeated one.
    image: async (d) => ({ body: qrImage(d.text, d.level, d.size, d.format).body, type: d.mime_type }),
  },
  example: '/v2/apis/qrcode?text=hello&encoding=image',
});
