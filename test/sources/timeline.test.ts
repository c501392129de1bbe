/**
 * /v2/apis/timeline over the real service, on SQLite and on PostgreSQL (when reachable): the
 * microblog list is fetched at several times of a test clock with items moving, the engine records
 * each commit in the item index, and the route answers the items' timelines in every encoding.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Timeline } from '../../sources/timeline.ts';
import { paramsKey, parseParams } from '../../src/kernel/params.ts';
import type { FetchedSource } from '../../src/kernel/source.ts';
import { createTestDatabase, requireServices } from '../multi/services.ts';
import { TestClock } from '../support/clock.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

const MIN = 60_000;
const DAY = 86_400_000;
const fixture = () => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, 'm.weibo.cn/api/container/getIndex.json'), 'utf8')) as { data: { cards: { card_group: Record<string, unknown>[] }[] } };

/** The recorded list with the ranked entries in another order (the titles of `order` first). */
function reordered(order: readonly string[]): object {
  const body = fixture();
  const group = body.data.cards[0]!.card_group;
  const ranked = group.filter((e) => /img_search_\d+/.test(String(e.pic)));
  ranked.sort((a, b) => {
    const ia = order.indexOf(String(a.desc));
    const ib = order.indexOf(String(b.desc));
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
  });
  ranked.forEach((e, i) => (e.pic = `https://simg.s.weibo.com/20210610_img_search_${i + 1}.png`));
  return body;
}

