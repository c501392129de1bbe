/**
 * The source module contract. A source is data only: it declares its routes and parameters,
 * fetches and parses upstream data (or computes it locally), validates it, and gives the
 * encoding layer hints. It never touches Koa and never writes a response.
 */
import type { Logger } from './log.ts';
import type { HttpClient } from './http.ts';
import type { ListAccess } from './list-access.ts';

export type Encoding =
  | 'json'
  | 'text'
  | 'markdown'
  | 'html'
  | 'rss'
  | 'image'
  | 'image-proxy'
  | 'audio'
  | 'audio-proxy';

export const ALL_ENCODINGS: readonly Encoding[] = ['json', 'text', 'markdown', 'html', 'rss', 'image', 'image-proxy', 'audio', 'audio-proxy'];

interface ParamBase {
  /** One sentence for the catalogue, the docs and error messages. */
  doc: string;
  /**
   * Where the value comes from. `path` params appear as `:name` in a route. `client-ip`: the
   * caller's address (honours TRUST_PROXY), never read from the request, so a fetched source
   * can cache per caller address (e.g. ip geolocation). Default `query`.
   */
  in?: 'query' | 'path' | 'client-ip';
  /**
   * `client-ip` only: an address in the query under this parameter's name (60s's `?ip=8.8.8.8`)
   * is used instead of the caller's; it is validated like any string parameter.
   */
  queryOverride?: boolean;
  required?: boolean;
  /** Example value for the catalogue and the contract test. */
  example?: string;
}

export interface StringParam extends ParamBase {
  type: 'string';
  default?: string;
  /** Allowed values (case-sensitive unless `ignoreCase`). */
  enum?: readonly string[];
  /** `enum` values match in any case (60s upper-cases a QR `level=h`); the source gets the enum's spelling. */
  ignoreCase?: boolean;
  /** A pattern the value must match, with `patternDoc` saying in words what is accepted. */
  pattern?: RegExp;
  patternDoc?: string;
  /** Maximum length in characters (default 2048). */
  maxLength?: number;
  /** Trim surrounding white space before validation (default true). */
  trim?: boolean;
  /** Canonical form of an accepted value (e.g. upper-cased), so equal values share one cache key. */
  normalize?: (value: string) => string;
}

export interface IntegerParam extends ParamBase {
  type: 'integer';
  default?: number;
  min?: number;
  max?: number;
}

/** A decimal number such as 172.5 (60s's `health` takes height and weight so). */
export interface NumberParam extends ParamBase {
  type: 'number';
  default?: number;
  min?: number;
  max?: number;
}

export interface BooleanParam extends ParamBase {
  type: 'boolean';
  default?: boolean;
}

/**
 * A calendar date, given to the source as `YYYY-MM-DD`. Accepted as `YYYY-MM-DD` and in the other
 * forms 60s's clients send (see kernel/params.ts: `YYYY/M/D`, `YYYYMMDD`, a trailing time, Unix
 * timestamps), all normalised to `YYYY-MM-DD` (Asia/Shanghai).
 */
export interface DateParam extends ParamBase {
  type: 'date';
  default?: string;
  /** Also accept a month and day alone (`11-21`, `1-5`): that day of the current year (Asia/Shanghai). */
  monthDay?: boolean;
}

export type ParamSpec = StringParam | IntegerParam | NumberParam | BooleanParam | DateParam;
export type ParamSpecs = Record<string, ParamSpec>;

type ValueOf<S extends ParamSpec> = S extends IntegerParam | NumberParam ? number : S extends BooleanParam ? boolean : string;
type IsSet<S extends ParamSpec> = S extends { required: true } ? true : S extends { default: string | number | boolean } ? true : false;

/** The validated parameters a source receives, typed from its parameter specs. */
export type ParamsOf<PS extends ParamSpecs> = {
  readonly [K in keyof PS]: IsSet<PS[K]> extends true ? ValueOf<PS[K]> : ValueOf<PS[K]> | undefined;
};

export type ParamValue = string | number | boolean | undefined;
export type AnyParams = Readonly<Record<string, ParamValue>>;

