/**
 * Issue 20 item 11: another method on an existing /v2/apis path is a 405 naming the methods it
 * answers (in `Allow`), not the 404 of an unknown path; a blank path id is a 400 naming it, not the
 * resource without an id (music-rank's chart directory).
 */
import { describe, expect, it } from 'vitest';
import { serviceForSuite } from '../support/suite-service.ts';

describe('methods and path parameters of /v2/apis', () => {
  const { svc, upstream } = serviceForSuite();

  it.each([
    ['PUT', '/v2/apis/60s', 'GET, HEAD'],
    ['DELETE', '/v2/apis/hot-microblog', 'GET, HEAD'],
    ['PATCH', '/v2/apis/music-rank/3778678', 'GET, HEAD'],
    ['POST', '/v2/apis/60s', 'GET, HEAD'],
    ['PUT', '/v2/apis/og', 'GET, HEAD, POST'],
    ['DELETE', '/v2/apis', 'GET, HEAD'],
  ])('%s %s is a 405 with Allow: %s', async (method, path, allow) => {
    const res = await svc().get(path, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    const body = (await res.json()) as { code: number; message: string; data: unknown };
    expect(body).toMatchObject({ code: 405, data: null });
    expect(body.message).toContain(allow);
  });

  it('an unknown path stays a 404 in any method', async () => {
    const res = await svc().get('/v2/apis/no-such-endpoint', { method: 'PUT' });
    expect(res.status).toBe(404);
    expect(res.headers.get('allow')).toBeNull();
  });

  it('the methods a path answers still answer', async () => {
    const res = await svc().get('/v2/apis', { method: 'HEAD' });
    expect(res.status).toBe(200);
  });

  it.each(['%20', '%20%20', '%09'])('music-rank/%s is a 400 naming id, never reaching the upstream', async (blank) => {
    const before = upstream.requests.length;
    const res = await svc().get(`/v2/apis/music-rank/${blank}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: number; message: string };
    expect(body.code).toBe(400);
    expect(body.message).toContain('"id"');
    expect(upstream.requests.length).toBe(before);
  });
});
