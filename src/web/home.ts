/**
 * GET / for browsers (when Accept prefers text/html; API clients keep the JSON index): the
 * cross-platform trending events on top, then a card per list (top 10 with rank and heat, marks
 * against the previous snapshot, its time and a link to the whole list), grouped by category;
 * a search box over titles and timelines, and the time machine (`?at=`: the board as it was).
 * Server-rendered without script; the rendering is kept while the lists it shows are unchanged.
 */
import { Router } from '@koa/router';
import { escapeHtml, safeUrl } from '../encoding/escape.ts';
import { parseInstant } from '../kernel/archive-params.ts';
import { setBounded } from '../kernel/bounded-map.ts';
import { sha1 } from '../kernel/digest.ts';
import type { Engine, ReadResult } from '../kernel/engine.ts';
import { badParam } from '../kernel/errors.ts';
import { MAX_QUERY_LENGTH } from '../kernel/item-index.ts';
import { titleKey } from '../kernel/title-key.ts';
import { parseParams } from '../kernel/params.ts';
import type { Registry } from '../kernel/registry.ts';
import type { AnySource } from '../kernel/source.ts';
import { formatDateTime } from '../kernel/time.ts';
import { formatHeat } from '../../sources/_shared/hot-list.ts';
import { CATEGORIES } from '../http/categories.ts';
import type { AppState } from '../http/middleware.ts';
import { boardLists, readBoard, type Board, type BoardCard, type BoardList } from './board.ts';
import { htmlPage, siteNotice } from './shell.ts';
import type { Snapshots } from './snapshots.ts';
import { eventAnchor } from './trending-page.ts';
import { compareRows, timeMachineBar, withAt } from './time-machine.ts';

const CARD_ROWS = 10;
const EVENTS_SHOWN = 10;
/** How long the current board's page is reused before its lists are looked up again (ms). */
const LIVE_KEPT_MS = 1_000;

/** Category names on the page; a category not named here shows as it is. */
const CATEGORY_ZH: Readonly<Record<string, string>> = {
  'Hot lists and rankings': '热榜与排行',
  'Periodic information': '每日资讯',
  Utilities: '实用数据',
  Entertainment: '娱乐',
  Other: '其他',
};
/** The hot lists first: the board is mainly theirs. */
const CATEGORY_ORDER: readonly string[] = ['Hot lists and rankings', ...CATEGORIES.filter((c) => c !== 'Hot lists and rankings')];

/** The fields of trending's data the page shows (it may carry more). */
interface TrendingView {
  events: { id: string; rank: number; title: string; platforms: { name: string; rank: number; title?: string; hot_value: number | null; link: string | null }[] }[];
  updated?: string;
}

function isTrending(v: unknown): v is TrendingView {
  return !!v && typeof v === 'object' && Array.isArray((v as { events?: unknown }).events);
}

function heatText(hot: number | string | undefined): string {
  if (hot === undefined || hot === '') return '';
  return typeof hot === 'number' ? formatHeat(hot) : hot;
}

function card(c: BoardCard, at: number | undefined): string {
  const href = withAt(c.href, at);
  const id = `list-${(c.href.split('?')[0] as string).slice('/v2/apis/'.length).replace(/\//g, '-')}`;
  if (!c.read) {
    return `<article class="card" id="${escapeHtml(id)}"><h3><a href="${escapeHtml(href)}">${escapeHtml(c.title)}</a></h3><p class="s">${at === undefined ? '尚未获取' : '这一时刻之前没有存档'}</p></article>`;
  }
  const shown = c.rows.slice(0, CARD_ROWS);
  const { marks } = compareRows(shown, c.nav?.previousRows?.slice(0, Math.max(CARD_ROWS, c.nav.previousRows.length)));
  const items = shown.map((r, i) => {
    const link = safeUrl(r.link);
    const title = link ? `<a href="${escapeHtml(link)}" rel="noopener noreferrer" title="${escapeHtml(r.title)}">${escapeHtml(r.title)}</a>` : escapeHtml(r.title);
    return `<li><span class="r">${i + 1}</span><span class="t">${title}</span>${marks[i]}<span class="h">${escapeHtml(heatText(r.hot))}</span></li>`;
  });
  const time = formatDateTime(c.nav?.at ?? c.read.fetchedAt).slice(5, 16);
  return `<article class="card" id="${escapeHtml(id)}"><h3><a href="${escapeHtml(href)}">${escapeHtml(c.title)}</a></h3><ol>${items.join('')}</ol><p class="more"><span>${at === undefined ? '更新于' : '快照'} ${escapeHtml(time)}${c.read.cache === 'STALE' ? '（已过时效，待刷新）' : ''}</span><a href="${escapeHtml(href)}">完整榜单 →</a></p></article>`;
}

