/** Wrap an sfnt font (TTF/OTF bytes, e.g. from opentype.js) into a WOFF 1.0 file, as web fonts are served. */
import zlib from 'node:zlib';

export function sfntToWoff(sfnt: Buffer): Buffer {
  const numTables = sfnt.readUInt16BE(4);
  const tables = Array.from({ length: numTables }, (_, i) => {
    const rec = 12 + i * 16;
    const offset = sfnt.readUInt32BE(rec + 8);
    const length = sfnt.readUInt32BE(rec + 12);
    const data = sfnt.subarray(offset, offset + length);
    const deflated = zlib.deflateSync(data);
    return {
      tag: sfnt.subarray(rec, rec + 4),
      checksum: sfnt.readUInt32BE(rec + 4),
      origLength: length,
      // Tables that do not shrink are stored as they are (compLength == origLength).
      stored: deflated.length < length ? deflated : data,
    };
  });
  const pad4 = (n: number) => (n + 3) & ~3;
  let offset = 44 + numTables * 20;
  const dir = Buffer.alloc(numTables * 20);
  const chunks: Buffer[] = [];
  tables.forEach((t, i) => {
    t.tag.copy(dir, i * 20);
    dir.writeUInt32BE(offset, i * 20 + 4);
    dir.writeUInt32BE(t.stored.length, i * 20 + 8);
    dir.writeUInt32BE(t.origLength, i * 20 + 12);
    dir.writeUInt32BE(t.checksum, i * 20 + 16);
    const padded = Buffer.alloc(pad4(t.stored.length));
    t.stored.copy(padded);
    chunks.push(padded);
    offset += padded.length;
  });
  const header = Buffer.alloc(44);
  header.write('wOFF', 0, 'latin1');
  sfnt.copy(header, 4, 0, 4); // flavor: 0x00010000 (TrueType) or 'OTTO' (CFF)
  header.writeUInt32BE(offset, 8);
  header.writeUInt16BE(numTables, 12);
  header.writeUInt32BE(12 + numTables * 16 + tables.reduce((n, t) => n + pad4(t.origLength), 0), 16);
  header.writeUInt16BE(1, 20);
  return Buffer.concat([header, dir, ...chunks]);
}
