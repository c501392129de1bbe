import fs from 'node:fs';
import path from 'node:path';
import Parser from 'rss-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import aiNews, { headingDate, parse, validateNews } from '../../sources/ai-news.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { TestClock } from '../support/clock.ts';
import { describeFailureModes } from '../support/failure-modes.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const HOST = 'ai-bot.cn';
const PATH = '/daily-ai-news/';
const page = () => fs.readFileSync(path.join(FIXTURE_DIR, HOST, 'daily-ai-news/index.html'), 'utf8');
const now = new Date('2026-11-21T02:00:00Z');
const DAY = 86_400_000;

interface Body {
  code: number;
  message: string;
  data: { date: string; all: boolean; is_today: boolean; total: number; dates: string[]; news: { rank: number; title: string; link: string; detail: string; source: string; date: string }[] } | null;
}

describe('ai-news parse', () => {
  it("reads today's items with summary, source and absolute links", () => {
    const d = parse(page(), {}, now);
    expect(d).toMatchObject({ date: '2026-11-21', all: false, is_today: true, total: 3, dates: ['2026-11-21', '2026-11-20', '2026-11-19'] });
    expect(d.news[0]).toEqual({
      rank: 1,
      title: '开源社区发布轻量级多模态模型 Lumen-3B',
      link: 'https://ai-bot.cn/news/lumen-3b-release/',
      detail: '该模型在图文理解基准上接近 7B 级别模型的表现，可在单张消费级显卡上运行，权重以 Apache 2.0 协议开放。',
      source: '量子位',
      date: '2026-11-21',
    });
    expect(d.news[1]?.link).toBe('https://ai-bot.cn/news/per-second-inference/');
    expect(d.news[2]?.source).toBe('');
    expect(validateNews(d)).toBeUndefined();
  });

  it('reads a given day, every day, and falls back to the newest day before today has news', () => {
    expect(parse(page(), { date: '2026-11-20' }, now).news.map((i) => i.title)).toEqual(['AI 编程助手新增代码审查功能', '教育机构试点 AI 口语陪练']);
    const all = parse(page(), { all: true }, now);
    expect(all).toMatchObject({ all: true, date: 'all', total: 6 });
    expect(all.news.map((i) => i.date)).toEqual(['2026-11-21', '2026-11-21', '2026-11-21', '2026-11-20', '2026-11-20', '2026-11-19']);
    const early = parse(page(), {}, new Date('2026-11-21T17:00:00Z')); // 01:00 on the 22nd
    expect(early).toMatchObject({ date: '2026-11-21', is_today: false, total: 3 });
    for (const date of ['2026-11-10', '2026-11-18']) {
      try {
        parse(page(), { date }, now);
        expect.unreachable();
      } catch (err) {
        expect((err as SourceError).kind).toBe('not_found');
        expect((err as Error).message).toMatch(/reaches back to 2026-11-19/);
      }
    }
  });

  it('dates headings without a year so that they fall on or before today', () => {
    expect(headingDate('11月21·周六', '2026-11-21')).toBe('2026-11-21');
    expect(headingDate('12月31·周四', '2027-01-02')).toBe('2026-12-31');
    expect(headingDate('1月2·周六', '2027-01-02')).toBe('2027-01-02');
    expect(headingDate('1月3日 周日', '2027-01-02')).toBe('2027-01-03');
    expect(headingDate('2025年8月4日', '2026-11-21')).toBe('2025-08-04');
    expect(headingDate('昨天', '2026-11-21')).toBeUndefined();
  });

  it('rejects broken copies', () => {
    const d = parse(page(), {}, now);
    expect(validateNews({ ...d, news: [] })).toMatch(/no news/);
    expect(validateNews({ ...d, news: [{ ...d.news[0]!, link: '/relative' }] })).toMatch(/item 1/);
    expect(() => parse('<html><body><article>改版了</article></body></html>', {}, now)).toThrow(SourceError);
    const headingsOnly = parse(page().replace(/<div class="news-item">[\s\S]*?<\/div>\n<\/div>/g, ''), {}, now);
    expect(validateNews(headingsOnly)).toMatch(/no news/);
  });
});