function trendingSection(trending: TrendingView | undefined, at: number | undefined): string {
  const all = at === undefined ? '/v2/apis/trending?encoding=html' : `/v2/apis/trending?encoding=html&at=${at}`;
  const heading = `<h2 id="trending">全网热点${at === undefined ? '' : `<span class="s">（${escapeHtml(formatDateTime(at).slice(0, 16))} 时）</span>`}</h2>`;
  if (!trending?.events.length) return `<section aria-labelledby="trending">${heading}<p class="s">${at === undefined ? '还没有足够的榜单数据来计算全网热点。' : '这一时刻之前还没有存档的榜单，无从计算全网热点。'}</p></section>`;
  const items = trending.events.slice(0, EVENTS_SHOWN).map((e) => {
    const platforms = e.platforms.map((p) => `${escapeHtml(p.name)} 第 ${p.rank} 名${p.hot_value !== null ? ` ${escapeHtml(formatHeat(p.hot_value))}` : ''}`).join(' · ');
    const spread = `/v2/apis/timeline?q=${encodeURIComponent(spreadQuery(e.title, e.platforms.map((p) => p.title ?? e.title)))}&encoding=html`;
    const chart = e.platforms.length > 1 ? ` <a class="tl" href="${escapeHtml(`${all}#${eventAnchor(e.id)}`)}" title="在各平台的扩散图">扩散</a>` : '';
    return `<li><a href="${escapeHtml(spread)}" title="各平台名次走势">${escapeHtml(e.title)}</a>${chart} <span class="p">${e.platforms.length} 个平台：${platforms}</span></li>`;
  });
  return `<section aria-labelledby="trending">${heading}<ol class="events">${items.join('')}</ol><p class="s"><a href="${escapeHtml(all)}">全部热点 →</a></p></section>`;
}

/** Shortest text a spread query may be: shorter common parts match unrelated titles. */
const MIN_SPREAD_QUERY = 3;

/**
 * The timeline query that finds an event on most of its platforms: the longest text that the
 * most platforms' titles contain (compared as the item index compares, by titleKey), when at
 * least two share one long enough to mean the event; else the event's own title.
 */
export function spreadQuery(eventTitle: string, titles: readonly string[]): string {
  const keys = [...new Set(titles.map(titleKey).filter(Boolean))];
  const fallback = [...eventTitle].slice(0, MAX_QUERY_LENGTH).join('');
  let best = { part: '', count: 1 };
  for (const key of keys) {
    const chars = [...key];
    for (let len = chars.length; len >= MIN_SPREAD_QUERY; len--) {
      if (len < [...best.part].length && keys.length <= best.count) break;
      for (let start = 0; start + len <= chars.length; start++) {
        const part = chars.slice(start, start + len).join('');
        const count = keys.filter((k) => k.includes(part)).length;
        if (count > best.count || (count === best.count && count > 1 && len > [...best.part].length)) best = { part, count };
      }
    }
  }
  return best.count >= 2 ? [...best.part].slice(0, MAX_QUERY_LENGTH).join('') : fallback;
}

function searchForm(): string {
  return `<form class="search" method="get" action="/v2/apis/timeline" role="search"><input type="hidden" name="encoding" value="html"><label for="q" class="s">搜索标题</label><input id="q" type="search" name="q" maxlength="64" required placeholder="输入关键词，查看它在各榜单的名次走势"><button type="submit">搜索</button></form>`;
}

