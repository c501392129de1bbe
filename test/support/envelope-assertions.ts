/**
 * Assertions on /v2/apis answers: the success envelope, error envelopes (status, code and
 * message), the cold-start 503 with Retry-After, and one request per encoding with its
 * content type.
 */
import { expect } from 'vitest';
import type { TestService } from './service.ts';

export const CONTENT_TYPES = {
  json: 'application/json; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
  html: 'text/html; charset=utf-8',
  rss: 'application/rss+xml; charset=utf-8',
} as const;

export type TextEncoding = keyof typeof CONTENT_TYPES;

/** The `data` of a 200 success envelope (fails the test otherwise). */
export async function readData<T>(res: Response): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(res.headers.get('content-type')).toBe(CONTENT_TYPES.json);
  const body = JSON.parse(text) as { code: number; message: string; data: T };
  expect(body.code).toBe(200);
  expect(body.message).toBe('success');
  return body.data;
}

/** An error envelope with this status; returns its message. */
export async function expectError(res: Response, status: number, message?: RegExp): Promise<string> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  const body = JSON.parse(text) as { code: number; message: string; data: unknown };
  expect(body.code).toBe(status);
  expect(body.data).toBeNull();
  if (message) expect(body.message).toMatch(message);
  return body.message;
}

/** 503 with a numeric Retry-After: no data exists yet and the fetch failed. */
export async function expectUnavailable(res: Response, message?: RegExp): Promise<string> {
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  return expectError(res, 503, message);
}

/** GET a path in each encoding; every answer must be 200 with the right content type. */
export async function getEncodings(svc: TestService, path: string, encodings: readonly TextEncoding[] = ['json', 'text', 'markdown', 'html']): Promise<Record<TextEncoding, string>> {
  const out: Partial<Record<TextEncoding, string>> = {};
  for (const enc of encodings) {
    const res = await svc.get(`${path}${path.includes('?') ? '&' : '?'}encoding=${enc}`);
    const body = await res.text();
    expect(res.status, `${enc}: ${body.slice(0, 300)}`).toBe(200);
    expect(res.headers.get('content-type')).toBe(CONTENT_TYPES[enc]);
    out[enc] = body;
  }
  return out as Record<TextEncoding, string>;
}

/** The /v2/status entry of one source. */
export async function sourceStatus(svc: TestService, id: string): Promise<{ id: string; state: string; last_error: string | null; fail_count: number; keys: number }> {
  const status = (await (await svc.get('/v2/status')).json()) as { data: { sources: { id: string; state: string; last_error: string | null; fail_count: number; keys: number }[] } };
  const me = status.data.sources.find((s) => s.id === id);
  expect(me, `source ${id} on /v2/status`).toBeDefined();
  return me!;
}

/** Let a background refresh (stale-while-revalidate) finish. */
export function settle(ms = 150): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
