/**
 * Hashes, encodings and compression of a text, computed locally with node:crypto and node:zlib.
 *
 * - Digests (md5, sha1, sha256, sha512) are hex of the UTF-8 bytes of `content`.
 * - base64 / URL: `encoded` is the encoding of `content`; `decoded` decodes `content` itself.
 * - gzip / deflate (zlib format) / brotli: `encoded` is the compressed UTF-8 bytes of `content`
 *   written in `format` (hex by default, as 60s writes them, or base64); `decoded` reads `content`
 *   as compressed data in that same format and decompresses it. Brotli compresses at quality 9
 *   with a window no larger than the input needs (its default 4 MiB window costs 5× the time of
 *   the compression itself on short texts; the bytes decode the same), and inputs under 100 bytes
 *   at quality 2: in under half the time, at most a few bytes longer than quality 9's output
 *   (6 at most over text of 1 to 99 bytes, test/sources/hash.test.ts).
 * - 60s's layout is kept beside ours: `source` (the content) and `sha.sha1/sha256/sha512`.
 * - A decoder that cannot read the input (not base64, a malformed %-escape, not compressed data,
 *   not UTF-8 text, or more than MAX_DECOMPRESSED bytes) gives `decoded: ""` and `decodable: false`;
 *   it never fails the request.
 * - `content` is capped at MAX_CONTENT characters (GET query or POST body: JSON, form or plain text).
 * - Results are kept in a byte-bounded LRU once a content is asked for again (while among the last
 *   16 new ones): repeated contents answer without recomputing, a stream of new ones is not kept.
 */
import { isUtf8 } from 'node:buffer';
import { hash } from 'node:crypto';
import zlib from 'node:zlib';
import { escapeMarkdown } from '../src/encoding/escape.ts';
import { ByteLru } from '../src/kernel/byte-lru.ts';
import { wellFormed } from '../src/kernel/params.ts';
import { defineSource } from '../src/kernel/source.ts';

export const MAX_CONTENT = 65_536;
/** Largest decompressed output accepted (bytes), against compression bombs. */
export const MAX_DECOMPRESSED = 1024 * 1024;

export type BinaryFormat = 'base64' | 'hex';

export interface Coded {
  encoded: string;
  decoded: string;
  /** Whether `content` could be decoded by this codec into UTF-8 text. */
  decodable: boolean;
}

export interface HashResult {
  content: string;
  /** 60s's name for `content`. */
  source: string;
  /** Length in Unicode code points. */
  length: number;
  /** Length of the UTF-8 bytes. */
  bytes: number;
  md5: string;
  sha1: string;
  sha256: string;
  sha512: string;
  /** 60s's layout of the SHA digests (the same values as sha1, sha256, sha512). */
  sha: { sha1: string; sha256: string; sha512: string };
  base64: Coded;
  url: Coded;
  /** Format of the compressed outputs (and of the input their `decoded` reads). */
  compressed_format: BinaryFormat;
  gzip: Coded;
  deflate: Coded;
  brotli: Coded;
}

/** Bytes as UTF-8 text, or undefined when they are not valid UTF-8. */
function asText(bytes: Buffer): string | undefined {
  return isUtf8(bytes) ? bytes.toString('utf8') : undefined;
}

/** Strict base64 (standard or URL-safe alphabet, padding optional, white space ignored) to bytes. */
export function base64Bytes(input: string): Buffer | undefined {
  const s = input.replace(/\s+/g, '');
  if (!s) return undefined;
  const body = s.replace(/={1,2}$/, '');
  if (!/^[A-Za-z0-9+/]*$/.test(body) && !/^[A-Za-z0-9_-]*$/.test(body)) return undefined;
  if (body.length % 4 === 1 || (s !== body && s.length % 4 !== 0)) return undefined;
  const bytes = Buffer.from(body.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  // Reject non-canonical trailing bits ("QQ" and "QR" must not both decode to "A").
  if (bytes.toString('base64').replace(/=+$/, '') !== body.replace(/-/g, '+').replace(/_/g, '/')) return undefined;
  return bytes;
}

export function hexBytes(input: string): Buffer | undefined {
  const s = input.replace(/\s+/g, '');
  return s && s.length % 2 === 0 && /^[0-9a-fA-F]+$/.test(s) ? Buffer.from(s, 'hex') : undefined;
}

function coded(encoded: string, decoded: string | undefined): Coded {
  return { encoded, decoded: decoded ?? '', decodable: decoded !== undefined };
}

function safeDecodeUri(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

const CODED_KEYS = ['base64', 'url', 'gzip', 'deflate', 'brotli'] as const;
const limits = { maxOutputLength: MAX_DECOMPRESSED };
const { BROTLI_PARAM_QUALITY, BROTLI_PARAM_LGWIN, BROTLI_PARAM_SIZE_HINT, BROTLI_MIN_WINDOW_BITS, BROTLI_MAX_WINDOW_BITS } = zlib.constants;

/** The smallest brotli window (log2 bytes) that holds the whole input. */
function brotliWindow(length: number): number {
  return Math.min(BROTLI_MAX_WINDOW_BITS, Math.max(BROTLI_MIN_WINDOW_BITS, Math.ceil(Math.log2(length + 1))));
}

/**
 * gzip and deflate state sized to the input: zlib's default window and hash tables take ~260 KB
 * per call, mostly garbage for a short text; a window that holds the whole input compresses it
 * the same, and any inflater reads the result.
 */
function deflateOptions(length: number): zlib.ZlibOptions {
  const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(length + 1))));
  return { windowBits, memLevel: Math.min(8, Math.max(1, windowBits - 7)), chunkSize: outputChunk(length) };
}

