/**
 * 60s's paths (src/http/sixty-aliases.ts) answer as their canonical route does: under /v2/apis/
 * and at 60s's own /v2/ prefix, with the same status and body (json and one other encoding), the
 * same cache, the query passed through; listed in the catalogue and OpenAPI as aliases of the
 * canonical route; 60s paths we do not serve stay 404 with the usual envelope.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../sources/index.ts';
import type { FastPath } from '../../src/http/apis-fast-path.ts';
import { buildOpenApi, openApiPath, type JsonObject } from '../../src/http/openapi.ts';
import { aliasPaths, createAliasResolver, SIXTY_ALIASES, SIXTY_UNSERVED, type SixtyAlias } from '../../src/http/sixty-aliases.ts';
import { createRegistry, routeExample, supportedEncodings } from '../../src/kernel/registry.ts';
import type { AnySource, Encoding, RouteSpec } from '../../src/kernel/source.ts';
import { eventually, startLoggedService } from '../ops/support.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';

const registry = createRegistry(sources);
const routeOf = new Map<string, { source: AnySource; route: RouteSpec }>();
for (const source of registry.sources) for (const route of source.routes) routeOf.set(route.path, { source, route });

/** Sources whose every answer is a new random pick; the others answer the same to the same request. */
const RANDOM = new Set(['password', 'changya']);

const fill = (path: string, values: Record<string, string>) => path.replace(/:(\w+)/g, (m, n: string) => values[n] ?? m);

/** The canonical request of an alias (the route's example, its variant fixed by the alias) and the alias requests. */
function requestsOf(a: SixtyAlias): { canonical: string; aliases: string[]; query: string; encodings: (Encoding | undefined)[] } {
  const { source, route } = routeOf.get(a.route)!;
  const example = routeExample(source, route);
  const [examplePath, exampleQuery = ''] = example.split('?') as [string, string?];
  const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1] as string);
  const m = new RegExp(`^/v2/apis${route.path.replace(/:\w+/g, '([^/]+)')}$`).exec(examplePath);
  const values: Record<string, string> = {};
  names.forEach((n, i) => (values[n] = m?.[i + 1] ?? ''));
  Object.assign(values, a.params);
  const query = new URLSearchParams(exampleQuery);
  query.delete('encoding');
  // Sources that pick a random item pick one by id.
  if (source.params && 'id' in source.params && source.params.id?.in !== 'path' && !query.has('id')) query.set('id', '1');
  const supported = route.forceEncoding ? [] : supportedEncodings(source);
  const other = (['html', 'text', 'markdown'] as const).find((e) => supported.includes(e));
  return {
    canonical: `/v2/apis${fill(route.path, values)}`,
    aliases: aliasPaths(a).map((p) => fill(p, values)),
    query: query.toString(),
    encodings: route.forceEncoding ? [undefined] : ['json', ...(other ? [other] : [])],
  };
}

const withQuery = (path: string, query: string, encoding: Encoding | undefined) => {
  const q = [query, encoding ? `encoding=${encoding}` : ''].filter(Boolean).join('&');
  return q ? `${path}?${q}` : path;
};

describe('the alias table', () => {
  it('maps every 60s path to a route of the registry, each once, none also listed as unserved', () => {
    const seen = new Set<string>();
    for (const a of SIXTY_ALIASES) {
      expect(routeOf.has(a.route), `${a.sixty} → ${a.route}`).toBe(true);
      expect(seen.has(a.sixty), a.sixty).toBe(false);
      seen.add(a.sixty);
      expect(SIXTY_UNSERVED.map((u) => u.sixty)).not.toContain(a.sixty);
    }
    // The issue's list, checked by name.
    for (const p of ['/weibo', '/douyin', '/rednote', '/bili', '/zhihu', '/toutiao', '/baidu/hot', '/baidu/teleplay', '/baidu/tieba', '/quark', '/dongchedi', '/ncm-rank/list', '/hacker-news/top', '/maoyan/all/movie', '/douban/weekly/movie', '/bing', '/epic', '/hitokoto', '/weather/realtime', '/exchange-rate', '/exchange_rate', '/today-in-history', '/today_in_history', '/maoyan', '/baidu/realtime', '/weather', '/ncm-rank', '/color']) {
      expect(seen.has(p), p).toBe(true);
    }
  });

  it('resolves exact, case-insensitive and trailing-slash paths, path parameters and queries; leaves the rest alone', () => {
    const r = createAliasResolver(registry);
    expect(r.resolve('/v2/weibo')).toBe('/v2/apis/hot-microblog');
    expect(r.resolve('/v2/apis/weibo?encoding=text&x=1')).toBe('/v2/apis/hot-microblog?encoding=text&x=1');
    expect(r.resolve('/v2/Weibo/')).toBe('/v2/apis/hot-microblog');
    expect(r.resolve('/v2/hacker-news/best?limit=5')).toBe('/v2/apis/tech-forum/best?limit=5');
    expect(r.resolve('/v2/ncm-rank/19723756')).toBe('/v2/apis/music-rank/19723756');
    expect(r.resolve('/v2/apis/ncm-rank/list')).toBe('/v2/apis/music-rank/list');
    expect(r.resolve('/v2/60s')).toBe('/v2/apis/60s');
    expect(r.resolve('/v2/apis/60s')).toBeUndefined();
    expect(r.resolve('/v2/apis/hot-microblog')).toBeUndefined();
    expect(r.resolve('/v2/status')).toBeUndefined();
    expect(r.resolve('/v2/chemical')).toBeUndefined();
    expect(r.resolve('/v1/models')).toBeUndefined();
  });
});

