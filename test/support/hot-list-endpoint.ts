/**
 * The end-to-end checks every hot-list route gets: all encodings from one fetch (RSS read with
 * a real parser), stable RSS guids, and the failure modes (non-2xx, login/risk-control page,
 * changed shape, empty list, slow upstream) against the real service and the local Upstream.
 */
import Parser from 'rss-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { escapeHtml, escapeMarkdown, markdownUrl } from '../../src/encoding/escape.ts';
import { TestClock } from './clock.ts';
import { startService, type TestService } from './service.ts';
import { Upstream, type UpstreamReply } from './upstream.ts';

export interface HotListEndpoint {
  /** Source id as listed on /v2/status. */
  sourceId: string;
  /** Request path, e.g. `/v2/apis/hot-car`. */
  path: string;
  ttlSec: number;
  /** Register the good upstream answers (called after every reset). */
  serveGood(upstream: Upstream): void;
  /** Every upstream endpoint the route may call; failure answers are served on all of them. */
  upstreams: readonly { host: string; path: string | RegExp }[];
  /** A login, captcha or risk-control answer instead of data. */
  blocked: UpstreamReply;
  /** The data in a shape the parser does not know. */
  changedShape: UpstreamReply;
  /** A well-formed answer whose list is empty. */
  emptyList: UpstreamReply;
  /** What the good answer gives. */
  expected: {
    total: number;
    first: { title: string; link: string };
    /** The heat label of the first row in text renderings, e.g. "612.3万" or "12,034,567". */
    firstHot?: string;
    /** Upstream requests one good fetch makes (default 1). */
    requestsPerFetch?: number;
    /** Query parameters the first upstream request must carry. */
    query?: Record<string, string>;
  };
  /** Extra service environment. */
  env?: Record<string, string>;
}

export interface Envelope<T = unknown> {
  code: number;
  message: string;
  data: T;
}

/** A hot list as served: 60s's bare array (count and fetch time in X-Total-Count and Last-Modified). */
export type ListData = { rank: number; title: string; link: string; hot_value?: unknown; score?: unknown; cover?: unknown }[];

interface StatusEntry {
  id: string;
  state: string;
  fail_count: number;
  last_error: string | null;
}

export async function statusOf(svc: TestService, id: string): Promise<StatusEntry | undefined> {
  const body = (await (await svc.get('/v2/status')).json()) as Envelope<{ sources: StatusEntry[] }>;
  return body.data.sources.find((s) => s.id === id);
}

/** Wait until the source has recorded a failure (background refreshes are not awaited by reads). */
export async function waitForFailure(svc: TestService, id: string, failures = 1): Promise<StatusEntry> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const s = await statusOf(svc, id);
    if (s && s.fail_count >= failures) return s;
    if (Date.now() > deadline) throw new Error(`${id} recorded no failure (status: ${JSON.stringify(s)})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function withQuery(path: string, query: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}${query}`;
}

/** Parse an RSS body with a real RSS client. */
export async function readFeed(body: string): Promise<Parser.Output<Record<string, unknown>>> {
  return new Parser().parseString(body);
}