export interface RouteSpec {
  /** Path relative to `/v2/apis`, e.g. `/60s` or `/music-rank/:id`. */
  path: string;
  /** Fixed encoding for alias routes such as `/60s/rss`. */
  forceEncoding?: Encoding;
  /** Fixed parameter values for this route (variants of one site), e.g. `{ type: 'movie' }`. */
  fixed?: Record<string, string>;
  /** Methods accepted; GET by default. POST reads parameters from a JSON, form or text body too. */
  methods?: readonly ('GET' | 'POST')[];
  /** A line for the catalogue when the route differs from the source's description. */
  summary?: string;
  /** This route's example request path (`/v2/apis/…`), where the source's `example` is another route's. */
  example?: string;
}

export interface FetchContext<D> {
  /** The shared upstream client, with this source's headers, timeout and concurrency limit. */
  http: HttpClient;
  /** Aborted at the run deadline or shutdown. */
  signal: AbortSignal;
  log: Logger;
  now(): Date;
  /** Read a setting declared in the source's `env`. */
  env(name: string): string | undefined;
  /** The last good data for these parameters, if any. */
  previous?: { data: D; fetchedAt: number };
  /**
   * The stored history of these parameters (see `history`), newest first, one entry per history
   * key, at most `limit` entries; empty for sources that keep no history.
   */
  history?(limit: number): Promise<FeedHistoryEntry<D>[]>;
}

export interface LocalContext<F = never> {
  now(): Date;
  /** The caller's address (honours `TRUST_PROXY`). */
  clientIp: string;
  /** Read a setting declared in the source's `env`. */
  env(name: string): string | undefined;
  log: Logger;
  /** The shared upstream client, for local sources that occasionally consult an upstream. */
  http: HttpClient;
  signal: AbortSignal;
  /** The last good data of the source's `feed` (see LocalFeed); undefined until a first fetch succeeded. */
  feed?: { data: F; fetchedAt: number };
  /** The stored lists of the scheduled sources and the item index (read only), when the service keeps them. */
  lists?: ListAccess;
}

/** A list row: drives the generic text, markdown, html and rss renderings. */
export interface Row {
  title: string;
  link?: string;
  cover?: string;
  /** A short extra line (summary, score text). */
  summary?: string;
  /** A number or label shown after the title, e.g. the heat value. */
  hot?: number | string;
  /** Stable identifier for RSS guids; defaults to link, then a hash of the title. */
  guid?: string;
  /** Publication time (ms) when the upstream gives one; otherwise the time first seen is used. */
  date?: number;
  /** HTML for the RSS item description (escaped text from `summary` otherwise). */
  contentHtml?: string;
}

/**
 * Header labels of the generic html table, in the page's language (Chinese, as the sites are):
 * what each column holds. A column no row fills is left out.
 */
export interface ColumnLabels {
  /** The column of `Row.title` (default 标题), e.g. 电影, 话题. */
  title?: string;
  /** The column of `Row.hot` (default 热度), e.g. 票房, 评分, 来源, 状态. */
  hot?: string;
}

export interface FeedHistoryEntry<D> {
  data: D;
  fetchedAt: number;
}

export interface ViewHints<D, P> {
  /** Title of the rendering; the source name by default. */
  title?(data: D, params: P): string;
  /** Rows for generic text/markdown/html/rss renderings. */
  rows?(data: D, params: P): Row[];
  /** Labels of the generic html table's columns (see ColumnLabels). */
  columns?(data: D, params: P): ColumnLabels;
  /**
   * The content of the html page where it is not a table of rows (already-escaped html): the
   * encoding layer wraps it in the page shell every page shares, under the `title` heading and
   * above the footer. There is no whole-page override: every page has the same shell and footer.
   */
  htmlBody?(data: D, params: P): string;
  /** Bars drawn above the html table (e.g. box office): label, value and the value as shown. */
  bars?(data: D, params: P): { label: string; value: number; text: string }[];
  /** Overrides per encoding where the generic rendering does not fit. */
  text?(data: D, params: P): string | Promise<string>;
  markdown?(data: D, params: P): string | Promise<string>;
  /**
   * RSS items built from the stored history (newest first) instead of the current rows,
   * e.g. one item per day for a daily digest.
   */
  feedFromHistory?: { days: number; rows(history: FeedHistoryEntry<D>[], params: P): Row[] };
  /**
   * The RSS channel's title and description for readers, where `title` (which may name the day)
   * and the source's description (written for the API catalogue) do not fit: a title that stays
   * the same every day, a description in the reader's language.
   */
  feedChannel?: { title: string; description: string };
  /** Generated image bytes (`encoding=image`). */
  image?(data: D, params: P): Promise<{ body: Buffer | string; type: string }>;
  /** An image URL: enables `image` (302 redirect) and `image-proxy` (bytes streamed through us). */
  imageUrl?(data: D, params: P): string | undefined;
  /** An audio URL: enables `audio` (302 redirect) and `audio-proxy`. */
  audioUrl?(data: D, params: P): string | undefined;
  /** Encoding used when the caller names none (json by default). */
  defaultEncoding?: Encoding;
  /** Restrict the supported encodings (default: all that the hints above make possible). */
  encodings?: readonly Encoding[];
}

