import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import source, { AGGREGATION_ID, cleanSummary, parse, plainText } from '../../sources/hot-search-b.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { describeHotListEndpoint, expectRejectsBroken } from '../support/hot-list-endpoint.ts';
import { FIXTURE_DIR } from '../support/upstream.ts';

const HOST = 'iflow.quark.cn';
const PATH = '/iflow/api/v1/article/aggregation';
const fixture = () => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, HOST, `${PATH}.json`), 'utf8')) as { data: { articles: Record<string, unknown>[] } };
const now = new Date('2026-11-21T02:00:00Z');
const validate = source.mode === 'local' ? () => 'local' : source.validate;
const FIRST_LINK = 'https://123.quark.cn/detail?item_id=1766000000000000000';

describe('hot-search-b parse', () => {
  it('reads the articles with plain text, images, counts and publication time', () => {
    const data = parse(fixture());
    expect(data.length).toBe(7);
    expect(data[0]).toEqual({
      rank: 1,
      id: '1766000000000000000',
      title: '国产大飞机开通新国际航线',
      link: FIRST_LINK,
      cover: 'https://image.uc.cn/s/wemedia/s/upload/2026/thumb0.jpg',
      summary: '新航线首航顺利，标志着国产客机运营再上台阶。',
      content: '国产大飞机开通新国际航线。 记者 获悉，相关&工作正在推进。',
      source: '民航资讯',
      images: [{ url: 'https://image.uc.cn/s/wemedia/s/upload/2026/img0.jpg', width: 1080, height: 720, type: 'jpg', description: '现场图片' }],
      category: ['航空'],
      tags: ['大飞机', '民航'],
      like_count: 100,
      share_count: 0,
      comment_count: 0,
      published: '2025/11/21 07:06:40',
      published_at: 1763680000000,
    });
    expect(data[2]?.summary).toBe('涵盖量子计算、新材料等领域。');
    // Without thumbnails the first image is the cover.
    expect(data[4]?.cover).toBe('https://image.uc.cn/s/wemedia/s/upload/2026/img4.jpg');
    expect(data[1]?.images[0]).not.toHaveProperty('description');
  });

  it('cleans summaries and article HTML', () => {
    expect(cleanSummary('事件引发关注，查看详情>>')).toBe('事件引发关注。');
    expect(cleanSummary('内容摘要；查看更多')).toBe('内容摘要。');
    expect(cleanSummary('普通摘要。')).toBe('普通摘要。');
    expect(plainText('<p>a&lt;b</p><!--{video:2}--><div>c&quot;d&#39;</div>')).toBe('a<b c"d\'');
  });

  it('rejects broken copies and refusals', () => {
    expectRejectsBroken(validate, parse(fixture()));
    const untitled = fixture();
    for (const a of untitled.data.articles) delete a.title;
    expect(validate(parse(untitled))).toMatch(/at least 5/);
    expect(() => parse({ status: 0, data: {} })).toThrow(/^missing data\.articles \(an array\): data is an empty object$/);
    expect(() => parse({ status: 40001, message: 'forbidden' })).toThrow(expect.objectContaining({ kind: 'blocked' }));
    expect(() => parse(false)).toThrow(SourceError);
  });
});

describeHotListEndpoint({
  sourceId: 'hot-search-b',
  path: '/v2/apis/hot-search-b',
  ttlSec: 600,
  serveGood: () => {
    /* served from test/fixtures/upstream/iflow.quark.cn */
  },
  upstreams: [{ host: HOST, path: PATH }],
  blocked: { status: 403, headers: { 'content-type': 'text/html' }, body: '<html><body>Access denied</body></html>' },
  changedShape: { body: { status: 0, message: 'ok', data: { items: [{ title: 'x' }] } } },
  emptyList: { body: { status: 0, message: 'ok', data: { articles: [], has_more: false } } },
  expected: {
    total: 7,
    first: { title: '国产大飞机开通新国际航线', link: FIRST_LINK },
    firstHot: '民航资讯',
    query: { aggregation_id: AGGREGATION_ID, count: '50', bottom_pos: '0' },
  },
});
