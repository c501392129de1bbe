/**
 * 60s conformance of /v2/apis/hash and /v2/apis/qrcode: every field 60s answers, with its type
 * and meaning (layouts written from its modules' types in our own words), beside our own fields.
 */
import zlib from 'node:zlib';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { getJson, useService } from '../sources/_corpus.ts';
import { layoutMismatches, type Layout } from './layout.ts';

type JsQR = typeof jsQRModule.default;
const jsQR = ((jsQRModule as unknown as { default?: JsQR }).default ?? jsQRModule) as JsQR;

const CODED: Layout = { encoded: 'string', decoded: 'string' };
/** 60s hash: the content, its md5, the SHA digests grouped, and five encoded/decoded pairs. */
const HASH_60S: Layout = { source: 'string', md5: 'string', sha: { sha1: 'string', sha256: 'string', sha512: 'string' }, base64: CODED, url: CODED, gzip: CODED, deflate: CODED, brotli: CODED };
/** 60s qrcode json: the image's MIME type, the text, the image in base64 and as a data URI. */
const QRCODE_60S: Layout = { mime_type: 'string', text: 'string', base64: 'string', data_uri: 'string' };

describe('60s layouts of hash and qrcode', () => {
  const { svc } = useService();

  it('hash has 60s fields and their meaning: compressed outputs in hex, digests of the content', async () => {
    const content = '你好, 60s';
    const { status, body } = await getJson<Record<string, unknown>>(svc(), `/v2/apis/hash?content=${encodeURIComponent(content)}`);
    expect(status).toBe(200);
    expect(layoutMismatches(body.data, HASH_60S)).toEqual([]);
    const d = body.data as { source: string; md5: string; sha: Record<string, string>; gzip: { encoded: string }; deflate: { encoded: string }; brotli: { encoded: string }; base64: { encoded: string }; url: { encoded: string } };
    expect(d.source).toBe(content);
    const crypto = await import('node:crypto');
    expect(d.md5).toBe(crypto.createHash('md5').update(content).digest('hex'));
    for (const alg of ['sha1', 'sha256', 'sha512']) expect(d.sha[alg]).toBe(crypto.createHash(alg).update(content).digest('hex'));
    expect(zlib.gunzipSync(Buffer.from(d.gzip.encoded, 'hex')).toString()).toBe(content);
    expect(zlib.inflateSync(Buffer.from(d.deflate.encoded, 'hex')).toString()).toBe(content);
    expect(zlib.brotliDecompressSync(Buffer.from(d.brotli.encoded, 'hex')).toString()).toBe(content);
    expect(Buffer.from(d.base64.encoded, 'base64').toString()).toBe(content);
    expect(decodeURIComponent(d.url.encoded)).toBe(content);
  });

  it('hash decodes hex-compressed content as 60s does', async () => {
    const hex = zlib.gzipSync('round trip').toString('hex');
    const { body } = await getJson<{ gzip: { decoded: string } }>(svc(), `/v2/apis/hash?content=${hex}`);
    expect(body.data.gzip.decoded).toBe('round trip');
  });

  it('qrcode json has 60s fields: base64 is the image, data_uri its data URI', async () => {
    const { status, body } = await getJson<Record<string, unknown>>(svc(), `/v2/apis/qrcode?text=${encodeURIComponent('60s 二维码')}`);
    expect(status).toBe(200);
    expect(layoutMismatches(body.data, QRCODE_60S)).toEqual([]);
    const d = body.data as { mime_type: string; text: string; base64: string; data_uri: string };
    expect(d.text).toBe('60s 二维码');
    expect(d.data_uri).toBe(`data:${d.mime_type};base64,${d.base64}`);
    const img = PNG.sync.read(Buffer.from(d.base64, 'base64'));
    const code = jsQR(new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length), img.width, img.height);
    expect(code && Buffer.from(code.binaryData).toString('utf8')).toBe('60s 二维码');
  });
});
