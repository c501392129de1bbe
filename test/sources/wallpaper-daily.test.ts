import fs from 'node:fs';
import path from 'node:path';
import Parser from 'rss-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import wallpaperDaily, { parseArchive, parsePage, validateWallpaper } from '../../sources/wallpaper-daily.ts';
import { assignedJson } from '../../sources/_shared/embedded-json.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { TestClock } from '../support/clock.ts';
import { describeConformance, readRecording } from '../support/conformance.ts';
import { describeFailureModes } from '../support/failure-modes.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const HOST = 'global.bing.com';
const ARCHIVE = '/HPImageArchive.aspx';
const page = () => fs.readFileSync(path.join(FIXTURE_DIR, HOST, 'index.html'), 'utf8');
const archive = () => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, HOST, `${ARCHIVE}.json`), 'utf8')) as { images: Record<string, unknown>[] };
const now = new Date('2026-11-21T02:00:00Z');
const COVER = 'https://www.bing.com/th?id=OHR.LiRiverMist_ZH-CN5190432817_1920x1080.jpg';
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0xff, 0xd9]);

interface Body {
  code: number;
  message: string;
  data: { date: string; title: string; cover: string; cover_4k: string; source: string; description: string } | null;
}

describe('wallpaper-daily parse', () => {
  it('reads the home page story, whatever the script around it holds', () => {
    const d = parsePage(page(), now);
    expect(d).toMatchObject({
      date: '2026-11-21',
      title: '漓江上的晨雾',
      headline: '江上的晨雾与峰林',
      copyright: '© Example Photographer/Example Images',
      cover: COVER,
      cover_4k: 'https://www.bing.com/th?id=OHR.LiRiverMist_ZH-CN5190432817_UHD.jpg',
      link: 'https://www.bing.com/search?q=%e6%bc%93%e6%b1%9f&form=hpcapt&mkt=zh-cn',
      source: 'page',
      updated_at: now.getTime(),
      update_date_at: now.getTime(),
    });
    expect(d.description).toMatch(/^清晨的薄雾笼罩着漓江/);
    expect(d.main_text).toContain('花括号}不应打断解析');
    expect(validateWallpaper(d)).toBeUndefined();
    expect(assignedJson('<script>var _model = {"a":"};","b":{"c":1}};</script>', 'var _model')).toEqual({ a: '};', b: { c: 1 } });
  });

  it('reads the archive: caption and credit split, the day from the UTC start', () => {
    const d = parseArchive(archive(), now);
    expect(d).toMatchObject({
      date: '2026-11-21',
      title: '漓江上的晨雾',
      description: '桂林漓江沿岸的喀斯特峰林，中国广西',
      copyright: '© Example Photographer/Example Images',
      cover: COVER,
      source: 'archive',
    });
  });

  it('rejects broken copies', () => {
    expect(() => parsePage('<html><body>no story</body></html>', now)).toThrow(SourceError);
    expect(() => parsePage(page().replace('"Wallpaper"', '"Wall"').replace('"Url"', '"Link"'), now)).toThrow(/^missing MediaContents\[0\]\.ImageContent\.Image\.Wallpaper \(in `var _model`\): MediaContents\[0\]\.ImageContent\.Image is an object with keys Link, Wall/);
    expect(() => parseArchive({ images: [] }, now)).toThrow(/images\[0\]/);
    const d = parsePage(page(), now);
    expect(validateWallpaper({ ...d, cover: 'https://example.com/x.jpg' })).toMatch(/implausible cover/);
    expect(validateWallpaper({ ...d, title: '' })).toMatch(/no title/);
  });
});

