import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import source, { parse } from '../../sources/hot-video-site.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { describeHotListEndpoint, expectRejectsBroken, statusOf, type Envelope } from '../support/hot-list-endpoint.ts';
import { hasRecordings, readRecording, readRecordingJson } from '../support/recorded-upstream.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream, type UpstreamReply } from '../support/upstream.ts';

const WEB = { host: 'api.bilibili.com', path: '/x/web-interface/wbi/search/square' };
const APP = { host: 'app.bilibili.com', path: '/x/v2/search/trending/ranking' };
const read = (u: { host: string; path: string }) => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, u.host, `${u.path}.json`), 'utf8')) as Record<string, unknown>;
const validate = source.mode === 'local' ? () => 'local' : source.validate;
const search = (k: string) => `https://search.bilibili.com/all?keyword=${encodeURIComponent(k)}`;

type VideoData = { rank: number; title: string; keyword: string; link: string }[];

describe('hot-video-site parse', () => {
  it('reads the web search square', () => {
    const data = parse(read(WEB), 'web');
    expect(data.length).toBe(10);
    // The id is the keyword (60s's fields, and the id every declared list's item has).
    expect(data[0]).toEqual({ rank: 1, id: '年度动画盘点', title: '年度动画盘点', keyword: '年度动画盘点', link: search('年度动画盘点'), icon: 'https://i0.hdslb.com/bfs/activity-plat/static/hot.png' });
    // The display name can differ from the keyword; the link searches the keyword.
    expect(data[2]).toMatchObject({ title: 'UP主跨年晚会（直播）', keyword: 'UP主跨年晚会', link: search('UP主跨年晚会') });
    expect(data[5]?.icon).toBeNull();
  });

  it('reads the app ranking without promoted entries', () => {
    const data = parse(read(APP), 'app');
    expect(data.length).toBe(7);
    expect(data.map((i) => i.title)).not.toContain('推广词条');
    expect(data[2]).toMatchObject({ rank: 3, title: '应用榜第三', link: search('应用榜第三') });
  });

  it('rejects broken copies and refusals', () => {
    expectRejectsBroken(validate, parse(read(WEB), 'web'));
    expect(validate(parse({ code: 0, data: { trending: { list: [] } } }, 'web'))).toMatch(/got 0/);
    expect(() => parse({ code: 0, data: { trending: {} } }, 'web')).toThrow(/^missing data\.trending\.list \(an array\): data\.trending is an empty object$/);
    expect(() => parse({ code: 0, data: {} }, 'app')).toThrow(/^missing data\.list \(an array\): data is an empty object$/);
    expect(() => parse({ code: -412, message: '请求被拦截' }, 'web')).toThrow(expect.objectContaining({ kind: 'blocked' }));
    expect(() => parse('x', 'web')).toThrow(SourceError);
  });
});

describeHotListEndpoint({
  sourceId: 'hot-video-site',
  path: '/v2/apis/hot-video-site',
  ttlSec: 600,
  serveGood: () => {
    /* both upstreams are served from test/fixtures/upstream */
  },
  upstreams: [WEB, APP],
  blocked: { status: 200, body: { code: -412, message: '请求被拦截', ttl: 1 } },
  changedShape: { body: { code: 0, message: '0', data: { hotwords: [{ keyword: 'x' }] } } },
  emptyList: { body: { code: 0, message: '0', data: { trending: { list: [] }, list: [] } } },
  expected: { total: 10, first: { title: '年度动画盘点', link: search('年度动画盘点') } },
});

