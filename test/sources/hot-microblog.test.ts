import fs from 'node:fs';
import path from 'node:path';
import Parser from 'rss-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import hotMicroblog, { DEFAULT_COOKIE, parse } from '../../sources/hot-microblog.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { TestClock } from '../support/clock.ts';
import { describeHotListEndpoint, expectRejectsBroken, type Envelope } from '../support/hot-list-endpoint.ts';
import { hasRecordings, readRecording, readRecordingJson } from '../support/recorded-upstream.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const HOST = 'm.weibo.cn';
const PATH = '/api/container/getIndex';
const fixture = () => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, HOST, `${PATH}.json`), 'utf8')) as unknown;
const validate = hotMicroblog.mode === 'local' ? () => 'local' : hotMicroblog.validate;

describe('hot-microblog parse', () => {
  it('keeps ranked entries only, in rank order, with numbers and absolute search links', () => {
    const data = parse(fixture());
    expect(data.length).toBe(12);
    expect(data[0]).toEqual({
      rank: 1,
      title: '城市夜跑路线推荐',
      link: 'https://s.weibo.com/weibo?q=%23%E5%9F%8E%E5%B8%82%E5%A4%9C%E8%B7%91%E8%B7%AF%E7%BA%BF%E6%8E%A8%E8%8D%90%23',
      hot_value: 2411032,
      category: null,
      label: '热',
      label_icon: 'https://simg.s.weibo.com/20210618_hot.png',
      id: 'https://s.weibo.com/weibo?q=%23%E5%9F%8E%E5%B8%82%E5%A4%9C%E8%B7%91%E8%B7%AF%E7%BA%BF%E6%8E%A8%E8%8D%90%23',
    });
    expect(data.slice(1, 3).map((i) => i.label)).toEqual(['新', '沸']);
    expect(data[7]).toMatchObject({ title: '手机新品发布会', label: null, label_icon: null });
    expect(data.map((i) => i.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(data.find((i) => i.title === '推广内容')).toBeUndefined();
    expect(data.find((i) => i.title.startsWith('置顶'))).toBeUndefined();
    // "综艺 845210" (label + number) and a bare number both give the number.
    expect(data[6]).toMatchObject({ hot_value: 845210, category: '综艺' });
    expect(data[9]?.hot_value).toBe(512345);
    expect(hotMicroblog.mode !== 'local' && hotMicroblog.validate(data)).toBeUndefined();
  });

  it('rejects broken copies', () => {
    const broken = fixture() as { data: { cards: { card_group: unknown[] }[] } };
    broken.data.cards[0]!.card_group = broken.data.cards[0]!.card_group.slice(0, 3);
    const few = parse(broken);
    expect(hotMicroblog.mode !== 'local' && hotMicroblog.validate(few)).toMatch(/at least 5/);
    expect(() => parse({ ok: 1, data: {} })).toThrow(SourceError);
    expect(() => parse({ ok: 0, msg: '请先登录' })).toThrow(/ok=0/);
    expect(() => parse('nope')).toThrow(/not a JSON object/);
    expectRejectsBroken(validate, parse(fixture()));
    const empty = fixture() as { data: { cards: { card_group: unknown[] }[] } };
    empty.data.cards[0]!.card_group = [];
    expect(validate(parse(empty))).toMatch(/got 0/);
  });

  it('ships a default visitor cookie, replaceable by SOURCE_HOT_MICROBLOG_COOKIE', () => {
    const spec = hotMicroblog.env?.find((e) => e.name === 'SOURCE_HOT_MICROBLOG_COOKIE');
    expect(spec?.default).toBe(DEFAULT_COOKIE);
    expect(DEFAULT_COOKIE).toMatch(/^SUB=[^;]+; SUBP=/);
    expect(spec?.secret).toBe(true);
  });
});

describe('hot-microblog through the server', () => {
  const upstream = new Upstream();
  let svc: TestService;
  const clock = new TestClock();

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, env: { SOURCE_HOT_MICROBLOG_COOKIE: 'SUB=test-cookie' } });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('serves json, text, markdown, html and rss from one fetch, with the configured cookie', async () => {
    const json = await svc.get('/v2/apis/hot-microblog');
    expect(json.status).toBe(200);
    expect(json.headers.get('x-cache')).toBe('MISS');
    const body = (await json.json()) as { code: number; message: string; data: { title: string }[] };
    expect(body.code).toBe(200);
    expect(body.message).toBe('success');
    expect(body.data[0]?.title).toBe('城市夜跑路线推荐');
    expect(upstream.hits(HOST)).toHaveLength(1);
    expect(upstream.hits(HOST)[0]?.headers.cookie).toBe('SUB=test-cookie');
    expect(upstream.hits(HOST)[0]?.query.get('containerid')).toBe('106003type=25&t=3&disable_hot=1&filter_type=realtimehot');

    const text = await svc.get('/v2/apis/hot-microblog?encoding=text');
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(text.headers.get('x-cache')).toBe('HIT');
    expect(await text.text()).toContain('1. 城市夜跑路线推荐 (2,411,032)');

    const md = await (await svc.get('/v2/apis/hot-microblog?encoding=markdown')).text();
    expect(md).toMatch(/^# 微博热搜/);
    expect(md).toContain('1. [城市夜跑路线推荐](https://s.weibo.com/weibo?q=');

    const html = await svc.get('/v2/apis/hot-microblog?encoding=html');
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await html.text()).toContain('<a href="https://s.weibo.com/weibo?q=');

    const rss = await svc.get('/v2/apis/hot-microblog?encoding=rss');
    expect(rss.headers.get('content-type')).toBe('application/rss+xml; charset=utf-8');
    const feed = await new Parser().parseString(await rss.text());
    expect(feed.items).toHaveLength(12);
    expect(new Set(feed.items.map((i) => i.guid)).size).toBe(12);
    expect(feed.items[0]?.title).toBe('城市夜跑路线推荐');
    expect(upstream.hits(HOST)).toHaveLength(1);
  });

  it('keeps rss guids and first-seen dates stable across refreshes', async () => {
    const first = await new Parser().parseString(await (await svc.get('/v2/apis/hot-microblog?encoding=rss')).text());
    clock.advance(10 * 60_000);
    const doc = fixture() as { data: { cards: { card_group: { desc: string }[] }[] } };
    doc.data.cards[0]!.card_group[1]!.desc = '新上榜的话题';
    upstream.serve(HOST, PATH, { body: doc });
    const refreshed = await svc.get('/v2/apis/hot-microblog?encoding=rss&force-update=1');
    expect(refreshed.headers.get('x-cache')).toBe('MISS');
    const second = await new Parser().parseString(await refreshed.text());
    const before = new Map(first.items.map((i) => [i.guid, i.pubDate]));
    const kept = second.items.filter((i) => before.has(i.guid));
    expect(kept.length).toBe(11);
    for (const item of kept) expect(item.pubDate).toBe(before.get(item.guid));
    const added = second.items.find((i) => i.title === '新上榜的话题');
    expect(added && Date.parse(added.pubDate ?? '')).toBe(clock.t - (clock.t % 1000));
  });

  it('keeps the last good list when the upstream breaks, and serves it as STALE', async () => {
    clock.advance(6 * 60_000); // past the 300 s TTL
    upstream.serve(HOST, PATH, { status: 200, headers: { 'content-type': 'text/html' }, body: '<html><body>请登录后再访问</body></html>' });
    const stale = await svc.get('/v2/apis/hot-microblog');
    expect(stale.status).toBe(200);
    expect(stale.headers.get('x-cache')).toBe('STALE');
    expect(((await stale.json()) as { data: unknown[] }).data.length).toBe(12);
    await new Promise((r) => setTimeout(r, 100)); // the background refresh runs and fails
    const status = (await (await svc.get('/v2/status')).json()) as { data: { sources: { id: string; state: string; last_error: string; fail_count: number }[] } };
    const me = status.data.sources.find((s) => s.id === 'hot-microblog');
    expect(me?.state).toBe('failing');
    expect(me?.fail_count).toBe(1);
    expect(me?.last_error).toMatch(/^blocked: .*HTML page/);
  });
});