describe('60s paths over HTTP', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, env: { APIS_RATE_LIMIT: '0' } });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  async function answer(path: string, init?: RequestInit) {
    const res = await svc.get(path, init);
    return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()), cache: res.headers.get('x-cache') };
  }

  /** Keys of a JSON envelope's data, for answers that differ on every call (random picks). */
  function shape(body: Buffer): string {
    const data = (JSON.parse(body.toString('utf8')) as { data: unknown }).data;
    return JSON.stringify(data && typeof data === 'object' ? Object.keys(data).sort() : typeof data);
  }

  const statuses: string[] = [];
  afterAll(() => {
    if (process.env.SHOW_STATUSES) console.log(statuses.join('\n'));
  });
  for (const a of SIXTY_ALIASES) {
    it(`${a.sixty} → ${a.route}${a.params ? ` ${JSON.stringify(a.params)}` : ''}`, async () => {
      const { canonical, aliases, query, encodings } = requestsOf(a);
      expect(aliases.some((p) => p.startsWith('/v2/') && !p.startsWith('/v2/apis/'))).toBe(true);
      const { source } = routeOf.get(a.route)!;
      for (const encoding of encodings) {
        const first = await answer(withQuery(canonical, query, encoding));
        expect(first.status, `${canonical} ${first.body.toString().slice(0, 200)}`).toBeLessThan(500 + (first.status === 503 ? 100 : 0));
        statuses.push(`${canonical} ${encoding ?? ''} ${first.status}`);
        for (const alias of aliases) {
          const before = await answer(withQuery(canonical, query, encoding));
          const got = await answer(withQuery(alias, query, encoding));
          const after = await answer(withQuery(canonical, query, encoding));
          expect(got.status, `${alias} ${encoding}`).toBe(before.status);
          expect(got.type, `${alias} ${encoding}`).toBe(before.type);
          if (RANDOM.has(source.id)) {
            if (encoding === 'json') expect(shape(got.body), `${alias} json`).toBe(shape(before.body));
            continue;
          }
          // A local source's corpus may be refreshed (bundled → fetched) between two requests.
          const expected = [before.body.toString('latin1'), after.body.toString('latin1')];
          expect(expected, `${alias} ${encoding}`).toContain(got.body.toString('latin1'));
          if (before.cache === 'HIT' && after.cache === 'HIT') expect(got.cache, `${alias}: the canonical route's cache`).toBe('HIT');
        }
      }
    });
  }

  it('passes the query through and takes POST bodies where the route does', async () => {
    const canonical = await (await svc.get('/v2/apis/hash?content=%E4%BD%A0%E5%A5%BD')).text();
    expect(await (await svc.get('/v2/hash?content=%E4%BD%A0%E5%A5%BD')).text()).toBe(canonical);
    const posted = await svc.get('/v2/hash', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: '你好' }) });
    expect(posted.status).toBe(200);
    expect(await posted.text()).toBe(canonical);
    const bad = await svc.get('/v2/apis/hacker-news/top?limit=100000');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toContain('limit');
  });

  it('leaves the 60s paths we do not serve at 404 with the usual envelope, under both prefixes', async () => {
    for (const { sixty: p } of SIXTY_UNSERVED) {
      for (const path of [`/v2${p}`, `/v2/apis${p}`]) {
        const res = await svc.get(path);
        expect(res.status, path).toBe(404);
        const body = (await res.json()) as { code: number; message: string; data: null };
        expect(body, path).toMatchObject({ code: 404, data: null });
        expect(body.message).toContain('/v2/apis');
      }
    }
  });

  it('lists aliases in the catalogue under their canonical route, not as endpoints of their own', async () => {
    const body = (await (await svc.get('/v2/apis')).json()) as { data: { total: number; endpoints: { path: string; aliases: string[]; params: { name: string; in: string; required: boolean }[] }[] } };
    const { endpoints } = body.data;
    expect(body.data.total).toBe(registry.sources.reduce((n, s) => n + s.routes.length, 0));
    const byPath = new Map(endpoints.map((e) => [e.path, e]));
    expect(byPath.get('/v2/apis/hot-microblog')?.aliases).toEqual(['/v2/apis/weibo', '/v2/weibo']);
    expect(byPath.get('/v2/apis/tech-forum/:type')?.aliases).toEqual(expect.arrayContaining(['/v2/hacker-news/top', '/v2/apis/hacker-news/best']));
    expect(byPath.get('/v2/apis/60s')?.aliases).toEqual(['/v2/60s']);
    const listed = endpoints.flatMap((e) => e.aliases);
    for (const a of SIXTY_ALIASES) for (const p of aliasPaths(a)) expect(listed, p).toContain(p);
    for (const p of listed) expect(byPath.has(p), `${p} is no endpoint of its own`).toBe(false);
    // Path parameters are required.
    for (const e of endpoints) for (const p of e.params) if (p.in === 'path') expect(p.required, `${e.path} ${p.name}`).toBe(true);
  });

  it('lists aliases in OpenAPI as x-aliases of the canonical operation, adding no paths', () => {
    const doc = buildOpenApi({ registry });
    const paths = doc.paths as Record<string, Record<string, JsonObject>>;
    for (const a of SIXTY_ALIASES) {
      const { route } = routeOf.get(a.route)!;
      const op = paths[openApiPath(route)]!.get!;
      expect(op['x-aliases'], a.sixty).toEqual(expect.arrayContaining(aliasPaths(a)));
      expect(String(op.description)).toContain(`\`/v2${a.sixty}\``);
      for (const p of aliasPaths(a)) expect(paths[p.replace(/:(\w+)/g, '{$1}')], p).toBeUndefined();
    }
  });
});

