/**
 * The one encoding layer: renders any source's data as json (the envelope), text, markdown,
 * html, rss, image, image-proxy, audio or audio-proxy, using the source's view hints and
 * overrides. Freshness headers (X-Cache, Last-Modified, ETag, Cache-Control) are set here.
 */
import type { Readable } from 'node:stream';
import type * as FeedModule from 'feed';
import { AppError, StoreUnavailableError } from '../kernel/errors.ts';
import { setBounded } from '../kernel/bounded-map.ts';
import { lazyImport } from '../kernel/lazy-module.ts';
import type { HttpClient } from '../kernel/http.ts';
import { sha1 } from '../kernel/digest.ts';
import { rowGuid, type ReadResult } from '../kernel/engine.ts';
import type { Encoding, FeedHistoryEntry, Row } from '../kernel/source.ts';
import type { Store } from '../kernel/store.ts';
import { formatDateTime } from '../kernel/time.ts';
import { escapeHtml, safeUrl } from './escape.ts';
import { renderHtml, renderMarkdown, renderText, type GenericInput, type HtmlInput, type ListPageNav } from './generic.ts';

// The pages' shell, for html error pages.
import { htmlPage } from '../web/shell.ts';

export const CONTENT_TYPES = {
  json: 'application/json; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
  html: 'text/html; charset=utf-8',
  rss: 'application/rss+xml; charset=utf-8',
} as const;

export interface Rendered {
  status: number;
  type?: string;
  body: string | Buffer | Readable | null;
  headers: Record<string, string>;
}

/** The parts of a request's absolute URL (a Koa request has them). */
export interface RequestUrl {
  readonly protocol: string;
  readonly host: string;
  readonly originalUrl: string;
}

export interface RenderDeps {
  store: Store;
  http: HttpClient;
  now: number;
  /** The request, whose absolute URL is the RSS self link (read by the feeds only). */
  request: RequestUrl;
  serviceName: string;
  /** The history behind a `feedFromHistory` feed, newest first, current shape (Engine.feedHistory). */
  feedHistory(r: ReadResult, limit: number): Promise<FeedHistoryEntry<unknown>[]>;
  /** An archived list's place in its snapshots, for the html page's time machine (src/web/snapshots.ts). */
  listNav?(r: ReadResult): Promise<ListPageNav | undefined>;
}

/** `{"code":200,"message":"success","data":…}` built around the stored JSON text (no re-serialising). */
export function envelope(payload: string): string {
  return `{"code":200,"message":"success","data":${payload}}`;
}

/**
 * The footer of every text, markdown and html rendering, in the pages' language (Chinese, as the
 * titles and labels are): when the data is from. Computed answers say so without a time, so that
 * equal answers keep equal ETags.
 */
function footer(r: ReadResult): string {
  if (r.cache === 'NONE') return '即时生成，未经缓存';
  const at = `${formatDateTime(r.fetchedAt)}（北京时间）`;
  if (r.cache === 'HISTORY') return `更新于 ${at}；存档快照`;
  return `更新于 ${at}${r.cache === 'STALE' ? '；上游暂时无法刷新，显示的是上次成功获取的数据' : ''}`;
}

function rowsOf(r: ReadResult): Row[] | undefined {
  return r.source.view.rows?.(r.data, r.params);
}

function genericInput(r: ReadResult): GenericInput {
  return { title: r.source.view.title?.(r.data, r.params) ?? r.source.name, data: r.data, rows: rowsOf(r), footer: footer(r) };
}

function htmlInput(r: ReadResult): HtmlInput {
  const view = r.source.view;
  return {
    title: view.title?.(r.data, r.params) ?? r.source.name,
    data: r.data,
    rows: view.htmlBody ? undefined : rowsOf(r),
    footer: footer(r),
    columns: view.columns?.(r.data, r.params),
    body: view.htmlBody?.(r.data, r.params),
    bars: view.htmlBody ? undefined : view.bars?.(r.data, r.params),
  };
}

/**
 * Whether a rendering in this encoding reads the request's own URL (a feed's id and self link,
 * Host included), so that one URL's answer is not every caller's.
 */
export function readsRequestUrl(encoding: Encoding): boolean {
  return encoding === 'rss';
}

function feedUrl(request: RequestUrl): string {
  return `${request.protocol}://${request.host}${request.originalUrl}`;
}

