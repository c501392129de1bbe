/**
 * The engine's item-index hook: each successful commit of a scheduled list source is recorded in
 * the item index; on-demand lists are not; a failing index never fails the fetch run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceError } from '../../src/kernel/errors.ts';
import { listItems } from '../../src/kernel/list-items.ts';
import { defineSource, type AnySource, type FetchedSource } from '../../src/kernel/source.ts';
import { asArray, asRecord, asString, hotListRows, validateHotList } from '../../sources/_shared/hot-list.ts';
import { TestClock } from '../support/clock.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';

const HOST = 'list.example.test';

function listSource(id: string, mode: 'scheduled' | 'on-demand'): AnySource {
  const base = {
    id,
    name: id,
    description: 'A list fetched from a local upstream.',
    routes: [{ path: `/${id}` }],
    freshness: { ttlSec: 300, timeoutMs: 1_000 },
    async fetch(ctx: { http: { json(url: string, o: { signal: AbortSignal }): Promise<unknown> }; signal: AbortSignal; now(): Date }) {
      const list = asArray(asRecord(await ctx.http.json(`https://${HOST}/${id}`, { signal: ctx.signal }))?.items);
      if (!list) throw new SourceError('parse', 'items missing');
      return list.map((x, i) => ({ rank: i + 1, title: asString(x) ?? '', link: `https://${HOST}/item/${i + 1}`, hot_value: 100 - i }));
    },
    validate: (d: Parameters<typeof validateHotList>[0]) => validateHotList(d, 3),
    view: { rows: hotListRows },
    example: `/v2/apis/${id}`,
  };
  return (mode === 'scheduled' ? defineSource({ ...base, mode, schedule: '*/5 * * * *' }) : defineSource({ ...base, mode })) as AnySource;
}

describe('engine → item index', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    upstream.serve(HOST, '/sched-list', { body: { items: ['跨年档电影预售开启', '冰雪旅游预订量增长', '老字号推出新品点心'] } });
    upstream.serve(HOST, '/demand-list', { body: { items: ['跨年档电影预售', '冰雪旅游', '老字号'] } });
    svc = await startService({ upstream, now: clock.now, sources: [listSource('sched-list', 'scheduled'), listSource('demand-list', 'on-demand')] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('records every committed scheduled list, not on-demand lists', async () => {
    expect((await svc.get('/v2/apis/sched-list')).status).toBe(200);
    expect((await svc.get('/v2/apis/demand-list')).status).toBe(200);
    const found = await svc.itemIndex.search({ q: '冰雪旅游', since: 0 });
    expect(found.map((i) => [i.sourceId, i.title, i.peakRank, i.peakHot, i.firstSeenAt])).toEqual([['sched-list', '冰雪旅游预订量增长', 2, 99, clock.t]]);
  });

  it('a failing index is logged, and the fetch still commits', async () => {
    svc.db.exec('DROP TABLE item_samples');
    upstream.serve(HOST, '/sched-list', { body: { items: ['冰雪旅游预订量增长', '跨年档电影预售开启', '老字号推出新品点心', '图书馆延长开放时间'] } });
    clock.advance(20 * 60_000);
    const snap = await svc.engine.run(svc.registry.byId.get('sched-list') as FetchedSource, {});
    expect(snap).toMatchObject({ status: 'ok', itemCount: 4, fetchedAt: clock.t });
  });
});

describe('listItems: one accessor for either list container', () => {
  const entries = [
    { rank: 2, title: ' 春运火车票今起开售 ', link: 'https://example.com/a', hot_value: 790 },
    { title: '年度汉字评选揭晓', score: 8.5 },
    { title: '', link: 'https://example.com/empty' },
    'not an item',
  ];
  const expected = [
    { rank: 2, title: '春运火车票今起开售', link: 'https://example.com/a', hot: 790 },
    { rank: 2, title: '年度汉字评选揭晓', link: undefined, hot: 8.5 },
  ];

  it('reads `data.list` (hot-list shape) and a bare array (60s shape) alike; rank falls back to the position', () => {
    expect(listItems({ list: entries, total: 4 })).toEqual(expected);
    expect(listItems(entries)).toEqual(expected);
  });

  it('is undefined for data that is not a list of titled items', () => {
    expect(listItems({ date: '2026-11-20', news: ['a', 'b'] })).toBeUndefined();
    expect(listItems([{ name: 'chart' }])).toBeUndefined();
    expect(listItems('text')).toBeUndefined();
    expect(listItems([])).toEqual([]);
  });
});
