import zlib from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64Bytes, computeHash, MAX_CONTENT, MAX_DECOMPRESSED } from '../../sources/hash.ts';
import { expectNoServerErrors, getJson, useService } from './_corpus.ts';

describe('hash computations', () => {
  it('digests and encodings of a known text', () => {
    const d = computeHash('hello');
    expect(d).toMatchObject({
      content: 'hello',
      length: 5,
      bytes: 5,
      md5: '5d41402abc4b2a76b9719d911017c592',
      sha1: 'aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d',
      sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
      base64: { encoded: 'aGVsbG8=', decoded: '', decodable: false },
      url: { encoded: 'hello', decoded: 'hello', decodable: true },
      compressed_format: 'hex',
    });
    expect(d.source).toBe('hello');
    expect(d.sha).toEqual({ sha1: d.sha1, sha256: d.sha256, sha512: d.sha512 });
    expect(d.sha512).toMatch(/^9b71d224bd62f378/);
    // UTF-8: 4 code points, 12 bytes
    expect(computeHash('你好世界')).toMatchObject({ length: 4, bytes: 12, url: { encoded: '%E4%BD%A0%E5%A5%BD%E4%B8%96%E7%95%8C' } });
    expect(computeHash('😀')).toMatchObject({ length: 1, bytes: 4 });
  });

  it('decodes its input as base64, URL and compressed data', () => {
    expect(computeHash('5L2g5aW9').base64).toEqual({ encoded: 'NUwyZzVhVzk=', decoded: '你好', decodable: true });
    expect(computeHash('a%20b%2Fc').url.decoded).toBe('a b/c');
    const gz = zlib.gzipSync('压缩测试').toString('base64');
    expect(computeHash(gz, 'base64').gzip).toMatchObject({ decoded: '压缩测试', decodable: true });
    const hex = zlib.deflateSync('hex input').toString('hex');
    const h = computeHash(hex, 'hex');
    expect(h.compressed_format).toBe('hex');
    expect(h.deflate).toMatchObject({ decoded: 'hex input', decodable: true });
    expect(h.gzip.encoded).toMatch(/^1f8b/);
  });

  it('compressed outputs decompress to the content at any length (brotli window sized to the input)', () => {
    for (const s of ['', 'a', 'abc', '压缩'.repeat(40), 'x'.repeat(5000), 'y'.repeat(70_000)]) {
      const d = computeHash(s);
      expect(zlib.gunzipSync(Buffer.from(d.gzip.encoded, 'hex')).toString()).toBe(s);
      expect(zlib.inflateSync(Buffer.from(d.deflate.encoded, 'hex')).toString()).toBe(s);
      expect(zlib.brotliDecompressSync(Buffer.from(d.brotli.encoded, 'hex')).toString()).toBe(s);
    }
  });

  it('short texts compress (at brotli quality 2) to at most 6 bytes more than quality 9', () => {
    const text = 'The quick brown fox jumps over the lazy dog, 今天天气很好 https://example.com/a?b=c 1234567890 Lorem ipsum 今天天气很好';
    for (let n = 1; Buffer.byteLength(text.slice(0, n)) < 100; n++) {
      const s = text.slice(0, n);
      const q9 = zlib.brotliCompressSync(Buffer.from(s), { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9 } });
      const ours = Buffer.from(computeHash(s).brotli.encoded, 'hex');
      expect(ours.length, s).toBeLessThanOrEqual(q9.length + 6);
      expect(zlib.brotliDecompressSync(ours).toString()).toBe(s);
    }
  });

  it('a content asked for again is kept (the same result object from then on), other content another', () => {
    const first = computeHash('kept');
    const second = computeHash('kept');
    expect(second).toEqual(first);
    expect(computeHash('kept')).toBe(second);
    expect(computeHash('kept')).toBe(second);
    computeHash('kept', 'base64');
    expect(computeHash('kept', 'base64')).not.toBe(computeHash('kept'));
    expect(computeHash('kept', 'base64').gzip.encoded).toMatch(/^H4sI/);
  });

  it('invalid input for a decoder gives "" and decodable false, never an exception', () => {
    for (const bad of ['%', '%E0%A4%A', '%%41', '%ZZ', 'not base64!', '====', 'QQ=', 'Q', '\uD800', '//8=', 'H4sI']) {
      const d = computeHash(bad);
      for (const k of ['base64', 'url', 'gzip', 'deflate', 'brotli'] as const) {
        expect(typeof d[k].decoded).toBe('string');
        if (!d[k].decodable) expect(d[k].decoded).toBe('');
      }
    }
    expect(computeHash('%E0%A4%A').url).toEqual({ encoded: '%25E0%25A4%25A', decoded: '', decodable: false });
    // Bytes that are not UTF-8 text: not decodable.
    expect(computeHash('//8=').base64.decodable).toBe(false);
  });

  it('accepts URL-safe base64 and missing padding, refuses non-canonical forms', () => {
    expect(base64Bytes('-_8')?.toString('hex')).toBe('fbff');
    expect(base64Bytes('aGk')?.toString()).toBe('hi');
    expect(base64Bytes('aGk=')?.toString()).toBe('hi');
    expect(base64Bytes('aGl=')).toBeUndefined();
    expect(base64Bytes('aG k=\n')?.toString()).toBe('hi');
    expect(base64Bytes('a+b_')).toBeUndefined();
    expect(base64Bytes('')).toBeUndefined();
  });

  it(`caps decompressed output at ${MAX_DECOMPRESSED} bytes (compression bombs)`, () => {
    const bomb = zlib.gzipSync(Buffer.alloc(MAX_DECOMPRESSED + 10, 0x61)).toString('base64');
    expect(bomb.length).toBeLessThan(MAX_CONTENT);
    expect(computeHash(bomb, 'base64').gzip).toMatchObject({ decoded: '', decodable: false });
  });
});

