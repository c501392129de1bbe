import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import source, { DEFAULT_COMMON_PARAMS, DEFAULT_PLATFORM_INFO, DEFAULT_SHIELD, parse } from '../../sources/hot-lifestyle-a.ts';
import { absoluteUrl, dedupeByLink, epochMs, formatHeat, parseHeat, shanghaiTimeMs } from '../../sources/_shared/hot-list.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { describeHotListEndpoint, expectRejectsBroken, statusOf, type Envelope } from '../support/hot-list-endpoint.ts';
import { hasRecordings, readRecording, readRecordingJson } from '../support/recorded-upstream.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const HOST = 'edith.xiaohongshu.com';
const PATH = '/api/sns/v1/search/hot_list';
const fixture = () => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, HOST, `${PATH}.json`), 'utf8')) as { data: { items: Record<string, unknown>[] } };
const now = new Date('2026-11-21T02:00:00Z');
const validate = source.mode === 'local' ? () => 'local' : source.validate;
const FIRST_LINK = 'https://www.xiaohongshu.com/search_result?keyword=%E5%86%AC%E6%97%A5%E7%A9%BF%E6%90%AD%E7%81%B5%E6%84%9F%E5%90%88%E9%9B%86&type=51';

describe('hot-lifestyle-a parse', () => {
  it('reads the items with numeric heat, label and search links', () => {
    const data = parse(fixture());
    expect(data.length).toBe(10);
    expect(data[0]).toEqual({
      rank: 1,
      title: '冬日穿搭灵感合集',
      link: FIRST_LINK,
      hot_value: 9_237_000,
      hot_value_desc: '923.7万',
      score: '923.7万',
      word_type: '热',
      work_type_icon: 'https://sns-img.xhscdn.com/hotlist/badge_0.png',
      rank_change: 0,
      id: 'hot_73310',
    });
    expect(data[3]).toMatchObject({ title: '猫咪冬季护理', word_type: '无', work_type_icon: '', rank_change: 3 });
    expect(data[5]?.word_type).toBe('独家');
    expect(data[8]).toMatchObject({ hot_value: 120_000_000, hot_value_desc: '1.2亿' });
    expect(data[9]).toMatchObject({ hot_value: 9876, hot_value_desc: '9876' });
    expect(data.map((i) => i.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('rejects broken copies and refusals', () => {
    expectRejectsBroken(validate, parse(fixture()));
    const untitled = fixture();
    for (const i of untitled.data.items) delete i.title;
    expect(validate(parse(untitled))).toMatch(/at least 5/);
    expect(() => parse({ code: 0, success: true, data: {} })).toThrow(/^missing data\.items \(an array\): data is an empty object$/);
    expect(() => parse({ code: -100, success: false, msg: '登录已过期', data: {} })).toThrow(expect.objectContaining({ kind: 'blocked', message: expect.stringContaining('登录已过期') }));
    expect(() => parse(null)).toThrow(SourceError);
  });

  it('declares the app tokens as settings with the known working values as defaults', () => {
    const env = new Map((source.env ?? []).map((e) => [e.name, e]));
    expect(env.get('SOURCE_HOT_LIFESTYLE_A_SHIELD')?.default).toBe(DEFAULT_SHIELD);
    expect(env.get('SOURCE_HOT_LIFESTYLE_A_PLATFORM_INFO')?.default).toBe(DEFAULT_PLATFORM_INFO);
    expect(env.get('SOURCE_HOT_LIFESTYLE_A_COMMON_PARAMS')?.default).toBe(DEFAULT_COMMON_PARAMS);
    expect(DEFAULT_COMMON_PARAMS).toContain('platform=iOS');
    expect(DEFAULT_PLATFORM_INFO).toContain('bundle=com.xingin.discover');
  });
});

describe('shared hot-list helpers', () => {
  it('reads heat text with units', () => {
    expect(parseHeat('612.3万')).toBe(6_123_000);
    expect(parseHeat('88 万热度')).toBe(880_000);
    expect(parseHeat('1.2亿')).toBe(120_000_000);
    expect(parseHeat('12.3w')).toBe(123_000);
    expect(parseHeat('1,234')).toBe(1234);
    expect(parseHeat(42)).toBe(42);
    expect(parseHeat('热')).toBeUndefined();
    expect(parseHeat(null)).toBeUndefined();
  });

  it('formats heat as short Chinese text', () => {
    expect(formatHeat(6_123_000)).toBe('612.3万');
    expect(formatHeat(120_000_000)).toBe('1.2亿');
    expect(formatHeat(10_000)).toBe('1万');
    expect(formatHeat(9999)).toBe('9999');
  });

  it('normalises times and links', () => {
    expect(epochMs(1763683200)).toBe(1763683200000);
    expect(epochMs(1763683200123)).toBe(1763683200123);
    expect(epochMs('1763683200')).toBe(1763683200000);
    expect(epochMs(0)).toBeUndefined();
    expect(shanghaiTimeMs('2026-11-21 09:58:03')).toBe(Date.parse('2026-11-21T01:58:03Z'));
    expect(shanghaiTimeMs('2026/11/21 09:58')).toBe(Date.parse('2026-11-21T01:58:00Z'));
    expect(shanghaiTimeMs('yesterday')).toBeUndefined();
    expect(absoluteUrl('/s?wd=a', 'https://www.baidu.com/')).toBe('https://www.baidu.com/s?wd=a');
    expect(absoluteUrl('//img.example.com/a.png', 'https://x.com/')).toBe('https://img.example.com/a.png');
    expect(absoluteUrl('javascript:alert(1)', 'https://x.com/')).toBeUndefined();
    expect(absoluteUrl('', 'https://x.com/')).toBeUndefined();
  });

  it('drops repeated links, keeping the first', () => {
    const items = [
      { rank: 1, title: 'a', link: 'https://x/a' },
      { rank: 2, title: 'a again', link: 'https://x/a' },
      { rank: 3, title: 'b', link: 'https://x/b' },
    ];
    expect(dedupeByLink(items).map((i) => i.title)).toEqual(['a', 'b']);
  });
});

describeHotListEndpoint({
  sourceId: 'hot-lifestyle-a',
  path: '/v2/apis/hot-lifestyle-a',
  ttlSec: 600,
  serveGood: () => {
    /* served from test/fixtures/upstream/edith.xiaohongshu.com */
  },
  upstreams: [{ host: HOST, path: PATH }],
  blocked: { status: 200, body: { code: -100, success: false, msg: '登录已过期', data: {} } },
  changedShape: { body: { code: 0, success: true, data: { queries: [{ title: '话题' }] } } },
  emptyList: { body: { code: 0, success: true, msg: '成功', data: { items: [], title: '小红书热点' } } },
  expected: { total: 10, first: { title: '冬日穿搭灵感合集', link: FIRST_LINK }, firstHot: '923.7万' },
});

describe('hot-lifestyle-a request headers', () => {
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
  const boot = async (env: Record<string, string> = {}) => {
    const svc = await startService({ upstream, env });
    services.push(svc);
    return svc;
  };

  it('sends the app headers, the default tokens when none are configured', async () => {
    const svc = await boot();
    expect((await svc.get('/v2/apis/hot-lifestyle-a')).status).toBe(200);
    const h = upstream.hits(HOST, PATH)[0]?.headers;
    expect(h?.shield).toBe(DEFAULT_SHIELD);
    expect(h?.['xy-platform-info']).toBe(DEFAULT_PLATFORM_INFO);
    expect(h?.['xy-common-params']).toBe(DEFAULT_COMMON_PARAMS);
    expect(h?.['xy-direction']).toBe('22');
    expect(h?.referer).toBe('https://app.xhs.cn/');
    expect(h?.['user-agent']).toMatch(/iPhone/);
  });

  it('sends configured tokens instead', async () => {
    const svc = await boot({ SOURCE_HOT_LIFESTYLE_A_SHIELD: 'XYtest-shield', SOURCE_HOT_LIFESTYLE_A_COMMON_PARAMS: 'app_id=test&deviceId=abc' });
    expect((await svc.get('/v2/apis/hot-lifestyle-a')).status).toBe(200);
    const h = upstream.hits(HOST, PATH)[0]?.headers;
    expect(h?.shield).toBe('XYtest-shield');
    expect(h?.['xy-common-params']).toBe('app_id=test&deviceId=abc');
    expect(h?.['xy-platform-info']).toBe(DEFAULT_PLATFORM_INFO);
  });

  it('reports the risk-control status 461 as blocked on /v2/status', async () => {
    upstream.serve(HOST, PATH, { status: 461, body: { code: 300011, success: false, msg: '当前账号存在异常' } });
    const svc = await boot();
    const res = await svc.get('/v2/apis/hot-lifestyle-a');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBeTruthy();
    const st = await statusOf(svc, 'hot-lifestyle-a');
    expect(st?.state).toBe('down');
    expect(st?.last_error).toMatch(/^blocked: upstream answered HTTP 461/);
  });
});

const RECORDED = 'rednote/xhs-hot-list-2025-12-trimmed.json';
describe.skipIf(!hasRecordings('rednote'))('hot-lifestyle-a against the real recording', () => {
  // Expectations come from the recording itself, read at test time.
  const recorded = () => readRecordingJson(RECORDED) as { data: { items: { title: string; score: string; word_type: string; icon?: string }[] } };

  it('parses every recorded item with its heat as a number', () => {
    const raw = recorded();
    const data = parse(raw);
    expect(data.length).toBe(raw.data.items.length);
    raw.data.items.forEach((i, n) => {
      const item = data[n];
      expect(item).toMatchObject({ rank: n + 1, title: i.title, hot_value_desc: i.score, score: i.score, word_type: i.word_type, work_type_icon: i.icon ?? '' });
      expect(item?.hot_value).toBe(Math.round(Number.parseFloat(i.score) * (i.score.endsWith('万') ? 10_000 : 1)));
    });
    expect(validate(data)).toBeUndefined();
  });

  it('serves the recording through the endpoint', async () => {
    const upstream = await new Upstream().start();
    const svc = await startService({ upstream });
    try {
      upstream.serve(HOST, PATH, { headers: { 'content-type': 'application/json; charset=utf-8' }, body: readRecording(RECORDED) });
      const res = await svc.get('/v2/apis/hot-lifestyle-a');
      expect(res.status).toBe(200);
      const body = (await res.json()) as Envelope<{ title: string; link: string; hot_value: number }[]>;
      expect(body.data.map((i) => i.title)).toEqual(recorded().data.items.map((i) => i.title));
      expect(body.data.every((i) => i.hot_value > 0 && i.link.startsWith('https://www.xiaohongshu.com/search_result?keyword='))).toBe(true);
      const md = await (await svc.get('/v2/apis/hot-lifestyle-a?encoding=markdown')).text();
      expect(md).toContain('](https://www.xiaohongshu.com/search_result?keyword=');
      expect(md).not.toContain('[object Object]');
      expect(upstream.unmatched).toEqual([]);
    } finally {
      await svc.close();
      await upstream.stop();
    }
  });
});
