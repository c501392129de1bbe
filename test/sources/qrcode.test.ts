import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { CAPACITY_BYTES, capacityBytes, DEFAULT_TEXT, MAX_TEXT, type QrData } from '../../sources/qrcode.ts';
import { qrImage } from '../../sources/_shared/qr-image.ts';
import { expectNoServerErrors, getJson, useService } from './_corpus.ts';

// jsqr is CommonJS with an ESM-style `export default` in its types: take the function either way.
type JsQR = typeof jsQRModule.default;
const jsQR = ((jsQRModule as unknown as { default?: JsQR }).default ?? jsQRModule) as JsQR;

/** Read a PNG QR code with jsQR: its text (the UTF-8 bytes it holds), its segments and the image width. */
function readPng(png: Buffer): { text: string | undefined; eci: number[]; width: number } {
  const img = PNG.sync.read(png);
  const code = jsQR(new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length), img.width, img.height);
  const eci = (code?.chunks ?? []).flatMap((c) => (c.type === 'eci' ? [(c as { assignmentNumber: number }).assignmentNumber] : []));
  return { text: code ? Buffer.from(code.binaryData).toString('utf8') : undefined, eci, width: img.width };
}

function decodePng(png: Buffer): string | undefined {
  return readPng(png).text;
}

/** Decode a grid of modules (true = dark, quiet zone included) drawn at 4 pixels per module. */
function decodeModules(grid: boolean[][]): string | undefined {
  const scale = 4;
  const h = grid.length * scale;
  const w = (grid[0]?.length ?? 0) * scale;
  const rgba = new Uint8ClampedArray(w * h * 4).fill(255);
  grid.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (!dark) return;
      for (let dy = 0; dy < scale; dy++) for (let dx = 0; dx < scale; dx++) rgba.fill(0, ((y * scale + dy) * w + x * scale + dx) * 4, ((y * scale + dy) * w + x * scale + dx) * 4 + 3);
    }),
  );
  const code = jsQR(rgba, w, h);
  return code ? Buffer.from(code.binaryData).toString('utf8') : undefined;
}

/** The modules an SVG of ours draws: its viewBox grid, dark where a `M x y h n v1 h-n z` run covers. */
function svgModules(svg: string): boolean[][] {
  const total = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)?.[1]);
  const grid = Array.from({ length: total }, () => Array<boolean>(total).fill(false));
  const dark = /<path fill="#000000" d="([^"]*)"/.exec(svg)?.[1] ?? '';
  for (const [, x, y, n] of dark.matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g)) for (let i = 0; i < Number(n); i++) grid[Number(y)]![Number(x) + i] = true;
  return grid;
}

/** The modules of text art: █ both dark, ▀ top, ▄ bottom, two module rows per line. */
function textArtModules(art: string): boolean[][] {
  return art
    .replace(/\n$/, '')
    .split('\n')
    .flatMap((line) => [[...line].map((c) => c === '█' || c === '▀'), [...line].map((c) => c === '█' || c === '▄')]);
}

