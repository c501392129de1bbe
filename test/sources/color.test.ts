import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { colorInfo, colourName, contrastRatio, hslToRgb, palettes, parseHex, rgbToCmyk, rgbToHsl, rgbToHsv, rgbToLab, toHex, type PaletteResult } from '../../sources/color.ts';
import { BROWSER_REQUIRED, HAVE_BROWSER, launchBrowser, NO_BROWSER_MESSAGE } from '../ops/support.ts';
import { expectNoServerErrors, getJson, useService } from './_corpus.ts';

const rgbArb = fc.record({ r: fc.integer({ min: 0, max: 255 }), g: fc.integer({ min: 0, max: 255 }), b: fc.integer({ min: 0, max: 255 }) });

describe('colour conversions: known values', () => {
  it('parses 3 and 6 hex digits with or without #', () => {
    expect(parseHex('#FF5733')).toEqual({ r: 255, g: 87, b: 51 });
    expect(parseHex('f53')).toEqual({ r: 255, g: 85, b: 51 });
    expect(toHex({ r: 255, g: 85, b: 51 })).toBe('#FF5533');
  });

  it('HSL, HSV, CMYK and Lab (D65) of #FF5733 and of primaries', () => {
    const d = colorInfo(parseHex('FF5733'));
    expect(d.hsl).toMatchObject({ h: 10.6, s: 100, l: 60 });
    expect(d.hsv).toMatchObject({ h: 10.6, s: 80, v: 100 });
    expect(d.cmyk).toMatchObject({ c: 0, m: 65.9, y: 80, k: 0 });
    expect(d.lab.l).toBeCloseTo(60.18, 1);
    expect(d.lab.a).toBeCloseTo(62.06, 1);
    expect(d.lab.b).toBeCloseTo(54.34, 1);
    // Reference Lab values of sRGB primaries (D65).
    const red = rgbToLab({ r: 255, g: 0, b: 0 });
    expect(red.l).toBeCloseTo(53.24, 1);
    expect(red.a).toBeCloseTo(80.09, 1);
    expect(red.b).toBeCloseTo(67.2, 1);
    const white = rgbToLab({ r: 255, g: 255, b: 255 });
    expect(white.l).toBeCloseTo(100, 2);
    expect(white.a).toBeCloseTo(0, 2);
    expect(white.b).toBeCloseTo(0, 2);
    expect(rgbToCmyk({ r: 0, g: 0, b: 0 })).toEqual({ c: 0, m: 0, y: 0, k: 100 });
    expect(rgbToHsv({ r: 0, g: 128, b: 0 }).v).toBeCloseTo(50.2, 1);
  });

  it('WCAG contrast: 21 for black on white, 4.5 boundary checks', () => {
    expect(contrastRatio({ r: 0, g: 0, b: 0 }, { r: 255, g: 255, b: 255 })).toBeCloseTo(21, 5);
    const grey = colorInfo(parseHex('767676'));
    expect(grey.contrast.white).toBe(4.54);
    expect(grey.accessibility.on_white).toMatchObject({ aa_normal: true, aa_large: true, aaa_normal: false, aaa_large: true });
    const d = colorInfo(parseHex('FF5733'));
    expect(d.contrast).toEqual({ white: 3.15, black: 6.66 });
    expect(d.accessibility.best_text_color).toBe('#000000');
    expect(colorInfo(parseHex('000080')).accessibility.best_text_color).toBe('#FFFFFF');
  });

  it('names colour families', () => {
    expect(colourName(rgbToHsl(parseHex('FF0000')))).toBe('红色系');
    expect(colourName(rgbToHsl(parseHex('0000FF')))).toBe('蓝色系');
    expect(colourName(rgbToHsl(parseHex('00A000')))).toBe('绿色系');
    expect(colourName(rgbToHsl(parseHex('808080')))).toBe('灰色系');
    expect(colourName(rgbToHsl(parseHex('000000')))).toBe('黑色系');
    expect(colourName(rgbToHsl(parseHex('FFFFFF')))).toBe('白色系');
  });

  it('palettes follow colour theory', () => {
    const p = palettes(parseHex('FF0000'));
    expect(p.map((x) => x.name_en)).toEqual(['monochromatic', 'complementary', 'analogous', 'triadic', 'split-complementary', 'tetradic']);
    expect(p[1]!.colors.map((c) => c.hex)).toEqual(['#FF0000', '#00FFFF']);
    expect(p[3]!.colors.map((c) => c.hex)).toEqual(['#FF0000', '#00FF00', '#0000FF']);
    expect(p[2]!.colors.map((c) => c.hex)).toEqual(['#FF0080', '#FF0000', '#FF8000']);
    expect(p[4]!.colors.map((c) => c.hex)).toEqual(['#FF0000', '#00FF80', '#0080FF']);
    expect(p[5]!.colors.map((c) => c.hex)).toEqual(['#FF0000', '#FFFF00', '#00FFFF', '#0000FF']);
    expect(p[0]!.colors.map((c) => rgbToHsl(parseHex(c.hex)).l).every((l, i, a) => i === 0 || l > a[i - 1]!)).toBe(true);
  });
});

