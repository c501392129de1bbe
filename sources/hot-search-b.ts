/**
 * Real-time hot items of the search app's news feed (夸克热点), from the iflow aggregation API
 * https://iflow.quark.cn/iflow/api/v1/article/aggregation. The aggregation id is a magic
 * constant of the app's hot channel. `content` is HTML with `<!--{img:N}-->` placeholders;
 * `summary` often ends with a "查看详情>>" style teaser; `publish_time` is in ms.
 */
import { formatSixtyDateTime } from '../src/kernel/time.ts';
import { defineHotList, parseDeclared, type DeclaredItem, type JsonList } from './_shared/declared-list.ts';
import { absoluteUrl, asArray, asNumber, asRecord, asString, epochMs, missing } from './_shared/hot-list.ts';

export const UPSTREAM_URL = 'https://iflow.quark.cn/iflow/api/v1/article/aggregation';
export const AGGREGATION_ID = '16665090098771297825';

export interface HotSearchImage {
  url: string;
  width: number;
  height: number;
  type: string;
  /** Caption, left out when the image has none. */
  description?: string;
}

export interface HotSearchItem extends DeclaredItem {
  id: string;
  /** The first thumbnail or image; '' when the item has none. */
  cover: string;
  summary: string;
  /** Plain text of the article body. */
  content: string;
  /** Publisher name. */
  source: string;
  images: HotSearchImage[];
  category: string[];
  tags: string[];
  like_count: number;
  share_count: number;
  comment_count: number;
  /** Publication time; null when the upstream does not say. */
  published: string | null;
  published_at: number | null;
}

const ENTITIES: Record<string, string> = { nbsp: ' ', lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", '#39': "'" };

/** Plain text from the article HTML: no tags, no media placeholders, entities decoded, spaces collapsed. */
export function plainText(html: string): string {
  return html
    .replace(/<!--\{(?:img|video):\d+\}-->/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(nbsp|lt|gt|amp|quot|apos|#39);/g, (_, e: string) => ENTITIES[e] ?? '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Drop the trailing "查看详情>>" / "查看更多" teaser of a summary. */
export function cleanSummary(s: string): string {
  return s
    .replace(/[，；,;。]?\s*(?:查看)?(?:更多|详情)\s*(?:>>|》》|>)?\s*$/, '。')
    .replace(/>>\s*$/, '')
    .trim();
}

function strings(v: unknown): string[] {
  return (asArray(v) ?? []).map((x) => asString(x)?.trim() ?? '').filter(Boolean);
}

function images(v: unknown): HotSearchImage[] {
  const out: HotSearchImage[] = [];
  for (const entry of asArray(v) ?? []) {
    const i = asRecord(entry);
    const url = absoluteUrl(i?.url, 'https://iflow.quark.cn/');
    if (!i || !url) continue;
    const description = asString(i.description)?.trim();
    out.push({ url, width: asNumber(i.width) ?? 0, height: asNumber(i.height) ?? 0, type: asString(i.type) || 'jpg', ...(description ? { description } : {}) });
  }
  return out;
}

export const list: JsonList = {
  id: 'hot-search-b',
  name: '夸克热点',
  description: 'Real-time hot items of the search app, updated around the clock: title, summary, text, source, cover, images, categories, tags, counts and publication time.',
  homepage: 'https://quark.sm.cn/',
  path: '/hot-search-b',
  trending: {},
  pace: 'hot',
  request: { url: UPSTREAM_URL, searchParams: { aggregation_id: AGGREGATION_ID, count: 50, bottom_pos: 0 } },
    refused: (root) => {
    const status = asNumber(root.status) ?? asNumber(root.code);
    return status !== undefined && status !== 0 ? `upstream answered status=${status} ${asString(root.message) ?? ''}`.trim() : undefined;
  },
  items: ['data', 'articles'],
  item: (a) => {
    const id = asString(a.id)?.trim();
    if (!id) return undefined;
    const imgs = images(a.images);
    const publishedAt = epochMs(a.publish_time) ?? null;
    return {
      id,
      title: a.title,
      link: `https://123.quark.cn/detail?item_id=${encodeURIComponent(id)}`,
      extra: {
        cover: images(a.thumbnails)[0]?.url ?? imgs[0]?.url ?? '',
        summary: cleanSummary(asString(a.summary) ?? ''),
        content: plainText(asString(a.content) ?? ''),
        source: asString(a.source_name)?.trim() || asString(a.origin_src_name)?.trim() || '',
        images: imgs,
        category: strings(a.category),
        tags: strings(a.tags),
        like_count: asNumber(a.article_like_cnt) ?? 0,
        share_count: asNumber(a.share_cnt) ?? 0,
        comment_count: asNumber(a.cmt_cnt) ?? 0,
        published: publishedAt === null ? null : formatSixtyDateTime(publishedAt),
        published_at: publishedAt,
      },
    };
  },
  upgrade: {
    fill: (i) => ({
      ...missing(i, { cover: '', published: null, published_at: null }),
      // An image without a caption leaves the field out (it was null).
      ...(Array.isArray(i.images) ? { images: i.images.map((img: Record<string, unknown>) => (img.description === null ? Object.fromEntries(Object.entries(img).filter(([k]) => k !== 'description')) : img)) } : {}),
    }),
  },
  view: { hot: (i: HotSearchItem) => i.source || undefined, summary: (i: HotSearchItem) => i.summary || undefined, columns: { title: '热点', hot: '来源' } },
};

export const parse = (raw: unknown) => parseDeclared(list, raw) as HotSearchItem[];

export default defineHotList(list);