/** The ECI assignment number of UTF-8. */
const UTF8_ECI = 26;

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

  it('UTF-8 Chinese text (and emoji) round-trip exactly, marked as UTF-8 (ECI 26); ASCII carries no marker', async () => {
    for (const text of ['你好，世界！二维码测试', '摸鱼🐟 2026', 'café']) {
      const r = readPng((await image(`text=${encodeURIComponent(text)}&level=H&size=512`)).body);
      expect(r.text).toBe(text);
      expect(r.eci, text).toEqual([UTF8_ECI]);
    }
    for (const text of ['hello', 'HELLO 123', '0123456789']) {
      const r = readPng((await image(`text=${encodeURIComponent(text)}`)).body);
      expect(r.text).toBe(text);
      expect(r.eci, text).toEqual([]);
    }
  });

  it('every level and size decodes: ASCII, Chinese and long texts', async () => {
    const texts = ['https://example.com/a?b=c', '二维码：扫一扫', 'Long text. '.repeat(60), '长'.repeat(300), '9'.repeat(500)];
    for (const text of texts) {
      for (const level of ['L', 'M', 'Q', 'H']) {
        for (const size of [64, 256, 777]) {
          const r = readPng((await image(`text=${encodeURIComponent(text)}&level=${level}&size=${size}`)).body);
          expect(r.text, `${text.slice(0, 12)} ${level} ${size}`).toBe(text);
          expect(r.width).toBeGreaterThanOrEqual(size);
        }
      }
    }
    const largest = readPng((await image(`text=${encodeURIComponent('最大 2048')}&size=2048`)).body);
    expect(largest).toEqual({ text: '最大 2048', eci: [UTF8_ECI], width: 2048 });
  });

  it('a repeated request answers the same bytes and ETag; a different one another image', async () => {
    const q = `text=${encodeURIComponent('repeat me')}&size=300&encoding=image`;
    const a = await svc().get(`/v2/apis/qrcode?${q}`);
    const b = await svc().get(`/v2/apis/qrcode?${q}`);
    const bodyA = Buffer.from(await a.arrayBuffer());
    expect(Buffer.from(await b.arrayBuffer()).equals(bodyA)).toBe(true);
    expect(a.headers.get('etag')).toMatch(/^"[0-9a-f]{20}"$/);
    expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
    const other = await svc().get(`/v2/apis/qrcode?text=${encodeURIComponent('repeat me!')}&size=300&encoding=image`);
    expect(other.headers.get('etag')).not.toBe(a.headers.get('etag'));
    expect(decodePng(bodyA)).toBe('repeat me');
  });

  it('json has 60s fields: base64 is the image, data_uri its data URI', async () => {
    const { body } = await getJson<QrData>(svc(), `/v2/apis/qrcode?text=${encodeURIComponent('你好')}`);
    expect(body.data.mime_type).toBe('image/png');
    expect(body.data.text).toBe('你好');
    expect(body.data.data_uri).toBe(`data:image/png;base64,${body.data.base64}`);
    const png = Buffer.from(body.data.base64, 'base64');
    const img = await image(`text=${encodeURIComponent('你好')}`);
    expect(img.body.equals(png)).toBe(true);
    expect(readPng(png)).toMatchObject({ text: '你好', eci: [UTF8_ECI] });
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
    expect(png.width).toBe(300);
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
    expect(decodeModules(svgModules(svg))).toBe('svg');
    const zh = await (await svc().get(`/v2/apis/qrcode?text=${encodeURIComponent('矢量图')}&format=svg&encoding=image`)).text();
    expect(decodeModules(svgModules(zh))).toBe('矢量图');
  });

  it('text and markdown renderings', async () => {
    // 60s's text is the image's bare base64: the same bytes as encoding=image.
    const text = await (await svc().get('/v2/apis/qrcode?text=hi&encoding=text')).text();
    const image = Buffer.from(await (await svc().get('/v2/apis/qrcode?text=hi&encoding=image')).arrayBuffer());
    expect(text).toBe(image.toString('base64'));
    // The scannable text art is in the markdown's text block.
    const artOf = (md: string) => /```text\n([\s\S]*?)```/.exec(md)?.[1] ?? '';
    const art = await (await svc().get('/v2/apis/qrcode?text=hi&encoding=markdown')).text();
    expect(artOf(art)).toMatch(/[█▀▄]/);
    expect(decodeModules(textArtModules(artOf(art)))).toBe('hi');
    const zh = await (await svc().get(`/v2/apis/qrcode?text=${encodeURIComponent('文字画')}&encoding=markdown&level=Q`)).text();
    expect(decodeModules(textArtModules(artOf(zh)))).toBe('文字画');
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
    // Non-ASCII text carries the 12-bit UTF-8 marker: one byte less than CAPACITY_BYTES.
    expect(h.body.message).toContain(`${capacityBytes('H', true)} bytes`);
    expect(capacityBytes('H', true)).toBe(CAPACITY_BYTES.H - 1);
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

describe('QR images kept for repeated parameters', () => {
  it('the image drawn for the data is the one sent (no second drawing), and a text asked again stays kept', () => {
    const first = qrImage('kept-probe', 'M', 256, 'png');
    expect(qrImage('kept-probe', 'M', 256, 'png')).toBe(first);
    for (let i = 0; i < 40; i++) qrImage(`one-off-${i}`, 'M', 256, 'png');
    expect(qrImage('kept-probe', 'M', 256, 'png')).toBe(first);
  });
});