/** When each item was first seen; while the store is unreachable, none (items are dated by the answer's fetch time). */
async function firstSeen(r: ReadResult, guids: string[], deps: RenderDeps): Promise<Map<string, number>> {
  try {
    return await deps.store.firstSeen(r.source.id, r.historyParamsKey, guids);
  } catch (err) {
    if (err instanceof StoreUnavailableError) return new Map();
    throw err;
  }
}

const feedModule = lazyImport<typeof FeedModule>('feed');

async function renderRss(r: ReadResult, deps: RenderDeps): Promise<string> {
  const { Feed } = await feedModule();
  const { source } = r;
  const selfUrl = feedUrl(deps.request);
  const view = source.view;
  const title = view.feedChannel?.title ?? view.title?.(r.data, r.params) ?? source.name;
  const feed = new Feed({
    id: selfUrl,
    title,
    description: view.feedChannel?.description ?? source.description,
    link: source.homepage ?? selfUrl,
    updated: new Date(r.fetchedAt),
    generator: deps.serviceName,
    feedLinks: { rss: selfUrl },
    ...('freshness' in source ? { ttl: Math.max(1, Math.round(source.freshness.ttlSec / 60)) } : {}),
  });
  let rows: Row[];
  if (view.feedFromHistory) {
    // A dated snapshot (`at`) shows the feed as it stood then (see Engine.feedHistory).
    const entries = await deps.feedHistory(r, view.feedFromHistory.days);
    if (!entries.length) entries.push({ data: r.data, fetchedAt: r.fetchedAt });
    rows = view.feedFromHistory.rows(entries, r.params);
  } else {
    rows = rowsOf(r) ?? [];
  }
  const guids = rows.map((row) => rowGuid(source.id, row));
  const seen = r.cache === 'NONE' ? new Map<string, number>() : await firstSeen(r, guids, deps);
  rows.forEach((row, i) => {
    const guid = guids[i] as string;
    const item: Parameters<FeedModule.Feed['addItem']>[0] = {
      title: row.title,
      id: guid,
      guid,
      link: safeUrl(row.link) ?? source.homepage ?? selfUrl,
      date: new Date(row.date ?? seen.get(guid) ?? r.fetchedAt),
    };
    const description = row.contentHtml ?? (row.summary ? escapeHtml(row.summary) : undefined);
    if (description) item.description = description;
    // feed 5 writes the enclosure url attribute unescaped (links it escapes): a signed CDN URL's `&` would break the XML.
    const cover = safeUrl(row.cover);
    if (cover) item.image = cover.replace(/&/g, '&amp;');
    feed.addItem(item);
  });
  return feed.rss2();
}

async function proxied(url: string | undefined, deps: RenderDeps, what: 'image' | 'audio'): Promise<Rendered> {
  if (!url) throw new AppError(404, `This item has no ${what}.`);
  let res;
  try {
    // The URL is the upstream's data, not ours: fetched under the same address checks as og's.
    res = await deps.http.stream(url, { untrusted: true, maxBytes: 20 * 1024 * 1024, timeoutMs: 15_000 });
  } catch (err) {
    throw new AppError(502, `Could not fetch the ${what} from its upstream: ${(err as Error).message}`, { expose: true });
  }
  if (res.status >= 400) {
    res.body.destroy();
    throw new AppError(502, `The ${what} upstream answered HTTP ${res.status}.`, { expose: true });
  }
  const headers: Record<string, string> = {};
  const len = res.headers['content-length'];
  if (typeof len === 'string') headers['Content-Length'] = len;
  const ct = res.headers['content-type'];
  return { status: 200, type: typeof ct === 'string' ? ct : what === 'image' ? 'image/png' : 'audio/mpeg', body: res.body, headers };
}

/** Last-Modified and ETag of stored data in one encoding: they change only with the data. */
interface Validators {
  lastModified: string;
  etag: string;
}

function storedValidators(r: ReadResult, encoding: Encoding, list: ListPageNav | undefined): Validators {
  const nav = list ? `-${sha1(navKey(list)).slice(0, 8)}` : '';
  return { lastModified: new Date(r.fetchedAt).toUTCString(), etag: `"${r.hash.slice(0, 20)}-${encoding}${nav}"` };
}

/** What a list page's time machine shows besides the data: its links change the page. */
function navKey(list: ListPageNav): string {
  return `${list.base}|${list.nav.at}|${list.nav.previousAt}|${list.nav.nextAt}`;
}

