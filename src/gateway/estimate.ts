/**
 * Prompt token estimates that do not count base64 media as text. A JSON request body is walked
 * once; every inline medium (a `data:` URL, OpenAI `input_audio`, Gemini `inlineData`) is taken
 * out of the text count and estimated by a documented rule instead:
 *
 * - text and JSON: one token per 4 ASCII characters, and one per character beyond ASCII (Chinese,
 *   Japanese and Korean run near one token per character, some rarer ones more);
 * - OpenAI images: the tile rule (`detail: "low"` = 85 tokens; otherwise the image is fitted in
 *   2048×2048, its shorter side brought down to 768, and it costs 85 + 170 per 512-pixel tile);
 *   the size is read from the PNG, JPEG, GIF or WebP header; unknown size (a remote URL, an
 *   unreadable header): 765 tokens, the cost of a 1024×1024 image;
 * - Anthropic images (Anthropic-style requests; Claude's vision guide, "Evaluate image size"):
 *   width × height / 750 tokens, after the image is scaled down (aspect kept) until its long
 *   edge is at most 1568 pixels and it is at most ~1,600 tokens; unknown size: 1,600;
 * - Gemini images (Gemini-style requests; Gemini's token counting guide): 258 tokens when both
 *   sides are at most 384 pixels, else 258 per 768×768 tile; unknown size: 258;
 * - audio: its duration (a WAV header's byte rate, else 16,000 bytes per second = 128 kbit/s)
 *   at 10 tokens per second (OpenAI) or 32 per second (Gemini); video (Gemini): 263 tokens per
 *   second at 125,000 bytes per second; any other inline file: 1,000 tokens.
 */
import { isObject } from './body.ts';

/** Whose documented rules count the media of a request: those of the style it is written in. */
export type MediaRule = 'openai' | 'anthropic' | 'gemini';

const ANTHROPIC_MAX_LONG_EDGE = 1568;
const ANTHROPIC_PIXELS_PER_TOKEN = 750;
const ANTHROPIC_MAX_IMAGE_TOKENS = 1600;

export const TOKENS_PER_UNKNOWN_IMAGE = { openai: 765, anthropic: ANTHROPIC_MAX_IMAGE_TOKENS, gemini: 258 } as const;
export const AUDIO_BYTES_PER_SECOND = 16_000;
const VIDEO_BYTES_PER_SECOND = 125_000;
// Anthropic models take no audio: a translated request's audio is counted at OpenAI's rate.
const AUDIO_TOKENS_PER_SECOND = { openai: 10, anthropic: 10, gemini: 32 } as const;
const VIDEO_TOKENS_PER_SECOND = 263;
const OTHER_FILE_TOKENS = 1_000;

/** About four characters of English text or JSON per token. */
export function textTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

const NON_ASCII = /[^\x00-\x7f]/g;

/** Characters (UTF-16 units) of `s` beyond ASCII, and the UTF-8 bytes they take. */
export function nonAscii(s: string): { units: number; bytes: number } {
  const bytes = Buffer.byteLength(s, 'utf8');
  if (bytes === s.length) return { units: 0, bytes: 0 };
  const units = s.match(NON_ASCII)?.length ?? 0;
  return { units, bytes: bytes - (s.length - units) };
}

/** Tokens of a text: one per 4 ASCII characters, one per character beyond ASCII. */
export function stringTokens(s: string): number {
  const wide = nonAscii(s);
  return textTokens(s.length - wide.units) + wide.units;
}

/** Width and height from the first bytes of a PNG, GIF, WebP or JPEG file. */
export function imageSize(b: Buffer): { width: number; height: number } | undefined {
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47 && b.toString('latin1', 12, 16) === 'IHDR') return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  if (b.length >= 10 && b.toString('latin1', 0, 4) === 'GIF8') return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  if (b.length >= 30 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') {
    const kind = b.toString('latin1', 12, 16);
    if (kind === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
    if (kind === 'VP8 ') return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
    if (kind === 'VP8L') {
      const bits = b.readUInt32LE(21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
    }
    return undefined;
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return undefined;
      const marker = b[i + 1]!;
      if (marker === 0xff) {
        i++;
        continue;
      }
      const len = b.readUInt16BE(i + 2);
      // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return { width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) };
      i += 2 + len;
    }
  }
  return undefined;
}