describe('hash round trips (property-based)', () => {
  const text = fc.string({ unit: 'grapheme', maxLength: 200 });
  it('base64: decode(encode(s)) = s', () => {
    fc.assert(
      fc.property(text, (s) => {
        const enc = computeHash(s).base64.encoded;
        const back = computeHash(enc).base64;
        return s === '' ? back.decodable === false : back.decodable && back.decoded === s;
      }),
    );
  });
  it('URL: decode(encode(s)) = s', () => {
    fc.assert(fc.property(text, (s) => computeHash(computeHash(s).url.encoded).url.decoded === s));
  });
  it('gzip, deflate, brotli: decompress(compress(s)) = s, in base64 and in hex', () => {
    fc.assert(
      fc.property(text, fc.constantFrom('base64' as const, 'hex' as const), (s, format) => {
        const c = computeHash(s, format);
        return (['gzip', 'deflate', 'brotli'] as const).every((k) => {
          const back = computeHash(c[k].encoded, format)[k];
          return back.decodable && back.decoded === s;
        });
      }),
      { numRuns: 60 },
    );
  });
  it('never throws, whatever the input', () => {
    const anyUnit = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)), maxLength: 300 });
    fc.assert(fc.property(anyUnit, fc.constantFrom('base64' as const, 'hex' as const), (s, f) => typeof computeHash(s, f).md5 === 'string'), { numRuns: 150 });
  });
});

describe('hash through the server', () => {
  const { svc } = useService();

  it('GET with content; json envelope with nested codecs', async () => {
    const { status, body } = await getJson<{ md5: string; base64: { encoded: string } }>(svc(), '/v2/apis/hash?content=hello');
    expect(status).toBe(200);
    expect(body.data.md5).toBe('5d41402abc4b2a76b9719d911017c592');
    expect(body.data.base64.encoded).toBe('aGVsbG8=');
  });

  it('content is required: 400 naming it', async () => {
    const { status, body } = await getJson(svc(), '/v2/apis/hash');
    expect(status).toBe(400);
    expect(body.message).toContain('"content"');
  });

  it('POST: JSON, form and plain-text bodies; white space is kept', async () => {
    const post = (body: string, type: string) => svc().get('/v2/apis/hash', { method: 'POST', body, headers: { 'content-type': type } });
    const j = (await (await post(JSON.stringify({ content: ' a b ' }), 'application/json')).json()) as { data: { content: string; bytes: number } };
    expect(j.data).toMatchObject({ content: ' a b ', bytes: 5 });
    const f = (await (await post('content=x%2By', 'application/x-www-form-urlencoded')).json()) as { data: { content: string } };
    expect(f.data.content).toBe('x+y');
    const t = (await (await post('plain text\nwith lines', 'text/plain')).json()) as { data: { content: string } };
    expect(t.data.content).toBe('plain text\nwith lines');
  });

  it(`content over ${MAX_CONTENT} characters is a 400 naming it`, async () => {
    const r = await svc().get('/v2/apis/hash', { method: 'POST', body: 'x'.repeat(MAX_CONTENT + 1), headers: { 'content-type': 'text/plain' } });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { message: string }).message).toContain('"content"');
  });

  it('format=hex writes compressed bytes in hex; a bad format is a 400', async () => {
    const { body } = await getJson<{ gzip: { encoded: string } }>(svc(), '/v2/apis/hash?content=hi&format=hex');
    expect(body.data.gzip.encoded).toMatch(/^1f8b[0-9a-f]+$/);
    expect((await getJson(svc(), '/v2/apis/hash?content=hi&format=binary')).status).toBe(400);
  });

  it('text prints every value, nested ones included (never [object Object])', async () => {
    const text = await (await svc().get('/v2/apis/hash?content=hello&encoding=text')).text();
    expect(text).not.toContain('[object Object]');
    expect(text).toContain('md5: 5d41402abc4b2a76b9719d911017c592');
    expect(text).toContain('base64 encoded: aGVsbG8=');
    expect(text).toContain('url decoded: hello');
    expect(text).toMatch(/gzip encoded \(hex\): 1f8b/);
    expect(text).toContain('base64 decoded: (content is not valid input for this decoder)');
    const md = await (await svc().get('/v2/apis/hash?content=hello&encoding=markdown')).text();
    expect(md).not.toContain('[object Object]');
    expect(md).toContain('| md5 | `5d41402abc4b2a76b9719d911017c592` |');
  });

  it('a lone surrogate in a JSON body is hashed and URL-encoded as U+FFFD', async () => {
    const r = await svc().get('/v2/apis/hash', { method: 'POST', body: '{"content":"a\\ud800"}', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(200);
    const d = ((await r.json()) as { data: { url: { encoded: string }; md5: string } }).data;
    expect(d.url.encoded).toBe('a%EF%BF%BD');
    expect(d.md5).toBe(computeHash('a\uFFFD').md5);
  });

  it('malformed %-escapes, bad base64 and other odd inputs never answer 500', async () => {
    await expectNoServerErrors(svc(), '/v2/apis/hash?content=x', ['content', 'format']);
    for (const raw of ['%', '%E0%A4%A', '%C0%AF', '%FF%FE', '%25', '%u0041']) {
      const r = await svc().get(`/v2/apis/hash?content=${raw}`);
      expect(r.status, raw).toBeLessThan(500);
    }
  });
});
