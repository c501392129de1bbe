/**
 * `npm run demo`: the service against the project's own recorded fixtures (test/fixtures/upstream),
 * for a first look without access to the upstream sites. A local fixture server stands in for
 * every upstream through SOURCES_UPSTREAM_MIRROR, a tiny stand-in model gateway answers /v1, every
 * endpoint's example is requested once so the cache, /status and /metrics are filled, and a demo
 * gateway key and console token are printed. Ctrl-C stops it.
 *
 * Environment: PORT (default 4399), HOST (default 127.0.0.1); every other setting as usual.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createServiceAsync, type Service } from '../src/service.ts';
import type { AnySource, ParamSpec, RouteSpec } from '../src/kernel/source.ts';
import { FIXTURE_DIR, Upstream } from '../test/support/upstream.ts';
import { AiUpstream } from '../test/ops/support.ts';

/**
 * Fixtures whose file name is not the upstream path (their tests serve them by name). Anything
 * else is served from `test/fixtures/upstream/<host><path>` by the fixture server itself.
 */
export function serveNamedFixtures(upstream: Upstream): void {
  const file = (rel: string, type: string) => ({ headers: { 'content-type': type }, body: fs.readFileSync(path.join(FIXTURE_DIR, rel)) });
  const html = 'text/html; charset=utf-8';
  const json = 'application/json; charset=utf-8';
  upstream.serve('top.baidu.com', '/board', (req) => file(req.query.get('tab') === 'teleplay' ? 'top.baidu.com/board-teleplay.html' : 'top.baidu.com/board-realtime.html', html));
  upstream.serve('www.toutiao.com', '/hot-event/hot-board/', () => file('www.toutiao.com/hot-board.json', json));
  upstream.serve('aweme-lq.snssdk.com', '/aweme/v1/hot/search/list/', () => file('aweme-lq.snssdk.com/hot-search-list.json', json));
}

export interface DemoResult {
  path: string;
  status: number;
  cache: string | null;
}

export interface Demo {
  service: Service;
  base: string;
  adminToken: string;
  demoKey: string;
  results: DemoResult[];
  close(): Promise<void>;
}

/** The request that shows a route: the source's example when it is for this route, else one built from parameter examples. */
export function demoPath(s: AnySource, route: RouteSpec): string {
  const pattern = new RegExp(`^/v2/apis${route.path.replace(/:\w+/g, '[^/?]+')}(\\?|$)`);
  const literal = s.routes.find((r) => !r.path.includes(':') && new RegExp(`^/v2/apis${r.path}(\\?|$)`).test(s.example));
  if (pattern.test(s.example) && (!literal || literal === route)) return s.example;
  const specs = (s.params ?? {}) as Record<string, ParamSpec>;
  const filled = route.path.replace(/:(\w+)/g, (_, name: string) => {
    const spec = specs[name];
    return encodeURIComponent(spec?.example ?? (spec?.default !== undefined ? String(spec.default) : spec?.type === 'string' ? (spec.enum?.[0] ?? name) : name));
  });
  const required = Object.entries(specs)
    .filter(([name, spec]) => spec.required && spec.in !== 'path' && spec.in !== 'client-ip' && !(route.fixed && name in route.fixed))
    .map(([name, spec]) => `${name}=${encodeURIComponent(spec.example ?? 'demo')}`);
  return `/v2/apis${filled}${required.length ? `?${required.join('&')}` : ''}`;
}

export async function startDemo(opts: { port?: number; host?: string; env?: Record<string, string | undefined> } = {}): Promise<Demo> {
  const env = opts.env ?? process.env;
  const upstream = await new Upstream().start();
  serveNamedFixtures(upstream);
  const ai = await new AiUpstream().start();
  const adminToken = env.CONSOLE_ADMIN_TOKEN || `demo-${randomBytes(12).toString('hex')}`;
  let service: Service | undefined;
  try {
    service = await createServiceAsync({
      env: {
        LOG_LEVEL: 'error',
        DB_PATH: ':memory:',
        WARMUP_SPREAD_MS: '1000',
        ...env,
        SOURCES_UPSTREAM_MIRROR: upstream.url,
        AI_UPSTREAM_BASE_URL: ai.url,
        AI_UPSTREAM_API_KEY: 'demo-upstream-key',
        CONSOLE_ADMIN_TOKEN: adminToken,
      },
    });
    const port = await service.listen(opts.port ?? Number(env.PORT ?? 4399), opts.host ?? env.HOST ?? '127.0.0.1');
    const base = `http://127.0.0.1:${port}`;
    const svc = service;

    // Ask every endpoint once (a few at a time), so the demo shows filled data straight away.
    const paths = svc.registry.sources.flatMap((s) => s.routes.map((r) => demoPath(s, r)));
    const results: DemoResult[] = [];
    const queue = [...paths];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let p = queue.shift(); p !== undefined; p = queue.shift()) {
          const res = await fetch(`${base}${p}`, { redirect: 'manual' });
          await res.arrayBuffer();
          results.push({ path: p, status: res.status, cache: res.headers.get('x-cache') });
        }
      }),
    );
    results.sort((a, b) => paths.indexOf(a.path) - paths.indexOf(b.path));
    const { key } = await svc.gateway.keys.create({ name: 'demo', account: 'demo', level: svc.gateway.levels.defaultLevel, levelExplicit: false, quotaTokens: null, models: [], ips: [], expiresAt: null });

    return {
      service: svc,
      base,
      adminToken,
      demoKey: key,
      results,
      async close() {
        await svc.close();
        await ai.stop();
        await upstream.stop();
      },
    };
  } catch (err) {
    await service?.close();
    await ai.stop();
    await upstream.stop();
    throw err;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const demo = await startDemo();
  const out = process.stdout;
  const ok = demo.results.filter((r) => r.status < 400);
  out.write(`\nDemo running at ${demo.base} (upstreams: the recorded fixtures in test/fixtures/upstream)\n\n`);
  for (const r of demo.results) out.write(`  ${r.status}  ${(r.cache ?? '').padEnd(5)}  ${r.path}\n`);
  out.write(`\n${ok.length} of ${demo.results.length} endpoints answered from the fixtures.\n\n`);
  out.write(`  Docs      ${demo.base}/docs\n`);
  out.write(`  Status    ${demo.base}/status\n`);
  out.write(`  Metrics   ${demo.base}/metrics\n`);
  out.write(`  Catalogue ${demo.base}/v2/apis\n`);
  out.write(`  Console   ${demo.base}/console   admin token: ${demo.adminToken}\n`);
  out.write(`  Gateway   curl -H 'Authorization: Bearer ${demo.demoKey}' ${demo.base}/v1/models   (a stand-in model gateway answers)\n\n`);
  out.write('Press Ctrl-C to stop.\n');
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      demo.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}
