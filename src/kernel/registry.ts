/** Checks the source definitions once at boot and indexes them. */
import { settings as coreSettings, type Setting } from '../config.ts';
import { archiveParamSpecs } from './archive-params.ts';
import type { AnySource, Encoding, ParamSpec, RouteSpec } from './source.ts';

export interface Registry {
  sources: readonly AnySource[];
  byId: ReadonlyMap<string, AnySource>;
}

const ID_PATTERN = /^[a-z0-9][a-z0-9-]*$/;

export function createRegistry(sources: readonly AnySource[]): Registry {
  const problems: string[] = [];
  const byId = new Map<string, AnySource>();
  const paths = new Map<string, string>();
  for (const s of sources) {
    if (!ID_PATTERN.test(s.id)) problems.push(`source id "${s.id}" must be kebab-case`);
    if (byId.has(s.id)) problems.push(`duplicate source id "${s.id}"`);
    byId.set(s.id, s);
    if (s.routes.length === 0) problems.push(`${s.id}: no routes`);
    for (const r of s.routes) {
      if (!r.path.startsWith('/')) problems.push(`${s.id}: route "${r.path}" must start with /`);
      const other = paths.get(r.path);
      if (other) problems.push(`${s.id}: route "${r.path}" is already served by ${other}`);
      paths.set(r.path, s.id);
      for (const m of r.path.matchAll(/:([A-Za-z_][\w]*)/g)) {
        const name = m[1] as string;
        const spec = s.params?.[name];
        if (!spec || spec.in !== 'path') problems.push(`${s.id}: route "${r.path}" uses :${name}, which is not declared as a path parameter`);
      }
    }
    if (s.mode === 'scheduled' && !s.schedule) problems.push(`${s.id}: scheduled sources need a schedule`);
    if (s.mode === 'scheduled' && s.backfill && !s.history?.param) problems.push(`${s.id}: backfill needs history with a param (the day to fetch)`);
    if (s.mode === 'local' && s.feed && !s.feed.schedule) problems.push(`${s.id}: a feed needs a schedule`);
    if (!s.example.startsWith('/v2/apis/')) problems.push(`${s.id}: example must be a /v2/apis/ path`);
    for (const r of s.routes) if (r.example !== undefined && !routePattern(r).test(r.example)) problems.push(`${s.id}: the example of route "${r.path}" must be a /v2/apis path of that route`);
    for (const e of s.env ?? []) {
      if (e.core) {
        if (!coreSettings.some((c) => c.name === e.name)) problems.push(`${s.id}: env ${e.name} is marked core but src/config.ts declares no such setting`);
      } else if (!e.name.startsWith('SOURCE_')) problems.push(`${s.id}: env ${e.name} must start with SOURCE_`);
    }
    for (const [name, spec] of Object.entries((s.params ?? {}) as Record<string, ParamSpec>)) {
      if (spec.in === 'client-ip' && (spec.type !== 'string' || s.mode === 'scheduled')) problems.push(`${s.id}: client-ip parameter ${name} must be a string of an on-demand or local source`);
      if (spec.queryOverride && spec.in !== 'client-ip') problems.push(`${s.id}: queryOverride is for client-ip parameters only (${name})`);
    }
  }
  if (problems.length) throw new Error(`Invalid source definitions:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return { sources, byId };
}

/** The settings declared by sources, for the config loader and the README. */
export function sourceSettings(registry: Registry): Setting[] {
  return registry.sources.flatMap((s) =>
    (s.env ?? []).filter((e) => !e.core).map((e) => ({
      name: e.name,
      kind: { type: 'string' } as const,
      ...(e.default !== undefined ? { default: e.default } : {}),
      doc: `${e.doc} (source \`${s.id}\`)`,
      ...(e.secret ? { secret: true } : {}),
    })),
  );
}

/** The encodings a source supports, derived from its view hints unless it lists them. */
export function supportedEncodings(s: AnySource): Encoding[] {
  if (s.view.encodings) return [...s.view.encodings];
  const out: Encoding[] = ['json', 'text', 'markdown'];
  if (s.view.rows || s.view.htmlBody) out.push('html');
  if (s.view.rows || s.view.feedFromHistory) out.push('rss');
  if (s.view.image || s.view.imageUrl) out.push('image');
  if (s.view.imageUrl) out.push('image-proxy');
  if (s.view.audioUrl) out.push('audio', 'audio-proxy');
  return out;
}

/** Whether the caller may give this parameter (a `client-ip` one only when the query may override it). */
export function callerGives(spec: ParamSpec): boolean {
  return spec.in !== 'client-ip' || spec.queryOverride === true;
}

/** A source's parameter specs as typed entries, then those the kernel adds (`date`/`at` of archived sources). */
export function paramEntries(s: AnySource): [string, ParamSpec][] {
  return [...Object.entries((s.params ?? {}) as Record<string, ParamSpec>), ...archiveParamSpecs(s)];
}

/** Matches request paths (with or without a query) of one route. */
function routePattern(r: RouteSpec): RegExp {
  return new RegExp(`^/v2/apis${r.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/?]+')}(\\?|$)`);
}

/**
 * A route's own example request path: the route's `example`, else the source's when it is for this
 * route, else one built from the path parameters' and required parameters' examples.
 */
export function routeExample(s: AnySource, route: RouteSpec): string {
  if (route.example) return route.example;
  // The route the source's example is for: a literal route wins over one with path parameters.
  const owner = [...s.routes].sort((a, b) => (a.path.match(/:/g)?.length ?? 0) - (b.path.match(/:/g)?.length ?? 0)).find((r) => routePattern(r).test(s.example));
  if (owner === route) return s.example;
  const specs = (s.params ?? {}) as Record<string, ParamSpec>;
  const filled = route.path.replace(/:(\w+)/g, (_, name: string) => {
    const spec = specs[name];
    const v = spec?.example ?? (spec && spec.default !== undefined ? String(spec.default) : spec?.type === 'string' ? spec.enum?.[0] : undefined);
    return encodeURIComponent(v ?? name);
  });
  const required = paramEntries(s)
    .filter(([name, spec]) => spec.required && spec.in !== 'path' && spec.in !== 'client-ip' && !(route.fixed && name in route.fixed))
    .map(([name, spec]) => `${name}=${encodeURIComponent(spec.example ?? 'x')}`);
  return `/v2/apis${filled}${required.length ? `?${required.join('&')}` : ''}`;
}
