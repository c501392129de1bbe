/**
 * A router's middleware that looks fixed paths up in a Map first. @koa/router tests every route's
 * pattern on every request and composes the matched handlers anew each time; with ~60 routes that
 * was a visible share of a cached answer's cost. A path goes into the Map only where the router
 * itself would run that one route alone for it, and a hit sets the same context fields the router
 * sets, so the answer is the same either way; everything else goes to the router. The index and
 * the context fields are shared with the /v2/apis fast path (apis-fast-path.ts).
 */
import type { Layer, Router, RouterContext } from '@koa/router';
import type Koa from 'koa';
import type { AppState } from './middleware.ts';

type AppLayer = Layer<AppState>;
type Dispatched = RouterContext<AppState> & { routeMatched?: boolean; _matchedRoute?: string | RegExp; _matchedRouteName?: string };

export interface ExactRoute {
  path: string;
  layer: AppLayer;
  /** The layer's captures of its own path: what it captures from every request it is found for. */
  captures: string[];
  /** Every layer whose path matches, whatever its method (the router's `ctx.matched`). */
  matched: AppLayer[];
  handler: (ctx: Dispatched, next: Koa.Next) => unknown;
}

/** Fixed path → method → the one route the router runs for it; empty for routers whose options change matching. */
export function exactPathIndex(router: Router<AppState>): ReadonlyMap<string, ReadonlyMap<string, ExactRoute>> {
  const exact = new Map<string, Map<string, ExactRoute>>();
  if (router.host || router.opts.routerPath || router.exclusive) return exact;
  for (const layer of router.stack) {
    const path = layer.path;
    if (typeof path !== 'string' || layer.stack.length !== 1) continue;
    for (const method of layer.methods) {
      const found = router.match(path, method);
      if (found.pathAndMethod.length !== 1 || found.pathAndMethod[0] !== layer) continue;
      let byMethod = exact.get(path);
      if (!byMethod) exact.set(path, (byMethod = new Map()));
      if (!byMethod.has(method)) byMethod.set(method, { path, layer, captures: layer.captures(path), matched: found.path, handler: layer.stack[0] as ExactRoute['handler'] });
    }
  }
  return exact;
}

/** Sets what @koa/router's dispatch sets before it runs a route (see its `middleware()`). */
export function markRouted(ctx: Koa.Context, router: Router<AppState>, hit: ExactRoute): void {
  const routed = ctx as Dispatched;
  const { layer } = hit;
  if (routed.matched) routed.matched.push(...hit.matched);
  else routed.matched = hit.matched.slice();
  routed.router = router;
  routed.routeMatched = true;
  routed.captures = hit.captures.slice();
  routed.params = routed.request.params = layer.params(routed.path, routed.captures, routed.params);
  routed.routerPath = hit.path;
  routed.routerName = layer.name || undefined;
  routed._matchedRoute = hit.path;
  if (layer.name) routed._matchedRouteName = layer.name;
}

export function routesWithExactPaths(router: Router<AppState>, exact = exactPathIndex(router)): Koa.Middleware<AppState> {
  const routed = router.routes() as unknown as (ctx: Dispatched, next: Koa.Next) => Promise<unknown>;
  const exactRoutes = function exactRoutes(ctx: Dispatched, next: Koa.Next) {
    const hit = exact.get(ctx.path)?.get(ctx.method);
    if (!hit) return routed(ctx, next);
    markRouted(ctx, router, hit);
    return hit.handler(ctx, next);
  };
  // Like the router's own middleware, it names its router (the OpenAPI test introspects the app this way).
  return Object.assign(exactRoutes, { router }) as unknown as Koa.Middleware<AppState>;
}
