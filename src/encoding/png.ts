/**
 * A minimal PNG writer for greyscale images: signature, IHDR, one IDAT compressed by node:zlib,
 * IEND, each chunk with its CRC-32 (zlib.crc32). The caller hands over the scanlines already
 * laid out (each row: a filter-type byte, then the packed samples).
 */
import zlib from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const IEND = chunk('IEND', Buffer.alloc(0));

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(zlib.crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** Bytes per scanline, filter byte included. */
export function scanlineBytes(width: number, bitDepth: 1 | 2 | 4 | 8): number {
  return 1 + Math.ceil((width * bitDepth) / 8);
}

/** A greyscale PNG (colour type 0) from its raw scanlines. */
export function greyscalePng(width: number, height: number, bitDepth: 1 | 2 | 4 | 8, scanlines: Uint8Array): Buffer {
  if (scanlines.length !== height * scanlineBytes(width, bitDepth)) throw new RangeError('scanlines do not match the image size');
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = bitDepth;
  header[9] = 0; // greyscale
  // compression, filter and interlace methods: 0
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', zlib.deflateSync(scanlines)), IEND]);
}