export interface EnvSpec {
  /** `SOURCE_<ID>_<NAME>` */
  name: string;
  doc: string;
  /** Working default, e.g. a visitor cookie that is known to work today. */
  default?: string;
  secret?: boolean;
  /**
   * A core setting of src/config.ts (e.g. `AI_UPSTREAM_BASE_URL`) that this source reads through
   * `ctx.env`. It is documented and validated there, so it is not declared again and needs no
   * `SOURCE_` prefix.
   */
  core?: boolean;
}

interface SourceBase<PS extends ParamSpecs, D> {
  /** kebab-case; equals the file name and normally the first route segment. */
  id: string;
  /** Human name: catalogue, RSS channel title. */
  name: string;
  /** One or two sentences for the catalogue. */
  description: string;
  /** Upstream page (RSS `<link>`). */
  homepage?: string;
  routes: readonly RouteSpec[];
  params?: PS;
  /** Settings the source reads (cookies, tokens, providers), documented in the README. */
  env?: readonly EnvSpec[];
  view: ViewHints<D, ParamsOf<PS>>;
  /** An example request path for the catalogue and the contract test. */
  example: string;
}

export interface Freshness {
  /** Data younger than this is fresh (X-Cache: HIT). */
  ttlSec: number;
  /** Deadline of one fetch run in ms (default 15000). */
  timeoutMs?: number;
  /** Cap of the backoff delay after repeated failures (default 3600 s). */
  backoffCapSec?: number;
}

export interface FetchedSourceBase<PS extends ParamSpecs, D> extends SourceBase<PS, D> {
  freshness: Freshness;
  /** Default request headers for this upstream (Referer, Accept-Language, cookies...). */
  headers?: Record<string, string> | ((env: (name: string) => string | undefined) => Record<string, string>);
  /** At most this many upstream requests of this source at once (default 4). */
  concurrency?: number;
  fetch(ctx: FetchContext<D>, params: ParamsOf<PS>): Promise<D>;
  /** A reason to reject implausible data (the last good data stays), or undefined to accept. */
  validate(data: D): string | undefined;
  /**
   * Stored data in this source's current shape: data an older version stored in another shape
   * (e.g. a hot list from before it became 60s's bare array) upgraded, current data returned as
   * it is (the same value), undefined when it cannot be read. The kernel applies it wherever
   * stored data is read (the cached snapshot, history rows, archived snapshots), before
   * `validate`, so an upgrade never loses the last good data.
   */
  migrate?(stored: unknown): D | undefined;
  /** Number of items, for status and logs. */
  count?(data: D): number;
  /**
   * History kept per key of the data (e.g. the digest's date): one row per key, the newest
   * wins. With `param`, a request naming that parameter is answered from history first.
   */
  history?: {
    key(data: D): string;
    param?: keyof PS & string;
    /** Parameters that only choose what is shown (e.g. a `days` window): every value of them shares one history. */
    omit?: readonly (keyof PS & string)[];
  };
  /** Cap on distinct cached parameter sets (on-demand sources; default 500). */
  maxKeys?: number;
  /**
   * Parameters of this source whose list an earlier source fetched and archived under its own id
   * and its default parameters (a source merged into this one): a dated read (`date`/`at`) of
   * them from before this source stored any falls back to that source's snapshots.
   */
  formerly?: readonly { params: Readonly<Record<string, string>>; sourceId: string }[];
}

