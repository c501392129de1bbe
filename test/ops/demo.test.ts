/**
 * `npm run demo` (scripts/demo.ts): the service on the project's own fixtures fills the
 * endpoints, the status page and the gateway without any upstream site.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoPath, startDemo, type Demo } from '../../scripts/demo.ts';

describe('npm run demo', () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo({ port: 0, host: '127.0.0.1', env: { SCHEDULER_ENABLED: 'false' } });
  }, 60_000);
  afterAll(async () => {
    await demo?.close();
  });

  it('asks every endpoint once, and most answer from the fixtures', () => {
    const routes = demo.service.registry.sources.flatMap((s) => s.routes.map((r) => demoPath(s, r)));
    expect(demo.results.map((r) => r.path)).toEqual(routes);
    const ok = demo.results.filter((r) => r.status < 400);
    expect(ok.length / demo.results.length).toBeGreaterThan(0.8);
    for (const s of demo.service.registry.sources.filter((x) => x.mode === 'local')) {
      for (const r of s.routes) expect(demo.results.find((x) => x.path === demoPath(s, r))?.status, `${s.id} ${r.path}`).toBeLessThan(400);
    }
    expect(demo.results.find((r) => r.path.startsWith('/v2/apis/hot-microblog'))?.status).toBe(200);
  });

  it('shows filled sources on /status, and the demo key works on /v1', async () => {
    const html = await (await fetch(`${demo.base}/status`)).text();
    expect((html.match(/data-state="fresh"/g) ?? []).length).toBeGreaterThan(10);
    const models = await fetch(`${demo.base}/v1/models`, { headers: { authorization: `Bearer ${demo.demoKey}` } });
    expect(models.status).toBe(200);
    const login = await fetch(`${demo.base}/console`, { headers: { authorization: `Bearer ${demo.adminToken}` } });
    expect(await login.text()).toContain('<form class="box" method="post" action="/console/keys" id="create">');
  });

  it('builds a request for routes with path parameters from their examples', () => {
    const s = demo.service.registry.sources.find((x) => x.routes.some((r) => r.path.includes(':')));
    if (!s) return;
    for (const r of s.routes.filter((x) => x.path.includes(':'))) expect(demoPath(s, r)).not.toMatch(/:\w/);
  });
});
