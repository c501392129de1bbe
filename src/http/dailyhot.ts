/**
 * `GET /dailyhot/<route>` and `/dailyhot/all`: imsyy/DailyHotApi's answers for its route names,
 * so its front end (imsyy/DailyHot) and scripts work with their API base pointed at `/dailyhot`.
 * A view over our stored lists (see dailyhot-routes.ts), never a second fetcher: each answer is
 * read through the engine like `/v2/apis`, with `cache=false` as force-update (kept to once a
 * minute), `limit`, `rss=true` (our RSS rendering of the list) and the route's `type` options.
 */
import { Router } from '@koa/router';
import { render } from '../encoding/index.ts';
import type { Engine, ReadResult } from '../kernel/engine.ts';
import { AppError, badParam } from '../kernel/errors.ts';
import { parseParams } from '../kernel/params.ts';
import type { Registry } from '../kernel/registry.ts';
import type { FetchedSource } from '../kernel/source.ts';
import type { Store } from '../kernel/store.ts';
import { applyAnswer, SERVICE_NAME } from './apis-router.ts';
import { DAILYHOT_ROUTES, typeParamOf, type DailyHotRoute } from './dailyhot-routes.ts';
import type { AppState } from './middleware.ts';

export const DAILYHOT_PREFIX = '/dailyhot';

/** An item of DailyHotApi's `ListItem` (its src/types.d.ts). */
export interface DailyHotItem {
  id: number | string;
  title: string;
  cover?: string;
  author?: string;
  desc?: string;
  hot: number | undefined;
  timestamp: number | undefined;
  url: string;
  mobileUrl: string;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);
const finite = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** One of our stored items in DailyHotApi's shape (ours keep more fields under other names). */
export function dailyHotItem(raw: unknown): DailyHotItem | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const i = raw as Record<string, unknown>;
  const title = text(i.title);
  const url = text(i.link);
  if (!title || !url) return undefined;
  const id = typeof i.id === 'string' || typeof i.id === 'number' ? i.id : (finite(i.rank) ?? url);
  const cover = text(i.cover);
  const author = text(i.author);
  const desc = text(i.desc) ?? text(i.detail) ?? text(i.description);
  return {
    id,
    title,
    ...(cover ? { cover } : {}),
    ...(author ? { author } : {}),
    ...(desc ? { desc } : {}),
    hot: finite(i.hot_value) ?? finite(i.score),
    timestamp: finite(i.published_at) ?? finite(i.created_at) ?? finite(i.event_time_at) ?? undefined,
    url,
    mobileUrl: text(i.mobile_link) ?? url,
  };
}

function itemsOf(data: unknown): unknown[] {
  if (Array.isArray(data)) return data;
  const list = data && typeof data === 'object' ? (data as { list?: unknown }).list : undefined;
  return Array.isArray(list) ? list : [];
}

/** `limit`: a positive whole number, as DailyHotApi's `parseInt` reads it. */
function readLimit(v: string | undefined): number | undefined {
  if (v === undefined || v === '') return undefined;
  if (!/^\d{1,6}$/.test(v.trim()) || Number(v) < 1) throw badParam('limit', 'a whole number of items, 1 or more');
  return Number(v);
}

function readFlag(name: string, v: string | undefined, on: string): boolean {
  if (v === undefined || v === '') return false;
  const s = v.trim().toLowerCase();
  if (s === on) return true;
  if (['true', 'false'].includes(s)) return false;
  throw badParam(name, `"true" or "false"`);
}

/** The route's variant named by its `type` (or `sort`) parameter; routes with one list ignore it, as DailyHotApi does. */
function variantOf(route: DailyHotRoute, asked: string | undefined): { label: string; params?: Readonly<Record<string, string>> } {
  const types = route.types;
  if (types.default) return types.default;
  const names = Object.keys(types);
  const name = asked === undefined || asked === '' ? (names[0] as string) : asked;
  const variant = types[name];
  if (!variant) throw badParam(typeParamOf(route), `one of ${names.map((n) => `"${n}"`).join(', ')} (the variants served here)`);
  return variant;
}

export function createDailyHotRouter(deps: { registry: Registry; engine: Engine; store: Store }): Router<AppState> {
  const router = new Router<AppState>({ prefix: DAILYHOT_PREFIX });
  const routes = DAILYHOT_ROUTES.filter((r) => deps.registry.byId.get(r.source)?.mode === 'scheduled');
  const byName = new Map(routes.map((r) => [r.name, r]));

  router.get('/all', (ctx) => {
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = { code: 200, count: routes.length, routes: routes.map((r) => ({ name: r.name, path: `/${r.name}` })) };
  });

  router.get('/:name', async (ctx) => {
    const route = byName.get(ctx.params.name ?? '');
    if (!route) throw new AppError(404, `No DailyHot route "${ctx.params.name}". GET ${DAILYHOT_PREFIX}/all lists the route names served here.`);
    const source = deps.registry.byId.get(route.source) as FetchedSource;
    const q = (name: string) => {
      const v = ctx.query[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const limit = readLimit(q('limit'));
    const noCache = readFlag('cache', q('cache'), 'false');
    const rss = readFlag('rss', q('rss'), 'true');
    const variant = variantOf(route, q(typeParamOf(route)));
    const own = Object.keys(route.query ?? {}).flatMap((name) => (q(name)?.trim() ? [[name, q(name) as string] as const] : []));
    const params = parseParams(source.params, { ...variant.params, ...Object.fromEntries(own) }, deps.engine.now());
    const result = await deps.engine.read(source, params, { force: noCache });
    const all = itemsOf(result.data);
    const shown = limit !== undefined && all.length > limit ? all.slice(0, limit) : all;

    if (rss) {
      const limited: ReadResult = shown === all ? result : { ...result, data: shown, payload: JSON.stringify(shown), hash: `l${shown.length}-${result.hash}` };
      const out = await render(limited, 'rss', {
        store: deps.store,
        http: deps.engine.http(source),
        now: deps.engine.now(),
        request: ctx,
        serviceName: SERVICE_NAME,
        feedHistory: (r, n) => deps.engine.feedHistory(r, n),
      });
      applyAnswer(ctx, out);
      return;
    }

    const data = shown.map(dailyHotItem).filter((i): i is DailyHotItem => !!i);
    ctx.set('X-Cache', result.cache);
    ctx.set('Last-Modified', new Date(result.fetchedAt).toUTCString());
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = {
      code: 200,
      name: route.name,
      title: route.title,
      // An answer narrowed by the route's own parameter says so in its type (weatheralarm's "广东省气象预警").
      type: own[0] ? route.query![own[0][0]]!.label(String(params[own[0][0]])) : variant.label,
      ...(route.description ? { description: route.description } : {}),
      ...(route.query ? { params: Object.fromEntries(Object.entries(route.query).map(([k, p]) => [k, { name: p.name, value: p.value }])) } : {}),
      link: route.link,
      total: data.length,
      updateTime: new Date(result.fetchedAt).toISOString(),
      fromCache: result.cache !== 'MISS',
      data,
    };
  });
  return router;
}
