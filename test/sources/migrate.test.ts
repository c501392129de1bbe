/**
 * The `migrate` of the list sources: today's data (fetched through the real engine from the
 * upstream fixtures) passes unchanged, the very same value, so reading it costs no re-encoding;
 * data in the shapes of before 60s's list shapes (written by hand after the old parsers, see
 * `git log -p 5d37f78..94a8293 -- sources/`) comes out in today's shape and passes `validate`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paramsKey, parseParams } from '../../src/kernel/params.ts';
import type { FetchedSource } from '../../src/kernel/source.ts';
import aiNews from '../../sources/ai-news.ts';
import boxoffice from '../../sources/boxoffice-a/index.ts';
import musicRank from '../../sources/music-rank.ts';
import searchA from '../../sources/search-a.ts';
import shortVideo from '../../sources/hot-short-video-a.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';

const migrateOf = (s: unknown) => (s as FetchedSource).migrate as (stored: unknown) => unknown;
const valid = (s: unknown, data: unknown) => (s as FetchedSource).validate(data);

describe('today’s data passes every migrate unchanged', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream });
  });
  afterAll(async () => {
    await svc?.close();
    await upstream.stop();
  });

  it('for every scheduled source with a migrate whose fixtures answer', async () => {
    const checked: string[] = [];
    for (const s of svc.registry.sources) {
      if (s.mode !== 'scheduled' || !s.migrate) continue;
      for (const raw of s.prefetch?.length ? s.prefetch : [{}]) {
        const params = parseParams(s.params, raw as Record<string, string>);
        let payload: string;
        try {
          payload = (await svc.engine.run(s, params, paramsKey(params))).payload as string;
        } catch {
          continue; // no fixture for this key
        }
        const data = JSON.parse(payload) as unknown;
        expect(s.migrate(data), s.id).toBe(data);
        checked.push(s.id);
      }
    }
    expect(new Set(checked).size).toBeGreaterThanOrEqual(10);
  });
});

describe('old shapes come out in today’s shape', () => {
  it('music-rank: the chart container with artists, quality and a missing album', () => {
    const old = {
      kind: 'chart',
      id: 3778678,
      name: '热歌榜',
      link: 'https://music.163.com/#/playlist?id=3778678',
      list: [1, 2].map((n) => ({
        rank: n,
        title: `歌${n}`,
        link: `https://music.163.com/#/song?id=${n}`,
        id: n,
        artists: [{ id: 9, name: '歌手', link: 'https://music.163.com/#/artist?id=9' }],
        album: n === 1 ? { id: 5, name: '专辑', link: 'https://music.163.com/#/album?id=5', cover: null, published: null, published_at: null, company: null } : null,
        duration: 200_000,
        duration_desc: '03:20',
        score: 100,
        fee: 8,
        status: 0,
        quality: { sq: null, hq: null, mq: null, lq: null },
      })),
      total: 2,
      updated: '2026-11-20 10:00:00',
      updated_at: 1,
    };
    const up = migrateOf(musicRank)(old) as Record<string, unknown>[];
    expect(valid(musicRank, up)).toBeUndefined();
    expect(up[0]).toMatchObject({ rank_name: '热歌榜', artist: [{ name: '歌手', cover: '' }], mb: { sq: null }, album: { id: 5, name: '专辑', cover: '', published: '', published_at: 0, company: '' } });
    expect(up[1]?.album).toEqual({ id: 0, name: '', link: '', cover: '', published: '', published_at: 0, company: '' });
    expect(up[0]).not.toHaveProperty('artists');
    expect(up[0]).not.toHaveProperty('quality');
    const charts = migrateOf(musicRank)({ kind: 'charts', list: [1, 2, 3, 4, 5].map((n) => ({ rank: n, title: `榜${n}`, name: `榜${n}`, link: `https://music.163.com/#/discover/toplist?id=${n}`, id: n })) }) as Record<string, unknown>[];
    expect(valid(musicRank, charts)).toBeUndefined();
    expect(charts[0]).toMatchObject({ name: '榜1', cover: '' });
  });

  it('ai-news: {list, date} becomes {date, news}; with all=1 the date is "all"', () => {
    const news = [{ rank: 1, title: '新闻', link: 'https://ai-bot.cn/1', date: '2026-11-20', detail: '', source: '' }];
    const base = { list: news, total: 1, updated: '2026-11-20 10:00:00', updated_at: 1, date: '2026-11-20', dates: ['2026-11-20'] };
    expect(migrateOf(aiNews)({ ...base, all: false, is_today: true })).toEqual({ date: '2026-11-20', news, total: 1, updated: '2026-11-20 10:00:00', updated_at: 1, all: false, is_today: true, dates: ['2026-11-20'] });
    const all = migrateOf(aiNews)({ ...base, all: true, is_today: true }) as Record<string, unknown>;
    expect(all).toMatchObject({ date: 'all', all: true, is_today: false });
    expect(valid(aiNews, all)).toBeUndefined();
  });

  it('boxoffice-a: amounts as numbers become digit text; the dashboard gains its title', () => {
    const item = (n: number) => ({ rank: n, title: `片${n}`, link: `https://piaofang.maoyan.com/movie/${n}`, movie_id: n, box_office: 1234.5, box_office_unit: '万', box_office_desc: '1234.5万', split_box_office: 1100, split_box_office_unit: '万' });
    const old = { list: [1, 2, 3, 4, 5].map(item), total: 5, updated: 'x', updated_at: 1, chart: 'realtime-movie', chart_title: '实时电影票房', box_office: 5678.9, box_office_unit: '万', split_box_office: null };
    const up = migrateOf(boxoffice)(old) as { title: string; box_office: string; split_box_office: string; list: { box_office: string; split_box_office: string }[] };
    expect(up).toMatchObject({ title: '', box_office: '5678.9', split_box_office: '' });
    expect(up.list[0]).toMatchObject({ box_office: '1234.5', split_box_office: '1100' });
    expect(valid(boxoffice, up)).toBeUndefined();
    expect(migrateOf(boxoffice)(up)).toBe(up);
  });

  it('search-a and hot-short-video-a: fields added since are filled from the old item and its container', () => {
    const forum = migrateOf(searchA)({
      board: 'forum',
      list: [1, 2, 3, 4, 5].map((n) => ({ rank: n, title: `帖${n}`, link: `https://tieba.baidu.com/t/${n}`, hot_value: 1000 * n, hot_value_desc: `${n}千`, desc: '' })),
    }) as Record<string, unknown>[];
    expect(forum[1]).toMatchObject({ url: 'https://tieba.baidu.com/t/2', score: 2000, score_desc: '2千', cover: null, avatar: null });
    const video = migrateOf(shortVideo)({
      active_time: '2026-11-20 10:00:00',
      active_time_at: 2,
      list: [1, 2, 3, 4, 5].map((n) => ({ rank: n, title: `话题${n}`, link: `https://www.douyin.com/search/${n}`, hot_value: n })),
    }) as Record<string, unknown>[];
    expect(video[4]).toMatchObject({ cover: '', event_time: null, event_time_at: null, active_time: '2026-11-20 10:00:00', active_time_at: 2 });
    expect(valid(shortVideo, video)).toBeUndefined();
  });
});