export function renderHome(board: Board, trending: TrendingView | undefined): string {
  const groups = new Map<string, BoardCard[]>();
  for (const c of board.cards) groups.set(c.category, [...(groups.get(c.category) ?? []), c]);
  const order = [...groups.keys()].sort((a, b) => rank(a) - rank(b));
  const sections = order.map((cat, i) => {
    const cards = groups.get(cat) ?? [];
    return `<section aria-labelledby="cat-${i}"><h2 id="cat-${i}">${escapeHtml(CATEGORY_ZH[cat] ?? cat)}（${cards.length}）</h2><div class="board">${cards.map((c) => card(c, board.at)).join('\n')}</div></section>`;
  });
  const bar = board.nav ? timeMachineBar(board.nav, '/', '全部榜单') : '';
  const footer = board.at === undefined ? '各榜单按计划定时获取；时间均为北京时间' : `存档快照：${formatDateTime(board.at)}（北京时间）的各榜单`;
  return htmlPage('热榜首页 · 全部榜单一览', [`<h1>全部榜单一览</h1>`, searchForm(), bar, trendingSection(trending, board.at), ...sections].join('\n'), escapeHtml(footer));
}

function rank(category: string): number {
  const i = CATEGORY_ORDER.indexOf(category);
  return i < 0 ? CATEGORY_ORDER.length : i;
}

/** What the page shows, as a key: equal keys render equal pages. */
function boardKey(board: Board, trending: ReadResult | undefined): string {
  const cards = board.cards.map((c) => `${c.source.id}|${c.read?.paramsKey}|${c.read?.hash}|${c.read?.cache}|${c.nav?.at}|${c.nav?.previousAt}|${c.nav?.nextAt}`);
  return `${board.at}|${siteNotice() ?? ''}|${trending?.hash ?? ''}|${cards.join(';')}`;
}

interface Page {
  body: Buffer;
  etag: string;
}

export interface HomeDeps {
  registry: Registry;
  engine: Pick<Engine, 'readStored' | 'readAt' | 'compute' | 'now' | 'warmKeysOf'>;
  snapshots: Snapshots;
}

export function createHomeRouter(deps: HomeDeps): Router<AppState> {
  const router = new Router<AppState>();
  let lists: BoardList[] | undefined;
  const trendingSource = deps.registry.byId.get('trending') as (AnySource & { mode: 'local' }) | undefined;
  const pages = new Map<string, Page>();
  let live: { page: Page; until: number } | undefined;

  /** Trending now or at a past moment, as `/v2/apis/trending` (with `at`) answers it. */
  async function readTrending(at: number | undefined): Promise<ReadResult | undefined> {
    if (trendingSource?.mode !== 'local') return undefined;
    const raw: Record<string, string> = { limit: String(EVENTS_SHOWN), ...(at === undefined ? {} : { at: String(at) }) };
    try {
      return await deps.engine.compute(trendingSource, parseParams(trendingSource.params, raw), { clientIp: '' });
    } catch {
      return undefined; // no list fetched yet (or archived by that moment)
    }
  }

  async function page(at: number | undefined): Promise<Page> {
    if (at === undefined && live && live.until > Date.now()) return live.page;
    lists ??= boardLists(deps.registry, deps.engine);
    const [board, trending] = await Promise.all([readBoard({ lists, engine: deps.engine, snapshots: deps.snapshots }, at), readTrending(at)]);
    const key = boardKey(board, trending);
    let kept = pages.get(key);
    if (!kept) {
      const body = Buffer.from(renderHome(board, isTrending(trending?.data) ? trending.data : undefined));
      kept = { body, etag: `"home-${sha1(key).slice(0, 20)}"` };
      setBounded(pages, key, kept, 32);
    }
    if (at === undefined) live = { page: kept, until: Date.now() + LIVE_KEPT_MS };
    return kept;
  }

  router.get('/', async (ctx, next) => {
    ctx.set('Vary', 'Accept');
    if (ctx.accepts('json', 'html') !== 'html') return next();
    ctx.state.encoding = 'html';
    const raw = typeof ctx.query.at === 'string' ? ctx.query.at.trim() : undefined;
    let at: number | undefined;
    if (raw) {
      at = parseInstant(raw);
      if (at === undefined || at > deps.engine.now()) throw badParam('at', 'an ISO 8601 time such as 2026-11-21T21:00 (Asia/Shanghai when no offset is given) or a 13-digit ms timestamp, not in the future');
    }
    const p = await page(at);
    ctx.set('Cache-Control', at === undefined ? 'no-cache' : 'public, max-age=300');
    ctx.set('ETag', p.etag);
    ctx.type = 'text/html; charset=utf-8';
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = p.body;
  });
  return router;
}