describe('hot-microblog with the default cookie', () => {
  it('sends the shipped visitor cookie when none is configured', async () => {
    const upstream = await new Upstream().start();
    const svc = await startService({ upstream });
    try {
      expect((await svc.get('/v2/apis/hot-microblog')).status).toBe(200);
      expect(upstream.hits(HOST)[0]?.headers.cookie).toBe(DEFAULT_COOKIE);
      expect(upstream.hits(HOST)[0]?.headers.referer).toBe('https://m.weibo.cn/');
    } finally {
      await svc.close();
      await upstream.stop();
    }
  });
});

describeHotListEndpoint({
  sourceId: 'hot-microblog',
  path: '/v2/apis/hot-microblog',
  ttlSec: 300,
  serveGood: () => {
    /* served from test/fixtures/upstream/m.weibo.cn */
  },
  upstreams: [{ host: HOST, path: PATH }],
  blocked: { status: 200, headers: { 'content-type': 'application/json' }, body: { ok: -100, url: 'https://passport.weibo.com/visitor/visitor?entry=miniblog' } },
  changedShape: { body: { ok: 1, data: { hotwords: [{ word: '话题' }] } } },
  emptyList: { body: { ok: 1, data: { cards: [{ card_type: 11, card_group: [] }] } } },
  expected: {
    total: 12,
    first: { title: '城市夜跑路线推荐', link: 'https://s.weibo.com/weibo?q=%23%E5%9F%8E%E5%B8%82%E5%A4%9C%E8%B7%91%E8%B7%AF%E7%BA%BF%E6%8E%A8%E8%8D%90%23' },
    firstHot: '2,411,032',
  },
});

