/**
 * Checks shared by the corpus endpoints' tests (one-liner, luck, duanzi, dad-joke, fabing,
 * answer, fast-food-copy, awesome-js): the bundled corpus itself, and the endpoint through the
 * real server (random item, `id` 0-based and answered as `index` with a 404 naming the range, 400s for bad ids, text and
 * markdown, odd inputs never 500).
 */
import { describe, expect, it } from 'vitest';
import { NO_CLIENT_LIMITS } from '../support/endpoint-checks.ts';
import type { TestService } from '../support/service.ts';
import { serviceForSuite } from '../support/suite-service.ts';
import type { Upstream } from '../support/upstream.ts';

export interface Envelope<T = Record<string, unknown>> {
  code: number;
  message: string;
  data: T;
}

export async function getJson<T = Record<string, unknown>>(svc: TestService, path: string): Promise<{ status: number; body: Envelope<T> }> {
  const r = await svc.get(path);
  return { status: r.status, body: (await r.json()) as Envelope<T> };
}

/**
 * Start the real service with a local upstream (fixtures under test/fixtures/upstream) for a
 * describe block. 60s's corpus files answer 404 there, so the corpus endpoints answer from their
 * bundled corpus (test/sources/sixty-corpora.test.ts covers the fetched one).
 */
export function useService(env: Record<string, string> = {}): { svc: () => TestService; upstream: Upstream } {
  const suite = serviceForSuite({ env: { ...NO_CLIENT_LIMITS, ...env } });
  suite.upstream.serve('cdn.jsdelivr.net', /^\/gh\/vikiboss\/60s@main\/src\/modules\//, { status: 404, body: 'Not Found' });
  return suite;
}

/** Odd inputs thrown at an endpoint: each must answer below 500. */
export const ODD_VALUES = ['', ' ', '-1', '1e3', '0x10', '99999999999999999999', 'NaN', '%E0%A4%A', '%%', '%00', '<script>', "'", '😀', 'a'.repeat(3000)];

export async function expectNoServerErrors(svc: TestService, path: string, params: string[]): Promise<void> {
  for (const name of params) {
    for (const value of ODD_VALUES) {
      // Some values are deliberately malformed %-escapes: send them raw.
      const raw = /%/.test(value) ? value : encodeURIComponent(value);
      const r = await svc.get(`${path}${path.includes('?') ? '&' : '?'}${name}=${raw}`);
      expect(r.status, `${path} ${name}=${value} → ${r.status} ${await r.clone().text()}`).toBeLessThan(500);
      await r.arrayBuffer();
    }
  }
  for (const enc of ['', 'JSON', 'xml', 'image', 'rss', '%ZZ']) {
    const r = await svc.get(`${path}${path.includes('?') ? '&' : '?'}encoding=${enc}`);
    expect(r.status, `${path} encoding=${enc}`).toBeLessThan(500);
    await r.arrayBuffer();
  }
}

/** The bundled corpus: enough items, no blank or duplicate ones. */
export function describeBundledCorpus(name: string, items: readonly unknown[], min: number, key: (item: never) => string): void {
  describe(`bundled corpus data/corpus/${name}.json`, () => {
    it(`has at least ${min} distinct, non-empty items`, () => {
      expect(items.length).toBeGreaterThanOrEqual(min);
      const keys = items.map((i) => key(i as never));
      for (const k of keys) expect(k.trim().length).toBeGreaterThan(0);
      expect(new Set(keys).size).toBe(keys.length);
    });
  });
}

/**
 * The `id` contract of a corpus endpoint: random when absent, 0-based (or counted from `base` 1,
 * where 60s counts so), 404 naming the valid range past the end, 400 naming `id` for values that
 * are not whole numbers ≥ base.
 */
export function describeIdContract(o: { path: string; what: string; total: () => number; svc: () => TestService; extraParams?: string[]; base?: 0 | 1 }): void {
  const base = o.base ?? 0;
  describe(`${o.path}: the id parameter`, () => {
    it('a random item when absent: id in range and total given', async () => {
      for (let i = 0; i < 5; i++) {
        const { status, body } = await getJson<{ index: number; total: number }>(o.svc(), o.path);
        expect(status).toBe(200);
        expect(body).toMatchObject({ code: 200, message: 'success' });
        expect(body.data.total).toBe(o.total());
        expect(body.data.index).toBeGreaterThanOrEqual(0);
        expect(body.data.index).toBeLessThan(o.total());
      }
    });

    it(`id counts from ${base} and is stable: the same id answers the same item, the last id works`, async () => {
      const a = await getJson<{ id: number | string; index: number }>(o.svc(), `${o.path}?id=${base}`);
      const b = await getJson<{ index: number }>(o.svc(), `${o.path}?id=${base}`);
      expect(a.body.data.index).toBe(0);
      expect(b.body.data).toEqual(a.body.data);
      const last = await getJson<{ index: number }>(o.svc(), `${o.path}?id=${o.total() - 1 + base}`);
      expect(last.status).toBe(200);
      expect(last.body.data.index).toBe(o.total() - 1);
    });

    it('an id past the end is a 404 envelope stating the valid range', async () => {
      const { status, body } = await getJson(o.svc(), `${o.path}?id=${o.total() + base}`);
      expect(status).toBe(404);
      expect(body.code).toBe(404);
      expect(body.data).toBeNull();
      expect(body.message).toContain(`${base} to ${o.total() - 1 + base}`);
      expect(body.message).toContain(o.what);
    });

    it('a negative or non-numeric id is a 400 naming id', async () => {
      for (const bad of [String(base - 1), 'abc', '1.5', '10000000000']) {
        const { status, body } = await getJson(o.svc(), `${o.path}?id=${bad}`);
        expect(status, bad).toBe(400);
        expect(body.message).toContain('"id"');
      }
    });

    it('odd inputs never answer 500', async () => {
      await expectNoServerErrors(o.svc(), o.path, ['id', ...(o.extraParams ?? [])]);
    });
  });
}