/**
 * The output buffer of one compression: big enough for a short input's whole output (zlib takes
 * more chunks when it is not), instead of the default 16 KiB allocated, mostly unused, per call.
 */
function outputChunk(length: number): number {
  return Math.min(zlib.constants.Z_DEFAULT_CHUNK, Math.max(zlib.constants.Z_MIN_CHUNK, length + 64));
}

/**
 * gzip and zlib-format deflate of one input hold the same raw deflate stream (same window, memory
 * level and compression level) between their own header and trailer: it is compressed once and
 * wrapped twice, saving a zlib object and a compression per result. The bytes are those zlib's
 * own wrappers write (the gzip header is taken from zlib itself, for its OS byte).
 */
const GZIP_HEADER = zlib.gzipSync(Buffer.alloc(0)).subarray(0, 10);
/** FLEVEL of zlib's header at the default compression level (6). */
const ZLIB_DEFAULT_FLEVEL = 2;

function gzipWrap(raw: Buffer, input: Buffer): Buffer {
  const out = Buffer.allocUnsafe(GZIP_HEADER.length + raw.length + 8);
  GZIP_HEADER.copy(out, 0);
  raw.copy(out, GZIP_HEADER.length);
  out.writeUInt32LE(zlib.crc32(input), GZIP_HEADER.length + raw.length);
  out.writeUInt32LE(input.length >>> 0, GZIP_HEADER.length + raw.length + 4);
  return out;
}

function zlibWrap(raw: Buffer, input: Buffer, windowBits: number): Buffer {
  const out = Buffer.allocUnsafe(2 + raw.length + 4);
  let header = ((8 + ((windowBits - 8) << 4)) << 8) | (ZLIB_DEFAULT_FLEVEL << 6);
  header += 31 - (header % 31);
  out.writeUInt16BE(header, 0);
  raw.copy(out, 2);
  out.writeUInt32BE(adler32(input), 2 + raw.length);
  return out;
}

