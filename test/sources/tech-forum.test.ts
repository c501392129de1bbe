import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import techForum, { PARALLEL, parse, parseIds, parseItem, validate, type StoryList } from '../../sources/tech-forum.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { TestClock } from '../support/clock.ts';
import { NO_CLIENT_LIMITS, expectKeptAfterFailure, expectStableGuids, expectUnavailable, forceRefresh, getFeed, getJson, getRenderings } from '../support/endpoint-checks.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const HOST = 'hacker-news.firebaseio.com';
const read = (file: string) => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, HOST, 'v0', file), 'utf8')) as unknown;
const item = (id: number) => read(`item/${id}.json`);

describe('tech-forum parse', () => {
  it('keeps live stories only, ranks them and links Ask HN to its discussion', () => {
    const ids = parseIds(read('topstories.json'));
    expect(ids.slice(0, 3)).toEqual([4100001, 4100002, 4100003]);
    const data = parse(ids.slice(0, 16).map(item), 10);
    expect(data).toHaveLength(10);
    // 4100004 is a job, 4100007 vanished (null), 4100009 is dead, 4100013 is a poll.
    expect(data.map((s) => s.id)).toEqual([4100001, 4100002, 4100003, 4100005, 4100006, 4100008, 4100010, 4100011, 4100012, 4100014]);
    expect(data.map((s) => s.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const first = data[0]!;
    const raw = item(4100001) as { by: string; score: number; descendants: number; time: number; url: string; title: string };
    expect(first).toEqual({
      rank: 1,
      id: 4100001,
      title: raw.title,
      link: raw.url,
      item_link: 'https://news.ycombinator.com/item?id=4100001',
      score: raw.score,
      author: raw.by,
      comment_count: raw.descendants,
      created_at: raw.time * 1000,
      created: expect.stringMatching(/^2025-11-21 \d\d:\d\d:\d\d$/) as string,
    });
    const ask = data.find((s) => s.id === 4100005)!;
    expect(ask.title).toMatch(/^Ask HN:/);
    expect(ask.link).toBe('https://news.ycombinator.com/item?id=4100005');
    expect(validate(data)).toBeUndefined();
  });

  it('rejects broken copies', () => {
    const data = parse([item(4100001)], 10);
    expect(validate([])).toMatch(/at least 1/);
    expect(validate(data.map((s) => ({ ...s, title: '' })))).toMatch(/item 1/);
    expect(parseItem({ type: 'story', id: 1 })).toBeUndefined();
    expect(() => parseIds({ ids: [] })).toThrow(SourceError);
    expect(() => parseItem('story')).toThrow(/not a JSON object/);
  });
});

describe('tech-forum through the server', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, sources: [techForum], env: { ...NO_CLIENT_LIMITS, HTTP_TIMEOUT_MS: '500' } });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('serves top stories in every encoding, reading further ids to replace jobs and dead items', async () => {
    const { res, data } = await getJson<StoryList>(svc, '/v2/apis/tech-forum/top');
    expect(res.headers.get('x-cache')).toBe('MISS');
    expect(data.length).toBe(10);
    expect(data[9]?.id).toBe(4100014);
    const itemHits = upstream.hits(HOST, '/v0/item/').map((h) => h.path);
    // Three rounds: ids 1–10, then 11–13, then 14.
    expect(itemHits).toHaveLength(14);
    expect(upstream.hits(HOST, '/v0/topstories.json')).toHaveLength(1);

    const { text, markdown, html } = await getRenderings(svc, '/v2/apis/tech-forum/top');
    const first = data[0]!;
    expect(text).toMatch(/^Hacker News · Top stories\n/);
    expect(text).toContain(`1. ${first.title} (${first.score})`);
    expect(text).toContain(`${first.score} points by ${first.author} · ${first.comment_count} comments`);
    expect(markdown).toContain(`1. [${first.title}](${first.link})`);
    expect(html).toContain('<a href="https://news.ycombinator.com/item?id=4100005"');
    const feed = await getFeed(svc, '/v2/apis/tech-forum/top');
    expect(feed.items).toHaveLength(10);
    expect(feed.items[0]?.guid).toBe('https://news.ycombinator.com/item?id=4100001');
    expect(Date.parse(feed.items[0]?.isoDate ?? '')).toBe(first.created_at);
  });

  it('new reads newstories, not topstories; best reads beststories', async () => {
    const fresh = await getJson<StoryList>(svc, '/v2/apis/tech-forum/new');
    expect(fresh.data[0]?.id).toBe(4100101);
    expect(fresh.data[0]?.title).toMatch(/^New: /);
    expect(upstream.hits(HOST, '/v0/newstories.json')).toHaveLength(1);
    expect(upstream.hits(HOST, '/v0/topstories.json')).toHaveLength(0);
    const best = await getJson<StoryList>(svc, '/v2/apis/tech-forum/best?limit=3');
    expect(best.data.map((s) => s.id)).toEqual([4100201, 4100202, 4100203]);
    expect(upstream.hits(HOST, '/v0/item/')).toHaveLength(13);
  });

  it('validates type and limit; limit is part of the cache key', async () => {
    const badType = await svc.get('/v2/apis/tech-forum/ask');
    expect(badType.status).toBe(400);
    expect(((await badType.json()) as { message: string }).message).toMatch(/"type".*top, new, best/);
    for (const limit of ['0', '36', 'ten']) {
      const bad = await svc.get(`/v2/apis/tech-forum/top?limit=${limit}`);
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { message: string }).message).toMatch(/"limit".*1 to 35/);
    }
    const five = await getJson<StoryList>(svc, '/v2/apis/tech-forum/top?limit=5');
    expect(five.res.headers.get('x-cache')).toBe('MISS');
    expect(five.data.length).toBe(5);
    expect((await getJson<StoryList>(svc, '/v2/apis/tech-forum/top')).res.headers.get('x-cache')).toBe('HIT');
  });

  it(`fetches items at most ${PARALLEL} at a time`, async () => {
    let inFlight = 0;
    let peak = 0;
    upstream.serve(HOST, /^\/v0\/item\//, async (req) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 20));
      inFlight -= 1;
      return { body: item(Number(/(\d+)\.json$/.exec(req.path)?.[1])) as object };
    });
    const { data } = await getJson<StoryList>(svc, '/v2/apis/tech-forum/top?limit=35');
    expect(data.length).toBe(35);
    expect(peak).toBe(PARALLEL);
  });

  it('tolerates a few failed items but not many', async () => {
    upstream.serve(HOST, '/v0/item/4100002.json', { status: 500, body: 'error' });
    const { data } = await getJson<StoryList>(svc, '/v2/apis/tech-forum/top?limit=20');
    expect(data.some((s) => s.id === 4100002)).toBe(false);
    expect(data.length).toBe(20);

    upstream.serve(HOST, /^\/v0\/item\/41000[01]\d\.json$/, { status: 503, body: 'busy' });
    expect(await expectUnavailable(svc, '/v2/apis/tech-forum/top?limit=12', 'Hacker News')).toMatch(/HTTP 503/);
  });

  it('keeps the last good list through upstream failures', async () => {
    const url = '/v2/apis/tech-forum/best';
    const good = (await getJson<StoryList>(svc, url)).data;
    expect(good.length).toBe(10);

    upstream.serve(HOST, '/v0/beststories.json', { status: 500, body: 'Internal' });
    expect((await expectKeptAfterFailure<StoryList>(svc, clock, url, 'tech-forum', /^transient: .*HTTP 500/))).toEqual(good);

    upstream.serve(HOST, '/v0/beststories.json', { status: 401, body: { error: 'Permission denied' } });
    await expectKeptAfterFailure(svc, clock, url, 'tech-forum', /^blocked: .*HTTP 401/);

    upstream.serve(HOST, '/v0/beststories.json', { headers: { 'content-type': 'text/html' }, body: '<html>Please sign in</html>' });
    await expectKeptAfterFailure(svc, clock, url, 'tech-forum', /^parse: .*did not answer JSON/);

    upstream.serve(HOST, '/v0/beststories.json', { body: { stories: [4100201] } });
    await expectKeptAfterFailure(svc, clock, url, 'tech-forum', /^parse: the answer is not a JSON array of story ids/);

    upstream.serve(HOST, '/v0/beststories.json', { body: [] });
    await expectKeptAfterFailure(svc, clock, url, 'tech-forum', /^empty: /);

    upstream.serve(HOST, '/v0/beststories.json', { body: [4100004, 4100007, 4100009] });
    await expectKeptAfterFailure(svc, clock, url, 'tech-forum', /^empty: rejected: expected at least 1/);

    clock.advance(3600_000);
    const stale = await svc.get(url);
    expect(stale.headers.get('x-cache')).toBe('STALE');
    expect(((await stale.json()) as { data: StoryList }).data).toEqual(good);
    await new Promise((r) => setTimeout(r, 100));
  });

  it('answers 503 with Retry-After when cold and the upstream is slow', async () => {
    upstream.serve(HOST, '/v0/topstories.json', { delayMs: 1500, body: read('topstories.json') as object });
    expect(await expectUnavailable(svc, '/v2/apis/tech-forum/top?limit=7', 'Hacker News')).toMatch(/timed out/);
  });

  it('keeps rss guids stable across a refresh', async () => {
    for (const type of ['top', 'new', 'best']) await expectStableGuids(svc, clock, `/v2/apis/tech-forum/${type}`);
    const url = '/v2/apis/tech-forum/new?limit=5';
    const before = await getFeed(svc, url);
    upstream.serve(HOST, '/v0/newstories.json', { body: [4100141, ...(read('newstories.json') as number[])] });
    upstream.serve(HOST, '/v0/item/4100141.json', { body: { by: 'newbie', id: 4100141, score: 1, time: 1763695000, title: 'Brand new story', type: 'story', url: 'https://example.test/new' } });
    expect((await forceRefresh(svc, clock, url)).headers.get('x-cache')).toBe('MISS');
    const after = await getFeed(svc, url);
    expect(after.items[0]?.title).toBe('Brand new story');
    const kept = after.items.filter((i) => before.items.some((b) => b.guid === i.guid));
    expect(kept.map((i) => i.guid)).toEqual(before.items.slice(0, 4).map((i) => i.guid));
  });
});

