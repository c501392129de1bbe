/**
 * The paths of the public 60s API (vikiboss/60s, its `src/router.ts`) that this service answers,
 * each mapped to one of our routes. A 60s path answers under `/v2/apis/<path>` and at 60s's own
 * `/v2/<path>`; the request URL is rewritten to the canonical route before anything else sees it
 * (the fast path, the exact-route index, the router, the abuse limits), so an alias is the same
 * request as its canonical route: same handler, same cache, same body. Query strings pass through.
 */
import type { IncomingMessage } from 'node:http';
import type { Registry } from '../kernel/registry.ts';
import type { Encoding } from '../kernel/source.ts';
import { DAILYHOT_ROUTES } from './dailyhot-routes.ts';

export interface SixtyAlias {
  /** The 60s path after its `/v2` prefix, e.g. `/hacker-news/top` or `/ncm-rank/:id`. */
  sixty: string;
  /** Our route's path (a RouteSpec path of a source), e.g. `/tech-forum/:type`. */
  route: string;
  /** Values of our route's path parameters that the 60s path stands for, e.g. `{ type: 'top' }`. */
  params?: Readonly<Record<string, string>>;
  /** Kept by 60s for old clients only (its router's compatibility section). */
  legacy?: true;
  /**
   * 60s's answer when the request names no `encoding`, where it is not our route's default (60s
   * answers a QR code as an image, a changya piece as JSON): added to such requests at 60s's path.
   */
  encoding?: Encoding;
}

export const SIXTY_ALIASES: readonly SixtyAlias[] = [
  { sixty: '/60s', route: '/60s' },
  { sixty: '/60s/rss', route: '/60s/rss' },
  { sixty: '/ai-news', route: '/ai-news' },
  { sixty: '/bing', route: '/wallpaper-daily' },
  { sixty: '/epic', route: '/free-games' },
  { sixty: '/exchange-rate', route: '/exchange-rate' },
  { sixty: '/exchange_rate', route: '/exchange-rate', legacy: true },
  { sixty: '/today-in-history', route: '/today-in-history' },
  { sixty: '/today_in_history', route: '/today-in-history', legacy: true },

  { sixty: '/weibo', route: '/hot-microblog' },
  { sixty: '/douyin', route: '/hot-short-video-a' },
  { sixty: '/rednote', route: '/hot-lifestyle-a' },
  { sixty: '/bili', route: '/hot-video-site' },
  { sixty: '/zhihu', route: '/hot-qa-site' },
  { sixty: '/toutiao', route: '/hot-news-feed' },
  { sixty: '/baidu/hot', route: '/search-a/hot' },
  { sixty: '/baidu/realtime', route: '/search-a/hot', legacy: true },
  { sixty: '/baidu/teleplay', route: '/search-a/teleplay' },
  { sixty: '/baidu/tieba', route: '/search-a/forum' },
  { sixty: '/quark', route: '/hot-search-b' },
  { sixty: '/dongchedi', route: '/hot-car' },
  { sixty: '/ncm-rank/list', route: '/music-rank/list' },
  { sixty: '/ncm-rank', route: '/music-rank/list', legacy: true },
  { sixty: '/ncm-rank/:id', route: '/music-rank/:id' },
  { sixty: '/hacker-news/top', route: '/tech-forum/:type', params: { type: 'top' } },
  { sixty: '/hacker-news/new', route: '/tech-forum/:type', params: { type: 'new' } },
  { sixty: '/hacker-news/best', route: '/tech-forum/:type', params: { type: 'best' } },
  { sixty: '/maoyan/all/movie', route: '/boxoffice-a/all/movie' },
  { sixty: '/maoyan', route: '/boxoffice-a/all/movie', legacy: true },
  { sixty: '/maoyan/realtime/movie', route: '/boxoffice-a/realtime/movie' },
  { sixty: '/maoyan/realtime/tv', route: '/boxoffice-a/realtime/tv' },
  { sixty: '/maoyan/realtime/web', route: '/boxoffice-a/realtime/web' },
  { sixty: '/douban/weekly/movie', route: '/review-a/weekly/movie' },
  { sixty: '/douban/weekly/tv_chinese', route: '/review-a/weekly/tv_chinese' },
  { sixty: '/douban/weekly/tv_global', route: '/review-a/weekly/tv_global' },
  { sixty: '/douban/weekly/show_chinese', route: '/review-a/weekly/show_chinese' },
  { sixty: '/douban/weekly/show_global', route: '/review-a/weekly/show_global' },
  { sixty: '/it-news', route: '/it-news' },
  { sixty: '/it-news/rank', route: '/it-news/rank' },

  { sixty: '/weather/realtime', route: '/weather' },
  { sixty: '/weather', route: '/weather', legacy: true },
  { sixty: '/weather/forecast', route: '/weather/forecast' },
  { sixty: '/qrcode', route: '/qrcode', encoding: 'image' },
  { sixty: '/fanyi', route: '/fanyi' },
  { sixty: '/fanyi/langs', route: '/fanyi/langs' },
  { sixty: '/baike', route: '/baike' },
  { sixty: '/whois', route: '/whois' },
  { sixty: '/ip', route: '/ip' },
  { sixty: '/og', route: '/og' },
  { sixty: '/hash', route: '/hash' },
  { sixty: '/health', route: '/health' },
  { sixty: '/password', route: '/password' },
  { sixty: '/password/check', route: '/password/check' },
  { sixty: '/color/random', route: '/color/random' },
  { sixty: '/color', route: '/color/random', legacy: true },
  { sixty: '/color/palette', route: '/color/palette' },
  { sixty: '/lyric', route: '/lyric' },
  { sixty: '/gold-price', route: '/gold-price' },
  { sixty: '/fuel-price', route: '/fuel-price' },
  { sixty: '/olympics', route: '/olympics' },
  { sixty: '/olympics/events', route: '/olympics/events' },
  { sixty: '/moyu', route: '/moyu' },
  { sixty: '/lunar', route: '/lunar' },

  { sixty: '/hitokoto', route: '/one-liner' },
  { sixty: '/luck', route: '/luck' },
  { sixty: '/duanzi', route: '/duanzi' },
  { sixty: '/dad-joke', route: '/dad-joke' },
  { sixty: '/fabing', route: '/fabing' },
  { sixty: '/answer', route: '/answer' },
  { sixty: '/kfc', route: '/fast-food-copy' },
  { sixty: '/awesome-js', route: '/awesome-js' },
  { sixty: '/changya', route: '/changya', encoding: 'json' },
];

