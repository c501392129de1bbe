import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import source, { parse, UPSTREAM_URL } from '../../sources/hot-short-video-a.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { describeHotListEndpoint, expectRejectsBroken, type Envelope } from '../support/hot-list-endpoint.ts';
import { hasRecordings, readRecording, readRecordingJson } from '../support/recorded-upstream.ts';
import { startService } from '../support/service.ts';
import { serviceForSuite } from '../support/suite-service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const HOST = 'aweme-lq.snssdk.com';
const PATH = '/aweme/v1/hot/search/list/';
const FILE = `${HOST}/hot-search-list.json`;
const fixture = () => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, FILE), 'utf8')) as { data: { word_list: Record<string, unknown>[] } };
const now = new Date('2026-11-21T02:00:00Z');
const validate = source.mode === 'local' ? () => 'local' : source.validate;

describe('hot-short-video-a parse', () => {
  it('reads the word list with heat, cover, views and times in ms', () => {
    const data = parse(fixture());
    expect(UPSTREAM_URL).toBe(`https://${HOST}${PATH}`);
    expect(data.length).toBe(10);
    expect(data[0]).toEqual({
      rank: 1,
      title: '城市骑行周末路线',
      link: 'https://www.douyin.com/search/%E5%9F%8E%E5%B8%82%E9%AA%91%E8%A1%8C%E5%91%A8%E6%9C%AB%E8%B7%AF%E7%BA%BF',
      hot_value: 12034567,
      cover: 'https://p3-sign.douyinpic.com/tos-cn-i-8gu37r9deh/cover00~tplv-dy-resize:300.jpeg?lk3s=5e2f41a7&x-expires=1763769600&x-signature=sig0',
      view_count: 72207419,
      video_count: 3,
      event_time: '2025/11/21 08:00:00',
      event_time_at: 1763683200000,
      active_time: '2026-11-21 09:58:03',
      active_time_at: Date.parse('2026-11-21T01:58:03Z'),
      id: '2300000',
    });
    // event_time is seconds upstream; the `_at` field is 13-digit ms.
    for (const item of data) expect(String(item.event_time_at)).toMatch(/^\d{13}$/);
    expect(data[5]?.title).toBe('围棋世界赛决赛');
    expect(data[5]?.cover).toBe('');
    expect(data.map((i) => i.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // The board's own update time is on every item.
    for (const item of data) expect(item.active_time_at).toBe(Date.parse('2026-11-21T01:58:03Z'));
    expect(data.find((i) => i.title === '上升中的话题')).toBeUndefined();
  });

  it('rejects broken copies and refusals', () => {
    const data = parse(fixture());
    expectRejectsBroken(validate, data);
    const noWords = fixture();
    for (const w of noWords.data.word_list) delete w.word;
    expect(validate(parse(noWords))).toMatch(/at least 5/);
    expect(validate(parse({ status_code: 0, data: { word_list: [] } }))).toMatch(/got 0/);
    expect(() => parse({ status_code: 0, data: {} })).toThrow(/^missing data\.word_list \(an array\): data is an empty object$/);
    expect(() => parse({ status_code: 2483, status_msg: 'request blocked' })).toThrow(expect.objectContaining({ kind: 'blocked' }));
    expect(() => parse([])).toThrow(SourceError);
  });
});

describeHotListEndpoint({
  sourceId: 'hot-short-video-a',
  path: '/v2/apis/hot-short-video-a',
  ttlSec: 300,
  serveGood: (u) => {
    u.serveFile(HOST, PATH, FILE);
  },
  upstreams: [{ host: HOST, path: PATH }],
  blocked: { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<html><head><title>验证码中间页</title></head><body>请完成安全验证</body></html>' },
  changedShape: { body: { status_code: 0, data: { hot_words: [{ word: 'x' }] } } },
  emptyList: { body: { status_code: 0, data: { active_time: '2026-11-21 10:00:00', word_list: [] } } },
  expected: { total: 10, first: { title: '城市骑行周末路线', link: 'https://www.douyin.com/search/%E5%9F%8E%E5%B8%82%E9%AA%91%E8%A1%8C%E5%91%A8%E6%9C%AB%E8%B7%AF%E7%BA%BF' }, firstHot: '12,034,567' },
});

describe('hot-short-video-a request', () => {
  const { svc, upstream } = serviceForSuite();
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('asks the app endpoint with its aid and version', async () => {
    upstream.serveFile(HOST, PATH, FILE);
    expect((await svc().get('/v2/apis/hot-short-video-a')).status).toBe(200);
    const hit = upstream.hits(HOST, PATH)[0];
    expect(hit?.query.get('aid')).toBe('1128');
    expect(hit?.query.get('version_code')).toBe('880');
  });
});

const RECORDED = 'douyin/aweme-hot-search-list-2025-06-01-trimmed.json';
describe.skipIf(!hasRecordings('douyin'))('hot-short-video-a against the real recording', () => {
  // Expectations come from the recording itself, read at test time.
  const recorded = () => readRecordingJson(RECORDED) as { data: { active_time: string; word_list: { word: string; hot_value: number; event_time: number; word_cover?: unknown }[] } };

  it('parses every recorded word with heat, cover and ms times', () => {
    const raw = recorded();
    const data = parse(raw);
    expect(data.length).toBe(raw.data.word_list.length);
    expect(data.length).toBeGreaterThanOrEqual(5);
    raw.data.word_list.forEach((w, n) => {
      const item = data[n];
      expect(item).toMatchObject({ rank: n + 1, title: w.word, hot_value: w.hot_value, event_time_at: w.event_time * 1000 });
      expect(item?.link).toBe(`https://www.douyin.com/search/${encodeURIComponent(w.word)}`);
      if (w.word_cover) expect(item?.cover).toMatch(/^https:\/\/[^&]*\.douyinpic\.com\//);
      else expect(item?.cover).toBe('');
    });
    expect(data[0]?.active_time).toBe(raw.data.active_time);
    expect(validate(data)).toBeUndefined();
  });

  it('serves the recording through the endpoint', async () => {
    const upstream = await new Upstream().start();
    const svc = await startService({ upstream });
    try {
      upstream.serve(HOST, PATH, { headers: { 'content-type': 'application/json; charset=utf-8' }, body: readRecording(RECORDED) });
      const res = await svc.get('/v2/apis/hot-short-video-a?encoding=json');
      expect(res.status).toBe(200);
      const body = (await res.json()) as Envelope<{ title: string; link: string; hot_value: number }[]>;
      const words = recorded().data.word_list;
      expect(body.data.map((i) => i.title)).toEqual(words.map((w) => w.word));
      expect(body.data.every((i) => i.link.startsWith('https://www.douyin.com/search/') && i.hot_value > 0)).toBe(true);
      const text = await (await svc.get('/v2/apis/hot-short-video-a?encoding=text')).text();
      expect(text).toContain(`1. ${words[0]?.word}`);
      expect(upstream.unmatched).toEqual([]);
    } finally {
      await svc.close();
      await upstream.stop();
    }
  });
});
