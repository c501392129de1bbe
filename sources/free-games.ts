/**
 * The Epic Games Store's weekly free games: the store's public promotions feed
 * (freeGamesPromotions). A game is free when one of its offers has `discountPercentage: 0`
 * (the price after the discount is 0 %) in `promotions.promotionalOffers` (running now) or
 * `upcomingPromotionalOffers` (announced). Placeholders of the next reveal are titled
 * "Mystery Game"; vault entries carry no promotions at all.
 */
import { SourceError } from '../src/kernel/errors.ts';
import { missingPath } from '../src/kernel/json-path.ts';
import { defineSource, type Row } from '../src/kernel/source.ts';
import { formatDateTime, formatSixtyDateTime } from '../src/kernel/time.ts';
import { asArray, asNumber, asRecord, asString, migrateHotList, pick, type HotItem, type HotList } from './_shared/hot-list.ts';

export const UPSTREAM_URL = 'https://store-site-backend-static-ipv4.ak.epicgames.com/freeGamesPromotions?locale=zh-CN&country=CN&allowCountries=CN';
const STORE = 'https://store.epicgames.com/zh-CN';

export interface FreeGame extends HotItem {
  id: string;
  cover: string;
  description: string;
  seller: string;
  original_price: number;
  original_price_desc: string;
  currency: string;
  is_free_now: boolean;
  free_start: string;
  free_start_at: number;
  free_end: string;
  free_end_at: number;
}

interface Window {
  start: number;
  end: number;
}

/**
 * The 100 %-off offer window of an element that is running at `at`, else its next announced one;
 * undefined when every such window has ended (a week that is over can still sit in
 * `promotionalOffers` beside the next one in `upcomingPromotionalOffers`).
 */
function freeWindow(promotions: unknown, at: number): Window | undefined {
  let next: Window | undefined;
  for (const field of ['promotionalOffers', 'upcomingPromotionalOffers']) {
    for (const group of asArray(asRecord(promotions)?.[field]) ?? []) {
      for (const offer of asArray(asRecord(group)?.promotionalOffers) ?? []) {
        const o = asRecord(offer);
        if (pick(o, 'discountSetting', 'discountPercentage') !== 0) continue;
        const start = Date.parse(asString(o?.startDate) ?? '');
        const end = Date.parse(asString(o?.endDate) ?? '');
        if (!Number.isFinite(start) || !Number.isFinite(end) || end <= at) continue;
        if (start <= at) return { start, end };
        if (!next || start < next.start) next = { start, end };
      }
    }
  }
  return next;
}

function pageSlug(e: Record<string, unknown>): string | undefined {
  for (const list of [e.offerMappings, pick(e, 'catalogNs', 'mappings')]) {
    for (const m of asArray(list) ?? []) {
      const r = asRecord(m);
      const slug = asString(r?.pageSlug);
      if (slug && (r?.pageType === undefined || r.pageType === 'productHome')) return slug;
    }
  }
  const product = asString(e.productSlug)?.replace(/\/home$/, '');
  if (product && product !== '[]') return product;
  return asString(e.urlSlug) || undefined;
}

const COVER_TYPES = ['OfferImageWide', 'DieselStoreFrontWide', 'Thumbnail', 'OfferImageTall'];

