/**
 * QR codes, computed locally with the qrcode package: PNG or SVG image, data URI, or text art.
 *
 * `text` is optional (the spec says so): without it the code holds DEFAULT_TEXT. It is encoded as
 * UTF-8 and capped at MAX_TEXT characters; it must also fit the chosen error-correction level
 * (QR version 40 holds 2953 / 2331 / 1663 / 1273 bytes at L / M / Q / H, and a Chinese character
 * takes 3 bytes). Too long for the level: a 400 that says how many bytes it has and fit where.
 */
import QRCode from 'qrcode';
import { AppError } from '../src/kernel/errors.ts';
import { defineSource } from '../src/kernel/source.ts';

/** What the code holds when no `text` is given: a neutral, scannable URL. */
export const DEFAULT_TEXT = 'https://github.com/';
/** Characters; a lower cap than the byte capacity keeps codes scannable and cheap. */
export const MAX_TEXT = 1200;
/** Byte-mode capacity of a version-40 code per level. */
export const CAPACITY_BYTES = { L: 2953, M: 2331, Q: 1663, H: 1273 } as const;

export interface QrData {
  text: string;
  size: number;
  level: 'L' | 'M' | 'Q' | 'H';
  format: 'png' | 'svg';
  /** Length of `text` in UTF-8 bytes. */
  bytes: number;
  mime_type: string;
  data_uri: string;
}

function renderOptions(d: { size: number; level: QrData['level'] }) {
  return { errorCorrectionLevel: d.level, width: d.size, margin: 2 } as const;
}

async function build(text: string, size: number, level: QrData['level'], format: QrData['format']): Promise<QrData> {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > CAPACITY_BYTES[level]) {
    const fits = (Object.keys(CAPACITY_BYTES) as QrData['level'][]).filter((l) => bytes <= CAPACITY_BYTES[l]);
    throw new AppError(
      400,
      `Invalid parameter "text": it is ${bytes} bytes in UTF-8, more than a QR code holds at level ${level} (${CAPACITY_BYTES[level]} bytes)${fits.length ? `; it fits at level ${fits.join(', ')}` : `; the most any level holds is ${CAPACITY_BYTES.L} bytes (level L)`}.`,
    );
  }
  try {
    const dataUri =
      format === 'svg'
        ? `data:image/svg+xml;base64,${Buffer.from(await QRCode.toString(text, { ...renderOptions({ size, level }), type: 'svg' })).toString('base64')}`
        : await QRCode.toDataURL(text, { ...renderOptions({ size, level }), type: 'image/png' });
    return { text, size, level, format, bytes, mime_type: format === 'svg' ? 'image/svg+xml' : 'image/png', data_uri: dataUri };
  } catch (err) {
    // qrcode throws when the text does not fit at this error-correction level.
    throw new AppError(400, `Invalid parameter "text": it does not fit in a QR code at level ${level} (${(err as Error).message}); use a shorter text or level L.`);
  }
}

export default defineSource({
  id: 'qrcode',
  name: 'QR code',
  description: 'Generates a QR code for a text or URL: PNG (or SVG) bytes with encoding=image, a data URI in json, a scannable text-art code in text.',
  routes: [{ path: '/qrcode' }],
  params: {
    text: {
      type: 'string',
      doc: `Text or URL to encode (UTF-8, at most ${MAX_TEXT} characters, and within the level's capacity: ${Object.entries(CAPACITY_BYTES)
        .map(([l, n]) => `${l} ${n}`)
        .join(', ')} bytes); ${DEFAULT_TEXT} by default.`,
      default: DEFAULT_TEXT,
      maxLength: MAX_TEXT,
      trim: false,
      example: 'hello',
    },
    size: { type: 'integer', doc: 'Image width and height in pixels.', default: 256, min: 64, max: 2048 },
    level: { type: 'string', doc: 'Error-correction level: L (7%), M (15%), Q (25%), H (30%).', default: 'M', enum: ['L', 'M', 'Q', 'H'], ignoreCase: true },
    format: { type: 'string', doc: 'Image format for encoding=image and the data URI.', default: 'png', enum: ['png', 'svg'] },
  },
  mode: 'local',
  compute: (_ctx, p) => build(p.text, p.size, p.level as QrData['level'], p.format as QrData['format']),
  view: {
    title: (d) => `QR code: ${d.text}`,
    async text(d) {
      return QRCode.toString(d.text, { errorCorrectionLevel: d.level, type: 'utf8', margin: 2 });
    },
    markdown: (d) => `# QR code\n\n- text: \`${d.text.replace(/`/g, "'").replace(/\s*\r?\n\s*/g, ' ')}\`\n- size: ${d.size}px, level ${d.level}, ${d.bytes} bytes\n\n![QR code](${d.data_uri})\n`,
    async image(d) {
      if (d.format === 'svg') return { body: await QRCode.toString(d.text, { ...renderOptions(d), type: 'svg' }), type: 'image/svg+xml' };
      return { body: await QRCode.toBuffer(d.text, { ...renderOptions(d), type: 'png' }), type: 'image/png' };
    },
  },
  example: '/v2/apis/qrcode?text=hello&encoding=image',
});