describe('hot-video-site fallback', () => {
  const upstream = new Upstream();
  const services: TestService[] = [];
  beforeAll(async () => {
    await upstream.start();
  });
  afterAll(async () => {
    await upstream.stop();
  });
  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.close()));
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  async function fetchWithWeb(reply: UpstreamReply): Promise<VideoData> {
    upstream.serve(WEB.host, WEB.path, reply);
    const svc = await startService({ upstream });
    services.push(svc);
    const res = await svc.get('/v2/apis/hot-video-site');
    expect(res.status).toBe(200);
    return ((await res.json()) as Envelope<VideoData>).data;
  }

  it('uses the web list when it is good and never asks the app', async () => {
    const data = await fetchWithWeb({ body: read(WEB) });
    expect(data[0]?.title).toBe('年度动画盘点');
    expect(upstream.hits(WEB.host)[0]?.query.get('limit')).toBe('50');
    expect(upstream.hits(APP.host)).toHaveLength(0);
  });

  it('falls back to the app ranking when the web list fails', async () => {
    const data = await fetchWithWeb({ status: 500, body: 'error' });
    expect(upstream.hits(APP.host)).toHaveLength(1);
    expect(data[0]).toMatchObject({ title: '应用榜第一', link: search('应用榜第一') });
    expect(upstream.hits(APP.host)[0]?.query.get('limit')).toBe('50');
  });

  it('falls back when the web list is empty', async () => {
    const data = await fetchWithWeb({ body: { code: 0, message: '0', data: { trending: { title: '热搜榜', list: [] } } } });
    expect(upstream.hits(APP.host)).toHaveLength(1);
    expect(data.length).toBe(7);
  });

  it('falls back when the web list is too short to be plausible', async () => {
    const short = read(WEB) as { data: { trending: { list: unknown[] } } };
    short.data.trending.list = short.data.trending.list.slice(0, 3);
    const data = await fetchWithWeb({ body: short });
    expect(upstream.hits(APP.host)).toHaveLength(1);
  });

  it('falls back when the web API refuses with a risk-control code', async () => {
    const data = await fetchWithWeb({ body: { code: -412, message: '请求被拦截' } });
    expect(upstream.hits(APP.host)).toHaveLength(1);
  });

  it('reports both failures when the fallback fails too', async () => {
    upstream.serve(APP.host, APP.path, { status: 503, body: 'busy' });
    upstream.serve(WEB.host, WEB.path, { body: { code: -412, message: '请求被拦截' } });
    const svc = await startService({ upstream });
    services.push(svc);
    const res = await svc.get('/v2/apis/hot-video-site');
    expect(res.status).toBe(503);
    const st = await statusOf(svc, 'hot-video-site');
    // A block on either side is the more telling failure.
    expect(st?.last_error).toMatch(/^blocked: both upstreams failed: web: .*code=-412.*; app: .*HTTP 503/);
  });
});

describe.skipIf(!hasRecordings('bilibili'))('hot-video-site against the real recordings', () => {
  const SQUARE = 'bilibili/search-square-wbi-limit4.json';
  const RANKING = 'bilibili/app-search-trending-ranking.json';
  type Entry = { keyword: string; show_name: string; is_commercial?: string };
  const squareEntries = () => (readRecordingJson(SQUARE) as { data: { trending: { list: Entry[] } } }).data.trending.list;
  const rankingEntries = () => (readRecordingJson(RANKING) as { data: { list: Entry[] } }).data.list.filter((e) => Number(e.is_commercial ?? 0) === 0);

  it('parses both recorded answers', () => {
    const web = parse(readRecordingJson(SQUARE), 'web');
    expect(web.map((i) => i.title)).toEqual(squareEntries().map((e) => e.show_name));
    expect(web.map((i) => i.link)).toEqual(squareEntries().map((e) => search(e.keyword)));
    const app = parse(readRecordingJson(RANKING), 'app');
    expect(app.map((i) => i.keyword)).toEqual(rankingEntries().map((e) => e.keyword));
    expect(validate(app)).toBeUndefined();
  });

  it('serves the recordings through the endpoint (the short recorded square falls back to the app list)', async () => {
    const upstream = await new Upstream().start();
    const svc = await startService({ upstream });
    try {
      const json = { 'content-type': 'application/json; charset=utf-8' };
      upstream.serve(WEB.host, WEB.path, { headers: json, body: readRecording(SQUARE) });
      upstream.serve(APP.host, APP.path, { headers: json, body: readRecording(RANKING) });
      const res = await svc.get('/v2/apis/hot-video-site');
      expect(res.status).toBe(200);
      const { data } = (await res.json()) as Envelope<VideoData>;
      // The recording was taken with limit=4, below the plausibility floor of 5.
      expect(squareEntries().length).toBeLessThan(5);
      expect(upstream.hits(APP.host)).toHaveLength(1);
      expect(data.map((i) => i.title)).toEqual(rankingEntries().map((e) => e.show_name));
      expect(upstream.unmatched).toEqual([]);
    } finally {
      await svc.close();
      await upstream.stop();
    }
  });
});
