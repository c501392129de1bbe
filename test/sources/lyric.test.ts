import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import lyricSource, { parse, parseLrc, parseSearch, validateLyrics } from '../../sources/lyric.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { TestClock } from '../support/clock.ts';
import { describeConformance, readRecording } from '../support/conformance.ts';
import { describeFailureModes } from '../support/failure-modes.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const SEARCH_HOST = 'u.y.qq.com';
const SEARCH_PATH = '/cgi-bin/musicu.fcg';
const LYRIC_HOST = 'c.y.qq.com';
const LYRIC_PATH = '/lyric/fcgi-bin/fcg_query_lyric_new.fcg';
const search = () => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, SEARCH_HOST, `${SEARCH_PATH}.json`), 'utf8')) as Record<string, unknown>;
const lyric = () => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, LYRIC_HOST, `${LYRIC_PATH}.json`), 'utf8')) as { lyric: string; code: number };
const now = new Date('2026-11-21T02:00:00Z');
const Q = encodeURIComponent('晚风里的灯');

interface Body {
  code: number;
  message: string;
  data: { title: string; artists: string[]; album: string; link: string; clean: boolean; formatted: string; lyrics: { ms: number; time: string; label: string; lyric: string }[] } | null;
}

describe('lyric parse', () => {
  it('reads the best match and its timed lines, without credits by default', () => {
    const d = parse(search(), lyric(), '晚风里的灯', true, now);
    expect(d).toMatchObject({
      mid: '003aBcDeFgHiJk',
      title: '晚风里的灯',
      artists: ['林小舟', '夏至乐队'],
      album: '城市夜航',
      link: 'https://y.qq.com/n/ryqq/songDetail/003aBcDeFgHiJk',
      offset: 0,
      clean: true,
      updated_at: now.getTime(),
    });
    expect(d.lyrics.map((l) => l.lyric)).toEqual(['街角的灯一盏一盏亮起', '像谁在远方写给我的信', '晚风吹过 我把名字轻轻念起', '你说过"别怕黑" 我一直记得', '于是我在夜里 学会了等待', '晚风吹过 我把名字轻轻念起']);
    expect(d.lyrics[1]).toEqual({ ms: 21_050, time: '00:21', label: '[00:21.05]', lyric: '像谁在远方写给我的信' });
    expect(d.lyrics[5]).toMatchObject({ ms: 100_100, time: '01:40', label: '[01:40.10]' });
    expect(d.formatted.split('\n')[0]).toBe('街角的灯一盏一盏亮起');
    expect(validateLyrics(d)).toBeUndefined();
  });

  it('keeps every line with clean=false', () => {
    const d = parse(search(), lyric(), '晚风里的灯', false, now);
    expect(d.lyrics).toHaveLength(13);
    expect(d.lyrics[0]?.lyric).toBe('晚风里的灯 - 林小舟/夏至乐队');
    expect(d.lyrics.map((l) => l.lyric)).toContain('词：周远山');
    expect(d.lyrics.map((l) => l.lyric)).toContain('未经著作权人许可 不得翻唱 翻录或使用');
  });

  it('reads offsets and English credits', () => {
    const song = { mid: 'x', title: 'Night Lamp', artists: ['A'], album: '' };
    const { offset, lines } = parseLrc('[offset:-250]\n[00:01.00]Night Lamp - A\n[00:02.0]Lyrics by: Someone\n[00:03.5]Mixing Engineer: Other\n[00:04.25]Hello there\n[00:05:50]Second line', song, true);
    expect(offset).toBe(-250);
    expect(lines.map((l) => [l.label, l.lyric])).toEqual([
      ['[00:04.25]', 'Hello there'],
      ['[00:05.50]', 'Second line'],
    ]);
  });

  it('tells a missing song, a song without lyrics, a refused request and a changed shape apart', () => {
    const none = search();
    (none.req as { data: { body: { song: { list: unknown[] } } } }).data.body.song.list = [];
    const kinds = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return (err as SourceError).kind;
      }
      return 'ok';
    };
    expect(kinds(() => parseSearch(none, 'x'))).toBe('not_found');
    expect(kinds(() => parse(search(), { retcode: 0, code: 0, lyric: '' }, 'x', true, now))).toBe('not_found');
    expect(kinds(() => parse(search(), { retcode: -1310, code: -1310, subcode: -1310 }, 'x', true, now))).toBe('blocked');
    expect(kinds(() => parseSearch({ code: 2001, req: { code: 2001 } }, 'x'))).toBe('blocked');
    expect(kinds(() => parse(search(), { code: 0, data: { lrc: '' } }, 'x', true, now))).toBe('parse');
    expect(kinds(() => parseSearch({ code: 0, req: { code: 0, data: {} } }, 'x'))).toBe('parse');
    expect(validateLyrics({ ...parse(search(), lyric(), 'x', true, now), lyrics: [] })).toMatch(/no title or no lyric lines/);
  });
});