describe('colour conversions (property-based)', () => {
  it('hex → rgb → hsl (as served, 1 decimal) → rgb within 1 unit', () => {
    fc.assert(
      fc.property(rgbArb, (rgb) => {
        const served = colorInfo(parseHex(toHex(rgb))).hsl;
        const back = hslToRgb(served);
        return Math.abs(back.r - rgb.r) <= 1 && Math.abs(back.g - rgb.g) <= 1 && Math.abs(back.b - rgb.b) <= 1;
      }),
      { numRuns: 2000 },
    );
  });

  it('hex round trip is exact', () => {
    fc.assert(
      fc.property(rgbArb, (rgb) => {
        expect(parseHex(toHex(rgb))).toEqual(rgb);
      }),
    );
  });

  it('contrast is symmetric, at least 1 and at most 21', () => {
    fc.assert(
      fc.property(rgbArb, rgbArb, (a, b) => {
        const x = contrastRatio(a, b);
        return Math.abs(x - contrastRatio(b, a)) < 1e-12 && x >= 1 && x <= 21 + 1e-9 && Math.abs(contrastRatio(a, a) - 1) < 1e-12;
      }),
      { numRuns: 1000 },
    );
  });

  it('HSV and CMYK stay in range, Lab L in [0, 100]', () => {
    fc.assert(
      fc.property(rgbArb, (rgb) => {
        const v = rgbToHsv(rgb);
        const c = rgbToCmyk(rgb);
        const l = rgbToLab(rgb);
        return [v.s, v.v, c.c, c.m, c.y, c.k].every((n) => n >= -1e-9 && n <= 100 + 1e-9) && l.l >= -1e-9 && l.l <= 100 + 1e-6;
      }),
    );
  });
});

