/**
 * 60s conformance of every list endpoint we share with vikiboss/60s (v2): each route, served
 * from the local upstream fixtures, answers `data` in 60s's container (a bare array, or 60s's
 * object around a list) with every 60s field under its name and type. The layouts are written
 * in our own words from the TypeScript types of 60s's modules (src/modules/*.module.ts); our
 * richer fields sit beside them and are not checked here.
 *
 * | 60s path (its module)                    | our route                              | container |
 * |------------------------------------------|----------------------------------------|-----------|
 * | /v2/weibo (weibo)                        | /v2/apis/hot-microblog                 | array     |
 * | /v2/douyin (douyin)                      | /v2/apis/hot-short-video-a             | array     |
 * | /v2/rednote (rednote)                    | /v2/apis/hot-lifestyle-a               | array     |
 * | /v2/bili (bili)                          | /v2/apis/hot-video-site                | array     |
 * | /v2/zhihu (zhihu)                        | /v2/apis/hot-qa-site                   | array     |
 * | /v2/toutiao (toutiao)                    | /v2/apis/hot-news-feed                 | array     |
 * | /v2/baidu/hot, /v2/baidu/realtime        | /v2/apis/search-a/hot                  | array     |
 * | /v2/baidu/teleplay (baidu)               | /v2/apis/search-a/teleplay             | array     |
 * | /v2/baidu/tieba (baidu)                  | /v2/apis/search-a/forum                | array     |
 * | /v2/quark (quark)                        | /v2/apis/hot-search-b                  | array     |
 * | /v2/dongchedi (dongchedi)                | /v2/apis/hot-car                       | array     |
 * | /v2/ncm-rank/list, /v2/ncm-rank (ncm)    | /v2/apis/music-rank/list               | array     |
 * | /v2/ncm-rank/:id (ncm)                   | /v2/apis/music-rank/:id                | array     |
 * | /v2/hacker-news/{top,new,best}           | /v2/apis/tech-forum/{top,new,best}     | array     |
 * | /v2/maoyan/all/movie, /v2/maoyan         | /v2/apis/boxoffice-a/all/movie         | object    |
 * | /v2/maoyan/realtime/{movie,tv,web}       | /v2/apis/boxoffice-a/realtime/{…}      | object    |
 * | /v2/douban/weekly/{movie,tv_chinese,…}   | /v2/apis/review-a/weekly/{…}           | array     |
 * | /v2/epic (epic)                          | /v2/apis/free-games                    | array     |
 * | /v2/ai-news (ai-news)                    | /v2/apis/ai-news                       | object    |
 *
 * | /v2/it-news, /v2/it-news/rank (it-news)  | /v2/apis/it-news, /v2/apis/it-news/rank | array     |
 *
 * Array-shaped answers carry their count and fetch time in X-Total-Count and Last-Modified.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_CLIENT_LIMITS, type Envelope } from '../support/endpoint-checks.ts';
import { TestClock } from '../support/clock.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';
import { layoutMismatches, type Layout } from './layout.ts';

/**
 * 60s's date-time texts: `YYYY/MM/DD HH:mm:ss` where its module writes Common.localeTime, `YYYY-MM-DD
 * HH:mm:ss` where it writes dayjs's format (see layout.ts); and the 13-digit ms twin.
 */
const TIME = 'time/';
const DASH_TIME = 'time-';
const MS = 'number';

const HACKER_NEWS: Layout = [{ id: 'number', title: 'string', score: 'number', link: 'string', author: 'string', created: DASH_TIME, created_at: MS }];

const DOUBAN_WEEKLY: Layout = [
  {
    rank: 'number',
    title: 'string',
    id: 'string',
    rating: 'number',
    rating_count: 'number',
    good_rate: 'number',
    trend: 'string',
    rank_change: 'number',
    card_subtitle: 'string',
    description: 'string',
    cover: 'string',
    cover_proxy: 'string',
    url: 'string',
    tags: ['string'],
  },
];

/** One audio quality of a track, or null when the track has none. */
const QUALITY = 'object|null';

interface ListCase {
  /** 60s's path (its module name in brackets where it differs). */
  sixty: string;
  path: string;
  layout: Layout;
}