export interface ScheduledSource<PS extends ParamSpecs, D> extends FetchedSourceBase<PS, D> {
  mode: 'scheduled';
  /** node-cron expression, evaluated in Asia/Shanghai. */
  schedule: string;
  /** Parameter sets kept warm by the scheduler (default: one set with all defaults). */
  prefetch?: readonly Partial<Record<keyof PS, string>>[];
  /**
   * Past days the kernel fills in the background when the history lacks them (at start, then
   * hourly; see kernel/backfill.ts): one fetch per missing day with `history.param` set to it,
   * one request at a time. Needs `history` with `param`.
   */
  backfill?: Backfill<D>;
  /**
   * A hot list whose items take part in cross-platform trending (sources/trending.ts), with the
   * parameters of the list meant (default: the defaults). Trending reads every list so marked.
   */
  trending?: TrendingRole;
}

/**
 * How a list takes part in trending. A `general` list (the default: microblog, search, news
 * portals…) forms the events and ranks them. A `coverage` list (a niche site or forum: IT之家,
 * 虎扑…) only joins events the general lists formed, showing that it carries them too: it never
 * forms, bridges or reorders an event (sources/_shared/events/coverage.ts).
 */
export interface TrendingRole {
  params?: Record<string, string>;
  role?: 'general' | 'coverage';
}

export interface Backfill<D> {
  /** How many days before today (Asia/Shanghai) to keep filled. */
  days: number;
  /** The days the upstream still offers, read from the latest data of the default parameters (e.g. the days a page lists). */
  available?(latest: D): readonly string[];
}

export interface OnDemandSource<PS extends ParamSpecs, D> extends FetchedSourceBase<PS, D> {
  mode: 'on-demand';
}

/**
 * Upstream data that a local source keeps warm and computes its answers from, e.g. a corpus it
 * picks a random item of. The kernel treats it like the one default key of a scheduled source
 * (same source id, params key `''`): fetched on `schedule` and on demand when missing or expired
 * (in the background, so requests never wait unless `awaitFirst`), validated, stored, never
 * overwritten by a failed fetch, backed off, and shown on /v2/status. `compute` receives the last
 * good copy as `ctx.feed`, so it must also have an answer without it: bundled data, or a clear 503.
 */
export interface LocalFeed<F> {
  /** node-cron expression, evaluated in Asia/Shanghai. */
  schedule: string;
  freshness: Freshness;
  /** Default request headers for this upstream. */
  headers?: Record<string, string> | ((env: (name: string) => string | undefined) => Record<string, string>);
  /** At most this many upstream requests of this source at once (default 4). */
  concurrency?: number;
  /** Annotate the return type (`async fetch(ctx): Promise<MyFeed>`): `F` is inferred from it. */
  fetch(ctx: FetchContext<F>): Promise<F>;
  /** A reason to reject implausible data (the last good data stays), or undefined to accept. */
  validate(data: F): string | undefined;
  /** Stored feed data in the current shape, as a fetched source's `migrate`. */
  migrate?(stored: unknown): F | undefined;
  /** Number of items, for status and logs. */
  count?(data: F): number;
  /** While no fetch ever succeeded, a request waits for one (coalesced, at most 10 s, not while backing off). */
  awaitFirst?: boolean;
}

export interface LocalSource<PS extends ParamSpecs, D, F = never> extends SourceBase<PS, D> {
  mode: 'local';
  /** Upstream data kept warm for `compute` (see LocalFeed). */
  feed?: LocalFeed<F>;
  compute(ctx: LocalContext<F>, params: ParamsOf<PS>): D | Promise<D>;
}

export type SourceDefinition<PS extends ParamSpecs = ParamSpecs, D = unknown, F = never> =
  | ScheduledSource<PS, D>
  | OnDemandSource<PS, D>
  | LocalSource<PS, D, F>;

export type FetchedSource<PS extends ParamSpecs = ParamSpecs, D = unknown> = ScheduledSource<PS, D> | OnDemandSource<PS, D>;

/**
 * Identity function that gives a source definition its types: `params` are inferred from the
 * specs, `D` from `fetch`/`compute` and `F` from `feed.fetch`.
 */
export function defineSource<const PS extends ParamSpecs, D, F = never>(def: SourceDefinition<PS, D, F>): SourceDefinition<PS, D, F> {
  return def;
}

/** The type-erased form the kernel works with. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySource = SourceDefinition<any, any, any>;
