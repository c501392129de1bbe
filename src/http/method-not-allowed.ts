/**
 * 405 with `Allow` for a path a router has but not in the request's method. @koa/router's own
 * `allowedMethods` decides after the rest of the chain ran, which ends in the 404 fallback's throw,
 * so it never got to answer: this middleware sits right behind the router and answers at once.
 */
import type { Layer } from '@koa/router';
import type Koa from 'koa';
import { AppError } from '../kernel/errors.ts';
import type { AppState } from './middleware.ts';

interface Routed {
  /** Layers whose path matched, whatever their method (set by the router). */
  matched?: Layer<AppState>[];
  /** Whether a layer matched path and method. */
  routeMatched?: boolean;
}

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const rank = (method: string) => (ORDER.includes(method) ? ORDER.indexOf(method) : ORDER.length);

export function methodNotAllowed(): Koa.Middleware<AppState> {
  return function methodNotAllowed(ctx, next) {
    const { matched, routeMatched } = ctx as unknown as Routed;
    if (routeMatched || !matched?.length) return next();
    const allowed = [...new Set(matched.flatMap((layer) => layer.methods))].sort((a, b) => rank(a) - rank(b));
    if (!allowed.length) return next();
    throw new AppError(405, `Method ${ctx.method} is not allowed on ${ctx.path}: it answers ${allowed.join(', ')}.`, { headers: { Allow: allowed.join(', ') } });
  };
}