describe('ai-news through the server', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, sources: [aiNews] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('serves today in json, text, markdown, html and rss', async () => {
    const json = await svc.get('/v2/apis/ai-news');
    expect(json.status).toBe(200);
    const body = (await json.json()) as Body;
    expect(body.data).toMatchObject({ date: '2026-11-21', is_today: true, total: 3 });

    const text = await (await svc.get('/v2/apis/ai-news?encoding=text')).text();
    expect(text).toMatch(/^AI 资讯快报（2026-11-21，实时更新）\n\n1\. 开源社区发布轻量级多模态模型 Lumen-3B\n {3}该模型在图文理解基准上.*（来源：量子位）\n {3}https:\/\/ai-bot\.cn\/news\/lumen-3b-release\//);
    const md = await (await svc.get('/v2/apis/ai-news?encoding=markdown')).text();
    expect(md).toContain('1. [开源社区发布轻量级多模态模型 Lumen-3B](https://ai-bot.cn/news/lumen-3b-release/) (量子位)');
    expect(md).toContain('   > 新服务支持冷启动小于一秒的无服务器推理');
    const html = await (await svc.get('/v2/apis/ai-news?encoding=html')).text();
    expect(html).toContain('<a href="https://ai-bot.cn/news/per-second-inference/" rel="noopener noreferrer">某云厂商推出按秒计费的推理服务</a>');

    const feed = await new Parser().parseString(await (await svc.get('/v2/apis/ai-news?encoding=rss')).text());
    expect(feed.items.map((i) => i.title)).toEqual(['开源社区发布轻量级多模态模型 Lumen-3B', '某云厂商推出按秒计费的推理服务', '研究团队提出更省显存的长上下文训练方法']);
    expect(new Set(feed.items.map((i) => i.guid)).size).toBe(3);
    clock.advance(31 * 60_000);
    const again = await new Parser().parseString(await (await svc.get('/v2/apis/ai-news?encoding=rss&force-update=1')).text());
    expect(again.items.map((i) => i.guid)).toEqual(feed.items.map((i) => i.guid));
    expect(upstream.hits(HOST)).toHaveLength(2);
  });

  it('serves all=1, refuses all with date, and checks dates', async () => {
    const all = (await (await svc.get('/v2/apis/ai-news?all=1')).json()) as Body;
    expect(all.data).toMatchObject({ all: true, total: 6 });
    const text = await (await svc.get('/v2/apis/ai-news?all=1&encoding=text')).text();
    expect(text).toMatch(/^AI 资讯快报（全部）/);
    expect(text).toContain('[2026-11-19]');
    const both = await svc.get('/v2/apis/ai-news?all=1&date=2026-11-20');
    expect(both.status).toBe(400);
    expect(((await both.json()) as Body).message).toMatch(/"all".*"date"/);
    expect((await svc.get('/v2/apis/ai-news?date=2026-12-01')).status).toBe(400);
    expect((await svc.get('/v2/apis/ai-news?date=2026112')).status).toBe(400);
  });

  it('keeps each day in history and answers it after it left the page', async () => {
    const clock2 = new TestClock();
    const svc2 = await startService({ upstream, now: clock2.now, sources: [aiNews] });
    try {
      await svc2.get('/v2/apis/ai-news'); // stores 11-21
      const d20 = (await (await svc2.get('/v2/apis/ai-news?date=2026-11-20')).json()) as Body; // fetched, stores 11-20
      expect(d20.data?.total).toBe(2);
      // Two days later the page moved on: 11-19 to 11-21 are gone.
      clock2.advance(2 * DAY);
      const moved = page()
        .replace('11月21·周六', '11月23·周一')
        .replace('11月20·周五', '11月22·周日')
        .replace(/<div class="news-list">\n<div class="news-date">11月19·周四<\/div>[\s\S]*?<\/div>\n<\/div>\n<\/div>/, '');
      upstream.serve(HOST, PATH, { headers: { 'content-type': 'text/html; charset=utf-8' }, body: moved });
      upstream.requests.length = 0;
      const old21 = await svc2.get('/v2/apis/ai-news?date=2026-11-21');
      expect(old21.status).toBe(200);
      expect(((await old21.json()) as Body).data?.news[0]?.title).toBe('开源社区发布轻量级多模态模型 Lumen-3B');
      expect(((await (await svc2.get('/v2/apis/ai-news?date=2026-11-20')).json()) as Body).data?.total).toBe(2);
      expect(upstream.requests).toHaveLength(0);
      const gone = await svc2.get('/v2/apis/ai-news?date=2026-11-19');
      expect(gone.status).toBe(404);
      expect(((await gone.json()) as Body).message).toMatch(/No AI news is stored for 2026-11-19/);
      const today = (await (await svc2.get('/v2/apis/ai-news?force-update=1')).json()) as Body;
      expect(today.data?.date).toBe('2026-11-23');
    } finally {
      await svc2.close();
    }
  });
});

describeFailureModes({
  sources: [aiNews],
  sourceId: 'ai-news',
  path: '/v2/apis/ai-news',
  host: HOST,
  upstreamPath: PATH,
  ttlSec: 1800,
  loginPage: { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<html><head><title>Just a moment...</title></head><body>请完成安全验证</body></html>' },
  changedShape: { headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<html><body><ul class="daily"><li>改版后的页面</li></ul></body></html>' },
  empty: { headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<html><body><div class="news-list"><div class="news-date">11月21·周六</div></div></body></html>' },
});
