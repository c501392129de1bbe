/**
 * Answers computed per request (hash, QR codes, lunar dates) keep a stable ETag for equal
 * input, and the one render path answers a matching If-None-Match with 304 for them, as it
 * does for stored data; a validator that does not match, a request asking for no cache (what a
 * plain fetch() sends with a validator) or a POST gets the full answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../support/service.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.close();
});

// fetch() adds "cache-control: no-cache" to a conditional request unless told otherwise, and
// a request that asks for no cache is rightly answered in full.
const conditional = (etag: string) => ({ 'If-None-Match': etag, 'Cache-Control': 'max-age=0' });

const COMPUTED = ['/v2/apis/hash?content=abc', '/v2/apis/hash?content=abc&encoding=text', '/v2/apis/qrcode?text=abc&encoding=image', '/v2/apis/lunar?date=2026-10-01'];

describe('If-None-Match on computed answers', () => {
  for (const path of COMPUTED) {
    it(`${path}: 304 for its own ETag, 200 with the body otherwise`, async () => {
      const first = await svc.get(path);
      expect(first.status).toBe(200);
      const body = Buffer.from(await first.arrayBuffer());
      const etag = first.headers.get('etag');
      expect(etag).toMatch(/^"[0-9a-f]+"$/);

      const again = await svc.get(path, { headers: conditional(etag!) });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      expect((await again.arrayBuffer()).byteLength).toBe(0);

      const listed = await svc.get(path, { headers: conditional(`"0000", ${etag}`) });
      expect(listed.status).toBe(304);

      const other = await svc.get(path, { headers: conditional('"0000"') });
      expect(other.status).toBe(200);
      expect(Buffer.from(await other.arrayBuffer()).equals(body)).toBe(true);

      // A plain fetch() sends no-cache with it: the full answer, as for stored data.
      const noCache = await svc.get(path, { headers: { 'If-None-Match': etag! } });
      expect(noCache.status).toBe(200);
    });
  }

  it('a POST with a matching validator still computes (304 is for GET and HEAD)', async () => {
    const post = (headers: Record<string, string>) => svc.get('/v2/apis/hash', { method: 'POST', body: 'abc', headers: { 'content-type': 'text/plain', ...headers } });
    const first = await post({});
    expect(first.status).toBe(200);
    const second = await post(conditional(first.headers.get('etag')!));
    expect(second.status).toBe(200);
    expect(((await second.json()) as { data: { md5: string } }).data.md5).toBe('900150983cd24fb0d6963f7d28e17f72');
  });
});
