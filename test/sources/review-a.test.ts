import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import reviewA, { CHARTS, CHART_TYPES, parse, validate, type ChartType, type ReviewChart } from '../../sources/review-a.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { TestClock } from '../support/clock.ts';
import { NO_CLIENT_LIMITS, expectKeptAfterFailure, expectStableGuids, expectUnavailable, forceRefresh, getFeed, getJson, getRenderings } from '../support/endpoint-checks.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const HOST = 'm.douban.com';
const itemsPath = (type: ChartType) => `/rexxar/api/v2/subject_collection/${CHARTS[type].collection}/items`;
interface RawItem {
  id: string;
  title: string;
  rank: number;
  rating: { value: number; count: number } | null;
  cover_url: string;
  card_subtitle: string;
  description: string;
  good_rating_stats: number;
  rank_value_changed: number;
  url?: string;
  type: string;
}
const fixture = (type: ChartType) =>
  JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, HOST, `${itemsPath(type)}.json`), 'utf8')) as { subject_collection_items: RawItem[] } & Record<string, unknown>;

describe('review-a parse', () => {
  it('reads a weekly chart: rank, rating, trend, subtitle, upstream cover', () => {
    const raw = fixture('movie');
    const data = parse(raw);
    expect(data).toHaveLength(10);
    const r0 = raw.subject_collection_items[0]!;
    expect(data[0]).toEqual({
      rank: 1,
      title: '雾港来信',
      link: `https://movie.douban.com/subject/${r0.id}/`,
      url: `https://movie.douban.com/subject/${r0.id}/`,
      score: r0.rating!.value,
      rating: r0.rating!.value,
      cover: r0.cover_url,
      cover_proxy: r0.cover_url,
      id: r0.id,
      rating_count: r0.rating!.count,
      good_rate: r0.good_rating_stats,
      trend: 'equal',
      rank_change: 0,
      card_subtitle: r0.card_subtitle,
      description: r0.description,
      tags: ['悬疑'],
      subject_type: 'movie',
    });
    expect(data[0]?.cover).toMatch(/^https:\/\/img\d\.doubanio\.com\//);
    expect(data[1]).toMatchObject({ trend: 'up', rank_change: 2, tags: ['剧情', '爱情'] });
    expect(data[2]).toMatchObject({ trend: 'down', rank_change: -1 });
    // No url upstream: the subject page is built from the id.
    expect(data[2]?.link).toBe(`https://movie.douban.com/subject/${raw.subject_collection_items[2]!.id}/`);
    expect(validate(data)).toBeUndefined();
  });

  it('reads every chart; an unrated show has no score', () => {
    for (const type of CHART_TYPES) {
      const data = parse(fixture(type));
      expect(data).toHaveLength(10);
      expect(data.every((i) => i.url === i.link && typeof i.rating === 'number')).toBe(true);
    }
    const shows = parse(fixture('show_global'));
    expect(shows[9]).not.toHaveProperty('score');
    expect(shows[9]).toMatchObject({ rating: 0, rating_count: 0 });
  });

  it('rejects broken copies', () => {
    const data = parse(fixture('tv_chinese'));
    expect(validate(data.slice(0, 2))).toMatch(/at least 5/);
    expect(validate(data.map((i, n) => (n === 4 ? { ...i, link: '/subject/1' } : i)))).toMatch(/item 5/);
    expect(() => parse({ msg: 'invalid_request_1287', code: 1287 })).toThrow(expect.objectContaining({ kind: 'blocked' }) as SourceError);
    expect(() => parse({ items: [] })).toThrow(expect.objectContaining({ kind: 'parse' }) as SourceError);
  });
});

describe('review-a through the server', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, sources: [reviewA], env: { ...NO_CLIENT_LIMITS, HTTP_TIMEOUT_MS: '500' } });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('serves all five charts, each from its own collection, with the mobile headers', async () => {
    for (const type of CHART_TYPES) {
      const { res, data } = await getJson<ReviewChart>(svc, `/v2/apis/review-a/weekly/${type}`);
      expect(res.headers.get('x-cache')).toBe('MISS');
      expect(data[0]?.title).toBe(fixture(type).subject_collection_items[0]!.title);
    }
    const hits = upstream.hits(HOST);
    expect(hits.map((h) => h.path)).toEqual(CHART_TYPES.map(itemsPath));
    expect(hits[0]?.query.get('count')).toBe('10');
    expect(hits[0]?.query.get('items_only')).toBe('1');
    expect(hits[0]?.headers.referer).toBe('https://m.douban.com/subject_collection');
    expect(hits[0]?.headers['user-agent']).toMatch(/iPhone/);
    // The fixed chart cannot be overridden from the query.
    expect((await getJson<ReviewChart>(svc, '/v2/apis/review-a/weekly/movie?type=tv_global')).data[0]?.title).toBe(fixture('movie').subject_collection_items[0]!.title);
    expect(upstream.hits(HOST)).toHaveLength(5);
  });

  it('renders text, markdown, html and rss', async () => {
    const url = '/v2/apis/review-a/weekly/movie';
    const data = (await getJson<ReviewChart>(svc, url)).data;
    const { text, markdown, html } = await getRenderings(svc, url);
    expect(text).toMatch(/^豆瓣一周口碑电影榜\n/);
    expect(text).toContain(`1. 雾港来信 (★${data[0]!.score})`);
    expect(text).toContain(`2. The Last Lighthouse (★${data[1]!.score}↑)`);
    expect(text).toContain(`3. 小城夏天 (★${data[2]!.score}↓)`);
    expect(markdown).toContain(`1. [雾港来信](${data[0]!.link})`);
    expect(html).toContain(data[0]!.card_subtitle);
    const feed = await getFeed(svc, url);
    expect(feed.title).toBe('豆瓣一周口碑电影榜');
    expect(feed.items.map((i) => i.link)).toEqual(data.map((i) => i.link));
  });

  it('keeps the last good chart through upstream failures', async () => {
    const url = '/v2/apis/review-a/weekly/tv_chinese';
    const good = (await getJson<ReviewChart>(svc, url)).data;

    upstream.serve(HOST, itemsPath('tv_chinese'), { status: 503, body: 'busy' });
    expect((await expectKeptAfterFailure<ReviewChart>(svc, clock, url, 'review-a', /^transient: .*HTTP 503/))).toEqual(good);

    upstream.serve(HOST, itemsPath('tv_chinese'), { status: 400, body: { msg: 'invalid_request_1287', code: 1287, request: 'GET /v2/subject_collection/tv_chinese_best_weekly/items' } });
    await expectKeptAfterFailure(svc, clock, url, 'review-a', /^blocked: .*1287/);

    upstream.serve(HOST, itemsPath('tv_chinese'), { headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<html><title>禁止访问</title><body>请登录</body></html>' });
    await expectKeptAfterFailure(svc, clock, url, 'review-a', /^blocked: .*HTML page/);

    upstream.serve(HOST, itemsPath('tv_chinese'), { body: { count: 0, subject_collection: { name: 'x' } } });
    await expectKeptAfterFailure(svc, clock, url, 'review-a', /^parse: missing subject_collection_items \(an array\)/);

    upstream.serve(HOST, itemsPath('tv_chinese'), { body: { count: 0, start: 0, total: 0, subject_collection_items: [] } });
    await expectKeptAfterFailure(svc, clock, url, 'review-a', /^empty: rejected: expected at least 5/);

    clock.advance(2 * 3600_000);
    const stale = await svc.get(url);
    expect(stale.headers.get('x-cache')).toBe('STALE');
    expect(((await stale.json()) as { data: ReviewChart }).data).toEqual(good);
    await new Promise((r) => setTimeout(r, 100));
  });

  it('answers 503 with Retry-After when cold and the upstream is slow', async () => {
    // A fresh service: every chart is cold.
    const cold = await startService({ upstream, now: clock.now, sources: [reviewA], env: { ...NO_CLIENT_LIMITS, HTTP_TIMEOUT_MS: '300' } });
    try {
      upstream.serve(HOST, itemsPath('show_global'), { delayMs: 1200, body: fixture('show_global') });
      expect(await expectUnavailable(cold, '/v2/apis/review-a/weekly/show_global', '豆瓣口碑榜')).toMatch(/timed out/);
      upstream.serve(HOST, itemsPath('show_chinese'), { status: 500, body: '' });
      expect(await expectUnavailable(cold, '/v2/apis/review-a/weekly/show_chinese', '豆瓣口碑榜')).toMatch(/HTTP 500/);
    } finally {
      await cold.close();
    }
  });

  it('keeps rss guids stable across a refresh', async () => {
    for (const type of CHART_TYPES) await expectStableGuids(svc, clock, `/v2/apis/review-a/weekly/${type}`);
    const url = '/v2/apis/review-a/weekly/tv_global';
    const before = await getFeed(svc, url);
    const doc = fixture('tv_global');
    const moved = doc.subject_collection_items.splice(3, 1);
    doc.subject_collection_items.unshift(...moved);
    doc.subject_collection_items.forEach((i, n) => (i.rank = n + 1));
    upstream.serve(HOST, itemsPath('tv_global'), { body: doc });
    expect((await forceRefresh(svc, clock, url)).headers.get('x-cache')).toBe('MISS');
    const after = await getFeed(svc, url);
    expect(after.items[0]?.guid).toBe(before.items[3]?.guid);
    expect(new Set(after.items.map((i) => i.guid))).toEqual(new Set(before.items.map((i) => i.guid)));
    for (const item of after.items) expect(item.pubDate).toBe(before.items.find((b) => b.guid === item.guid)?.pubDate);
  });
});