describe('60s paths and the abuse limits', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startService({ env: { APIS_RATE_LIMIT: '2', APIS_RATE_WINDOW_SEC: '60' } });
  });
  afterAll(async () => {
    await svc.close();
  });

  it('counts alias requests against the /v2/apis limits, as the requests they are', async () => {
    expect((await svc.get('/v2/apis/hash?content=a')).status).toBe(200);
    expect((await svc.get('/v2/hash?content=a')).status).toBe(200);
    const third = await svc.get('/v2/apis/hash?content=a');
    expect(third.status).toBe(429);
    expect((await svc.get('/v2/hash?content=a')).status).toBe(429);
  });
});

describe('60s paths on the fast path', () => {
  const upstream = new Upstream();
  let svc: TestService;
  let server: http.Server;
  let base = '';
  const taken: string[] = [];
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, env: { SOURCE_HOT_MICROBLOG_COOKIE: 'SUB=alias' } });
    // The app's own callback, with its fast path observed.
    const app = svc.app as unknown as { fastPath: FastPath };
    const fast = app.fastPath;
    app.fastPath = (req, res) => {
      const answered = fast(req, res);
      if (answered) taken.push(req.url ?? '');
      return answered;
    };
    server = http.createServer(svc.app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await svc.close();
    await upstream.stop();
  });

  it('resolves an alias before the fast path, which answers it as the canonical route', async () => {
    const canonical = await fetch(`${base}/v2/apis/hot-microblog?encoding=text`);
    expect(canonical.status).toBe(200);
    const alias = await fetch(`${base}/v2/weibo?encoding=text`);
    expect(alias.status).toBe(200);
    expect(alias.headers.get('x-cache')).toBe('HIT');
    expect(await alias.text()).toBe(await canonical.text());
    expect(taken).toEqual(['/v2/apis/hot-microblog?encoding=text', '/v2/apis/hot-microblog?encoding=text']);
  });
});

describe('60s paths in the access log', () => {
  it('logs the canonical path with the alias it was asked at', async () => {
    const { svc, base, lines } = await startLoggedService({});
    try {
      expect((await fetch(`${base}/v2/hash?content=a`)).status).toBe(200);
      await eventually(async () => {
        const entry = lines.map((l) => JSON.parse(l) as { msg?: string; path?: string; alias?: string }).find((l) => l.msg === 'request');
        expect(entry).toMatchObject({ path: '/v2/apis/hash', alias: '/v2/hash' });
      });
    } finally {
      await svc.close();
    }
  });
});