/** Cache-Control's max-age of stored data (s). */
function maxAgeOf(r: ReadResult, now: number): number {
  return r.expiresAt === null ? 3600 : Math.max(0, Math.floor((r.expiresAt - now) / 1000));
}

/**
 * X-Cache, Cache-Control and, for stored data, its validators (text answers of computed data add
 * their own ETag). Array-shaped data (the hot lists, as 60s answers them) has no room for a count
 * or a fetch time: X-Total-Count and Last-Modified carry them.
 */
function freshnessHeaders(r: ReadResult, now: number, validators: Validators | undefined): Record<string, string> {
  const freshness: Record<string, string> = { 'X-Cache': r.cache === 'NONE' ? 'MISS' : r.cache };
  if (Array.isArray(r.data)) freshness['X-Total-Count'] = String(r.data.length);
  if (r.cache === 'NONE' || !validators) {
    freshness['Cache-Control'] = 'no-cache';
  } else {
    const maxAge = maxAgeOf(r, now);
    const swr = 'freshness' in r.source ? r.source.freshness.ttlSec : 60;
    freshness['Cache-Control'] = `public, max-age=${maxAge}, stale-while-revalidate=${swr}`;
    freshness['Last-Modified'] = validators.lastModified;
    freshness.ETag = validators.etag;
  }
  if (r.note) freshness['X-Cache-Note'] = headerText(r.note);
  return freshness;
}

const HEADER_TEXT_MAX = 300;

/**
 * Text as a header value people can read: printable ASCII as it is, anything else (and `%`)
 * percent-encoded so that the value stays valid and `decodeURIComponent` gives the text back;
 * white space runs become one space; at most 300 characters, never cut inside an escape.
 */
export function headerText(text: string): string {
  let out = '';
  for (const ch of text.replace(/\s+/g, ' ').trim()) {
    const piece = ch !== '%' && ch >= ' ' && ch <= '~' ? ch : encodeURIComponent(ch);
    if (out.length + piece.length > HEADER_TEXT_MAX) break;
    out += piece;
  }
  return out;
}

/** A 200 text answer; `freshness` is this call's own header object and becomes the answer's. */
function textAnswer(r: ReadResult, freshness: Record<string, string>, body: string, type: string): Rendered {
  if (r.cache === 'NONE') freshness.ETag = `"${sha1(body).slice(0, 20)}"`;
  return { status: 200, type, body, headers: freshness };
}

/** Render a read result in one encoding. Throws AppError for what the data cannot provide. */
export async function render(r: ReadResult, encoding: Encoding, deps: RenderDeps): Promise<Rendered> {
  // Stored data renders the same way until it is refetched: keep the text of hot keys (the key
  // holds the fetch time and cache state, which the footers show), with its validators. Kept as
  // bytes: a string's byte length would be counted again for every answer's Content-Length.
  const list = encoding === 'html' ? await deps.listNav?.(r) : undefined;
  const cacheKey = bodyCacheKey(r, encoding, deps, list);
  const cached = cacheKey ? bodyCache.get(cacheKey) : undefined;
  if (cached) return cachedAnswer(cached, r, deps.now);
  const validators = r.cache === 'NONE' ? undefined : storedValidators(r, encoding, list);
  const freshness = freshnessHeaders(r, deps.now, validators);
  const out = await renderBody(r, encoding, deps, freshness, list);
  if (cacheKey && validators && out.status === 200 && out.type && typeof out.body === 'string' && encoding in CONTENT_TYPES) {
    // The first answer sends the kept bytes too: encoded once, not again for every write.
    const answer: Rendered = { ...out, body: Buffer.from(out.body) };
    const last = { maxAge: maxAgeOf(r, deps.now), note: r.note, answer };
    setBounded(bodyCache, cacheKey, { body: answer.body as Buffer, type: out.type, validators, last }, BODY_CACHE_SIZE);
    return answer;
  }
  return out;
}

/**
 * The answer of a kept rendering: the same object while its headers stay the same (the max-age
 * counts down by the second; the note may change), so the HTTP layer can keep its header block
 * with it. Only stored data is kept (never NONE), so there is no body ETag to add.
 */
function cachedAnswer(entry: BodyCacheEntry, r: ReadResult, now: number): Rendered {
  const maxAge = maxAgeOf(r, now);
  const last = entry.last;
  if (last && last.maxAge === maxAge && last.note === r.note) return last.answer;
  const answer: Rendered = { status: 200, type: entry.type, body: entry.body, headers: freshnessHeaders(r, now, entry.validators) };
  entry.last = { maxAge, note: r.note, answer };
  return answer;
}

