/**
 * The contract every source meets, checked over the whole registry so a new source is held to
 * the same rules: one file (or folder) per id in the barrel, a test file, a valid definition,
 * a catalogue entry, and an example that answers in every encoding it declares.
 */
import fs from 'node:fs';
import path from 'node:path';
import Parser from 'rss-parser';
import { describe, expect, it } from 'vitest';
import { sources } from '../sources/index.ts';
import { createRegistry, supportedEncodings } from '../src/kernel/registry.ts';
import { CONTENT_TYPES } from '../src/encoding/index.ts';
import { serviceForSuite } from './support/suite-service.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const SOURCES_DIR = path.join(ROOT, 'sources');

describe('source registry', () => {
  it('is valid: unique ids and routes, declared path parameters, SOURCE_ settings', () => {
    expect(() => createRegistry(sources)).not.toThrow();
  });

  it('has exactly one module per id in sources/, each registered in the barrel', () => {
    const files = fs
      .readdirSync(SOURCES_DIR, { withFileTypes: true })
      .filter((e) => !e.name.startsWith('_') && e.name !== 'index.ts')
      .map((e) => (e.isDirectory() ? e.name : e.name.replace(/\.ts$/, '')));
    expect(sources.map((s) => s.id).sort()).toEqual([...files].sort());
  });

  it('has a test file for every source', () => {
    for (const s of sources) expect(fs.existsSync(path.join(ROOT, 'test', 'sources', `${s.id}.test.ts`)), `test/sources/${s.id}.test.ts`).toBe(true);
  });

  it('describes every source, parameter and example', () => {
    for (const s of sources) {
      expect(s.name.length, s.id).toBeGreaterThan(1);
      expect(s.description.length, s.id).toBeGreaterThan(15);
      const examplePath = s.example.split('?')[0] as string;
      const matches = s.routes.some((r) => new RegExp(`^/v2/apis${r.path.replace(/:\w+/g, '[^/]+')}$`).test(examplePath));
      expect(matches, `${s.id} example ${s.example} matches a route`).toBe(true);
      for (const [name, spec] of Object.entries((s.params ?? {}) as Record<string, { doc: string }>)) expect(spec.doc.length, `${s.id}.${name}`).toBeGreaterThan(5);
      if (s.mode !== 'local') expect(s.freshness.ttlSec, s.id).toBeGreaterThan(0);
    }
  });
});

describe('every example answers in every declared encoding', () => {
  const { svc, upstream } = serviceForSuite();

  it('lists every route in the catalogue, each with an example of its own', async () => {
    const body = (await (await svc().get('/v2/apis')).json()) as { data: { endpoints: { path: string; example: string }[] } };
    const listed = new Set(body.data.endpoints.map((e) => e.path));
    for (const s of sources) for (const r of s.routes) expect(listed.has(`/v2/apis${r.path}`), r.path).toBe(true);
    for (const e of body.data.endpoints) {
      const own = new RegExp(`^${e.path.replace(/:\w+/g, '[^/?]+')}(\\?|$)`);
      // A literal sibling route (music-rank/list beside music-rank/:id) is another route's example.
      const sibling = body.data.endpoints.some((o) => o !== e && !o.path.includes(':') && e.example.split('?')[0] === o.path);
      expect(own.test(e.example) && !sibling, `${e.path}: example ${e.example}`).toBe(true);
    }
  });

  for (const source of sources) {
    it(`${source.id}: ${source.example}`, async () => {
      const base = source.example.replace(/([?&])encoding=[^&]*&?/, '$1').replace(/[?&]$/, '');
      const sep = base.includes('?') ? '&' : '?';
      const json = await svc().get(`${base}${sep}encoding=json`);
      // Without a fixture at the default path an upstream-backed example may be unavailable; never a 500.
      expect(json.status, await json.clone().text()).toBeLessThan(500 + (json.status === 503 ? 100 : 0));
      if (json.status !== 200) return;
      const body = (await json.json()) as { code: number; message: string; data: unknown };
      expect(body.code).toBe(200);
      expect(body.message).toBe('success');
      if (source.mode !== 'local' && body.data && typeof body.data === 'object' && !Array.isArray(body.data)) {
        expect(String((body.data as { updated_at?: unknown }).updated_at), `${source.id} data.updated_at`).toMatch(/^\d{13}$/);
      }
      const route = source.routes.find((r) => new RegExp(`^/v2/apis${r.path.replace(/:\w+/g, '[^/]+')}$`).test(base.split('?')[0] as string));
      const encodings = route?.forceEncoding ? [route.forceEncoding] : supportedEncodings(source);
      for (const encoding of encodings) {
        if (encoding === 'json' || encoding.endsWith('-proxy')) continue;
        const r = await svc().get(`${base}${sep}encoding=${encoding}`);
        expect([200, 302], `${source.id} ${encoding}`).toContain(r.status);
        if (r.status === 302) {
          expect(r.headers.get('location'), `${source.id} ${encoding}`).toMatch(/^https?:\/\//);
          continue;
        }
        const type = r.headers.get('content-type') ?? '';
        if (encoding in CONTENT_TYPES) expect(type, `${source.id} ${encoding}`).toBe(CONTENT_TYPES[encoding as keyof typeof CONTENT_TYPES]);
        const text = await r.text();
        expect(text.length, `${source.id} ${encoding}`).toBeGreaterThan(0);
        if (encoding === 'rss') {
          const feed = await new Parser().parseString(text);
          expect(feed.items.length, `${source.id} rss items`).toBeGreaterThan(0);
          expect(new Set(feed.items.map((i) => i.guid)).size, `${source.id} rss guids unique`).toBe(feed.items.length);
        }
        if (encoding === 'image') expect(type).toMatch(/^image\//);
      }
    });
  }
});
