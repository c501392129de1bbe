/** QR codes, computed locally with the qrcode package: PNG or SVG image, data URI, or text art. */
import QRCode from 'qrcode';
import { AppError } from '../src/kernel/errors.ts';
import { defineSource } from '../src/kernel/source.ts';

export const DEFAULT_TEXT = 'https://github.com/';
/** Byte-mode capacity at level L is 2953 bytes; a lower cap keeps codes scannable and cheap. */
export const MAX_TEXT = 1200;

export interface QrData {
  text: string;
  size: number;
  level: 'L' | 'M' | 'Q' | 'H';
  format: 'png' | 'svg';
  mime_type: string;
  data_uri: string;
}

function renderOptions(d: { size: number; level: QrData['level'] }) {
  return { errorCorrectionLevel: d.level, width: d.size, margin: 2 } as const;
}

async function build(text: string, size: number, level: QrData['level'], format: QrData['format']): Promise<QrData> {
  try {
    const dataUri =
      format === 'svg'
        ? `data:image/svg+xml;base64,${Buffer.from(await QRCode.toString(text, { ...renderOptions({ size, level }), type: 'svg' })).toString('base64')}`
        : await QRCode.toDataURL(text, { ...renderOptions({ size, level }), type: 'image/png' });
    return { text, size, level, format, mime_type: format === 'svg' ? 'image/svg+xml' : 'image/png', data_uri: dataUri };
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
    text: { type: 'string', doc: `Text or URL to encode (UTF-8, at most ${MAX_TEXT} characters); ${DEFAULT_TEXT} by default.`, default: DEFAULT_TEXT, maxLength: MAX_TEXT, trim: false, example: 'hello' },
    size: { type: 'integer', doc: 'Image width and height in pixels.', default: 256, min: 64, max: 2048 },
    level: { type: 'string', doc: 'Error-correction level: L (7%), M (15%), Q (25%), H (30%).', default: 'M', enum: ['L', 'M', 'Q', 'H'] },
    format: { type: 'string', doc: 'Image format for encoding=image and the data URI.', default: 'png', enum: ['png', 'svg'] },
  },
  mode: 'local',
  compute: (_ctx, p) => build(p.text, p.size, p.level as QrData['level'], p.format as QrData['format']),
  view: {
    title: (d) => `QR code: ${d.text}`,
    async text(d) {
      return QRCode.toString(d.text, { errorCorrectionLevel: d.level, type: 'utf8', margin: 2 });
    },
    markdown: (d) => `# QR code\n\n- text: \`${d.text.replace(/`/g, "'")}\`\n- size: ${d.size}px, level ${d.level}\n\n![QR code](${d.data_uri})\n`,
    async image(d) {
      if (d.format === 'svg') return { body: await QRCode.toString(d.text, { ...renderOptions(d), type: 'svg' }), type: 'image/svg+xml' };
      return { body: await QRCode.toBuffer(d.text, { ...renderOptions(d), type: 'png' }), type: 'image/png' };
    },
  },
  example: '/v2/apis/qrcode?text=hello&encoding=image',
});