describe('wallpaper-daily through the server', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, sources: [wallpaperDaily] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('serves json, text, markdown, html, image and image-proxy', async () => {
    const json = await svc.get('/v2/apis/wallpaper-daily');
    expect(json.status).toBe(200);
    const body = (await json.json()) as Body;
    expect(body.data).toMatchObject({ date: '2026-11-21', title: '漓江上的晨雾', source: 'page', cover: COVER });
    expect(upstream.hits(HOST)).toHaveLength(1);
    expect(upstream.hits(HOST)[0]?.query.get('setmkt')).toBe('zh-cn');

    // 60s's text is the bare image URL.
    const text = await (await svc.get('/v2/apis/wallpaper-daily?encoding=text')).text();
    expect(text).toBe(COVER);

    const md = await svc.get('/v2/apis/wallpaper-daily?encoding=markdown');
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const m = await md.text();
    expect(m).toMatch(/^# 漓江上的晨雾\n\n## 江上的晨雾与峰林\n\n!\[漓江上的晨雾\]\(https:\/\/www\.bing\.com\/th\?id=OHR\.LiRiverMist_ZH-CN5190432817_1920x1080\.jpg\)/);

    const html = await (await svc.get('/v2/apis/wallpaper-daily?encoding=html')).text();
    expect(html).toContain(`<img src="${COVER}" alt="漓江上的晨雾">`);

    const image = await svc.get('/v2/apis/wallpaper-daily?encoding=image');
    expect(image.status).toBe(302);
    expect(image.headers.get('location')).toBe(COVER);

    upstream.serve('www.bing.com', '/th', (req) => ({ status: req.query.get('id') === 'OHR.LiRiverMist_ZH-CN5190432817_1920x1080.jpg' ? 200 : 404, headers: { 'content-type': 'image/jpeg' }, body: JPEG }));
    const proxied = await svc.get('/v2/apis/wallpaper-daily?encoding=image-proxy');
    expect(proxied.status).toBe(200);
    expect(proxied.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await proxied.arrayBuffer())).toEqual(JPEG);

    const wrong = await svc.get('/v2/apis/wallpaper-daily?encoding=audio');
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as Body).message).toMatch(/json, text, markdown, html, image, image-proxy, rss/);
  });

  it('falls back to the archive API when the page cannot be read', async () => {
    const clock2 = new TestClock();
    const svc2 = await startService({ upstream, now: clock2.now, sources: [wallpaperDaily] });
    try {
      upstream.serve(HOST, '/', { headers: { 'content-type': 'text/html' }, body: '<html><body><div id="redesigned"></div></body></html>' });
      const body = (await (await svc2.get('/v2/apis/wallpaper-daily')).json()) as Body;
      expect(body.data).toMatchObject({ source: 'archive', date: '2026-11-21', cover: COVER, description: '桂林漓江沿岸的喀斯特峰林，中国广西' });
      expect(upstream.hits(HOST, ARCHIVE)[0]?.query.get('idx')).toBe('0');
    } finally {
      await svc2.close();
    }
  });

  it('answers past days from history, then from the archive for the last 8 days', async () => {
    await svc.get('/v2/apis/wallpaper-daily');
    upstream.reset();
    const today = await svc.get('/v2/apis/wallpaper-daily?date=2026-11-21');
    expect(((await today.json()) as Body).data?.title).toBe('漓江上的晨雾');
    expect(upstream.requests).toHaveLength(0);

    const older = archive();
    Object.assign(older.images[0]!, { fullstartdate: '202611181600', enddate: '20261119', title: '雪后的长城', urlbase: '/th?id=OHR.GreatWallSnow_ZH-CN1111111111', copyright: '雪后的慕田峪长城，北京 (© Example/Images)' });
    upstream.serve(HOST, ARCHIVE, { body: older });
    const past = await svc.get('/v2/apis/wallpaper-daily?date=2026-11-19');
    expect(past.status).toBe(200);
    expect(((await past.json()) as Body).data).toMatchObject({ date: '2026-11-19', title: '雪后的长城', cover: 'https://www.bing.com/th?id=OHR.GreatWallSnow_ZH-CN1111111111_1920x1080.jpg' });
    expect(upstream.hits(HOST, ARCHIVE)[0]?.query.get('idx')).toBe('2');

    const tooOld = await svc.get('/v2/apis/wallpaper-daily?date=2026-11-01');
    expect(tooOld.status).toBe(404);
    expect(((await tooOld.json()) as Body).message).toMatch(/2026-11-14/);
    expect((await svc.get('/v2/apis/wallpaper-daily?date=2026-11-30')).status).toBe(400);
  });

  it('offers one rss item per day from the history, with stable guids', async () => {
    const clock3 = new TestClock();
    const svc3 = await startService({ upstream, now: clock3.now, sources: [wallpaperDaily] });
    try {
      await svc3.get('/v2/apis/wallpaper-daily');
      clock3.advance(86_400_000);
      upstream.serve(HOST, '/', { headers: { 'content-type': 'text/html' }, body: page().replace('2026 11月 21', '2026 11月 22').replace(/LiRiverMist_ZH-CN5190432817/g, 'DesertStars_ZH-CN2222222222').replace('"漓江上的晨雾"', '"沙漠星空"') });
      const first = await new Parser().parseString(await (await svc3.get('/v2/apis/wallpaper-daily?encoding=rss&force-update=1')).text());
      expect(first.items.map((i) => i.title)).toEqual(['2026-11-22 沙漠星空', '2026-11-21 漓江上的晨雾']);
      expect(new Set(first.items.map((i) => i.guid)).size).toBe(2);
      expect(first.items[1]?.content).toContain('<img src="https://www.bing.com/th?id=OHR.LiRiverMist_ZH-CN5190432817_1920x1080.jpg"');
      clock3.advance(3600_000);
      const second = await new Parser().parseString(await (await svc3.get('/v2/apis/wallpaper-daily?encoding=rss&force-update=1')).text());
      expect(second.items.map((i) => i.guid)).toEqual(first.items.map((i) => i.guid));
    } finally {
      await svc3.close();
    }
  });
});

