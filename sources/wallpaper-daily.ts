/**
 * Bing's daily wallpaper for the China market. The home page (global.bing.com/?setmkt=zh-cn)
 * embeds the day's story as `var _model = {…};` in a script: `MediaContents[0].ImageContent`
 * holds title, headline, description, quick fact and the wallpaper path; `FullDateString`
 * ("2026 11月 21") is the local day it is shown. When the page cannot be read (markup change,
 * regional redirect), the HPImageArchive JSON API is used instead; its `fullstartdate` is in
 * UTC (16:00 UTC = midnight in Beijing). The archive also serves the last 8 days (`idx`).
 */
import { SourceError } from '../src/kernel/errors.ts';
import { missingPath } from '../src/kernel/json-path.ts';
import { escapeHtml, escapeMarkdown, markdownUrl, htmlUrl } from '../src/encoding/escape.ts';
import { defineSource, type Row } from '../src/kernel/source.ts';
import { addDays, DAY_MS, formatDate, formatDateTime, shanghaiMidnight } from '../src/kernel/time.ts';
import { assignedJson } from './_shared/embedded-json.ts';
import { absoluteUrl, asArray, asRecord, asString, pick } from './_shared/hot-list.ts';

export const PAGE_URL = 'https://global.bing.com/?setmkt=zh-cn';
export const archiveUrl = (idx: number) => `https://global.bing.com/HPImageArchive.aspx?format=js&idx=${idx}&n=1&setmkt=zh-cn`;
const BING = 'https://www.bing.com';
/** The archive reaches this many days back (idx 0–7). */
const ARCHIVE_DAYS = 8;

export interface Wallpaper {
  /** Day the wallpaper is shown (Asia/Shanghai). */
  date: string;
  title: string;
  headline: string;
  description: string;
  main_text: string;
  copyright: string;
  /** 1920×1080 JPEG. */
  cover: string;
  /** Full-resolution (UHD) JPEG. */
  cover_4k: string;
  /** Bing search page about the picture. */
  link: string;
  /** `page` (the home page story) or `archive` (the HPImageArchive API). */
  source: 'page' | 'archive';
  /** When we read it (60s's `update_date`); `updated` is the same. */
  update_date: string;
  update_date_at: number;
  updated: string;
  updated_at: number;
}

/** `OHR.Name_ZH-CN123` from a `/th?id=OHR.Name_ZH-CN123_1920x1080.jpg&…` path or an `urlbase`. */
function imageBase(pathOrBase: string): string | undefined {
  const id = pathOrBase.startsWith('/th?') ? new URL(pathOrBase, BING).searchParams.get('id') : /[?&]id=([^&]+)/.exec(pathOrBase)?.[1];
  const base = id?.replace(/_(?:\d+x\d+|UHD)\.(?:jpg|jpeg|png|webp)$/i, '');
  return base && /^[\w.-]+$/.test(base) ? base : undefined;
}

function images(base: string): { cover: string; cover_4k: string } {
  return { cover: `${BING}/th?id=${base}_1920x1080.jpg`, cover_4k: `${BING}/th?id=${base}_UHD.jpg` };
}

