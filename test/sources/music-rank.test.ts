import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import musicRank, { durationDesc, parseChart, parseCharts, sizeDesc, validate, type ChartDetail, type ChartList } from '../../sources/music-rank.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { TestClock } from '../support/clock.ts';
import { NO_CLIENT_LIMITS, expectKeptAfterFailure, expectStableGuids, expectUnavailable, forceRefresh, getFeed, getJson, getRenderings, sourceStatus } from '../support/endpoint-checks.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const HOST = 'music.163.com';
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, HOST, 'api', name), 'utf8')) as Record<string, unknown>;

describe('music-rank parse', () => {
  it('reads the chart directory with absolute links, covers and time pairs', () => {
    const data = parseCharts(fixture('toplist.json'));
    expect(data).toHaveLength(8);
    expect(data[0]).toMatchObject({
      rank: 1,
      title: '飙升榜',
      id: 19723756,
      name: '飙升榜',
      link: 'https://music.163.com/#/discover/toplist?id=19723756',
      cover: 'http://p1.music.126.net/fixture0==/109951160000000000.jpg',
      update_frequency: '每天更新',
      description: '热度上升最快的一百首单曲，每日更新。',
      track_count: 100,
      play_count: 8123456789,
      hot_value: 8123456789,
      subscribed_count: 4521337,
      updated_at: 1763500000000,
      updated: '2025-11-19 05:06:40',
      created_at: 1404115136883,
    });
    expect(data[6]?.description).toBeNull();
    expect(data.map((c) => c.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(validate(data)).toBeUndefined();
  });

  it('reads a chart: tracks with artists, album, duration and audio qualities', () => {
    const data = parseChart(fixture('playlist/detail.json'), '3778678');
    expect(data).toHaveLength(6);
    expect(data.every((t) => t.rank_name === '热歌榜')).toBe(true);
    const first = data[0]!;
    expect(first).toMatchObject({
      rank: 1,
      id: 300001,
      title: '夜航星',
      link: 'https://music.163.com/#/song?id=300001',
      cover: 'http://p2.music.126.net/album2001.jpg',
      duration: 245000,
      duration_desc: '4:05',
      popularity: 100,
      score: 95,
      fee: 8,
      status: 0,
    });
    expect(first.artist).toEqual([{ id: 1001, name: '林间鹿', link: 'https://music.163.com/#/artist?id=1001', cover: 'http://p1.music.126.net/artist1001.jpg' }]);
    expect(first.album).toEqual({
      id: 2001,
      name: '远方来信',
      link: 'https://music.163.com/#/album?id=2001',
      cover: 'http://p2.music.126.net/album2001.jpg',
      published: '2023-11-15',
      published_at: 1700000000000,
      company: '鹿鸣音乐',
    });
    expect(first.mb.sq).toEqual({ size: 31457280, size_desc: '30 MB', bitrate: 999000, extension: 'flac' });
    expect(first.mb.hq).toEqual({ size: 9830400, size_desc: '9.38 MB', bitrate: 320000, extension: 'mp3' });
    expect(data[1]?.artist.map((a) => a.name)).toEqual(['青柠', '阿杰']);
    expect(data[1]?.mb.sq).toBeNull();
    expect(data[3]?.album).toMatchObject({ published: '', published_at: 0 });
    expect(data[4]?.mb.hq).toBeNull();
    expect(validate(data)).toBeUndefined();
  });

  it('reads the v6 track shape (ar, al, dt, h) as well', () => {
    const raw = { code: 200, playlist: { id: 5, name: 'v6', tracks: [{ id: 9, name: 'Song', ar: [{ id: 3, name: 'A' }], al: { id: 4, name: 'Al', picUrl: 'https://p1.music.126.net/x.jpg' }, dt: 61000, pop: 50, h: { br: 320000, size: 2048 } }] } };
    const data = parseChart(raw, '5');
    expect(data[0]).toMatchObject({ title: 'Song', rank_name: 'v6', duration_desc: '1:01', artist: [{ id: 3, name: 'A', cover: '' }], album: { id: 4, cover: 'https://p1.music.126.net/x.jpg' }, score: 50 });
    expect(data[0]?.mb.hq).toEqual({ size: 2048, size_desc: '2 KB', bitrate: 320000, extension: null });
  });

  it('formats sizes and durations', () => {
    expect(sizeDesc(512)).toBe('512 B');
    expect(sizeDesc(3_456_789)).toBe('3.3 MB');
    expect(durationDesc(59_600)).toBe('1:00');
  });

  it('rejects broken copies and classifies upstream refusals', () => {
    const charts = parseCharts(fixture('toplist.json'));
    expect(validate([])).toMatch(/at least 5/);
    expect(validate(charts.slice(0, 4))).toMatch(/at least 5/);
    expect(validate(charts.map((c, i) => (i === 2 ? { ...c, title: '' } : c)))).toMatch(/item 3/);
    const chart = parseChart(fixture('playlist/detail.json'), '3778678');
    expect(validate(chart.slice(0, 1))).toBeUndefined();
    expect(validate(chart.map((t, i) => (i === 1 ? { ...t, link: '' } : t)))).toMatch(/item 2/);
    expect(() => parseChart({ code: 200, result: { name: '', tracks: [] } }, '1')).toThrow('result.name is not the name of playlist 1: it is the string ""');
    expect(() => parseCharts({ code: 200 })).toThrow(/^missing list \(an array\): the answer is an object with keys code$/);
    expect(() => parseCharts({ code: -460, message: 'Cheating' })).toThrow(expect.objectContaining({ kind: 'blocked' }) as SourceError);
    expect(() => parseChart({ code: 404, msg: 'not found' }, '1')).toThrow(expect.objectContaining({ kind: 'not_found' }) as SourceError);
    expect(() => parseChart({ code: 200, result: { name: 'x' } }, '1')).toThrow(expect.objectContaining({ kind: 'parse' }) as SourceError);
    expect(() => parseChart('<html>', '1')).toThrow(/not a JSON object/);
  });
});

describe('music-rank through the server', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, sources: [musicRank], env: { ...NO_CLIENT_LIMITS, HTTP_TIMEOUT_MS: '500' } });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('serves the chart list in every encoding (list wins over :id)', async () => {
    const { res, data } = await getJson<ChartList>(svc, '/v2/apis/music-rank/list');
    expect(res.headers.get('x-cache')).toBe('MISS');
    expect(data[3]).toMatchObject({ title: '热歌榜', id: 3778678 });
    expect(upstream.hits(HOST)).toHaveLength(1);
    expect(upstream.hits(HOST)[0]?.path).toBe('/api/toplist');
    expect(upstream.hits(HOST)[0]?.headers.referer).toBe('https://music.163.com/');

    const { text, markdown, html } = await getRenderings(svc, '/v2/apis/music-rank/list');
    expect(text).toMatch(/^网易云音乐排行榜\n/);
    expect(text).toContain('1. 飙升榜 (每天更新)');
    expect(markdown).toContain('1. [飙升榜](https://music.163.com/#/discover/toplist?id=19723756) (每天更新)');
    expect(html).toContain('<a href="https://music.163.com/#/discover/toplist?id=3778678"');
    const feed = await getFeed(svc, '/v2/apis/music-rank/list');
    expect(feed.items).toHaveLength(8);
    expect(feed.items[0]?.link).toBe('https://music.163.com/#/discover/toplist?id=19723756');
    // A query id does not turn the directory into a chart.
    const withId = await getJson<ChartList>(svc, '/v2/apis/music-rank/list?id=3778678');
    expect(withId.res.headers.get('x-cache')).toBe('HIT');
    expect(withId.data[0]).toHaveProperty('update_frequency');
    expect(upstream.hits(HOST)).toHaveLength(1);
    const catalogue = (await (await svc.get('/v2/apis')).json()) as { data: { endpoints: { path: string; params: { name: string; in: string }[] }[] } };
    // `id` is fixed on this route; only the archive's `date`/`at` (every scheduled source) remain.
    expect(catalogue.data.endpoints.find((e) => e.path === '/v2/apis/music-rank/list')?.params.map((p) => p.name)).toEqual(['date', 'at']);
    expect(catalogue.data.endpoints.find((e) => e.path === '/v2/apis/music-rank/:id')?.params).toMatchObject([{ name: 'id', in: 'path' }, { name: 'date' }, { name: 'at' }]);
  });

  it('fetches a chart by id on demand and caches it per id', async () => {
    const { res, data } = await getJson<ChartDetail>(svc, '/v2/apis/music-rank/3778678');
    expect(res.headers.get('x-cache')).toBe('MISS');
    expect(data[0]).toMatchObject({ title: '夜航星', rank_name: '热歌榜' });
    expect(upstream.hits(HOST, '/api/playlist/detail')[0]?.query.get('id')).toBe('3778678');

    const { text, markdown, html } = await getRenderings(svc, '/v2/apis/music-rank/3778678');
    expect(text).toMatch(/^网易云音乐 · 热歌榜\n/);
    expect(text).toContain('1. 夜航星 - 林间鹿 (4:05)');
    expect(text).toContain('2. 海边的风 - 青柠、阿杰 (3:19)');
    expect(markdown).toContain('1. [夜航星 - 林间鹿](https://music.163.com/#/song?id=300001) (4:05)');
    expect(html).toContain('专辑：远方来信');
    const feed = await getFeed(svc, '/v2/apis/music-rank/3778678');
    expect(feed.items.map((i) => i.guid)).toContain('https://music.163.com/#/song?id=300004');
    expect(upstream.hits(HOST)).toHaveLength(1);

    // Another id is another cache entry.
    upstream.serve(HOST, '/api/playlist/detail', (req) => {
      const doc = fixture('playlist/detail.json') as { result: { id: number; name: string } };
      doc.result.id = Number(req.query.get('id'));
      doc.result.name = '新歌榜';
      return { body: doc };
    });
    const other = await getJson<ChartDetail>(svc, '/v2/apis/music-rank/3779629');
    expect(other.data[0]?.rank_name).toBe('新歌榜');
    expect((await getJson<ChartDetail>(svc, '/v2/apis/music-rank/3778678')).data[0]?.rank_name).toBe('热歌榜');
    expect(upstream.hits(HOST).map((h) => h.query.get('id'))).toEqual(['3778678', '3779629']);
    expect((await sourceStatus(svc, 'music-rank')).keys).toBe(3);
  });

  it('keeps rss guids stable across refreshes', async () => {
    await expectStableGuids(svc, clock, '/v2/apis/music-rank/list');
    await expectStableGuids(svc, clock, '/v2/apis/music-rank/3778678');
    const before = await getFeed(svc, '/v2/apis/music-rank/list');
    const doc = fixture('toplist.json') as { list: unknown[] };
    doc.list.reverse();
    upstream.serve(HOST, '/api/toplist', { body: doc });
    expect((await forceRefresh(svc, clock, '/v2/apis/music-rank/list')).headers.get('x-cache')).toBe('MISS');
    const after = await getFeed(svc, '/v2/apis/music-rank/list');
    expect(after.items.map((i) => i.guid)).toEqual([...before.items.map((i) => i.guid)].reverse());
  });

  it('validates the id and answers 404 for an unknown playlist', async () => {
    const bad = await svc.get('/v2/apis/music-rank/abc');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/"id".*numeric playlist id/);
    upstream.serve(HOST, '/api/playlist/detail', { body: { code: 404, msg: '歌单不存在' } });
    const missing = await svc.get('/v2/apis/music-rank/123');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { message: string }).message).toMatch(/no playlist with id 123/);
    expect((await sourceStatus(svc, 'music-rank')).fail_count).toBe(0);
  });

  it('keeps the last good chart list through upstream failures', async () => {
    const path = '/v2/apis/music-rank/list';
    const good = (await getJson<ChartList>(svc, path)).data;

    upstream.serve(HOST, '/api/toplist', { status: 502, body: 'Bad Gateway' });
    expect((await expectKeptAfterFailure<ChartList>(svc, clock, path, 'music-rank', /^transient: .*HTTP 502/))).toEqual(good);

    upstream.serve(HOST, '/api/toplist', { body: { code: -460, message: 'Cheating' } });
    expect((await expectKeptAfterFailure<ChartList>(svc, clock, path, 'music-rank', /^blocked: .*code=-460/))).toHaveLength(8);

    upstream.serve(HOST, '/api/toplist', { headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<html><body>验证</body></html>' });
    await expectKeptAfterFailure(svc, clock, path, 'music-rank', /^blocked: .*HTML page/);

    upstream.serve(HOST, '/api/toplist', { body: { code: 200, data: { charts: [] } } });
    await expectKeptAfterFailure(svc, clock, path, 'music-rank', /^parse: missing list \(an array\)/);

    upstream.serve(HOST, '/api/toplist', { body: { code: 200, list: [] } });
    await expectKeptAfterFailure(svc, clock, path, 'music-rank', /^empty: rejected: expected at least 5/);

    // Past the TTL, a plain read serves the kept list as STALE.
    clock.advance(2 * 3600_000);
    const stale = await svc.get(path);
    expect(stale.headers.get('x-cache')).toBe('STALE');
    expect(((await stale.json()) as { data: ChartList }).data).toEqual(good);
    await new Promise((r) => setTimeout(r, 100));
  });

  it('answers 503 with Retry-After for a cold id when the upstream fails or is slow', async () => {
    upstream.serve(HOST, '/api/playlist/detail', { status: 500, body: 'oops' });
    expect(await expectUnavailable(svc, '/v2/apis/music-rank/2884035', '网易云音乐排行榜')).toMatch(/HTTP 500/);
    upstream.serve(HOST, '/api/playlist/detail', { delayMs: 1500, body: fixture('playlist/detail.json') });
    expect(await expectUnavailable(svc, '/v2/apis/music-rank/71384707', '网易云音乐排行榜')).toMatch(/timed out/);
  });
});

