import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import source, { cleanLink, parse } from '../../sources/hot-news-feed.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { describeHotListEndpoint, expectRejectsBroken } from '../support/hot-list-endpoint.ts';
import { FIXTURE_DIR } from '../support/upstream.ts';

const HOST = 'www.toutiao.com';
const PATH = '/hot-event/hot-board/';
const FILE = `${HOST}/hot-board.json`;
const fixture = () => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, FILE), 'utf8')) as { data: Record<string, unknown>[] };
const now = new Date('2026-11-21T02:00:00Z');
const validate = source.mode === 'local' ? () => 'local' : source.validate;

describe('hot-news-feed parse', () => {
  it('reads the board with numeric heat, cover, badge and clean links', () => {
    const data = parse(fixture());
    expect(data.length).toBe(10);
    expect(data[0]).toEqual({
      rank: 1,
      title: '多地迎来今冬首场降雪',
      link: 'https://www.toutiao.com/trending/7440000000000000100',
      hot_value: 31234567,
      cover: 'https://p3-sign.toutiaoimg.com/tos-cn-i-0022/img0~tplv-resize:300:300.jpeg',
      label: '热',
      cluster_id: '7440000000000000100',
      id: '7440000000000000100',
    });
    expect(data[1]?.label).toBe('新');
    expect(data[2]?.label).toBeNull();
    expect(data[3]?.cover).toBe('');
    expect(data[7]?.label).toBe('解读');
    // The pinned official news is not part of the ranking.
    expect(data.find((i) => i.title === '置顶新闻示例')).toBeUndefined();
    for (const item of data) expect(item.link).not.toMatch(/[?]|\/$/);
  });

  it('drops tracking parameters and trailing slashes from links', () => {
    expect(cleanLink('https://www.toutiao.com/trending/1/?rank=1&log_from=x')).toBe('https://www.toutiao.com/trending/1');
    expect(cleanLink('/article/2/')).toBe('https://www.toutiao.com/article/2');
    expect(cleanLink('javascript:void(0)')).toBeUndefined();
  });

  it('rejects broken copies and refusals', () => {
    expectRejectsBroken(validate, parse(fixture()));
    const untitled = fixture();
    for (const e of untitled.data) delete e.Title;
    expect(validate(parse(untitled))).toMatch(/at least 5/);
    expect(() => parse({ status: 'success', data: {} })).toThrow(/^data is not an array: it is an empty object$/);
    expect(() => parse({ status: 'error', message: 'verify' })).toThrow(expect.objectContaining({ kind: 'blocked' }));
    expect(() => parse(undefined)).toThrow(SourceError);
  });
});

describeHotListEndpoint({
  sourceId: 'hot-news-feed',
  path: '/v2/apis/hot-news-feed',
  ttlSec: 600,
  serveGood: (u) => {
    u.serveFile(HOST, PATH, FILE);
  },
  upstreams: [{ host: HOST, path: PATH }],
  blocked: { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<html><head><title>验证码中间页</title></head><body><div id="captcha_container"></div></body></html>' },
  changedShape: { body: { status: 'success', data: { list: [{ title: 'x' }] } } },
  emptyList: { body: { status: 'success', data: [], fixed_top_data: [], impr_id: 'x' } },
  expected: { total: 10, first: { title: '多地迎来今冬首场降雪', link: 'https://www.toutiao.com/trending/7440000000000000100' }, firstHot: '31,234,567', query: { origin: 'toutiao_pc' } },
});