const RECORDED = 'weibo/m-weibo-cn-container-realtimehot-2020-04-27-trimmed.json';
describe.skipIf(!hasRecordings('weibo'))('hot-microblog against the real recording', () => {
  type Card = { pic?: string; desc?: string; desc_extr?: string | number };
  const recorded = () => readRecordingJson(RECORDED) as { data: { cards: { card_group: Card[] }[] } };
  // Expectations come from the recording itself: ranked entries are the `img_search_<n>` ones.
  const ranked = () =>
    recorded()
      .data.cards[0]!.card_group.map((c) => ({ c, rank: Number(/img_search_(\d+)/.exec(c.pic ?? '')?.[1]) }))
      .filter((x) => Number.isInteger(x.rank));

  it('keeps the ranked entries with their heat, string or number', () => {
    const data = parse(recorded());
    const expected = ranked();
    expect(expected.length).toBeGreaterThanOrEqual(5);
    expect(data.map((i) => i.rank)).toEqual(expected.map((x) => x.rank));
    expected.forEach(({ c }, n) => {
      expect(data[n]?.title).toBe(c.desc);
      expect(data[n]?.hot_value).toBe(Number(String(c.desc_extr).replace(/\D+/g, '')));
    });
    expect(data.some((i) => typeof i.hot_value === 'number' && i.hot_value > 0)).toBe(true);
    expect(validate(data)).toBeUndefined();
  });

  it('serves the recording through the endpoint', async () => {
    const upstream = await new Upstream().start();
    const svc = await startService({ upstream });
    try {
      upstream.serve(HOST, PATH, { headers: { 'content-type': 'application/json; charset=utf-8' }, body: readRecording(RECORDED) });
      const res = await svc.get('/v2/apis/hot-microblog');
      expect(res.status).toBe(200);
      const body = (await res.json()) as Envelope<{ title: string; link: string }[]>;
      expect(body.data.map((i) => i.title)).toEqual(ranked().map((x) => x.c.desc));
      expect(body.data.every((i) => i.link.startsWith('https://s.weibo.com/weibo?q=%23'))).toBe(true);
      expect(upstream.unmatched).toEqual([]);
    } finally {
      await svc.close();
      await upstream.stop();
    }
  });
});
