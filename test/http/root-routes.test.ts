/**
 * 60s's root routes (its src/router.ts): `/health` answers the bare word `ok`, `/endpoints` the
 * JSON array of the paths served; here 60s's `/v2/…` paths and ours under `/v2/apis`.
 */
import { describe, expect, it } from 'vitest';
import { SIXTY_ALIASES } from '../../src/http/sixty-aliases.ts';
import { serviceForSuite } from '../support/suite-service.ts';

describe("60s's root routes", () => {
  const { svc } = serviceForSuite();

  it('/health answers ok as plain text', async () => {
    const res = await svc().get('/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await res.text()).toBe('ok');
  });

  it('/endpoints answers the JSON array of every path served: 60s’s /v2 paths and ours', async () => {
    const res = await svc().get('/endpoints');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const paths = (await res.json()) as string[];
    expect(Array.isArray(paths)).toBe(true);
    for (const p of ['/v2/60s', '/v2/weibo', '/v2/hacker-news/top', '/v2/ncm-rank/:id', '/v2/apis/60s', '/v2/apis/trending', '/v2/apis/music-rank/:id']) expect(paths).toContain(p);
    for (const a of SIXTY_ALIASES) expect(paths).toContain(`/v2${a.sixty}`);
    expect(new Set(paths).size).toBe(paths.length);
    // Every path listed answers (a path parameter filled in), none is a 404.
    for (const p of paths.filter((x) => x.startsWith('/v2/apis/') && !x.includes(':')).slice(0, 3)) expect((await svc().get(`${p}?encoding=json`)).status).not.toBe(404);
  });
});