describeFailureModes({
  sources: [wallpaperDaily],
  sourceId: 'wallpaper-daily',
  path: '/v2/apis/wallpaper-daily',
  host: HOST,
  // Both the page and its fallback, the archive API, fail.
  upstreamPath: /^\/(HPImageArchive\.aspx)?$/,
  ttlSec: 1800,
  loginPage: { status: 403, headers: { 'content-type': 'text/html' }, body: '<html><body>请完成验证后继续访问</body></html>' },
  changedShape: { headers: { 'content-type': 'application/json' }, body: '{"MediaContents":null,"pictures":[]}' },
  // A single picture has no "empty list": an answer without any image is a shape error.
  empty: { headers: { 'content-type': 'application/json' }, body: '{"images":[]}' },
  emptyKind: 'parse',
});

describeConformance('bing', 'wallpaper-daily on the real archive recording', (dir) => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    upstream.serve(HOST, '/', { headers: { 'content-type': 'text/html' }, body: '<html><body>home page without the story model</body></html>' });
    upstream.serve(HOST, ARCHIVE, { headers: { 'content-type': 'application/json; charset=utf-8' }, body: readRecording(dir, 'HPImageArchive-zh-CN-n8-2022-09-20.json') });
    svc = await startService({ upstream, now: new TestClock(Date.parse('2022-09-21T02:00:00Z')).now, sources: [wallpaperDaily] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('reads the first archived image', async () => {
    const body = (await (await svc.get('/v2/apis/wallpaper-daily')).json()) as Body;
    expect(body.data).toMatchObject({
      date: '2022-09-21',
      title: '在西尔特的最南端',
      description: '赫努姆的茅草屋顶, 德国叙尔特岛',
      cover: 'https://www.bing.com/th?id=OHR.SyltNordseeHoernum_ZH-CN6316415332_1920x1080.jpg',
      cover_4k: 'https://www.bing.com/th?id=OHR.SyltNordseeHoernum_ZH-CN6316415332_UHD.jpg',
      source: 'archive',
    });
    const image = await svc.get('/v2/apis/wallpaper-daily?encoding=image');
    expect(image.headers.get('location')).toBe('https://www.bing.com/th?id=OHR.SyltNordseeHoernum_ZH-CN6316415332_1920x1080.jpg');
    expect(upstream.unmatched).toEqual([]);
  });
});
