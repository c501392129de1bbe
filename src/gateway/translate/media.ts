/** Inline media as the styles carry it: a `data:` URL in chat, a (mime type, base64) pair in Anthropic and Gemini. */

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)((?:;[^,;]*)*);base64,/i;

export interface InlineMedia {
  mimeType: string;
  /** Base64 text. */
  data: string;
}

/** The mime type and base64 data of a `data:…;base64,` URL; `undefined` for any other URL. */
export function parseDataUrl(url: string): InlineMedia | undefined {
  const m = DATA_URL.exec(url);
  return m ? { mimeType: m[1]!.toLowerCase(), data: url.slice(m[0].length) } : undefined;
}

export function dataUrl(media: InlineMedia): string {
  return `data:${media.mimeType};base64,${media.data}`;
}

export function isHttpUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

const EXTENSION_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  pdf: 'application/pdf',
  wav: 'audio/wav',
  mp3: 'audio/mp3',
};

/** The media type a URL's file extension names (`fallback` when it names none). */
export function mimeTypeOfUrl(url: string, fallback: string): string {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // not a URL: read its extension as it is
  }
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return (ext && EXTENSION_TYPES[ext]) ?? fallback;
}

/** OpenAI `input_audio.format` for an audio mime type (wav or mp3; `undefined` for others). */
export function audioFormat(mimeType: string): 'wav' | 'mp3' | undefined {
  const t = mimeType.toLowerCase();
  if (t === 'audio/wav' || t === 'audio/x-wav' || t === 'audio/wave') return 'wav';
  if (t === 'audio/mp3' || t === 'audio/mpeg') return 'mp3';
  return undefined;
}
