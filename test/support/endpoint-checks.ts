/**
 * Checks shared by the source tests that go through the real server: one endpoint in every
 * encoding with the right content types, its RSS feed parsed by a real RSS reader, a forced
 * refresh, and the source's line on /v2/status.
 */
import Parser from 'rss-parser';
import { expect } from 'vitest';
import type { TestClock } from './clock.ts';
import type { TestService } from './service.ts';

export interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

/** Service settings for source tests: no per-client rate limits (the tests force many refreshes). */
export const NO_CLIENT_LIMITS = { APIS_RATE_LIMIT: '0', APIS_FORCE_UPDATE_LIMIT: '0' } as const;

const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

/** GET json: HTTP 200, the success envelope; returns the response and its data. */
export async function getJson<T>(svc: TestService, path: string): Promise<{ res: Response; data: T }> {
  const res = await svc.get(path);
  const text = await res.text();
  expect(res.status, `${path}: ${text.slice(0, 300)}`).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const body = JSON.parse(text) as Envelope<T>;
  expect(body.code).toBe(200);
  expect(body.message).toBe('success');
  return { res, data: body.data };
}

/** text, markdown and html bodies of an endpoint (each checked for status and content type). */
export async function getRenderings(svc: TestService, path: string): Promise<{ text: string; markdown: string; html: string }> {
  const out: Record<string, string> = {};
  const types = { text: 'text/plain; charset=utf-8', markdown: 'text/markdown; charset=utf-8', html: 'text/html; charset=utf-8' } as const;
  for (const [encoding, type] of Object.entries(types)) {
    const res = await svc.get(withQuery(path, `encoding=${encoding}`));
    const body = await res.text();
    expect(res.status, `${path} ${encoding}: ${body.slice(0, 300)}`).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
    out[encoding] = body;
  }
  return { text: out.text!, markdown: out.markdown!, html: out.html! };
}

export type FeedItem = Parser.Item;

/** The endpoint's RSS feed read by rss-parser; guids must be present and unique. */
export async function getFeed(svc: TestService, path: string): Promise<{ title: string; items: FeedItem[] }> {
  const res = await svc.get(withQuery(path, 'encoding=rss'));
  const xml = await res.text();
  expect(res.status, xml.slice(0, 300)).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/rss+xml; charset=utf-8');
  const feed = await new Parser().parseString(xml);
  const guids = feed.items.map((i) => i.guid);
  expect(guids.every((g) => typeof g === 'string' && g.length > 0)).toBe(true);
  expect(new Set(guids).size).toBe(guids.length);
  return { title: feed.title ?? '', items: feed.items };
}

/** Refetch now (`force-update`), after moving the clock past the once-a-minute limit. */
export async function forceRefresh(svc: TestService, clock: TestClock, path: string): Promise<Response> {
  clock.advance(61_000);
  return svc.get(withQuery(path, 'force-update=1'));
}

export interface StatusLine {
  id: string;
  state: string;
  keys: number;
  last_error: string | null;
  fail_count: number;
}

/** The source's line on /v2/status. */
export async function sourceStatus(svc: TestService, id: string): Promise<StatusLine> {
  const res = await svc.get('/v2/status');
  const body = (await res.json()) as Envelope<{ sources: StatusLine[] }>;
  const line = body.data.sources.find((s) => s.id === id);
  expect(line, `${id} on /v2/status`).toBeDefined();
  return line!;
}

/**
 * A forced refresh against a broken upstream: the answer is the last good data marked STALE,
 * and /v2/status names the failure (`kind: message`).
 */
export async function expectKeptAfterFailure<T>(
  svc: TestService,
  clock: TestClock,
  path: string,
  id: string,
  errorPattern: RegExp,
): Promise<T> {
  const res = await forceRefresh(svc, clock, path);
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBe(200);
  expect(res.headers.get('x-cache')).toBe('STALE');
  expect(decodeURIComponent(res.headers.get('x-cache-note') ?? '')).toMatch(/refresh failed/);
  const status = await sourceStatus(svc, id);
  expect(status.state).toBe('failing');
  expect(status.last_error).toMatch(errorPattern);
  return (JSON.parse(text) as Envelope<T>).data;
}

/** A cold key whose fetch fails: 503 with Retry-After and a message naming the source (returned). */
export async function expectUnavailable(svc: TestService, path: string, sourceName: string): Promise<string> {
  const res = await svc.get(path);
  const body = (await res.json()) as Envelope<null>;
  expect(res.status).toBe(503);
  expect(body.code).toBe(503);
  expect(body.data).toBeNull();
  expect(body.message).toContain(sourceName);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  return body.message;
}

/** The feed's guids are the same after a forced refresh of unchanged upstream data. */
export async function expectStableGuids(svc: TestService, clock: TestClock, path: string): Promise<void> {
  const before = await getFeed(svc, path);
  const res = await forceRefresh(svc, clock, path);
  expect(res.status).toBe(200);
  expect(res.headers.get('x-cache')).toBe('MISS');
  const after = await getFeed(svc, path);
  expect(after.items.map((i) => i.guid)).toEqual(before.items.map((i) => i.guid));
  expect(after.items.length).toBeGreaterThan(0);
}
