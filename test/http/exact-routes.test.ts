/**
 * routesWithExactPaths answers exactly as the router's own middleware does (same handler, same
 * context fields, same fall-through), and skips the router's search for the paths it indexed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Router } from '@koa/router';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { routesWithExactPaths } from '../../src/http/exact-routes.ts';
import type { AppState } from '../../src/http/middleware.ts';

type Fields = Record<string, unknown>;

function buildRouter(): Router<AppState> {
  const router = new Router<AppState>();
  const answer = (name: string) => (ctx: Koa.ParameterizedContext<AppState> & Fields) => {
    ctx.set('X-Handler', name);
    ctx.body = {
      name,
      params: ctx.params,
      requestParams: (ctx.request as unknown as Fields).params,
      captures: ctx.captures,
      matched: (ctx.matched as { path: string }[]).map((l) => l.path),
      routeMatched: ctx.routeMatched,
      routerPath: ctx.routerPath,
      routerName: ctx.routerName ?? null,
      matchedRoute: ctx._matchedRoute,
      ownRouter: ctx.router === router,
    };
  };
  router.get('/items/:id', answer('item by id'));
  router.get('/items/latest', answer('never reached: /items/:id comes first'));
  router.get('/list', answer('list'));
  router.post('/list', answer('list post'));
  router.get('/twice', answer('twice first'));
  router.get('/twice', answer('twice second'));
  router.get('named', '/named', answer('named'));
  return router;
}

async function serve(mount: (app: Koa<AppState>) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const app = new Koa<AppState>();
  mount(app);
  app.use((ctx) => {
    ctx.status = 404;
    ctx.body = { fallthrough: ctx.path, matched: ((ctx as unknown as Fields).matched as { path: string }[] | undefined)?.map((l) => l.path) ?? null };
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const REQUESTS: [string, string][] = [
  ['GET', '/list'],
  ['HEAD', '/list'],
  ['POST', '/list'],
  ['DELETE', '/list'],
  ['GET', '/list/'],
  ['GET', '/LIST'],
  ['GET', '/list?x=1'],
  ['GET', '/items/latest'],
  ['GET', '/items/42'],
  ['GET', '/twice'],
  ['GET', '/named'],
  ['GET', '/nothing'],
];

describe('routesWithExactPaths', () => {
  const indexed = buildRouter();
  const plain = buildRouter();
  let fast: Awaited<ReturnType<typeof serve>>;
  let reference: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    fast = await serve((app) => app.use(routesWithExactPaths(indexed)));
    reference = await serve((app) => app.use(plain.routes()));
  });
  afterAll(async () => {
    await fast.close();
    await reference.close();
  });

  const call = async (base: string, method: string, path: string) => {
    const res = await fetch(`${base}${path}`, { method });
    return { status: res.status, handler: res.headers.get('x-handler'), length: res.headers.get('content-length'), body: await res.text() };
  };

  it.each(REQUESTS)('%s %s answers as the router does', async (method, path) => {
    const got = await call(fast.url, method, path);
    expect(got).toEqual(await call(reference.url, method, path));
  });

  it('runs indexed routes without the router search, and everything else through it', async () => {
    const match = vi.spyOn(indexed, 'match');
    try {
      expect((await call(fast.url, 'GET', '/list')).handler).toBe('list');
      expect((await call(fast.url, 'POST', '/list')).handler).toBe('list post');
      expect((await call(fast.url, 'GET', '/named')).handler).toBe('named');
      expect(match).not.toHaveBeenCalled();
      // Shadowed by an earlier pattern, registered twice, or no fixed path: the router decides.
      expect((await call(fast.url, 'GET', '/items/latest')).handler).toBe('item by id');
      expect((await call(fast.url, 'GET', '/twice')).handler).toBe('twice first');
      expect((await call(fast.url, 'GET', '/list/')).handler).toBe('list');
      expect(match).toHaveBeenCalledTimes(3);
    } finally {
      match.mockRestore();
    }
  });

  it('names its router like the router middleware does', () => {
    expect((routesWithExactPaths(indexed) as unknown as { router: unknown }).router).toBe(indexed);
  });
});