const SHARED = path.resolve(import.meta.dirname, '../../../shared/fixtures/upstream/netease-music');
if (!fs.existsSync(SHARED)) console.info(`music-rank conformance skipped: ${SHARED} is absent (it holds the recorded NetEase toplist).`);

describe.skipIf(!fs.existsSync(SHARED))('music-rank conformance with the recorded toplist', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, sources: [musicRank] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('serves every recorded chart with its fields', async () => {
    const raw = JSON.parse(fs.readFileSync(path.join(SHARED, 'api-toplist-2020-09-trimmed.json'), 'utf8')) as { list: { id: number; name: string; updateFrequency: string; coverImgUrl: string; updateTime: number }[] };
    upstream.serve(HOST, '/api/toplist', { body: fs.readFileSync(path.join(SHARED, 'api-toplist-2020-09-trimmed.json')), headers: { 'content-type': 'application/json;charset=UTF-8' } });
    const { data } = await getJson<ChartList>(svc, '/v2/apis/music-rank/list');
    expect(data).toHaveLength(raw.list.length);
    data.forEach((c, i) => {
      const r = raw.list[i]!;
      expect(c).toMatchObject({ rank: i + 1, id: r.id, title: r.name, update_frequency: r.updateFrequency, cover: r.coverImgUrl, updated_at: r.updateTime });
      expect(c.link).toBe(`https://music.163.com/#/discover/toplist?id=${r.id}`);
    });
    expect(data.find((c) => c.id === 19723756)?.name).toBe('云音乐飙升榜');
    const text = await (await svc.get('/v2/apis/music-rank/list?encoding=text')).text();
    expect(text).toContain('1. 云音乐飙升榜 (每天更新)');
    expect(upstream.unmatched).toEqual([]);
  });
});
