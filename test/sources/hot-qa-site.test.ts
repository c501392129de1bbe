import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import source, { parse, webLink } from '../../sources/hot-qa-site.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { describeHotListEndpoint, expectRejectsBroken, statusOf, type Envelope } from '../support/hot-list-endpoint.ts';
import { hasRecordings, readRecording, readRecordingJson } from '../support/recorded-upstream.ts';
import { startService } from '../support/service.ts';
import { serviceForSuite } from '../support/suite-service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const HOST = 'api.zhihu.com';
const PATH = '/topstory/hot-lists/total';
const fixture = () => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, HOST, `${PATH}.json`), 'utf8')) as { data: { target: Record<string, unknown> }[] };
const now = new Date('2026-11-21T02:00:00Z');
const validate = source.mode === 'local' ? () => 'local' : source.validate;

describe('hot-qa-site parse', () => {
  it('reads questions with heat, excerpt, cover, counts and the web link', () => {
    const data = parse(fixture());
    expect(data.length).toBe(10);
    expect(data[0]).toEqual({
      rank: 1,
      title: '如何看待今年冬天格外冷？',
      link: 'https://www.zhihu.com/question/600000000',
      hot_value: 15_260_000,
      hot_value_desc: '1526 万热度',
      detail: '问题描述第1条。',
      cover: 'https://pic1.zhimg.com/80/v2-thumb0_720w.jpg?source=2c26e567',
      answer_cnt: 100,
      follower_cnt: 2000,
      comment_cnt: 30,
      created: '2025/11/20 08:53:20',
      created_at: 1763600000000,
      id: '600000000',
    });
    expect(data[1]?.cover).toBe('');
    expect(data[2]?.detail).toBe('');
    // An article target links to its column page, not to the API.
    expect(data[5]).toMatchObject({ title: '一篇讲透新能源电池的文章', link: 'https://zhuanlan.zhihu.com/p/600000035' });
    for (const item of data) expect(item.link).not.toContain('api.zhihu.com');
  });

  it('rewrites API URLs to web pages', () => {
    expect(webLink('https://api.zhihu.com/questions/123', 'question', '123')).toBe('https://www.zhihu.com/question/123');
    expect(webLink('https://api.zhihu.com/articles/456', 'article', '456')).toBe('https://zhuanlan.zhihu.com/p/456');
    expect(webLink(undefined, 'question', '789')).toBe('https://www.zhihu.com/question/789');
    expect(webLink(undefined, undefined, undefined)).toBeUndefined();
  });

  it('rejects broken copies and refusals', () => {
    expectRejectsBroken(validate, parse(fixture()));
    const untitled = fixture();
    for (const e of untitled.data) delete e.target.title;
    expect(validate(parse(untitled))).toMatch(/at least 5/);
    expect(() => parse({ items: [] })).toThrow(/^missing data \(an array\): the answer is an object with keys items$/);
    expect(() => parse({ error: { code: 10003, message: '请求参数异常，请升级客户端后重试' } })).toThrow(expect.objectContaining({ kind: 'blocked' }));
    expect(() => parse(42)).toThrow(SourceError);
  });
});

describeHotListEndpoint({
  sourceId: 'hot-qa-site',
  path: '/v2/apis/hot-qa-site',
  ttlSec: 600,
  serveGood: () => {
    /* served from test/fixtures/upstream/api.zhihu.com */
  },
  upstreams: [{ host: HOST, path: PATH }],
  blocked: { status: 403, body: { error: { code: 40352, message: '系统监测到您的网络环境存在异常' } } },
  changedShape: { body: { data: { hot_list: [] }, paging: {} } },
  emptyList: { body: { data: [], paging: { is_end: true }, fresh_text: '榜单已刷新' } },
  expected: { total: 10, first: { title: '如何看待今年冬天格外冷？', link: 'https://www.zhihu.com/question/600000000' }, firstHot: '1526 万热度' },
});

describe('hot-qa-site request', () => {
  const { svc, upstream } = serviceForSuite();
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('asks for 50 entries and reports a refusal with its reason', async () => {
    upstream.serve(HOST, PATH, { status: 401, body: { error: { code: 100, message: '请求参数异常' } } });
    expect((await svc().get('/v2/apis/hot-qa-site')).status).toBe(503);
    expect(upstream.hits(HOST, PATH)[0]?.query.get('limit')).toBe('50');
    expect((await statusOf(svc(), 'hot-qa-site'))?.last_error).toBe('blocked: upstream answered HTTP 401: 请求参数异常');
  });
});

const RECORDED = 'zhihu/topstory-hot-lists-total-2021-02-25-one-item.json';
describe.skipIf(!hasRecordings('zhihu'))('hot-qa-site against the real recording', () => {
  type Entry = { detail_text: string; children: { thumbnail: string }[]; target: { id: number; title: string; url: string; created: number; answer_count: number; follower_count: number; comment_count: number } };
  const recorded = () => readRecordingJson(RECORDED) as { data: Entry[] };

  it('parses the recorded item (expectations read from the recording)', () => {
    const raw = recorded();
    const e = raw.data[0]!;
    const data = parse(raw);
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({
      title: e.target.title,
      link: `https://www.zhihu.com/question/${e.target.id}`,
      hot_value_desc: e.detail_text,
      cover: e.children[0]?.thumbnail,
      answer_cnt: e.target.answer_count,
      follower_cnt: e.target.follower_count,
      comment_cnt: e.target.comment_count,
      created_at: e.target.created * 1000,
    });
    expect(data[0]?.hot_value).toBe(Number.parseInt(e.detail_text, 10) * 10_000);
    // One item is below the plausibility floor: the real list has 30 to 50.
    expect(validate(data)).toMatch(/at least 5/);
  });

  it('serves the recording through the endpoint: alone it is rejected, as a full-length list it renders', async () => {
    const upstream = await new Upstream().start();
    const svc = await startService({ upstream });
    try {
      upstream.serve(HOST, PATH, { headers: { 'content-type': 'application/json; charset=utf-8' }, body: readRecording(RECORDED) });
      const rejected = await svc.get('/v2/apis/hot-qa-site');
      expect(rejected.status).toBe(503);
      expect(((await rejected.json()) as Envelope<null>).message).toMatch(/at least 5 items, got 1/);

      // The recorded entry repeated (with distinct ids) to the length the API really serves.
      const raw = recorded();
      const e = raw.data[0]!;
      const full = { ...raw, data: Array.from({ length: 30 }, (_, n) => ({ ...e, target: { ...e.target, id: e.target.id + n, url: e.target.url.replace(String(e.target.id), String(e.target.id + n)) } })) };
      upstream.serve(HOST, PATH, { body: full });
      const svc2 = await startService({ upstream });
      try {
        const res = await svc2.get('/v2/apis/hot-qa-site');
        expect(res.status).toBe(200);
        const body = (await res.json()) as Envelope<{ title: string; link: string }[]>;
        expect(body.data.length).toBe(30);
        expect(body.data[0]).toMatchObject({ title: e.target.title, link: `https://www.zhihu.com/question/${e.target.id}` });
      } finally {
        await svc2.close();
      }
      expect(upstream.unmatched).toEqual([]);
    } finally {
      await svc.close();
      await upstream.stop();
    }
  });
});