describe('lyric through the server', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, sources: [lyricSource] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('serves json, text, markdown and html, sending the Referer', async () => {
    const json = await svc.get(`/v2/apis/lyric?query=${Q}`);
    expect(json.status).toBe(200);
    const body = (await json.json()) as Body;
    expect(body.data?.title).toBe('晚风里的灯');
    expect(body.data?.lyrics).toHaveLength(6);
    const [searchReq] = upstream.hits(SEARCH_HOST);
    expect(searchReq?.method).toBe('POST');
    expect(searchReq?.headers.referer).toBe('https://y.qq.com/');
    expect(JSON.parse(searchReq!.body.toString('utf8'))).toMatchObject({ req: { module: 'music.search.SearchCgiService', method: 'DoSearchForQQMusicDesktop', param: { query: '晚风里的灯', num_per_page: 1 } } });
    const [lyricReq] = upstream.hits(LYRIC_HOST);
    expect(lyricReq?.headers.referer).toBe('https://y.qq.com/');
    expect(Object.fromEntries(lyricReq!.query)).toMatchObject({ songmid: '003aBcDeFgHiJk', nobase64: '1', format: 'json' });

    const text = await (await svc.get(`/v2/apis/lyric?query=${Q}&encoding=text`)).text();
    expect(text).toBe('晚风里的灯 - 林小舟 / 夏至乐队\n\n街角的灯一盏一盏亮起\n像谁在远方写给我的信\n晚风吹过 我把名字轻轻念起\n你说过"别怕黑" 我一直记得\n于是我在夜里 学会了等待\n晚风吹过 我把名字轻轻念起\n');
    const md = await (await svc.get(`/v2/apis/lyric?query=${Q}&encoding=markdown`)).text();
    expect(md).toMatch(/^# 晚风里的灯\n\n> 演唱：林小舟 \/ 夏至乐队 {2}专辑：城市夜航\n\n---\n\n街角的灯一盏一盏亮起 {2}\n/);
    const html = await (await svc.get(`/v2/apis/lyric?query=${Q}&encoding=html`)).text();
    expect(html).toContain('<p data-ms="34520">你说过&quot;别怕黑&quot; 我一直记得</p>');
    expect(upstream.hits(SEARCH_HOST)).toHaveLength(1);

    const raw = (await (await svc.get(`/v2/apis/lyric?query=${Q}&clean=false`)).json()) as Body;
    expect(raw.data?.clean).toBe(false);
    expect(raw.data?.lyrics).toHaveLength(13);
  });

  it('accepts POST with a JSON body', async () => {
    const res = await svc.get('/v2/apis/lyric', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '晚风里的灯', clean: false }) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Body).data?.clean).toBe(false);
  });

  it('needs a query, and answers 404 when nothing is found', async () => {
    const missing = await svc.get('/v2/apis/lyric');
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as Body).message).toMatch(/Missing required parameter "query"/);
    expect((await svc.get(`/v2/apis/lyric?query=${Q}&clean=maybe`)).status).toBe(400);

    const empty = search();
    (empty.req as { data: { body: { song: { list: unknown[] } } } }).data.body.song.list = [];
    upstream.serve(SEARCH_HOST, SEARCH_PATH, { body: empty });
    const res = await svc.get(`/v2/apis/lyric?query=${encodeURIComponent('不存在的歌名')}`);
    expect(res.status).toBe(404);
    const body = (await res.json()) as Body;
    expect(body).toMatchObject({ code: 404, data: null });
    expect(body.message).toMatch(/No song matches "不存在的歌名"/);
    expect(upstream.hits(LYRIC_HOST)).toHaveLength(0);

    upstream.reset();
    upstream.serve(LYRIC_HOST, LYRIC_PATH, { body: { retcode: 0, code: 0, subcode: 0, lyric: '' } });
    const instrumental = await svc.get(`/v2/apis/lyric?query=${encodeURIComponent('纯音乐')}`);
    expect(instrumental.status).toBe(404);
    expect(((await instrumental.json()) as Body).message).toMatch(/has no lyrics/);
  });

  it('reports a missing Referer (-1310) as blocked', async () => {
    upstream.serve(LYRIC_HOST, LYRIC_PATH, { body: { retcode: -1310, code: -1310, subcode: -1310 } });
    const res = await svc.get(`/v2/apis/lyric?query=${encodeURIComponent('另一首歌')}`);
    expect(res.status).toBe(503);
    const status = (await (await svc.get('/v2/status')).json()) as { data: { sources: { id: string; last_error: string }[] } };
    expect(status.data.sources.find((s) => s.id === 'lyric')?.last_error).toMatch(/^blocked: .*-1310/);
  });
});