/**
 * What a stored rendering depends on: the data (hash, fetch time, cache state) and, for a feed,
 * its own URL (its id and self link; one rendering per URL, so no caller's Host header reaches
 * another caller) and, for a feed built from history, the history version.
 */
function bodyCacheKey(r: ReadResult, encoding: Encoding, deps: RenderDeps, list: ListPageNav | undefined): string | undefined {
  if (r.cache === 'NONE') return undefined;
  const key = `${r.source.id}|${r.paramsKey}|${encoding}|${r.hash}|${r.fetchedAt}|${r.cache}${list ? `|${navKey(list)}` : ''}`;
  if (!readsRequestUrl(encoding)) return key;
  return `${key}|${feedUrl(deps.request)}${r.source.view.feedFromHistory ? `|${r.historyVersion ?? 0}` : ''}`;
}

const BODY_CACHE_SIZE = 256;
interface BodyCacheEntry {
  body: Buffer;
  type: string;
  validators: Validators;
  /** The last answer made of it, with the header values it was made for. */
  last: { maxAge: number; note: string | undefined; answer: Rendered } | undefined;
}
const bodyCache = new Map<string, BodyCacheEntry>();

async function renderBody(r: ReadResult, encoding: Encoding, deps: RenderDeps, freshness: Record<string, string>, list: ListPageNav | undefined): Promise<Rendered> {
  const view = r.source.view;
  switch (encoding) {
    case 'json':
      return textAnswer(r, freshness, envelope(r.payload), CONTENT_TYPES.json);
    case 'text':
      return textAnswer(r, freshness, view.text ? await view.text(r.data, r.params) : renderText(genericInput(r)), CONTENT_TYPES.text);
    case 'markdown':
      return textAnswer(r, freshness, view.markdown ? await view.markdown(r.data, r.params) : renderMarkdown(genericInput(r)), CONTENT_TYPES.markdown);
    case 'html':
      return textAnswer(r, freshness, renderHtml({ ...htmlInput(r), list }), CONTENT_TYPES.html);
    case 'rss':
      return textAnswer(r, freshness, await renderRss(r, deps), CONTENT_TYPES.rss);
    case 'image': {
      if (view.image) {
        const img = await view.image(r.data, r.params);
        const headers = { ...freshness, ETag: `"${sha1(img.body).slice(0, 20)}"` };
        return { status: 200, type: img.type, body: img.body, headers };
      }
      const url = safeUrl(view.imageUrl?.(r.data, r.params));
      if (!url) throw new AppError(404, 'This item has no image.');
      return { status: 302, body: null, headers: { Location: url, 'Cache-Control': 'no-cache', 'X-Cache': freshness['X-Cache'] as string } };
    }
    case 'audio': {
      const url = safeUrl(view.audioUrl?.(r.data, r.params));
      if (!url) throw new AppError(404, 'This item has no audio.');
      return { status: 302, body: null, headers: { Location: url, 'Cache-Control': 'no-cache', 'X-Cache': freshness['X-Cache'] as string } };
    }
    case 'image-proxy':
      return proxied(view.imageUrl?.(r.data, r.params), deps, 'image');
    case 'audio-proxy':
      return proxied(view.audioUrl?.(r.data, r.params), deps, 'audio');
  }
}

/** Render an error in the requested encoding with its real status. */
export function renderError(status: number, message: string, encoding: Encoding | undefined): { type: string; body: string } {
  switch (encoding) {
    case 'text':
    case 'image':
    case 'image-proxy':
    case 'audio':
    case 'audio-proxy':
    case 'rss':
      return { type: CONTENT_TYPES.text, body: `Error ${status}: ${message}\n` };
    case 'markdown':
      return { type: CONTENT_TYPES.markdown, body: `# Error ${status}\n\n${message}\n` };
    case 'html':
      // The pages' shell (site bar, stylesheet, lang); the message stays English, as every error's.
      return { type: CONTENT_TYPES.html, body: htmlPage(`Error ${status}`, `<h1>Error ${status}</h1>\n<p lang="en">${escapeHtml(message)}</p>`) };
    default:
      return { type: CONTENT_TYPES.json, body: JSON.stringify({ code: status, message, data: null }) };
  }
}
