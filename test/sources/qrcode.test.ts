import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { CAPACITY_BYTES, DEFAULT_TEXT, MAX_TEXT, type QrData } from '../../sources/qrcode.ts';
import { expectNoServerErrors, getJson, useService } from './_corpus.ts';

// jsqr is CommonJS with an ESM-style `export default` in its types: take the function either way.
type JsQR = typeof jsQRModule.default;
const jsQR = ((jsQRModule as unknown as { default?: JsQR }).default ?? jsQRModule) as JsQR;

/** Decode a PNG QR code back to its text (the UTF-8 bytes jsQR reads). */
function decodePng(png: Buffer): string | undefined {
  const img = PNG.sync.read(png);
  const code = jsQR(new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length), img.width, img.height);
  return code ? Buffer.from(code.binaryData).toString('utf8') : undefined;
}

describe('qrcode through the server', () => {
  const { svc } = useService();
  const image = async (query: string) => {
    const r = await svc().get(`/v2/apis/qrcode?${query}&encoding=image`);
    return { status: r.status, type: r.headers.get('content-type'), body: Buffer.from(await r.arrayBuffer()) };
  };

  it('the PNG decodes back to the exact text', async () => {
    for (const text of ['hello', 'https://example.com/path?q=1&x=%20y', ' spaces kept ', 'line one\nline two']) {
      const r = await image(`text=${encodeURIComponent(text)}`);
      expect(r.status).toBe(200);
      expect(r.type).toBe('image/png');
      expect(decodePng(r.body)).toBe(text);
    }
  });

  it('UTF-8 Chinese text (and emoji) round-trip exactly', async () => {
    for (const text of ['你好，世界！二维码测试', '摸鱼🐟 2026']) {
      const r = await image(`text=${encodeURIComponent(text)}&level=H&size=512`);
      expect(decodePng(r.body)).toBe(text);
    }
  });

  it(`text is optional: ${DEFAULT_TEXT} by default`, async () => {
    const r = await image('');
    expect(decodePng(r.body)).toBe(DEFAULT_TEXT);
    const { body } = await getJson<QrData>(svc(), '/v2/apis/qrcode');
    expect(body.data).toMatchObject({ text: DEFAULT_TEXT, size: 256, level: 'M', format: 'png', mime_type: 'image/png', bytes: DEFAULT_TEXT.length });
    expect(body.data.data_uri).toMatch(/^data:image\/png;base64,/);
    expect(decodePng(Buffer.from(body.data.data_uri.split(',')[1]!, 'base64'))).toBe(DEFAULT_TEXT);
  });

  it('size sets the image width; level is honoured', async () => {
    const r = await image('text=size&size=300');
    const png = PNG.sync.read(r.body);
    expect(png.width).toBeLessThanOrEqual(300);
    expect(png.width).toBeGreaterThan(250);
    expect(png.width).toBe(png.height);
    const small = await getJson<QrData>(svc(), '/v2/apis/qrcode?text=x&level=L');
    expect(small.body.data.level).toBe('L');
  });

  it('SVG format: an SVG image and an SVG data URI', async () => {
    const r = await svc().get('/v2/apis/qrcode?text=svg&format=svg&encoding=image');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('image/svg+xml');
    const svg = await r.text();
    expect(svg).toMatch(/^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain('<path');
    const { body } = await getJson<QrData>(svc(), '/v2/apis/qrcode?text=svg&format=svg');
    expect(body.data).toMatchObject({ format: 'svg', mime_type: 'image/svg+xml' });
    expect(Buffer.from(body.data.data_uri.replace('data:image/svg+xml;base64,', ''), 'base64').toString()).toBe(svg);
  });

  it('text and markdown renderings', async () => {
    const text = await (await svc().get('/v2/apis/qrcode?text=hi&encoding=text')).text();
    expect(text).toMatch(/[█▀▄]/);
    const md = await (await svc().get(`/v2/apis/qrcode?text=${encodeURIComponent('a`b\nc')}&encoding=markdown`)).text();
    expect(md).toContain("- text: `a'b c`");
    expect(md).toContain('![QR code](data:image/png;base64,');
  });

  it('size, level and format are validated with 400s naming them', async () => {
    for (const [q, name] of [
      ['size=63', 'size'],
      ['size=2049', 'size'],
      ['size=abc', 'size'],
      ['level=X', 'level'],
      ['level=mm', 'level'],
      ['format=gif', 'format'],
    ]) {
      const { status, body } = await getJson(svc(), `/v2/apis/qrcode?text=x&${q}`);
      expect(status, q).toBe(400);
      expect(body.message, q).toContain(`"${name}"`);
    }
  });

  it(`too long text: over ${MAX_TEXT} characters, or over the level's byte capacity, is a 400`, async () => {
    const long = await getJson(svc(), `/v2/apis/qrcode?text=${'a'.repeat(MAX_TEXT + 1)}`);
    expect(long.status).toBe(400);
    expect(long.body.message).toContain('"text"');
    // 600 Chinese characters = 1800 bytes: more than level H or Q holds, fits at M and L.
    const zh = encodeURIComponent('码'.repeat(600));
    const h = await getJson(svc(), `/v2/apis/qrcode?text=${zh}&level=H`);
    expect(h.status).toBe(400);
    expect(h.body.message).toContain('1800 bytes');
    expect(h.body.message).toContain(`${CAPACITY_BYTES.H} bytes`);
    expect(h.body.message).toContain('fits at level L, M');
    const m = await svc().get(`/v2/apis/qrcode?text=${zh}&level=M&encoding=image&size=1024`);
    expect(m.status).toBe(200);
    // 1200 Chinese characters (3600 bytes) fit no level.
    const none = await getJson(svc(), `/v2/apis/qrcode?text=${encodeURIComponent('码'.repeat(1200))}&level=L`);
    expect(none.status).toBe(400);
    expect(none.body.message).toContain('the most any level holds');
  });

  it('POST is not a route of this endpoint; odd inputs never answer 500', async () => {
    const post = await svc().get('/v2/apis/qrcode', { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } });
    expect([404, 405]).toContain(post.status);
    await expectNoServerErrors(svc(), '/v2/apis/qrcode', ['text', 'size', 'level', 'format']);
  });
});