function timelineSuite(name: string, env: () => Promise<{ env: Record<string, string>; drop(): Promise<void> }>, skip: string | undefined): void {
  describe.skipIf(!!skip)(`/v2/apis/timeline on ${name}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    const upstream = new Upstream();
    const clock = new TestClock();
    const start = clock.t;
    let svc: TestService;
    let drop: () => Promise<void>;
    let order: string[] = [];

    const fetchWeibo = async () => {
      const source = svc.registry.byId.get('hot-microblog') as FetchedSource;
      const params = parseParams(source.params, {});
      await svc.engine.run(source, params, paramsKey(params));
    };

    beforeAll(async () => {
      await upstream.start();
      upstream.serve('m.weibo.cn', '/api/container/getIndex', () => ({ headers: { 'content-type': 'application/json' }, body: reordered(order) }));
      const e = await env();
      drop = e.drop;
      svc = await startService({ upstream, now: clock.now, env: e.env });
      // Three days ago the plane item is not on the list yet; then it climbs to first place.
      clock.t = start - 3 * DAY;
      order = ['城市夜跑路线推荐'];
      await fetchWeibo();
      clock.t = start - 2 * DAY;
      order = ['城市夜跑路线推荐', '国产大飞机新航线开通'];
      await fetchWeibo();
      clock.t = start - 2 * DAY + 30 * MIN;
      order = ['国产大飞机新航线开通'];
      await fetchWeibo();
      clock.t = start;
      order = ['城市夜跑路线推荐', '新能源车冬季续航实测', '国产大飞机新航线开通'];
      await fetchWeibo();
    });
    afterAll(async () => {
      await svc?.close();
      await upstream.stop();
      await drop?.();
    });

    it('answers each matching item with its list, first and last seen, peaks and rank samples', async () => {
      const res = await svc.get('/v2/apis/timeline?q=%E5%A4%A7%E9%A3%9E%E6%9C%BA');
      expect(res.status).toBe(200);
      const { data } = (await res.json()) as Envelope<Timeline>;
      expect(data).toMatchObject({ q: '大飞机', source: null, days: 7, since_at: start - 7 * DAY, total: 1 });
      const [item] = data.items;
      expect(item).toMatchObject({
        source: 'hot-microblog',
        source_name: '微博热搜',
        params: '',
        title: '国产大飞机新航线开通',
        link: 'https://s.weibo.com/weibo?q=%23%E5%9B%BD%E4%BA%A7%E5%A4%A7%E9%A3%9E%E6%9C%BA%E6%96%B0%E8%88%AA%E7%BA%BF%E5%BC%80%E9%80%9A%23',
        first_seen_at: start - 3 * DAY,
        last_seen_at: start,
        peak_rank: 1,
        peak_hot_value: 1377005,
      });
      expect(item?.first_seen).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      // Its recorded place is 4th; the fetches move other titles above it or move it up.
      expect(item?.samples.map((s) => [s.time_at, s.rank])).toEqual([
        [start - 3 * DAY, 4],
        [start - 2 * DAY, 2],
        [start - 2 * DAY + 30 * MIN, 1],
        [start, 3],
      ]);
      expect(item?.samples[0]).toMatchObject({ hot_value: 1377005, time: expect.stringMatching(/^\d{4}-/) });
    });

    it('matches case, width and punctuation aside; filters by source and window; several items, newest first', async () => {
      const wide = await (await svc.get(`/v2/apis/timeline?q=${encodeURIComponent('，大飞机！')}`)).json() as Envelope<Timeline>;
      expect(wide.data.total).toBe(1);
      const recent = await (await svc.get('/v2/apis/timeline?q=%E5%A4%A7%E9%A3%9E%E6%9C%BA&days=1')).json() as Envelope<Timeline>;
      expect(recent.data.items[0]?.samples.map((s) => s.rank)).toEqual([3]);
      const city = await (await svc.get(`/v2/apis/timeline?q=${encodeURIComponent('城市')}&source=hot-microblog&days=90`)).json() as Envelope<Timeline>;
      expect(city.data.items.map((i) => i.title)).toEqual(['城市夜跑路线推荐']);
      const other = await (await svc.get(`/v2/apis/timeline?q=${encodeURIComponent('城市')}&source=hot-qa-site`)).json() as Envelope<Timeline>;
      expect(other.data).toMatchObject({ source: 'hot-qa-site', total: 0, items: [] });
      const none = await (await svc.get(`/v2/apis/timeline?q=${encodeURIComponent('不存在的话题')}`)).json() as Envelope<Timeline>;
      expect(none.data.total).toBe(0);
    });

    it('400 naming the parameter: no q, q without words, days out of range, an unknown source', async () => {
      const cases: [string, RegExp][] = [
        ['/v2/apis/timeline', /Missing required parameter "q"/],
        ['/v2/apis/timeline?q=', /Missing required parameter "q"/],
        [`/v2/apis/timeline?q=${encodeURIComponent('！？')}`, /"q".*letter, digit or Chinese character/],
        [`/v2/apis/timeline?q=${'x'.repeat(65)}`, /"q".*at most 64/],
        ['/v2/apis/timeline?q=a&days=0', /"days".*from 1 to 90/],
        ['/v2/apis/timeline?q=a&days=91', /"days".*from 1 to 90/],
        ['/v2/apis/timeline?q=a&source=timeline', /"source".*scheduled list source/],
        ['/v2/apis/timeline?q=a&source=..%2Fetc', /"source".*scheduled list source/],
      ];
      for (const [url, message] of cases) {
        const res = await svc.get(url);
        expect(res.status, url).toBe(400);
        expect(((await res.json()) as Envelope<null>).message, url).toMatch(message);
      }
    });

    it('renders text and markdown with a rank sparkline, html with an inline SVG chart; no rss', async () => {
      const q = encodeURIComponent('大飞机');
      const text = await (await svc.get(`/v2/apis/timeline?q=${q}&encoding=text`)).text();
      expect(text).toMatch(/^「大飞机」的榜单时间线（近 7 天）\n\n1\. 国产大飞机新航线开通 \(137\.7万\)\n {3}微博热搜 · 最高第 1 名 · .+ · [▁-█]{4}\n/);
      const md = await (await svc.get(`/v2/apis/timeline?q=${q}&encoding=markdown`)).text();
      expect(md).toContain('1. [国产大飞机新航线开通](https://s.weibo.com/');
      const res = await svc.get(`/v2/apis/timeline?q=${q}&encoding=html`);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const html = await res.text();
      // One chart: rank axis from 1 down, time axis, a point with its rank at every sample.
      expect(html).toMatch(/<svg role="img" aria-label="「大飞机」的名次走势：1 个条目，名次越靠上越热"/);
      expect(html).toContain('<text class="label" x="4" y="14">名次</text>');
      expect(html).toMatch(/<text class="label"[^>]*>时间（北京时间）<\/text>/);
      expect([...html.matchAll(/<title>微博热搜 · [\d-]+ [\d:]+ · 第 (\d+) 名<\/title>/g)].map((m) => m[1])).toEqual(['4', '2', '1', '3']);
      expect(html).toContain('<li><i style="background:#0969da"></i>微博热搜</li>');
      expect(html).toContain('<td class="n">1</td>');
      const empty = await (await svc.get(`/v2/apis/timeline?q=${encodeURIComponent('<b>')}&encoding=html`)).text();
      expect(empty).toContain('没有标题含「&lt;b&gt;」的条目');
      expect((await svc.get(`/v2/apis/timeline?q=${q}&encoding=rss`)).status).toBe(400);
      expect(upstream.unmatched).toEqual([]);
    });
  });
}

timelineSuite('SQLite', async () => ({ env: {}, drop: async () => undefined }), undefined);

const pg = await requireServices({ postgres: true });
timelineSuite(
  'PostgreSQL',
  async () => {
    const db = await createTestDatabase();
    return { env: { DATABASE_URL: db.url }, drop: () => db.drop() };
  },
  pg.missing,
);

describe('thin', () => {
  it('keeps every sample up to the cap, else evenly spaced ones with the first and the last', async () => {
    const { thin } = await import('../../sources/timeline.ts');
    expect(thin([1, 2, 3], 5)).toEqual([1, 2, 3]);
    const many = Array.from({ length: 1000 }, (_, i) => i);
    const kept = thin(many, 200);
    expect(kept).toHaveLength(200);
    expect(kept[0]).toBe(0);
    expect(kept[199]).toBe(999);
    expect(new Set(kept).size).toBe(200);
  });
});
