/**
 * A hot list as a declaration: a list source says only what differs from the others (where the
 * list is, which headers it needs, where its items are, how one item maps to ours, how often it
 * changes) and `defineHotList` supplies the rest: the `defineSource` block (mode, schedule,
 * freshness, validate, migrate, view), the fetch, the walk over the items, the normalising of
 * titles, links, heat, covers and times, and parse errors that name the JSON path or the selector
 * that was missing (they show on /v2/status, so a changed upstream is diagnosed at once).
 */
import type { Cheerio } from 'cheerio';
import type { AnyNode } from 'domhandler';
import { SourceError } from '../../src/kernel/errors.ts';
import { missingPath, need } from '../../src/kernel/json-path.ts';
import type { HttpClient, HttpOptions } from '../../src/kernel/http.ts';
import { defineSource, type ColumnLabels, type EnvSpec, type FetchContext, type FetchedSourceBase, type ParamSpecs, type ScheduledSource, type SourceDefinition, type TrendingRole } from '../../src/kernel/source.ts';
import { formatDateTime } from '../../src/kernel/time.ts';
import { assignedState, commentState, isChallengePage, nextData } from './embedded-json.ts';
import { load } from './html.ts';
import { absoluteUrl, asArray, asNumber, asRecord, asString, dedupeByLink, epochMs, hotListRowsWith, migrateHotList, parseHeat, shanghaiTimeMs, validateHotList, type HotItem, type ItemUpgrade } from './hot-list.ts';

/** An item of a declared list: the common fields, each set only when the upstream gives it. */
export interface DeclaredItem extends HotItem {
  /** The upstream's own id of the item (a post, video, book…). */
  id: string;
  hot_value?: number;
  /** null where a list keeps 60s's field, which says "none" so. */
  cover?: string | null;
  author?: string;
  /** A summary or excerpt. */
  desc?: string;
  /** When the item was published: a date-time string (Asia/Shanghai) and its ms timestamp. */
  published?: string | null;
  published_at?: number | null;
  /** A link for phones where the site has another one. */
  mobile_link?: string;
}

/** What an item mapper returns: raw values, normalised by the helper (an item without title or link is skipped). */
export interface MappedItem {
  /** The upstream's own rank, where it gives one (items are then ordered by it); else the position. */
  rank?: number;
  id?: unknown;
  title: unknown;
  link: unknown;
  /** A number, a digit string or text such as "12.3万". */
  hot?: unknown;
  cover?: unknown;
  author?: unknown;
  desc?: unknown;
  /** Seconds or ms since the epoch, or "YYYY-MM-DD HH:mm[:ss]" in Asia/Shanghai. */
  time?: unknown;
  mobileLink?: unknown;
  /** Fields of this list only (e.g. a badge), set as they are; the common fields win over them. */
  extra?: Record<string, unknown>;
}

/**
 * How often a list changes, which sets its schedule and freshness: `live` for lists that change
 * by the minute (every 5 minutes), `hot` for hot searches and boards (every 10 minutes), `feed`
 * for news feeds and forum boards (every 30 minutes), `hourly` for charts that move slowly
 * (every hour), `daily` for rankings computed once or a few times a day (every 3 hours). Each
 * list's minute within the interval is derived from its id, so the lists of one class do not all
 * ask at the same moment.
 */
export type Pace = 'live' | 'hot' | 'feed' | 'hourly' | 'daily';

const PACES: Record<Pace, { everyMin: number; ttlSec: number; backoffCapSec: number }> = {
  live: { everyMin: 5, ttlSec: 300, backoffCapSec: 3600 },
  hot: { everyMin: 10, ttlSec: 600, backoffCapSec: 3600 },
  feed: { everyMin: 30, ttlSec: 1800, backoffCapSec: 3 * 3600 },
  hourly: { everyMin: 60, ttlSec: 3600, backoffCapSec: 6 * 3600 },
  daily: { everyMin: 180, ttlSec: 3 * 3600, backoffCapSec: 6 * 3600 },
};

/** A stable number in [0, n) from a string (FNV-1a). */
function spreadOf(id: string, n: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return h % n;
}

/** The node-cron expression of a pace, at a minute of the interval chosen by the list's id. */
export function scheduleOf(id: string, pace: Pace): string {
  const { everyMin } = PACES[pace];
  if (everyMin < 60) {
    const minute = spreadOf(id, everyMin);
    return `${minute}-59/${everyMin} * * * *`;
  }
  const hours = everyMin / 60;
  return `${spreadOf(id, 60)} ${spreadOf(`${id}/h`, hours)}-23/${hours} * * *`;
}

