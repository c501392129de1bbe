import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import itNewsRank, { parseRank } from '../../sources/it-news-rank.ts';
import type { SourceError } from '../../src/kernel/errors.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

// Fixture and where its layout is documented: test/fixtures/upstream/www.ithome.com/README.md.
const HOST = 'www.ithome.com';
const home = () => fs.readFileSync(path.join(FIXTURE_DIR, HOST, 'index.html'), 'utf8');

interface Body<T> {
  code: number;
  message: string;
  data: T;
}

describe('it-news-rank parse', () => {
  it('reads the day, week and month lists of the home page; a javascript: link is skipped', () => {
    const day = parseRank(home(), 'day');
    expect(day).toHaveLength(12);
    expect(day[0]).toEqual({ rank: 1, title: '测试日榜第1条：热门文章标题', link: 'https://www.ithome.com/0/810/000.htm' });
    expect(parseRank(home(), 'week')[11]).toEqual({ rank: 12, title: '测试周榜第12条：热门文章标题', link: 'https://www.ithome.com/0/820/011.htm' });
    expect(parseRank(home(), 'month')).toHaveLength(12);
    expect(() => parseRank('<html><body></body></html>', 'day')).toThrow(expect.objectContaining({ kind: 'parse', path: '#rank' }) as SourceError);
  });
});

describe('it-news-rank through the server, at our path and 60s’s', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, sources: [itNewsRank] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
  });

  it('/v2/it-news/rank answers the day list by default and the week or month one by type', async () => {
    const day = (await (await svc.get('/v2/it-news/rank')).json()) as Body<{ title: string; link: string }[]>;
    expect(day.data[0]).toMatchObject({ title: '测试日榜第1条：热门文章标题', link: 'https://www.ithome.com/0/810/000.htm' });
    const week = (await (await svc.get('/v2/apis/it-news/rank?type=week')).json()) as Body<{ title: string }[]>;
    expect(week.data[0]!.title).toBe('测试周榜第1条：热门文章标题');
    const bad = await svc.get('/v2/apis/it-news/rank?type=year');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Body<null>).message).toMatch(/"type".*day, week, month/);
    expect(await (await svc.get('/v2/apis/it-news/rank?type=month&encoding=markdown')).text()).toMatch(/^# IT之家月榜/);
  });
});