describeFailureModes({
  sources: [lyricSource],
  sourceId: 'lyric',
  path: `/v2/apis/lyric?query=${Q}`,
  host: LYRIC_HOST,
  upstreamPath: LYRIC_PATH,
  ttlSec: 7 * 86_400,
  loginPage: { body: { retcode: -1310, code: -1310, subcode: -1310 } },
  changedShape: { body: { code: 0, data: { lrc: '[00:01.00]x' } } },
  // No lyric for the song: nothing to serve for a new query (404); the last good copy stays for a cached one.
  empty: { body: { retcode: 0, code: 0, subcode: 0, lyric: '' } },
  emptyKind: 'not_found',
});

describeConformance('lyric', 'lyric on the real recordings', (dir) => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: new TestClock().now, sources: [lyricSource] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('reads the recorded lyric', async () => {
    upstream.serve(LYRIC_HOST, LYRIC_PATH, { headers: { 'content-type': 'application/json' }, body: readRecording(dir, 'qq-fcg_query_lyric_new-ok.json') });
    const body = (await (await svc.get(`/v2/apis/lyric?query=${encodeURIComponent('祈祷')}`)).json()) as Body;
    expect(body.data?.lyrics).toEqual([
      { ms: 3110, time: '00:03', label: '[00:03.11]', lyric: '祈祷星星 愿你安宁' },
      { ms: 9760, time: '00:09', label: '[00:09.76]', lyric: '懂得珍惜 懂得爱自己' },
    ]);
    expect(upstream.unmatched).toEqual([]);
  });

  it('treats the recorded -1310 answer as blocked', async () => {
    upstream.serve(LYRIC_HOST, LYRIC_PATH, { headers: { 'content-type': 'application/json' }, body: readRecording(dir, 'qq-fcg_query_lyric_new-missing-referer-1310.json') });
    const res = await svc.get(`/v2/apis/lyric?query=${encodeURIComponent('没有来源页')}`);
    expect(res.status).toBe(503);
    const status = (await (await svc.get('/v2/status')).json()) as { data: { sources: { id: string; last_error: string }[] } };
    expect(status.data.sources.find((s) => s.id === 'lyric')?.last_error).toMatch(/^blocked: /);
  });
});