/** The upstream request of a list: a URL, and for some a POST body. */
export interface ListRequest {
  url: string;
  method?: 'GET' | 'POST';
  searchParams?: HttpOptions['searchParams'];
  json?: unknown;
  form?: Record<string, string>;
  /** Headers of this request only (a token computed at the time of the request), over the list's `headers`. */
  headers?: Record<string, string>;
  /** Error statuses whose JSON body says why (a refusal): read by `refused`, then recorded as blocked. */
  allowStatus?: readonly number[];
}

/** Per-list choices of the generic renderings (text, markdown, html, rss). */
export interface ListView<I extends DeclaredItem> {
  /** The heat label of a row (the heat by default). */
  hot?(i: I): number | string | undefined;
  /** The summary line of a row (`desc` by default). */
  summary?(i: I): string | undefined;
  /** The html table's column labels; per variant where they differ. */
  columns?: ColumnLabels | ((variant: string | undefined) => ColumnLabels);
}

/** What a list's `prepare` step may use: the source's HTTP client (its headers, limits and mirror), the run's signal and time. */
export interface PrepareContext {
  http: HttpClient;
  signal: AbortSignal;
  now: Date;
}

export interface Preparation {
  /** The request to send, made from the declared one with what was fetched first. */
  request(req: ListRequest, ctx: PrepareContext): Promise<ListRequest>;
  /**
   * Drops what it keeps when the upstream refused the prepared request or answered it with
   * something unreadable (the token or keys may have changed): the next run fetches them again.
   */
  forget(http: HttpClient): void;
}

/** The value of each variant parameter of a request (empty for a list without variants). */
export type Choices = Readonly<Record<string, string>>;

/** One query parameter that picks a variant of a list: its values and what each one is, the default first. */
export interface Variants {
  param: string;
  doc: string;
  values: Readonly<Record<string, string>>;
  /**
   * What the list is when the parameter is not given, where that is not one of `values` (the
   * whole country, of a list by province): the parameter then has no default, the schedule keeps
   * that list warm and it is stored under the list's plain key, as before the parameter existed.
   */
  absent?: string;
  /** Keep every variant warm (and archived), not only the default. */
  warm?: boolean;
  /** The title of each variant's rendering (the source's name otherwise). */
  titles?: Readonly<Record<string, string>>;
}

interface Common {
  id: string;
  name: string;
  description: string;
  homepage: string;
  /** Our path under /v2/apis (neutral words for brands). */
  path: string;
  /** The variant `path` shows, fixed (the query cannot choose another there); the parameter's choice otherwise. */
  pathVariant?: string;
  pace: Pace;
  /**
   * The request; as a function, of the time, the chosen variant (see `variants`) and, for a list
   * of several choices, every choice by its parameter. A GET of the homepage when absent.
   */
  request?: ListRequest | ((now: Date, variant: string | undefined, chosen?: Choices) => ListRequest);
  /**
   * Variants of the list picked by one query parameter (e.g. a ranking's period), its values
   * and what each one is; the first is the default, the one the schedule keeps warm (the others
   * are fetched when asked for, then cached and refreshed like it). A list of independent
   * choices (a game and a kind of news) gives one per parameter: "the variant" is then the
   * first's, and the options above (`absent`, `warm`, `titles`, paths per variant) are the first's.
   */
  variants?: Variants | readonly Variants[];
  /**
   * A step before each request, for upstreams that want something fetched first (a token, the
   * day's signing keys) and the request signed with it. What it fetches it keeps itself (see
   * kept-value.ts), so a service asks for it once in a while, not before every list.
   */
  prepare?: Preparation;
  /** More paths of the list, each showing one variant (a list merged into this one keeps its path so). */
  alsoAt?: readonly { path: string; variant: string; summary?: string; example?: string }[];
  /**
   * Stored snapshots of a variant that an earlier source archived under its own id (a list merged
   * into this one): dated reads of the variant fall back to them (see FetchedSourceBase.formerly).
   */
  formerly?: readonly { variant: string; sourceId: string }[];
  /** Request headers besides `accept` (JSON, or HTML for pages), which the helper sets. */
  headers?: FetchedSourceBase<Record<string, never>, unknown>['headers'];
  env?: readonly EnvSpec[];
  /** How items stored in an older shape differ from today's (see migrateHotList). */
  upgrade?: ItemUpgrade;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  view?: ListView<any>;
  /** Base for relative links and covers (the homepage by default). */
  base?: string;
  /** Fewest items of a plausible list (default 5); per variant (`undefined`: the parameter not given) where they differ. */
  min?: number | ((variant: string | undefined) => number);
  example?: string;
  /** A hot list whose items take part in trending, forming events (general) or joining them (coverage); see TrendingRole. */
  trending?: TrendingRole;
}