/** 60s paths with no endpoint here, and why: they answer 404 like any unknown path. */
export const SIXTY_UNSERVED: readonly { sixty: string; reason: string }[] = [
  {
    sixty: '/chemical',
    reason:
      "a random compound from ChemSpider: 60s reads fixed positions (9, 13, 16, 17) of the page's `__NUXT_DATA__` payload, whose layout has no documentation and no public recording to test a parser on; not served yet",
  },
  {
    sixty: '/beta/kuan',
    reason: "酷安 topics, a beta of 60s: its upstream (api.coolapk.com) answers only requests signed with the Android app's token and device id, which we do not ship; not served yet",
  },
  { sixty: '/beta/qq/profile', reason: "the nickname and avatar of any QQ number, a beta of 60s: a lookup of people's data by account number, not in our API contract" },
];

export const SIXTY_PREFIX = '/v2';
const APIS_PREFIX = '/v2/apis';
const PREFIX_SLASH = `${SIXTY_PREFIX}/`;

/** The paths at which one alias answers: under /v2/apis (unless that is the route itself) and at 60s's /v2. */
export function aliasPaths(a: SixtyAlias): string[] {
  const own = a.params ? fillPath(a.route, a.params) : a.route;
  return [...(a.sixty === own ? [] : [`${APIS_PREFIX}${a.sixty}`]), `${SIXTY_PREFIX}${a.sixty}`];
}

/**
 * DailyHotApi's route names under /v2/apis (`/v2/apis/thepaper`), where 60s has no path of the
 * same name: aliases of our route of the list's default variant (see dailyhot-routes.ts), its path
 * parameters filled from that variant's params.
 */
export function dailyHotAliases(): { path: string; route: string; params: Readonly<Record<string, string>> }[] {
  const sixty = new Set(SIXTY_ALIASES.flatMap(aliasPaths));
  return DAILYHOT_ROUTES.map((r) => ({ path: `${APIS_PREFIX}/${r.name}`, route: r.path, params: Object.values(r.types)[0]?.params ?? {} })).filter((a) => !sixty.has(a.path));
}

/** The alias paths of one of our routes, for the catalogue, OpenAPI and README. */
export function aliasesOfRoute(routePath: string): string[] {
  return [...SIXTY_ALIASES.filter((a) => a.route === routePath).flatMap(aliasPaths), ...dailyHotAliases().filter((a) => a.route === routePath).map((a) => a.path)];
}