function cover(e: Record<string, unknown>): string {
  const images = (asArray(e.keyImages) ?? []).map(asRecord).filter((x): x is Record<string, unknown> => !!x);
  const found = COVER_TYPES.map((t) => images.find((i) => i.type === t)).find(Boolean) ?? images[0];
  const url = asString(found?.url) ?? '';
  // Some image URLs wrap the real one in a `cover` query parameter.
  try {
    const inner = new URL(url).searchParams.get('cover');
    if (inner && /^https?:\/\//.test(inner)) return inner;
  } catch {
    return '';
  }
  return url;
}

export function parse(raw: unknown, now: Date): HotList<FreeGame> {
  const elements = asArray(pick(raw, 'data', 'Catalog', 'searchStore', 'elements'));
  if (!elements) {
    const error = asString(pick(raw, 'errors', 0, 'message'));
    throw error ? new SourceError('parse', `upstream error: ${error}`) : missingPath(raw, 'data.Catalog.searchStore.elements', 'an array');
  }
  // A feed without any element is broken; one without a free game is a quiet week (an empty list, as 60s answers).
  if (!elements.length) throw new SourceError('empty', 'data.Catalog.searchStore.elements is empty');
  const at = now.getTime();
  const games: { order: number; game: FreeGame }[] = [];
  for (const el of elements) {
    const e = asRecord(el);
    if (!e) continue;
    const w = freeWindow(e.promotions, at);
    if (!w) continue;
    const rawTitle = asString(e.title)?.trim() ?? '';
    const mystery = /mystery game|神秘游戏/i.test(rawTitle);
    const slug = pageSlug(e);
    const total = asRecord(pick(e, 'price', 'totalPrice'));
    const decimals = asNumber(pick(total, 'currencyInfo', 'decimals')) ?? 2;
    const original = (asNumber(total?.originalPrice) ?? 0) / 10 ** decimals;
    const order = w.start <= at ? w.end : w.start + 1e13;
    const game: FreeGame = {
      rank: 0,
      id: asString(e.id) ?? rawTitle,
      title: mystery ? '神秘游戏' : rawTitle,
      link: !mystery && slug ? `${STORE}/p/${slug}` : `${STORE}/free-games`,
      cover: cover(e),
      description: asString(e.description)?.trim() ?? '',
      seller: asString(pick(e, 'seller', 'name')) ?? '',
      original_price: original,
      original_price_desc: asString(pick(total, 'fmtPrice', 'originalPrice')) ?? String(original),
      currency: asString(total?.currencyCode) ?? '',
      // The feed can lag behind the week's switch: a window that covers now counts as free now.
      is_free_now: w.start <= at,
      free_start: formatSixtyDateTime(w.start),
      free_start_at: w.start,
      free_end: formatSixtyDateTime(w.end),
      free_end_at: w.end,
    };
    games.push({ order, game });
  }
  games.sort((a, b) => a.order - b.order || a.game.title.localeCompare(b.game.title, 'zh-CN'));
  return games.map(({ game }, i) => ({ ...game, rank: i + 1 }));
}

export function validateGames(d: HotList<FreeGame>): string | undefined {
  const bad = d.find((g) => !g.title || !/^https?:\/\//.test(g.link) || !(g.free_end_at > g.free_start_at));
  return bad ? `game ${bad.rank} has no title, no link or no valid free window` : undefined;
}

function when(g: FreeGame): string {
  return g.is_free_now ? `现在免费，截至 ${g.free_end}` : `${g.free_start} 至 ${g.free_end} 免费`;
}

export default defineSource({
  id: 'free-games',
  name: 'Epic 每周免费游戏',
  description: 'Games that are free to keep on the Epic Games Store now and the announced next ones, with the free window (`free_start`/`free_end`), original price, seller and store link; an empty list in a week without one (as 60s).',
  homepage: 'https://store.epicgames.com/zh-CN/free-games',
  routes: [{ path: '/free-games' }],
  mode: 'scheduled',
  schedule: '3 * * * *',
  freshness: { ttlSec: 3600, backoffCapSec: 3 * 3600 },
  headers: { accept: 'application/json, text/plain, */*', origin: 'https://store.epicgames.com', referer: 'https://store.epicgames.com/' },
  async fetch(ctx) {
    const res = await ctx.http.request(UPSTREAM_URL, { signal: ctx.signal });
    if (/text\/html/.test(String(res.headers['content-type']))) throw new SourceError('blocked', 'upstream answered an HTML page (bot check) instead of JSON');
    return parse(res.json(), ctx.now());
  },
  validate: validateGames,
  migrate: migrateHotList(),
  view: {
    title: () => 'Epic 免费游戏',
    columns: () => ({ title: '游戏', hot: '状态' }),
    rows: (d): Row[] =>
      d.map((g) => ({
        title: g.title,
        link: g.link,
        hot: g.is_free_now ? '免费中' : '即将免费',
        summary: `${when(g)}${g.description ? ` · ${g.description}` : ''}`,
        guid: `free-games:${g.id}:${g.free_start_at}`,
        date: g.free_start_at,
        ...(g.cover ? { cover: g.cover } : {}),
      })),
    text: (d) =>
      `Epic 免费游戏\n\n${d
        .map((g) => `${g.rank}. 《${g.title}》${g.is_free_now ? ' 🔥' : ''}\n   ${when(g)}${g.original_price ? `（原价 ${g.original_price_desc}）` : ''}\n   ${g.link}${g.description ? `\n   ${g.description}` : ''}`)
        .join('\n\n')}\n`,
  },
  example: '/v2/apis/free-games?encoding=text',
});