export function openAiImageTokens(size: { width: number; height: number } | undefined, detail: unknown): number {
  if (detail === 'low') return 85;
  if (!size || size.width <= 0 || size.height <= 0) return TOKENS_PER_UNKNOWN_IMAGE.openai;
  let { width: w, height: h } = size;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shrink = Math.min(1, 768 / Math.min(w, h));
  w *= shrink;
  h *= shrink;
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

export function anthropicImageTokens(size: { width: number; height: number } | undefined): number {
  if (!size || size.width <= 0 || size.height <= 0) return TOKENS_PER_UNKNOWN_IMAGE.anthropic;
  const fit = Math.min(1, ANTHROPIC_MAX_LONG_EDGE / Math.max(size.width, size.height));
  const pixels = size.width * fit * (size.height * fit);
  return Math.min(ANTHROPIC_MAX_IMAGE_TOKENS, Math.ceil(pixels / ANTHROPIC_PIXELS_PER_TOKEN));
}

/** An image's tokens by the rule of the request's style (`detail` is OpenAI's). */
export function imageTokens(rule: MediaRule, size: { width: number; height: number } | undefined, detail?: unknown): number {
  if (rule === 'anthropic') return anthropicImageTokens(size);
  if (rule === 'gemini') return geminiImageTokens(size);
  return openAiImageTokens(size, detail);
}

export function geminiImageTokens(size: { width: number; height: number } | undefined): number {
  if (!size || size.width <= 0 || size.height <= 0) return TOKENS_PER_UNKNOWN_IMAGE.gemini;
  if (size.width <= 384 && size.height <= 384) return 258;
  return 258 * Math.ceil(size.width / 768) * Math.ceil(size.height / 768);
}

/** The decoded length of base64 text (padding and line breaks aside). */
function base64Bytes(data: string): number {
  const clean = data.length - (data.match(/[\s=]/g)?.length ?? 0);
  return Math.floor((clean * 3) / 4);
}

/** The first bytes of base64 text, enough for any image header we read (JPEG needs more: up to 512 KB). */
function headBytes(data: string, jpeg = false): Buffer {
  return Buffer.from(data.slice(0, jpeg ? 700_000 : 4096), 'base64');
}

function mediaSize(data: string): { width: number; height: number } | undefined {
  const head = headBytes(data);
  if (head[0] === 0xff && head[1] === 0xd8) return imageSize(headBytes(data, true));
  return imageSize(head);
}

/** Seconds of audio in base64 data: a WAV header's byte rate, else 128 kbit/s. */
export function audioSeconds(data: string): number {
  const bytes = base64Bytes(data);
  const head = headBytes(data);
  if (head.length >= 32 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WAVE') {
    const byteRate = head.readUInt32LE(28);
    if (byteRate > 0) return bytes / byteRate;
  }
  return bytes / AUDIO_BYTES_PER_SECOND;
}

function mediaTokens(mime: string, data: string, rule: MediaRule, detail?: unknown): number {
  const kind = mime.split('/')[0]?.toLowerCase();
  if (kind === 'image') return imageTokens(rule, mediaSize(data), detail);
  if (kind === 'audio') return Math.ceil(audioSeconds(data) * AUDIO_TOKENS_PER_SECOND[rule]);
  if (kind === 'video') return Math.ceil((base64Bytes(data) / VIDEO_BYTES_PER_SECOND) * VIDEO_TOKENS_PER_SECOND);
  return OTHER_FILE_TOKENS;
}

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[^,;]*)*;base64,/i;

export interface PromptEstimate {
  /** Estimated prompt tokens: text by its characters (see textTokens, nonAscii) plus the media by their rule. */
  tokens: number;
  /** Inline media found (images, audio, video, files). */
  media: number;
}

/**
 * The prompt tokens of a JSON request body (`raw` is its text length in bytes; `body` the
 * parsed object). Media strings are replaced by their estimate; everything else is text: its
 * bytes at 4 per token, except that each character beyond ASCII counts as one token (its UTF-8
 * bytes are taken out of the byte count).
 */
export function estimatePrompt(rawLength: number, body: unknown, rule: MediaRule): PromptEstimate {
  let mediaChars = 0;
  let tokens = 0;
  let media = 0;
  let wideBytes = 0;
  const take = (chars: number, t: number): void => {
    mediaChars += chars;
    tokens += t;
    media++;
  };
  const walk = (x: unknown, depth: number): void => {
    if (depth > 64) return;
    if (Array.isArray(x)) {
      for (const v of x) walk(v, depth + 1);
      return;
    }
    if (!isObject(x)) {
      if (typeof x !== 'string') return;
      if (x.length > 64) {
        const m = DATA_URL.exec(x);
        if (m) return take(x.length, mediaTokens(m[1] ?? 'application/octet-stream', x.slice(m[0].length), rule));
      }
      const wide = nonAscii(x);
      tokens += wide.units;
      wideBytes += wide.bytes;
      return;
    }
    // OpenAI image part: {image_url: {url, detail}} (or a bare url string).
    const img = x.image_url;
    const imgUrl = typeof img === 'string' ? img : isObject(img) && typeof img.url === 'string' ? img.url : undefined;
    if (imgUrl !== undefined) {
      const detail = isObject(img) ? img.detail : undefined;
      const m = DATA_URL.exec(imgUrl);
      take(imgUrl.length, imageTokens(rule, m ? mediaSize(imgUrl.slice(m[0].length)) : undefined, detail));
    }
    // OpenAI audio part: {input_audio: {data, format}}.
    const audio = x.input_audio;
    if (isObject(audio) && typeof audio.data === 'string') take(audio.data.length, mediaTokens('audio/x', audio.data, rule));
    // Gemini inline part: {inlineData: {mimeType, data}} (or the snake_case form).
    const inline = x.inlineData ?? x.inline_data;
    if (isObject(inline) && typeof inline.data === 'string') {
      const mime = inline.mimeType ?? inline.mime_type;
      take(inline.data.length, mediaTokens(typeof mime === 'string' ? mime : 'application/octet-stream', inline.data, rule));
    }
    for (const [k, v] of Object.entries(x)) {
      if ((k === 'image_url' && imgUrl !== undefined) || (k === 'input_audio' && isObject(audio)) || ((k === 'inlineData' || k === 'inline_data') && isObject(inline))) continue;
      walk(v, depth + 1);
    }
  };
  walk(body, 0);
  return { tokens: tokens + textTokens(Math.max(0, rawLength - mediaChars - wideBytes)), media };
}
