import fs from 'node:fs';
import path from 'node:path';
import Parser from 'rss-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import itNews, { parseRss } from '../../sources/it-news.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { TestClock } from '../support/clock.ts';
import { describeFailureModes } from '../support/failure-modes.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

// Fixtures and where their format is documented: test/fixtures/upstream/www.ithome.com/README.md.
const HOST = 'www.ithome.com';
const rss = () => fs.readFileSync(path.join(FIXTURE_DIR, HOST, 'rss/index'), 'utf8');

interface Body<T> {
  code: number;
  message: string;
  data: T;
}

describe('it-news parse', () => {
  it('reads the RSS items in feed order: title, link, plain-text summary cut at 360 characters, time', () => {
    const list = parseRss(rss(), 20);
    expect(list.map((i) => i.rank)).toEqual([1, 2, 3, 4, 5]);
    expect(list[0]).toEqual({
      rank: 1,
      title: '测试资讯第1条：国产手机新品发布会定档',
      link: 'https://www.ithome.com/0/900/001.htm',
      description: '新品将于下周发布，售价待定。',
      created: '2026-11-26 18:05:00',
      created_at: Date.parse('2026-11-26T10:05:00Z'),
    });
    expect(list[1]!.description).toHaveLength(363);
    expect(list[1]!.description.endsWith('...')).toBe(true);
    expect(list[3]!.description).toBe('多款机型降价 & 赠品。');
    expect(parseRss(rss(), 2)).toHaveLength(2);
  });

  it('names what it missed; an HTML page instead of the feed is blocked', () => {
    expect(() => parseRss('<?xml version="1.0"?><feed></feed>', 20)).toThrow(expect.objectContaining({ kind: 'parse', path: 'rss > channel' }) as SourceError);
    expect(() => parseRss('<html><body>验证</body></html>', 20)).toThrow(expect.objectContaining({ kind: 'blocked' }) as SourceError);
  });
});

describe('it-news through the server, at our path and 60s’s', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: new TestClock(Date.parse('2026-11-26T11:00:00Z')).now, sources: [itNews] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
  });

  it('/v2/it-news answers 60s’s array of {title, link, description, created, created_at}, limit 20 by default', async () => {
    const res = await svc.get('/v2/it-news');
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as Body<{ title: string; link: string; description: string; created: string; created_at: number }[]>;
    expect(data).toHaveLength(5);
    expect(data[2]).toMatchObject({ title: '测试资讯第3条：某地开通 5G-A 网络', description: '覆盖主城区。', created: '2026-11-26 17:10:00' });
    expect(((await (await svc.get('/v2/apis/it-news?limit=3')).json()) as Body<unknown[]>).data).toHaveLength(3);
    const bad = await svc.get('/v2/apis/it-news?limit=51');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Body<null>).message).toContain('"limit"');
    const text = await (await svc.get('/v2/apis/it-news?encoding=text')).text();
    expect(text).toContain('测试资讯第1条：国产手机新品发布会定档');
    const feed = await new Parser().parseString(await (await svc.get('/v2/apis/it-news?encoding=rss')).text());
    expect(feed.items).toHaveLength(5);
    expect(Date.parse(feed.items[0]!.pubDate ?? '')).toBe(Date.parse('2026-11-26T10:05:00Z'));
  });
});

describeFailureModes({
  sources: [itNews],
  sourceId: 'it-news',
  path: '/v2/apis/it-news',
  host: HOST,
  upstreamPath: '/rss/',
  ttlSec: 600,
  loginPage: { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<html><head><title>安全验证</title></head><body>请完成验证</body></html>' },
  changedShape: { headers: { 'content-type': 'application/xml' }, body: '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"></feed>' },
  empty: { headers: { 'content-type': 'application/xml' }, body: '<?xml version="1.0"?><rss version="2.0"><channel><title>IT之家</title></channel></rss>' },
});
