import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import olympicsEvents, { olympicGames } from '../../sources/olympics-events.ts';
import olympics, { EVENTS } from '../../sources/olympics.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';

interface Body<T> {
  code: number;
  message: string;
  data: T;
}

describe('olympics-events: the Games /v2/apis/olympics knows, in 60s’s /v2/olympics/events layout', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, sources: [olympics, olympicsEvents] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('lists every Games newest first with 60s’s fields: season, url, imageurl, slug, title, year (text)', () => {
    const games = olympicGames();
    expect(games).toHaveLength(EVENTS.length);
    expect(games[0]).toMatchObject({ season: 'Winter', slug: 'milano-cortina-2026', year: '2026', url: 'https://www.olympics.com/zh/olympic-games/milano-cortina-2026/', imageurl: '' });
    expect(games.find((g) => g.slug === 'paris-2024')).toMatchObject({ season: 'Summer', title: '2024年巴黎奥运会', start_date: '2024-07-26' });
    const starts = games.map((g) => g.start_date);
    expect(starts).toEqual([...starts].sort().reverse());
  });

  it('answers at 60s’s /v2/olympics/events and ours; the same list at both', async () => {
    const res = await svc.get('/v2/olympics/events');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Body<{ slug: string; season: string; year: string }[]>;
    expect(body.data.map((g) => g.slug)).toEqual(olympicGames().map((g) => g.slug));
    const ours = (await (await svc.get('/v2/apis/olympics/events')).json()) as Body<unknown>;
    expect(ours.data).toEqual(body.data);
    expect(await (await svc.get('/v2/apis/olympics/events?encoding=text')).text()).toContain('2024年巴黎奥运会');
    expect(upstream.unmatched).toEqual([]);
  });
});