function adler32(bytes: Buffer): number {
  let a = 1;
  let b = 0;
  for (let i = 0; i < bytes.length; ) {
    // 5552 bytes is the most that can be summed before the sums must be reduced (zlib's NMAX).
    const end = Math.min(bytes.length, i + 5552);
    for (; i < end; i++) {
      a += bytes[i]!;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** The raw deflate stream of `b` and the window it was made with. */
function rawDeflate(b: Buffer): { raw: Buffer; windowBits: number } {
  const options = deflateOptions(b.length);
  return { raw: zlib.deflateRawSync(b, options), windowBits: options.windowBits! };
}

// A failed decompression costs zlib ~40 µs (a stream is built, errored and destroyed), ten times a
// successful one: bytes without the format's header are refused before zlib sees them.
const CODECS = {
  gzip: {
    plausible: (b: Buffer) => b.length >= 18 && b[0] === 0x1f && b[1] === 0x8b && b[2] === 8,
    decompress: (b: Buffer) => zlib.gunzipSync(b, limits),
  },
  deflate: {
    plausible: (b: Buffer) => b.length >= 6 && (b[0]! & 0x0f) === 8 && b[0]! >> 4 <= 7 && ((b[0]! << 8) | b[1]!) % 31 === 0,
    decompress: (b: Buffer) => zlib.inflateSync(b, limits),
  },
  brotli: {
    plausible: (b: Buffer) => b.length > 0,
    decompress: (b: Buffer) => zlib.brotliDecompressSync(b, limits),
  },
} as const;

/** Below this many bytes brotli's quality 2 writes nearly as few bytes as quality 9 (see the file comment). */
const BROTLI_SHORT_INPUT = 100;

function brotliCompress(b: Buffer): Buffer {
  const quality = b.length < BROTLI_SHORT_INPUT ? 2 : 9;
  return zlib.brotliCompressSync(b, { chunkSize: outputChunk(b.length), params: { [BROTLI_PARAM_QUALITY]: quality, [BROTLI_PARAM_LGWIN]: brotliWindow(b.length), [BROTLI_PARAM_SIZE_HINT]: b.length } });
}

function decompress(codec: keyof typeof CODECS, bytes: Buffer | undefined): string | undefined {
  if (!bytes || !CODECS[codec].plausible(bytes)) return undefined;
  try {
    return asText(CODECS[codec].decompress(bytes));
  } catch {
    return undefined;
  }
}

/** Characters in the strings of a result (a JS string takes up to 2 bytes a character). */
function textLength(r: HashResult): number {
  let n = r.md5.length + r.sha1.length + r.sha256.length + r.sha512.length;
  for (const k of CODED_KEYS) n += r[k].encoded.length + r[k].decoded.length;
  return n;
}

/** Results by format and content (a content joins once asked again while among the last 16 new ones). */
const results = new ByteLru<HashResult>(8 * 1024 * 1024, { probation: 16 });

export function computeHash(content: string, format: BinaryFormat = 'hex'): HashResult {
  const key = `${format}|${content}`;
  let result = results.get(key);
  if (!result) {
    result = hashOf(content, format);
    results.set(key, result, 2 * (key.length + textLength(result)));
  }
  return result;
}

/** Length in code points, without making an array of them ([...s] does). */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

function hashOf(content: string, format: BinaryFormat): HashResult {
  const buf = Buffer.from(content, 'utf8');
  const digest = (alg: string) => hash(alg, buf, 'hex');
  const input = format === 'hex' ? hexBytes(content) : base64Bytes(content);
  const { raw, windowBits } = rawDeflate(buf);
  const compressed = (codec: keyof typeof CODECS, bytes: Buffer) => coded(bytes.toString(format), decompress(codec, input));
  const b64 = base64Bytes(content);
  const sha = { sha1: digest('sha1'), sha256: digest('sha256'), sha512: digest('sha512') };
  return {
    content,
    source: content,
    length: codePoints(content),
    bytes: buf.length,
    md5: digest('md5'),
    ...sha,
    sha,
    base64: coded(buf.toString('base64'), b64 ? asText(b64) : undefined),
    url: coded(encodeURIComponent(wellFormed(content)), safeDecodeUri(content)),
    compressed_format: format,
    gzip: compressed('gzip', gzipWrap(raw, buf)),
    deflate: compressed('deflate', zlibWrap(raw, buf, windowBits)),
    brotli: compressed('brotli', brotliCompress(buf)),
  };
}

const INVALID = '(content is not valid input for this decoder)';

export default defineSource({
  id: 'hash',
  name: 'Hash and encode',
  description: `Digests (md5, sha1, sha256, sha512), base64 and URL encode/decode, gzip/deflate/brotli compress (hex or base64) and decompress of a text. GET or POST (JSON, form or plain-text body); content up to ${MAX_CONTENT} characters. Invalid input for a decoder gives decoded "" and decodable false.`,
  routes: [{ path: '/hash', methods: ['GET', 'POST'] }],
  params: {
    content: { type: 'string', required: true, trim: false, maxLength: MAX_CONTENT, doc: `The text to process (UTF-8, at most ${MAX_CONTENT} characters; kept exactly, white space included).`, example: 'hello' },
    format: { type: 'string', enum: ['hex', 'base64'], default: 'hex', doc: 'How compressed bytes are written, and how `content` is read for decompression (hex by default, as 60s writes them).' },
  },
  mode: 'local',
  compute: (_ctx, p) => computeHash(p.content, p.format as BinaryFormat),
  view: {
    title: () => 'Hash and encode',
    text(d) {
      const lines = [`content: ${d.content}`, `length: ${d.length} characters, ${d.bytes} bytes (UTF-8)`, '', `md5: ${d.md5}`, `sha1: ${d.sha1}`, `sha256: ${d.sha256}`, `sha512: ${d.sha512}`];
      for (const k of CODED_KEYS) {
        const c = d[k];
        const fmt = k === 'base64' || k === 'url' ? '' : ` (${d.compressed_format})`;
        lines.push('', `${k} encoded${fmt}: ${c.encoded}`, `${k} decoded: ${c.decodable ? c.decoded : INVALID}`);
      }
      return `${lines.join('\n')}\n`;
    },
    markdown(d) {
      const code = (s: string) => {
        const fence = s.includes('```') ? '~~~~' : '```';
        return `${fence}\n${s}\n${fence}`;
      };
      const parts = [
        '# Hash and encode',
        '',
        `Content (${d.length} characters, ${d.bytes} bytes):`,
        '',
        code(d.content),
        '',
        '| digest | hex |',
        '| --- | --- |',
        ...(['md5', 'sha1', 'sha256', 'sha512'] as const).map((k) => `| ${k} | \`${d[k]}\` |`),
      ];
      for (const k of CODED_KEYS) {
        const c = d[k];
        const fmt = k === 'base64' || k === 'url' ? '' : ` (${d.compressed_format})`;
        parts.push('', `## ${k}`, '', `Encoded${fmt}:`, '', code(c.encoded), '', 'Decoded:', '', c.decodable ? code(c.decoded) : `_${escapeMarkdown(INVALID)}_`);
      }
      return `${parts.join('\n')}\n`;
    },
  },
  example: '/v2/apis/hash?content=hello&encoding=text',
});