/** "202209201600" (UTC) or "20211120_1600" → the Beijing day it starts. */
function dayFromUtcStamp(stamp: string | undefined): string | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})_?(\d{2})(\d{2})$/.exec(stamp ?? '');
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:00Z`);
  return Number.isNaN(ms) ? undefined : formatDate(ms);
}

/** The home page's `_model` story. */
export function parsePage(html: string, now: Date): Wallpaper {
  const model = assignedJson(html, 'var _model');
  if (!model) throw new SourceError('parse', 'the page has no readable `var _model = {…}`');
  const media = asRecord(asArray(asRecord(model)?.MediaContents)?.[0]);
  const content = asRecord(media?.ImageContent);
  const wallpaper = asString(pick(content, 'Image', 'Wallpaper')) ?? asString(pick(content, 'Image', 'Url'));
  const base = wallpaper ? imageBase(wallpaper) : undefined;
  const title = asString(content?.Title)?.trim();
  if (!content || !base || !title) throw missingPath(model, !content ? 'MediaContents[0].ImageContent' : !title ? 'MediaContents[0].ImageContent.Title' : 'MediaContents[0].ImageContent.Image.Wallpaper', 'in `var _model`');
  const full = /^(\d{4})\s+(\d{1,2})月\s*(\d{1,2})/.exec(asString(media?.FullDateString) ?? '');
  const date = full ? `${full[1]}-${full[2]!.padStart(2, '0')}-${full[3]!.padStart(2, '0')}` : (dayFromUtcStamp(asString(media?.Ssd)) ?? formatDate(now.getTime()));
  const at = now.getTime();
  return {
    date,
    title,
    headline: asString(content.Headline)?.trim() ?? '',
    description: asString(content.Description)?.trim() ?? '',
    main_text: asString(pick(content, 'QuickFact', 'MainText'))?.trim() ?? '',
    copyright: asString(content.Copyright)?.trim() ?? '',
    ...images(base),
    link: absoluteUrl(content.BackstageUrl, BING) ?? `${BING}/search?q=${encodeURIComponent(title)}`,
    source: 'page',
    update_date: formatDateTime(at),
    update_date_at: at,
    updated: formatDateTime(at),
    updated_at: at,
  };
}

/** The first image of an HPImageArchive answer. */
export function parseArchive(raw: unknown, now: Date): Wallpaper {
  const img = asRecord(asArray(asRecord(raw)?.images)?.[0]);
  const base = imageBase(asString(img?.urlbase) ?? asString(img?.url) ?? '');
  const title = asString(img?.title)?.trim();
  if (!img || !base || !title) throw missingPath(raw, !img ? 'images[0]' : !title ? 'images[0].title' : 'images[0].urlbase', !img ? 'an object' : !title ? 'a title' : 'an image URL (urlbase or url)');
  const copyright = asString(img.copyright)?.trim() ?? '';
  // "赫努姆的茅草屋顶, 德国叙尔特岛 (© Photographer/Agency)": the caption, then the credit.
  const credit = /^(.*?)\s*[(（](©[^)）]*)[)）]\s*$/.exec(copyright);
  const enddate = /^(\d{4})(\d{2})(\d{2})$/.exec(asString(img.enddate) ?? '');
  const date = dayFromUtcStamp(asString(img.fullstartdate)) ?? (enddate ? `${enddate[1]}-${enddate[2]}-${enddate[3]}` : formatDate(now.getTime()));
  const at = now.getTime();
  return {
    date,
    title,
    headline: title,
    description: credit?.[1] ?? copyright,
    main_text: '',
    copyright: credit?.[2] ?? copyright,
    ...images(base),
    link: absoluteUrl(img.copyrightlink, BING) ?? `${BING}/search?q=${encodeURIComponent(title)}`,
    source: 'archive',
    update_date: formatDateTime(at),
    update_date_at: at,
    updated: formatDateTime(at),
    updated_at: at,
  };
}

/** A wallpaper stored before 60s's shape (release 271b638) lacks `update_date`: it is the read time, `updated`. Today's data passes unchanged. */
export function migrate(stored: unknown): Wallpaper | undefined {
  const d = asRecord(stored);
  if (!d || 'update_date' in d) return d as Wallpaper | undefined;
  const { updated, updated_at, ...rest } = d;
  return { ...rest, update_date: updated, update_date_at: updated_at, updated, updated_at } as unknown as Wallpaper;
}

export function validateWallpaper(d: Wallpaper): string | undefined {
  if (!d.title) return 'no title';
  if (!/^https:\/\/www\.bing\.com\/th\?id=/.test(d.cover)) return `implausible cover ${d.cover}`;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(d.date)) return `implausible date ${d.date}`;
  return undefined;
}

function caption(d: Wallpaper): string {
  return `必应每日壁纸（${d.date}）`;
}

function storyHtml(d: Wallpaper): string {
  return [
    `<p><img src="${htmlUrl(d.cover)}" alt="${escapeHtml(d.title)}"></p>`,
    `<h2>${escapeHtml(d.title)}</h2>`,
    d.headline && d.headline !== d.title ? `<p><strong>${escapeHtml(d.headline)}</strong></p>` : '',
    d.description ? `<p>${escapeHtml(d.description)}</p>` : '',
    d.main_text ? `<blockquote>${escapeHtml(d.main_text)}</blockquote>` : '',
    `<p class="s">${escapeHtml(d.copyright)} · <a href="${htmlUrl(d.cover_4k)}">4K</a> · <a href="${htmlUrl(d.link)}">Bing</a></p>`,
  ]
    .filter(Boolean)
    .join('\n');
}

export default defineSource({
  id: 'wallpaper-daily',
  name: '必应每日壁纸',
  description: 'Bing\'s wallpaper of the day (China market): title, story, copyright, 1080p and 4K image links. `encoding=image` redirects to the picture, `image-proxy` streams it, `text` is the bare image URL (as 60s); `date` reads one of the last days.',
  homepage: 'https://cn.bing.com/',
  routes: [{ path: '/wallpaper-daily' }],
  params: {
    date: { type: 'date', doc: 'A past day (YYYY-MM-DD): from our history, or from Bing\'s archive for the last 8 days; today by default.', example: '2026-11-20' },
  },
  mode: 'scheduled',
  schedule: '*/30 * * * *',
  freshness: { ttlSec: 1800, backoffCapSec: 6 * 3600 },
  history: { key: (d) => d.date, param: 'date' },
  // Bing's archive (idx 1–7) holds the days before today.
  backfill: { days: ARCHIVE_DAYS - 1 },
  async fetch(ctx, params) {
    const today = formatDate(ctx.now().getTime());
    if (params.date && params.date !== today) {
      const idx = Math.round((shanghaiMidnight(today) - shanghaiMidnight(params.date)) / DAY_MS);
      if (idx < 0) throw new SourceError('bad_input', `Invalid parameter "date": ${params.date} is in the future.`);
      if (idx >= ARCHIVE_DAYS) throw new SourceError('not_found', `No wallpaper is stored for ${params.date}; Bing's archive reaches back to ${addDays(today, 1 - ARCHIVE_DAYS)} only.`);
      const d = parseArchive(await ctx.http.json(archiveUrl(idx), { signal: ctx.signal }), ctx.now());
      if (d.date !== params.date) throw new SourceError('not_found', `Bing's archive has no wallpaper for ${params.date} (found ${d.date}).`);
      return d;
    }
    try {
      return parsePage(await ctx.http.text(PAGE_URL, { signal: ctx.signal }), ctx.now());
    } catch (pageError) {
      ctx.log.warn({ err: (pageError as Error).message }, 'home page unreadable, using the archive');
      try {
        return parseArchive(await ctx.http.json(archiveUrl(0), { signal: ctx.signal }), ctx.now());
      } catch (archiveError) {
        throw archiveError instanceof SourceError && archiveError.kind !== 'parse' ? archiveError : pageError;
      }
    }
  },
  validate: validateWallpaper,
  migrate,
  count: () => 1,
  view: {
    title: caption,
    // 60s's text is the image URL alone, which scripts use as it is.
    text: (d) => d.cover,
    markdown: (d) => {
      const md = escapeMarkdown;
      return `# ${md(d.title)}\n\n${d.headline && d.headline !== d.title ? `## ${md(d.headline)}\n\n` : ''}![${md(d.title)}](${markdownUrl(d.cover)})\n\n${d.description ? `${md(d.description)}\n\n` : ''}${
        d.main_text ? `> ${md(d.main_text)}\n\n` : ''
      }_${md(d.copyright)}_ · [4K](${markdownUrl(d.cover_4k)}) · ${d.date}\n`;
    },
    htmlBody: storyHtml,
    imageUrl: (d) => d.cover,
    feedChannel: { title: '必应每日壁纸', description: '必应中国每天一张的首页壁纸：标题、图片背后的故事与版权信息，附 1080p 与 4K 原图链接。' },
    feedFromHistory: {
      days: 14,
      rows: (history): Row[] =>
        history.map(({ data: d }) => ({
          title: `${d.date} ${d.title}`,
          link: d.link,
          guid: `wallpaper-daily:${d.date}`,
          date: shanghaiMidnight(d.date),
          cover: d.cover,
          contentHtml: storyHtml(d),
        })),
    },
    encodings: ['json', 'text', 'markdown', 'html', 'image', 'image-proxy', 'rss'],
  },
  example: '/v2/apis/wallpaper-daily?encoding=image',
});