describe('color through the server', () => {
  const { svc } = useService();

  it('/color/random answers the given colour, or a random one', async () => {
    const { body } = await getJson<{ hex: string; rgb: { string: string } }>(svc(), '/v2/apis/color/random?color=%23f53');
    expect(body.data.hex).toBe('#FF5533');
    expect(body.data.rgb.string).toBe('rgb(255, 85, 51)');
    const r = await getJson<{ hex: string }>(svc(), '/v2/apis/color/random');
    expect(r.body.data.hex).toMatch(/^#[0-9A-F]{6}$/);
  });

  it('/color/palette answers six palettes of the base colour', async () => {
    const { body } = await getJson<PaletteResult>(svc(), '/v2/apis/color/palette?color=FF0000');
    expect(body.data.input.hex).toBe('#FF0000');
    expect(body.data.total).toBe(6);
    expect(body.data.palettes[1]!.colors[1]!.hex).toBe('#00FFFF');
  });

  it('text, markdown and html renderings; other encodings are 400', async () => {
    const text = await (await svc().get('/v2/apis/color/random?color=FF5733&encoding=text')).text();
    expect(text).toMatch(/^#FF5733（红色系）\nRGB {2}rgb\(255, 87, 51\)/);
    const md = await (await svc().get('/v2/apis/color/palette?color=FF5733&encoding=markdown')).text();
    expect(md).toContain('## 互补（complementary）');
    const html = await svc().get('/v2/apis/color/palette?color=FF5733&encoding=html');
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await html.text()).toContain('background:#FF5733');
    // The page's footer has no time: an unchanged page keeps its ETag.
    const again = await svc().get('/v2/apis/color/palette?color=FF5733&encoding=html');
    expect(again.headers.get('etag')).toBe(html.headers.get('etag'));
    const bad = await getJson(svc(), '/v2/apis/color/random?encoding=rss');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('json, text, markdown, html');
  });

  it('bad hex is a 400 naming color and showing the accepted form', async () => {
    for (const bad of ['GGGGGG', '12345', '%231234567', 'red', '%23%23fff', '0x123']) {
      const { status, body } = await getJson(svc(), `/v2/apis/color/random?color=${bad}`);
      expect(status, bad).toBe(400);
      expect(body.message).toContain('"color"');
      expect(body.message).toContain('3 or 6 hex digits');
    }
    expect((await getJson(svc(), '/v2/apis/color/palette?color=xyz')).status).toBe(400);
  });

  it('the route fixes the tool: it is not a query parameter', async () => {
    const { body } = await getJson<Record<string, unknown>>(svc(), '/v2/apis/color/random?color=FF0000&tool=palette');
    expect(body.data.hex).toBe('#FF0000');
    const cat = (await (await svc().get('/v2/apis')).json()) as { data: { endpoints: { path: string; params: { name: string }[] }[] } };
    const entry = cat.data.endpoints.find((e) => e.path === '/v2/apis/color/palette');
    expect(entry?.params.map((p) => p.name)).toEqual(['color']);
  });

  it('odd inputs never answer 500', async () => {
    await expectNoServerErrors(svc(), '/v2/apis/color/random', ['color']);
    await expectNoServerErrors(svc(), '/v2/apis/color/palette', ['color']);
  });
});

const skipBrowser = !HAVE_BROWSER && !BROWSER_REQUIRED;
describe.skipIf(skipBrowser)(skipBrowser ? NO_BROWSER_MESSAGE : 'color html pages in headless Chromium', () => {
  const { svc } = useService();
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('the palette page shows every swatch in its colour, with readable text', async () => {
    const page = await browser.newPage();
    await page.goto(`${svc().base}/v2/apis/color/palette?color=3366CC&encoding=html`);
    expect(await page.title()).toBe('配色方案 #3366CC（蓝色系）');
    const chips = await page.$$eval('.chip', (els) => els.map((e) => ({ text: e.querySelector('b')?.textContent ?? '', bg: getComputedStyle(e).backgroundColor, fg: getComputedStyle(e).color, h: e.getBoundingClientRect().height })));
    expect(chips).toHaveLength(5 + 2 + 3 + 3 + 3 + 4);
    for (const c of chips) {
      const { r, g, b } = parseHex(c.text);
      expect(c.bg, c.text).toBe(`rgb(${r}, ${g}, ${b})`);
      const fg = c.fg.match(/\d+/g)!.map(Number);
      expect(contrastRatio({ r, g, b }, { r: fg[0]!, g: fg[1]!, b: fg[2]! }), c.text).toBeGreaterThanOrEqual(4.5);
      expect(c.h).toBeGreaterThan(40);
    }
    await page.close();
  });

  it('the random page shows the big swatch and the conversion table', async () => {
    const page = await browser.newPage();
    await page.goto(`${svc().base}/v2/apis/color/random?color=FF5733&encoding=html`);
    expect(await page.locator('.chip.big').evaluate((e) => getComputedStyle(e).backgroundColor)).toBe('rgb(255, 87, 51)');
    expect(await page.locator('table').innerText()).toContain('hsl(10.6, 100%, 60%)');
    await page.close();
  });
});