/** Where a page keeps the JSON of its list (see JsonList.embedded). */
export type Embedded = 'next-data' | { assigned: string } | { comment: string };

/** A list read from JSON: `items` is the path of the item array, `refused` names a refusal answer. */
export interface JsonList extends Common {
  /**
   * The JSON is state a page embeds, not the answer itself: a Next.js page's
   * `script#__NEXT_DATA__`, the object a page script assigns to a name (`{ assigned:
   * 'window.__APOLLO_STATE__' }`) or the JSON of a named HTML comment (`{ comment: 's-data' }`
   * for `<!--s-data:{…}-->`); per variant where only some variants are pages.
   */
  embedded?: Embedded | ((variant: string | undefined) => Embedded | undefined);
  /**
   * The part of the answer `items` starts from, where no fixed path reaches it (an entry of a
   * normalised cache named by a reference); it throws a parse error naming what it missed.
   */
  within?(root: Record<string, unknown>): unknown;
  items: readonly (string | number)[];
  /** Where the items are in the answer of a variant whose answer keeps them elsewhere (`items` for the others). */
  itemsOf?: Readonly<Record<string, readonly (string | number)[]>>;
  /**
   * The status field of the answer and its value when all is well (`{ field: 'code', is: 0 }`):
   * any other value is a refusal (risk control, login), recorded as blocked with the value and,
   * where named, the upstream's message field.
   */
  okWhen?: { field: string; is: number | string | boolean; message?: string };
  /**
   * A reason when the answer is a refusal that `okWhen` cannot describe, else undefined;
   * `status` is the HTTP status (an error status of `request.allowStatus`, or 200).
   */
  refused?(root: Record<string, unknown>, status: number): string | undefined;
  item(e: Record<string, unknown>, root: Record<string, unknown>, variant: string | undefined): MappedItem | undefined;
  /**
   * A second upstream of the same list, asked when the first fails, refuses or answers a list
   * that is not plausible (`min`); `labels` name the two in errors. When both fail, the error
   * says why each did, of the kind of a block on either side, else of the second failure.
   */
  fallback?: { labels: readonly [string, string]; request: ListRequest; items: readonly (string | number)[] };
}

/** A list read from an HTML page: `items` is the selector of one item's element. */
export interface HtmlList extends Common {
  html: string;
  /** The item selector of a variant whose page keeps its items elsewhere (`html` for the others). */
  htmlOf?: Readonly<Record<string, string>>;
  /** The page is an XML feed (RSS, Atom), parsed as XML: `link` is then an element with text. */
  xml?: boolean;
  item(el: Cheerio<AnyNode>): MappedItem | undefined;
}

export type ListDeclaration = JsonList | HtmlList;

const isHtml = (d: ListDeclaration): d is HtmlList => 'html' in d;

function embeddedOf(d: ListDeclaration, variant: string | undefined): Embedded | undefined {
  if (isHtml(d)) return undefined;
  return typeof d.embedded === 'function' ? d.embedded(variant) : d.embedded;
}

/** `a.b[0].c` for a path, as the error messages name it. */
export function pathText(path: readonly (string | number)[]): string {
  return path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
}

/** The array at `path` of a JSON answer; a parse error naming the path and what is there instead (kernel/json-path.ts). */
export function arrayAt(root: unknown, path: readonly (string | number)[]): unknown[] {
  return need(root, pathText(path), asArray, 'an array');
}