const SHARED = path.resolve(import.meta.dirname, '../../../shared/fixtures/upstream/hacker-news');
if (!fs.existsSync(SHARED)) console.info(`tech-forum conformance skipped: ${SHARED} is absent (it holds recorded Hacker News answers).`);

describe.skipIf(!fs.existsSync(SHARED))('tech-forum conformance with recorded Hacker News answers', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, sources: [techForum] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('serves recorded items paired with the recorded top ids', async () => {
    const file = (name: string) => fs.readFileSync(path.join(SHARED, name));
    const ids = JSON.parse(file('topstories-2025-06-01-first30.json').toString()) as number[];
    // The recorded items are old and not in the recorded list, so the list's first ids are paired with them.
    const recorded = ['item-8863-story.json', 'item-121003-ask.json', 'item-192327-job.json', 'item-126809-poll.json', 'item-2921983-comment.json', 'item-160705-pollopt.json'];
    const byId = new Map(ids.slice(0, recorded.length).map((id, i) => [id, recorded[i]!]));
    upstream.serve(HOST, '/v0/topstories.json', { body: file('topstories-2025-06-01-first30.json'), headers: { 'content-type': 'application/json; charset=utf-8' } });
    upstream.serve(HOST, /^\/v0\/item\/\d+\.json$/, (req) => {
      const name = byId.get(Number(/(\d+)\.json$/.exec(req.path)?.[1]));
      return name ? { body: file(name), headers: { 'content-type': 'application/json; charset=utf-8' } } : { body: 'null', headers: { 'content-type': 'application/json; charset=utf-8' } };
    });
    const { data } = await getJson<StoryList>(svc, '/v2/apis/tech-forum/top?limit=2');
    expect(data).toHaveLength(2);
    expect(data[0]).toMatchObject({
      rank: 1,
      id: 8863,
      title: 'My YC app: Dropbox - Throw away your USB drive',
      link: 'http://www.getdropbox.com/u/2/screencast.html',
      score: 111,
      author: 'dhouston',
      comment_count: 71,
      created_at: 1175714200000,
    });
    // The Ask HN post has no url: its link is the discussion page.
    expect(data[1]).toMatchObject({ id: 121003, author: 'tel', link: 'https://news.ycombinator.com/item?id=121003' });
    expect(upstream.unmatched).toEqual([]);
  });
});