function fillPath(route: string, values: Readonly<Record<string, string>>): string {
  return route.replace(/:(\w+)/g, (m, name: string) => values[name] ?? m);
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface PatternAlias {
  /** The literal start of the path, lower-cased: most paths are ruled out by it without the RegExp. */
  prefix: string;
  re: RegExp;
  names: string[];
  alias: SixtyAlias;
}

export interface AliasResolver {
  /** The canonical path (with its query) of an alias request URL, or undefined when it is none. */
  resolve(url: string): string | undefined;
}

/**
 * Indexes the aliases of the registry's routes, checking them (every path parameter of the route
 * is given or captured, no alias hides one of our own paths). Throws at boot.
 */
export function createAliasResolver(registry: Registry): AliasResolver {
  const routes = new Map<string, readonly string[]>();
  // Our own paths under /v2 that are no 60s path.
  const ours = new Set<string>([APIS_PREFIX, '/v2/status']);
  for (const s of registry.sources) {
    for (const r of s.routes) {
      routes.set(r.path, [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1] as string));
      ours.add(`${APIS_PREFIX}${r.path}`.toLowerCase());
    }
  }
  const problems: string[] = [];
  const exact = new Map<string, { target: string; alias: SixtyAlias }>();
  const patterns: PatternAlias[] = [];
  for (const a of SIXTY_ALIASES) {
    const targetNames = routes.get(a.route);
    // A registry of some sources only (tests) serves the aliases of those; test/http/sixty-aliases.test.ts checks the full one.
    if (!targetNames) continue;
    const captured = [...a.sixty.matchAll(/:(\w+)/g)].map((m) => m[1] as string);
    for (const name of targetNames) if (!captured.includes(name) && !a.params?.[name]) problems.push(`${a.sixty}: ${a.route} needs :${name}`);
    for (const name of [...captured, ...Object.keys(a.params ?? {})]) if (!targetNames.includes(name)) problems.push(`${a.sixty}: ${a.route} has no :${name}`);
    for (const p of aliasPaths(a)) {
      if (ours.has(p.toLowerCase())) problems.push(`${p} would hide our own route`);
      if (captured.length) {
        const re = new RegExp(`^${escapeRe(p).replace(/:(\w+)/g, '([^/]+)')}$`, 'i');
        patterns.push({ prefix: p.slice(0, p.indexOf(':')).toLowerCase(), re, names: captured, alias: a });
      } else {
        if (exact.has(p)) problems.push(`${p} is listed twice`);
        exact.set(p, { target: `${APIS_PREFIX}${fillPath(a.route, a.params ?? {})}`, alias: a });
      }
    }
  }
  for (const a of dailyHotAliases()) {
    if (!routes.has(a.route)) continue;
    if (ours.has(a.path)) problems.push(`${a.path} would hide our own route`);
    exact.set(a.path, { target: `${APIS_PREFIX}${fillPath(a.route, a.params)}`, alias: { sixty: a.path.slice(APIS_PREFIX.length), route: a.route } });
  }
  if (problems.length) throw new Error(`Invalid 60s aliases (src/http/sixty-aliases.ts):\n${problems.map((p) => `  - ${p}`).join('\n')}`);

  return {
    resolve(url) {
      if (!url.startsWith(PREFIX_SLASH)) return undefined;
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      // The router matches paths case-insensitively with an optional trailing slash; so do aliases.
      const key = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
      const lower = /[A-Z]/.test(key) ? key.toLowerCase() : key;
      // Most requests are to our own paths, which no alias hides (checked above).
      if (ours.has(lower)) return undefined;
      const hit = exact.get(lower);
      if (hit) return withQuery(hit.target, q < 0 ? '' : url.slice(q), hit.alias);
      for (const { prefix, re, names, alias } of patterns) {
        if (!lower.startsWith(prefix)) continue;
        const m = re.exec(key);
        if (!m) continue;
        const values: Record<string, string> = { ...alias.params };
        names.forEach((name, i) => (values[name] = m[i + 1] as string));
        return withQuery(`${APIS_PREFIX}${fillPath(alias.route, values)}`, q < 0 ? '' : url.slice(q), alias);
      }
      return undefined;
    },
  };
}

/** The `encoding` query parameter (apis-router's ENCODING_PARAM, not imported: apis-router imports this module). */
const ENCODING_PARAM = 'encoding';

/** The canonical path with the request's query (`?…` or empty), plus 60s's default encoding where the query names none. */
function withQuery(target: string, search: string, alias: SixtyAlias): string {
  if (!alias.encoding || new URLSearchParams(search).has(ENCODING_PARAM)) return target + search;
  return `${target}${search.length > 1 ? `${search}&` : '?'}${ENCODING_PARAM}=${alias.encoding}`;
}

const ALIAS_OF = Symbol('sixty alias');

/** Rewrites an alias request's URL to its canonical route (the path asked for stays readable for the access log); whether it did. */
export function rewriteAlias(req: IncomingMessage, resolver: AliasResolver): boolean {
  const url = req.url;
  if (!url) return false;
  const target = resolver.resolve(url);
  if (target === undefined) return false;
  (req as IncomingMessage & { [ALIAS_OF]?: string })[ALIAS_OF] = url.split('?')[0];
  req.url = target;
  return true;
}

/** The alias path a request arrived at, when it was rewritten. */
export function aliasAsked(req: IncomingMessage): string | undefined {
  return (req as IncomingMessage & { [ALIAS_OF]?: string })[ALIAS_OF];
}