const CASES: ListCase[] = [
  { sixty: '/v2/weibo', path: '/v2/apis/hot-microblog', layout: [{ title: 'string', hot_value: 'number', link: 'string' }] },
  {
    sixty: '/v2/douyin',
    path: '/v2/apis/hot-short-video-a',
    layout: [{ title: 'string', hot_value: 'number', cover: 'string', link: 'string', event_time: TIME, event_time_at: MS, active_time: 'string', active_time_at: MS }],
  },
  {
    sixty: '/v2/rednote',
    path: '/v2/apis/hot-lifestyle-a',
    layout: [{ rank: 'number', title: 'string', score: 'string', word_type: 'string', work_type_icon: 'string', link: 'string' }],
  },
  { sixty: '/v2/bili', path: '/v2/apis/hot-video-site', layout: [{ title: 'string', link: 'string' }] },
  {
    sixty: '/v2/zhihu',
    path: '/v2/apis/hot-qa-site',
    layout: [
      {
        title: 'string',
        detail: 'string',
        cover: 'string',
        hot_value_desc: 'string',
        answer_cnt: 'number',
        follower_cnt: 'number',
        comment_cnt: 'number',
        created_at: MS,
        created: TIME,
        link: 'string',
      },
    ],
  },
  { sixty: '/v2/toutiao', path: '/v2/apis/hot-news-feed', layout: [{ title: 'string', hot_value: 'number', cover: 'string', link: 'string' }] },
  {
    sixty: '/v2/baidu/hot',
    path: '/v2/apis/search-a/hot',
    layout: [
      {
        rank: 'number',
        title: 'string',
        desc: 'string',
        score: 'string',
        score_desc: 'string',
        cover: 'string|null',
        type: 'string',
        type_desc: 'string|null',
        type_icon: 'string|null',
        url: 'string',
      },
    ],
  },
  {
    sixty: '/v2/baidu/teleplay',
    path: '/v2/apis/search-a/teleplay',
    layout: [{ rank: 'number', title: 'string', desc: 'string', score: 'string', score_desc: 'string', cover: 'string|null', url: 'string' }],
  },
  {
    sixty: '/v2/baidu/tieba',
    path: '/v2/apis/search-a/forum',
    layout: [{ rank: 'number', title: 'string', desc: 'string', abstract: 'string', score: 'number', score_desc: 'string', avatar: 'string|null', url: 'string' }],
  },
  {
    sixty: '/v2/quark',
    path: '/v2/apis/hot-search-b',
    layout: [
      {
        id: 'string',
        title: 'string',
        summary: 'string',
        content: 'string',
        source: 'string',
        cover: 'string',
        images: [{ url: 'string', width: 'number', height: 'number', type: 'string', 'description?': 'string' }],
        category: ['string'],
        tags: ['string'],
        like_count: 'number',
        share_count: 'number',
        comment_count: 'number',
        published: TIME,
        published_at: MS,
        link: 'string',
      },
    ],
  },
  { sixty: '/v2/dongchedi', path: '/v2/apis/hot-car', layout: [{ rank: 'number', title: 'string', url: 'string', score: 'number', score_desc: 'string' }] },
  {
    sixty: '/v2/ncm-rank/list',
    path: '/v2/apis/music-rank/list',
    layout: [
      {
        id: 'number',
        name: 'string',
        description: 'string|null',
        cover: 'string',
        update_frequency: 'string',
        updated: DASH_TIME,
        updated_at: MS,
        created: DASH_TIME,
        created_at: MS,
        link: 'string',
      },
    ],
  },
  {
    sixty: '/v2/ncm-rank/:id',
    path: '/v2/apis/music-rank/3778678',
    layout: [
      {
        id: 'number',
        rank: 'number',
        rank_name: 'string',
        title: 'string',
        artist: [{ id: 'number', name: 'string', cover: 'string', link: 'string' }],
        album: { id: 'number', name: 'string', cover: 'string', published: 'string', published_at: 'number', company: 'string' },
        duration: 'number',
        duration_desc: 'string',
        popularity: 'number',
        score: 'number',
        fee: 'number',
        status: 'number',
        mb: { sq: QUALITY, hq: QUALITY, mq: QUALITY, lq: QUALITY },
        link: 'string',
      },
    ],
  },
  { sixty: '/v2/hacker-news/top', path: '/v2/apis/tech-forum/top', layout: HACKER_NEWS },
  { sixty: '/v2/it-news', path: '/v2/apis/it-news', layout: [{ title: 'string', link: 'string', description: 'string', created: DASH_TIME, created_at: MS }] },
  { sixty: '/v2/it-news/rank', path: '/v2/apis/it-news/rank?type=week', layout: [{ title: 'string', link: 'string' }] },
  {
    sixty: '/v2/maoyan/all/movie',
    path: '/v2/apis/boxoffice-a/all/movie',
    layout: {
      list: [{ rank: 'number', maoyan_id: 'number', movie_name: 'string', release_year: 'string', box_office: 'number', box_office_desc: 'string' }],
      tip: 'string',
      update_time: TIME,
      update_time_at: MS,
    },
  },
  {
    sixty: '/v2/maoyan/realtime/movie',
    path: '/v2/apis/boxoffice-a/realtime/movie',
    layout: {
      title: 'string',
      show_count_desc: 'string',
      view_count_desc: 'string',
      split_box_office: 'string',
      split_box_office_unit: 'string',
      box_office: 'string',
      box_office_unit: 'string',
      update_gap_second: 'number',
      updated: DASH_TIME,
      updated_at: MS,
      list: [
        {
          movie_id: 'number',
          movie_name: 'string',
          release_info: 'string',
          box_office: 'string',
          box_office_unit: 'string',
          box_office_desc: 'string',
          box_office_rate: 'string',
          split_box_office: 'string',
          split_box_office_unit: 'string',
          split_box_office_desc: 'string',
          split_box_office_rate: 'string',
          show_count: 'number',
          show_count_rate: 'string',
          avg_show_view: 'string',
          avg_seat_view: 'string',
          sum_box_desc: 'string',
          sum_split_box_desc: 'string',
        },
      ],
    },
  },
  {
    sixty: '/v2/maoyan/realtime/tv',
    path: '/v2/apis/boxoffice-a/realtime/tv',
    layout: {
      update_gap_second: 'number',
      updated: DASH_TIME,
      updated_at: MS,
      list: [{ programme_name: 'string', channel_name: 'string', market_rate: 'number', market_rate_desc: 'string', attention_rate: 'number', attention_rate_desc: 'string' }],
    },
  },
  {
    sixty: '/v2/maoyan/realtime/web',
    path: '/v2/apis/boxoffice-a/realtime/web',
    layout: {
      update_gap_second: 'number',
      updated: DASH_TIME,
      updated_at: MS,
      list: [
        {
          series_id: 'number',
          series_name: 'string',
          release_info: 'string',
          platform_desc: 'string',
          platform_txt: 'number',
          curr_heat: 'number',
          curr_heat_desc: 'string',
          bar_value: 'number',
        },
      ],
    },
  },
  ...['movie', 'tv_chinese', 'tv_global', 'show_chinese', 'show_global'].map((type) => ({
    sixty: `/v2/douban/weekly/${type}`,
    path: `/v2/apis/review-a/weekly/${type}`,
    layout: DOUBAN_WEEKLY,
  })),
  {
    sixty: '/v2/epic',
    path: '/v2/apis/free-games',
    layout: [
      {
        id: 'string',
        title: 'string',
        cover: 'string',
        original_price: 'number',
        original_price_desc: 'string',
        description: 'string',
        seller: 'string',
        is_free_now: 'boolean',
        free_start: TIME,
        free_start_at: MS,
        free_end: TIME,
        free_end_at: MS,
        link: 'string',
      },
    ],
  },
  {
    sixty: '/v2/ai-news',
    path: '/v2/apis/ai-news',
    layout: { date: 'string', news: [{ title: 'string', detail: 'string', link: 'string', 'source?': 'string', 'date?': 'string' }] },
  },
];