/** Register the shared end-to-end suite for one hot-list route. */
export function describeHotListEndpoint(c: HotListEndpoint): void {
  describe(`${c.path} through the server`, () => {
    const upstream = new Upstream();
    const services: TestService[] = [];

    async function boot(env: Record<string, string> = {}): Promise<{ svc: TestService; clock: TestClock }> {
      const clock = new TestClock();
      const svc = await startService({ upstream, now: clock.now, env: { ...c.env, ...env } });
      services.push(svc);
      return { svc, clock };
    }

    function failWith(reply: UpstreamReply): void {
      for (const u of c.upstreams) upstream.serve(u.host, u.path, reply);
    }

    async function getList(svc: TestService, path = c.path): Promise<{ res: Response; body: Envelope<ListData> }> {
      const res = await svc.get(path);
      return { res, body: (await res.json()) as Envelope<ListData> };
    }

    beforeAll(async () => {
      await upstream.start();
    });
    afterAll(async () => {
      await upstream.stop();
    });
    afterEach(async () => {
      await Promise.all(services.splice(0).map((s) => s.close()));
      expect(upstream.unmatched).toEqual([]);
      upstream.reset();
    });

    it('serves json, text, markdown, html and rss from one upstream fetch', async () => {
      c.serveGood(upstream);
      const { svc } = await boot();
      const { res, body } = await getList(svc);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('x-cache')).toBe('MISS');
      expect(body.code).toBe(200);
      expect(body.message).toBe('success');
      const { data } = body;
      expect(Array.isArray(data)).toBe(true);
      expect(data).toHaveLength(c.expected.total);
      expect(res.headers.get('x-total-count')).toBe(String(c.expected.total));
      expect(Date.parse(res.headers.get('last-modified') ?? '')).toBeGreaterThan(0);
      expect(data[0]).toMatchObject({ rank: 1, title: c.expected.first.title, link: c.expected.first.link });
      for (const item of data) {
        expect(item.link).toMatch(/^https?:\/\//);
        expect(item.title.trim()).not.toBe('');
        if (item.hot_value !== undefined) expect(typeof item.hot_value).toBe('number');
        if (item.cover) expect(String(item.cover)).toMatch(/^https?:\/\//);
      }
      expect(new Set(data.map((i) => i.rank)).size).toBe(c.expected.total);

      const text = await svc.get(withQuery(c.path, 'encoding=text'));
      expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(text.headers.get('x-cache')).toBe('HIT');
      const firstLine = `1. ${c.expected.first.title}${c.expected.firstHot ? ` (${c.expected.firstHot})` : ''}`;
      expect(text.headers.get('x-total-count')).toBe(String(c.expected.total));
      expect(await text.text()).toContain(firstLine);

      const md = await svc.get(withQuery(c.path, 'encoding=markdown'));
      expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(await md.text()).toContain(`1. [${escapeMarkdown(c.expected.first.title)}](${markdownUrl(c.expected.first.link)})`);

      const html = await svc.get(withQuery(c.path, 'encoding=html'));
      expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const page = await html.text();
      expect(page).toContain(`href="${escapeHtml(c.expected.first.link)}"`);
      expect(page).toContain(escapeHtml(c.expected.first.title));

      const rss = await svc.get(withQuery(c.path, 'encoding=rss'));
      expect(rss.headers.get('content-type')).toBe('application/rss+xml; charset=utf-8');
      const feed = await readFeed(await rss.text());
      expect(feed.items).toHaveLength(c.expected.total);
      expect(feed.items[0]?.title).toBe(c.expected.first.title);
      expect(feed.items[0]?.link).toBe(c.expected.first.link);
      expect(new Set(feed.items.map((i) => i.guid)).size).toBe(c.expected.total);
      data.forEach((item, n) => {
        if (typeof item.cover === 'string' && item.cover) expect(feed.items[n]?.enclosure?.url).toBe(item.cover);
      });

      const requests = c.upstreams.reduce((n, u) => n + upstream.requests.filter((r) => r.host === u.host && (typeof u.path === 'string' ? r.path === u.path : u.path.test(r.path))).length, 0);
      expect(requests).toBe(c.expected.requestsPerFetch ?? 1);
      for (const [k, v] of Object.entries(c.expected.query ?? {})) expect(upstream.requests[0]?.query.get(k)).toBe(v);
    });

    it('keeps rss guids unique and stable across a refresh', async () => {
      c.serveGood(upstream);
      const { svc, clock } = await boot();
      const first = await readFeed(await (await svc.get(withQuery(c.path, 'encoding=rss'))).text());
      clock.advance((c.ttlSec + 60) * 1000);
      const refreshed = await svc.get(withQuery(c.path, 'encoding=rss&force-update=1'));
      expect(refreshed.headers.get('x-cache')).toBe('MISS');
      const second = await readFeed(await refreshed.text());
      const guids = (f: typeof first) => f.items.map((i) => i.guid);
      expect(guids(second)).toEqual(guids(first));
      expect(new Set(guids(second)).size).toBe(c.expected.total);
      expect(second.items.map((i) => i.pubDate)).toEqual(first.items.map((i) => i.pubDate));
    });

    it('answers 503 with Retry-After, naming the source, when the upstream fails and nothing is cached', async () => {
      failWith({ status: 500, body: 'internal error' });
      const { svc } = await boot();
      const res = await svc.get(c.path);
      expect(res.status).toBe(503);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      const body = (await res.json()) as Envelope<null>;
      expect(body.code).toBe(503);
      expect(body.data).toBeNull();
      const name = svc.registry.byId.get(c.sourceId)?.name ?? c.sourceId;
      expect(body.message).toContain(name);
      const st = await statusOf(svc, c.sourceId);
      expect(st?.state).toBe('down');
      expect(st?.last_error).toMatch(/^transient: /);
    });

    async function keepsLastGood(reply: UpstreamReply, kind: RegExp): Promise<void> {
      c.serveGood(upstream);
      const { svc, clock } = await boot();
      const good = await getList(svc);
      expect(good.res.headers.get('x-cache')).toBe('MISS');
      clock.advance((c.ttlSec + 1) * 1000);
      failWith(reply);
      const stale = await getList(svc);
      expect(stale.res.status).toBe(200);
      expect(stale.res.headers.get('x-cache')).toBe('STALE');
      expect(stale.body.data).toEqual(good.body.data);
      const st = await waitForFailure(svc, c.sourceId);
      expect(st.state).toBe('failing');
      expect(st.last_error).toMatch(kind);
      // Still the last good list, still marked stale, in every encoding.
      const again = await getList(svc);
      expect(again.res.headers.get('x-cache')).toBe('STALE');
      expect(again.body.data).toEqual(good.body.data);
      const text = await svc.get(withQuery(c.path, 'encoding=text'));
      expect(text.headers.get('x-cache')).toBe('STALE');
      expect(await text.text()).toContain(`1. ${c.expected.first.title}`);
    }

    it('keeps the last good list on a non-2xx answer and serves it as STALE after expiry', async () => {
      await keepsLastGood({ status: 502, body: 'bad gateway' }, /^transient: .*502/);
    });

    it('records a login or risk-control answer as blocked and keeps the last good list', async () => {
      await keepsLastGood(c.blocked, /^blocked: /);
    });

    it('records a changed shape as a parse failure and keeps the last good list', async () => {
      await keepsLastGood(c.changedShape, /^parse: /);
    });

    it('rejects an empty list and keeps the last good list', async () => {
      await keepsLastGood(c.emptyList, /^empty: /);
    });

    it('answers 503 with Retry-After when a slow upstream times out and nothing is cached', async () => {
      c.serveGood(upstream);
      for (const u of c.upstreams) upstream.serve(u.host, u.path, { delayMs: 1_500, status: 200, body: {} });
      const { svc } = await boot({ HTTP_TIMEOUT_MS: '200' });
      const started = Date.now();
      const res = await svc.get(c.path);
      expect(res.status).toBe(503);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Date.now() - started).toBeLessThan(1_400 * c.upstreams.length);
      const st = await statusOf(svc, c.sourceId);
      expect(st?.last_error).toMatch(/^transient: .*timed out/);
    });
  });
}

/** Assert that `validate` rejects broken copies of good data: no items, an untitled item, a relative link. */
export function expectRejectsBroken<D extends ListData>(validate: (d: D) => string | undefined, good: D): void {
  expect(validate(good)).toBeUndefined();
  expect(validate([] as unknown as D)).toMatch(/at least/);
  expect(validate(good.map((i, n) => (n === 1 ? { ...i, title: '' } : i)) as D)).toMatch(/no title/);
  expect(validate(good.map((i, n) => (n === 2 ? { ...i, link: '/relative' } : i)) as D)).toMatch(/no absolute link/);
}