const https = (u: string) => u.replace(/^http:\/\//, 'https://');

/** One mapped item in our shape, or undefined when it has no title or no absolute link. */
export function normalise(m: MappedItem, rank: number, base: string): DeclaredItem | undefined {
  const title = asString(m.title)?.replace(/\s+/g, ' ').trim();
  const link = absoluteUrl(m.link, base);
  if (!title || !link) return undefined;
  const hot = parseHeat(m.hot);
  const cover = absoluteUrl(m.cover, base);
  const author = asString(m.author)?.trim();
  const desc = asString(m.desc)?.replace(/\s+/g, ' ').trim();
  const at = epochMs(m.time) ?? shanghaiTimeMs(m.time);
  const mobile = absoluteUrl(m.mobileLink, base);
  return {
    ...m.extra,
    rank: m.rank ?? rank,
    title,
    link,
    id: asString(m.id)?.trim() || link,
    ...(hot !== undefined ? { hot_value: hot } : {}),
    ...(cover ? { cover: https(cover) } : {}),
    ...(author ? { author } : {}),
    ...(desc ? { desc } : {}),
    ...(at !== undefined ? { published: formatDateTime(at), published_at: at } : {}),
    ...(mobile && mobile !== link ? { mobile_link: mobile } : {}),
  };
}

function collect(mapped: Iterable<MappedItem | undefined>, base: string): DeclaredItem[] {
  const out: DeclaredItem[] = [];
  let ranked = false;
  for (const m of mapped) {
    const item = m && normalise(m, out.length + 1, base);
    if (!item) continue;
    ranked ||= m.rank !== undefined;
    out.push(item);
  }
  if (ranked) return dedupeByLink(out.sort((a, b) => a.rank - b.rank));
  return dedupeByLink(out).map((i, n) => ({ ...i, rank: n + 1 }));
}

/** Why a JSON answer is a refusal, by the list's `okWhen` or `refused`; undefined when it is data. */
function refusalOf(d: JsonList, root: Record<string, unknown>): string | undefined {
  if (d.okWhen && d.okWhen.field in root) {
    const { field, is, message } = d.okWhen;
    const value = root[field];
    const ok = typeof is === 'number' ? asNumber(value) === is : value === is;
    if (!ok) return `upstream answered ${field}=${asString(value) ?? JSON.stringify(value)}${message && asString(root[message]) ? ` (${asString(root[message])})` : ''}`;
  }
  return d.refused?.(root, 200);
}

/** The pure parse of a declared list: the upstream's answer (JSON value or HTML text) of a variant → our items. */
export function parseDeclared(d: ListDeclaration, raw: unknown, variant?: string): DeclaredItem[] {
  const base = d.base ?? d.homepage;
  if (isHtml(d)) {
    const html = typeof raw === 'string' ? raw : '';
    const $ = load(html, d.xml ? { xml: true } : undefined);
    const selector = (variant !== undefined && d.htmlOf?.[variant]) || d.html;
    const found = $(selector);
    if (found.length === 0) {
      if (isChallengePage(html)) throw new SourceError('blocked', `${new URL(base).host} answered a verification or login page instead of the list`);
      throw new SourceError('parse', `selector "${selector}" matched nothing`);
    }
    return collect(found.toArray().map((el) => d.item($(el))), base);
  }
  const embedded = embeddedOf(d, variant);
  if (embedded && typeof raw === 'string') {
    const host = new URL(base).host;
    const state = embedded === 'next-data' ? nextData(raw, host) : 'assigned' in embedded ? assignedState(raw, embedded.assigned, host) : commentState(raw, embedded.comment, host);
    return parseDeclared(d, state, variant);
  }
  const items = (variant !== undefined && d.itemsOf?.[variant]) || d.items;
  // A list at the root (`items: []`) is a bare array; any other answer is an object.
  const atRoot = items.length === 0;
  const root = asRecord(raw) ?? (atRoot && Array.isArray(raw) ? {} : undefined);
  if (!root) throw missingPath(raw, '', atRoot ? 'a JSON array' : 'a JSON object');
  const refusal = refusalOf(d, root);
  if (refusal) throw new SourceError('blocked', refusal);
  if (atRoot && !Array.isArray(raw)) throw new SourceError('parse', 'answer is not a JSON array (the list was expected at its root)');
  const entries = atRoot ? (raw as unknown[]) : arrayAt(d.within ? d.within(root) : root, items);
  return collect(
    entries.map((e) => {
      const r = asRecord(e);
      return r ? d.item(r, root, variant) : undefined;
    }),
    base,
  );
}

async function fetchDeclared(d: ListDeclaration, http: HttpClient, signal: AbortSignal, now: Date, chosen: Choices): Promise<DeclaredItem[]> {
  const variant = firstOf(d, chosen);
  const asked = typeof d.request === 'function' ? d.request(now, variant, chosen) : (d.request ?? { url: d.homepage });
  const req = d.prepare ? await d.prepare.request(asked, { http, signal, now }) : asked;
  const opts: HttpOptions = { signal, method: req.method ?? 'GET', searchParams: req.searchParams, json: req.json, form: req.form, allowStatus: req.allowStatus, ...(req.headers ? { headers: req.headers } : {}) };
  const res = await http.request(req.url, opts);
  const type = String(res.headers['content-type'] ?? '');
  if (isHtml(d) || embeddedOf(d, variant)) return parseDeclared(d, res.text(), variant);
  if (/text\/html/i.test(type)) throw new SourceError('blocked', 'upstream answered an HTML page (verification or login) instead of JSON');
  let json: unknown;
  try {
    json = res.json();
  } catch {
    if (res.status >= 400) throw new SourceError('blocked', `upstream answered HTTP ${res.status}`, { httpStatus: res.status });
    throw new SourceError('parse', 'answer is not valid JSON');
  }
  if (res.status >= 400) {
    const root = asRecord(json);
    const reason = root && d.refused?.(root, res.status);
    throw new SourceError('blocked', reason || `upstream answered HTTP ${res.status}`, { httpStatus: res.status });
  }
  return parseDeclared(d, json, variant);
}

/** The declaration of a list's fallback upstream: the list itself, asked there. */
export function fallbackOf(d: JsonList): JsonList {
  if (!d.fallback) throw new Error(`${d.id} declares no fallback`);
  const { request, items } = d.fallback;
  return { ...d, request, items, fallback: undefined };
}

/** A list's items as its upstream answers them, rejected as `empty` when too few to be plausible. */
async function fetchPlausible(d: ListDeclaration, ctx: FetchContext<DeclaredItem[]>, chosen: Choices): Promise<DeclaredItem[]> {
  const items = await fetchDeclared(d, ctx.http, ctx.signal, ctx.now(), chosen);
  const short = validateHotList(items, minOf(d, firstOf(d, chosen)));
  if (short) throw new SourceError('empty', short);
  return items;
}

async function fetchWithFallback(d: JsonList, labels: readonly [string, string], ctx: FetchContext<DeclaredItem[]>, chosen: Choices): Promise<DeclaredItem[]> {
  const [first, second] = labels;
  try {
    return await fetchPlausible(d, ctx, chosen);
  } catch (primary) {
    ctx.log.info({ err: (primary as Error).message }, `${first} list failed, trying the ${second} one`);
    try {
      return await fetchPlausible(fallbackOf(d), ctx, chosen);
    } catch (fallback) {
      const kinds = [primary, fallback].filter((e): e is SourceError => e instanceof SourceError);
      const chosen = kinds.find((e) => e.kind === 'blocked') ?? (fallback instanceof Error ? fallback : primary);
      const kind = chosen instanceof SourceError ? chosen.kind : 'transient';
      throw new SourceError(kind, `both upstreams failed: ${first}: ${(primary as Error).message}; ${second}: ${(fallback as Error).message}`);
    }
  }
}

const choicesOf = (d: ListDeclaration): readonly Variants[] => (d.variants === undefined ? [] : 'param' in d.variants ? [d.variants] : d.variants);
/** The parameter that picks "the variant" (the first of several choices). */
const mainChoice = (d: ListDeclaration): Variants | undefined => choicesOf(d)[0];

/** The parameters of a list's variants, in the kernel's terms. */
function variantParams(choices: readonly Variants[]): ParamSpecs {
  const specs: ParamSpecs = {};
  for (const v of choices) {
    const names = Object.keys(v.values);
    const listed = `${v.doc}: ${names.map((n) => (v.values[n] === n ? n : `${n} (${v.values[n]})`)).join(', ')}.`;
    specs[v.param] = v.absent !== undefined ? { type: 'string', enum: names, doc: `${listed} Without it: ${v.absent}.` } : { type: 'string', enum: names, default: names[0] as string, doc: listed };
  }
  return specs;
}

/** The value of each variant parameter the request gives. */
function chosenOf(d: ListDeclaration, params: Readonly<Record<string, unknown>>): Choices {
  return Object.fromEntries(choicesOf(d).flatMap((c) => (params[c.param] === undefined ? [] : [[c.param, String(params[c.param])]])));
}

/** The variant (the first choice's value), or undefined for a list without variants (or the parameter not given). */
function firstOf(d: ListDeclaration, chosen: Choices): string | undefined {
  const main = mainChoice(d);
  return main && chosen[main.param];
}

const variantOf = (d: ListDeclaration, params: Readonly<Record<string, unknown>>): string | undefined => firstOf(d, chosenOf(d, params));

const minOf = (d: ListDeclaration, variant: string | undefined): number => (typeof d.min === 'function' ? d.min(variant) : (d.min ?? 5));

/** Kernel options that only some declarations use. */
function optional(d: ListDeclaration): Partial<ScheduledSource<ParamSpecs, DeclaredItem[]>> {
  const v = mainChoice(d);
  const paramOf = (variant: string) => (v ? { [v.param]: variant } : {});
  return {
    ...(d.env ? { env: d.env } : {}),
    ...(v ? { params: variantParams(choicesOf(d)) } : {}),
    ...(v?.warm ? { prefetch: Object.keys(v.values).map(paramOf) } : {}),
    ...(d.trending ? { trending: d.trending } : {}),
    ...(d.formerly ? { formerly: d.formerly.map((f) => ({ params: paramOf(f.variant), sourceId: f.sourceId })) } : {}),
  };
}

function fetchChosen(d: ListDeclaration, ctx: FetchContext<DeclaredItem[]>, chosen: Choices): Promise<DeclaredItem[]> {
  if (!isHtml(d) && d.fallback) return fetchWithFallback(d, d.fallback.labels, ctx, chosen);
  // `validate` sees no parameters: a variant that needs more items than the fewest of any is checked here.
  if (typeof d.min === 'function') return fetchPlausible(d, ctx, chosen);
  return fetchDeclared(d, ctx.http, ctx.signal, ctx.now(), chosen);
}

function acceptOf(d: ListDeclaration): string {
  if (isHtml(d) && d.xml) return 'application/rss+xml, application/atom+xml, application/xml;q=0.9, */*;q=0.8';
  return isHtml(d) || (d.embedded && typeof d.embedded !== 'function') ? 'text/html,application/xhtml+xml' : 'application/json';
}

/** The scheduled source of a declared list. */
export function defineHotList(d: ListDeclaration): SourceDefinition<ParamSpecs, DeclaredItem[]> {
  const pace = PACES[d.pace];
  const main = mainChoice(d);
  const titles = main?.titles;
  const columns = d.view?.columns;
  return defineSource({
    id: d.id,
    name: d.name,
    description: d.description,
    homepage: d.homepage,
    routes: [
      { path: d.path, ...(d.pathVariant ? { fixed: { [main!.param]: d.pathVariant } } : {}) },
      ...(d.alsoAt ?? []).map((r) => ({
        path: r.path,
        fixed: { [main!.param]: r.variant },
        ...(r.summary ? { summary: r.summary } : {}),
        example: r.example ?? `/v2/apis${r.path}?encoding=text`,
      })),
    ],
    mode: 'scheduled',
    schedule: scheduleOf(d.id, d.pace),
    freshness: { ttlSec: pace.ttlSec, backoffCapSec: pace.backoffCapSec },
    headers: (env) => ({ accept: acceptOf(d), ...(typeof d.headers === 'function' ? d.headers(env) : d.headers) }),
    concurrency: 1,
    ...optional(d),
    fetch: async (ctx, params) => {
      try {
        return await fetchChosen(d, ctx, chosenOf(d, params));
      } catch (err) {
        if (d.prepare && err instanceof SourceError && (err.kind === 'blocked' || err.kind === 'parse')) d.prepare.forget(ctx.http);
        throw err;
      }
    },
    validate: (data: DeclaredItem[]) => validateHotList(data, typeof d.min === 'function' ? 0 : minOf(d, undefined)),
    migrate: migrateHotList<DeclaredItem>(d.upgrade),
    view: {
      ...(titles ? { title: (_data: DeclaredItem[], p: Readonly<Record<string, unknown>>) => titles[variantOf(d, p) ?? ''] ?? d.name } : {}),
      rows: (data: DeclaredItem[]) =>
        hotListRowsWith(data, { hot: d.view?.hot ?? ((i) => i.hot_value), summary: d.view?.summary ?? ((i) => i.desc), date: (i) => i.published_at ?? undefined }),
      ...(columns ? { columns: (_data: DeclaredItem[], p: Readonly<Record<string, unknown>>) => (typeof columns === 'function' ? columns(variantOf(d, p)) : columns) } : {}),
    },
    example: d.example ?? `/v2/apis${d.path}?encoding=text`,
  });
}