/** Upstream answers whose request path differs from their fixture file's name. */
function serveRenamedFixtures(upstream: Upstream): void {
  upstream.serveFile('www.toutiao.com', '/hot-event/hot-board/', 'www.toutiao.com/hot-board.json');
  upstream.serveFile('aweme-lq.snssdk.com', '/aweme/v1/hot/search/list/', 'aweme-lq.snssdk.com/hot-search-list.json');
  upstream.serve('top.baidu.com', '/board', (req) => {
    const tab = req.query.get('tab') ?? '';
    if (!['realtime', 'teleplay'].includes(tab)) return { status: 404, body: 'no such tab' };
    return { headers: { 'content-type': 'text/html; charset=utf-8' }, body: fs.readFileSync(path.join(FIXTURE_DIR, 'top.baidu.com', `board-${tab}.html`)) };
  });
}

/** The items of a 60s list answer: the array itself, or the list inside 60s's object. */
function itemsOf(data: unknown): unknown[] {
  if (Array.isArray(data)) return data;
  const record = data as Record<string, unknown>;
  return (Array.isArray(record.list) ? record.list : Array.isArray(record.news) ? record.news : []) as unknown[];
}

describe('60s list shapes', () => {
  const upstream = new Upstream();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    serveRenamedFixtures(upstream);
    svc = await startService({ upstream, now: new TestClock().now, env: { ...NO_CLIENT_LIMITS } });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it.each(CASES)('$path answers 60s $sixty', async ({ path, layout }) => {
    const res = await svc.get(path);
    const text = await res.text();
    expect(res.status, `${path}: ${text.slice(0, 300)}`).toBe(200);
    const { data } = JSON.parse(text) as Envelope<unknown>;
    expect(layoutMismatches(data, layout)).toEqual([]);
    const items = itemsOf(data);
    // An empty list would fit any layout: the fixtures give every route items to check.
    expect(items.length).toBeGreaterThan(0);
    if (Array.isArray(layout)) {
      expect(res.headers.get('x-total-count')).toBe(String(items.length));
      expect(Date.parse(res.headers.get('last-modified') ?? '')).toBe(Math.floor(new TestClock().t / 1000) * 1000);
    } else {
      expect(res.headers.get('x-total-count')).toBeNull();
    }
    expect(upstream.unmatched).toEqual([]);
  });
});
