/**
 * The checks every list declared with defineHotList gets (test/sources/<id>.test.ts calls it):
 * its fixture (in the upstream's format, see the SOURCE.md or the comment beside it) parses to
 * the expected items, a changed shape names the missing JSON path or selector, and the list is
 * served through the service with its upstream request sent to the local Upstream
 * (SOURCES_UPSTREAM_MIRROR).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBody } from '../../src/kernel/http.ts';
import { parseDeclared, type DeclaredItem, type ListDeclaration } from '../../sources/_shared/declared-list.ts';
import { DECLARED_LIST_FIXTURES, serveDeclaredLists, type DeclaredListFixture } from './declared-list-fixtures.ts';
import type { Envelope } from './hot-list-endpoint.ts';
import { startService, type TestService } from './service.ts';
import { FIXTURE_DIR, Upstream, type UpstreamRequest } from './upstream.ts';

/** A fixture's JSON value or text, decoded as the kernel's HTTP client decodes an answer (a feed in the charset its XML declaration names). */
export function readFixture(file: string): unknown {
  const text = decodeBody(fs.readFileSync(path.join(FIXTURE_DIR, file)), undefined);
  return file.endsWith('.json') ? (JSON.parse(text) as unknown) : text;
}

export function fixtureOf(sourceId: string): DeclaredListFixture {
  const f = DECLARED_LIST_FIXTURES.find((x) => x.sourceId === sourceId);
  if (!f) throw new Error(`no fixture for ${sourceId} in test/support/declared-list-fixtures.ts`);
  return f;
}

/** The shared checks; `more` adds the list's own, with the upstream requests the service made. */
export function describeDeclaredList(list: ListDeclaration, more?: (requests: () => UpstreamRequest[]) => void): void {
  const f = fixtureOf(list.id);
  describe(`${list.id} (declared list)`, () => {
    it(`parses its fixture: ${f.total} items, the first as the upstream gives it`, () => {
      const items = parseDeclared(list, readFixture(f.file));
      expect(items).toHaveLength(f.total);
      expect(items[0]).toMatchObject({ rank: 1, ...f.first });
      for (const item of items) {
        expect(item.id).not.toBe('');
        expect(item.link).toMatch(/^https:\/\//);
        if (item.cover) expect(item.cover).toMatch(/^https:\/\//);
        if (item.published_at !== undefined) expect(item.published).toMatch(/^\d{4}[-/]\d{2}[-/]\d{2} \d{2}:\d{2}:\d{2}$/);
      }
      expect(new Set(items.map((i) => i.link)).size).toBe(items.length);
    });

    it('names the missing path or selector when the shape changes', () => {
      if ('html' in list) {
        expect(() => parseDeclared(list, '<html><body><p>改版了</p></body></html>')).toThrow(`selector "${list.html}" matched nothing`);
      } else if (list.within) {
        expect(() => parseDeclared(list, { moved: {} })).toThrow(/^missing \S+ \(an object\): the answer is an object with keys moved/);
      } else if (list.items.length === 0) {
        expect(() => parseDeclared(list, { topics: [] })).toThrow('answer is not a JSON array');
      } else {
        expect(() => parseDeclared(list, { moved: {} })).toThrow(new RegExp(`^missing ${String(list.items[0])}[^ ]* \\(an array\\): the answer is an object with keys moved`));
      }
    });

    describe('through the service', () => {
      const upstream = new Upstream();
      let svc: TestService;
      beforeAll(async () => {
        await upstream.start();
        serveDeclaredLists(upstream, [f]);
        svc = await startService({ upstream });
      });
      afterAll(async () => {
        await svc?.close();
        await upstream.stop();
      });

      it(`answers ${f.path} from ${f.host}`, async () => {
        const res = await svc.get(f.path);
        const body = (await res.json()) as Envelope<DeclaredItem[]>;
        expect(res.status, JSON.stringify(body)).toBe(200);
        expect(body.data).toHaveLength(f.total);
        expect(body.data[0]).toMatchObject(f.first);
        const asked = upstream.requests.filter((r) => r.host === f.host && r.path === f.upstreamPath);
        expect(asked).toHaveLength(1);
        for (const [k, v] of Object.entries(f.query ?? {})) expect(asked[0]?.query.get(k)).toBe(v);
        expect(upstream.unmatched).toEqual([]);
      });

      more?.(() => upstream.requests);
    });
  });
}
