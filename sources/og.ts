/**
 * Link preview of any web page: Open Graph, Twitter card and plain HTML metadata (title,
 * description, image, site name, favicon, canonical URL). The URL is the caller's, so the
 * page is fetched as untrusted (src/kernel/http.ts): http(s) only, private/loopback/
 * link-local/CGNAT/unique-local/metadata addresses refused after DNS resolution and on every
 * redirect, HTML only, reading stops after </head> and at 2 MiB, 8 s at most.
 */
import { load } from './_shared/html.ts';
import { escapeHtml, escapeMarkdown, markdownUrl, htmlUrl } from '../src/encoding/escape.ts';
import { SourceError } from '../src/kernel/errors.ts';
import { defineSource } from '../src/kernel/source.ts';
import { formatDateTime } from '../src/kernel/time.ts';

export const MAX_BYTES = 2 * 1024 * 1024;
export const HTML_TYPES = ['text/html', 'application/xhtml+xml'] as const;

export interface OgData {
  /** Canonical URL of the page (og:url, link rel=canonical, else the URL fetched). */
  url: string;
  /** The URL the page was fetched from, after redirects. */
  fetched_url: string;
  title: string;
  /** Empty when the page has none (as in 60s). */
  description: string;
  /** Absolute URL of the preview image. */
  image: string;
  image_alt: string | null;
  site_name: string | null;
  /** Absolute URL of the site icon (`/favicon.ico` when the page names none). */
  favicon: string;
  type: string | null;
  locale: string | null;
  twitter_card: string | null;
  twitter_site: string | null;
  updated: string;
  updated_at: number;
}

/** The caller's URL: trimmed, `https://` added when no scheme is given. Other schemes stay, to be refused clearly. */
export function normalizeUrl(input: string): string {
  const v = input.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return v;
  if (v.startsWith('//')) return `https:${v}`;
  // "javascript:", "data:", "mailto:"… have no slashes; "example.com:8080/x" is a host with a port.
  if (/^[a-z][a-z0-9+.-]*:(?!\d+(?:[/?#]|$))/i.test(v)) return v;
  return `https://${v}`;
}

function badUrl(why: string): SourceError {
  return new SourceError('bad_input', `Invalid parameter "url": ${why}. Give the address of a public http or https web page, such as https://github.com/ (https:// is added when no scheme is given).`);
}

function absolute(value: string | undefined, base: string): string | null {
  const v = value?.trim();
  if (!v) return null;
  try {
    const u = new URL(v, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

function squash(text: string | undefined): string | null {
  const t = text?.replace(/\s+/g, ' ').trim();
  return t ? t : null;
}

/** Read the metadata of a page's HTML; `pageUrl` is where it was fetched from (after redirects). */
export function parse(html: string, pageUrl: string, now: Date): OgData {
  const $ = load(html);
  const meta = (...keys: string[]): string | null => {
    for (const key of keys) {
      const k = key.toLowerCase();
      const el = $('meta').filter((_, e) => {
        const attrs = e.attribs;
        return (attrs.property ?? attrs.name ?? attrs.itemprop ?? '').trim().toLowerCase() === k;
      });
      for (const e of el.toArray()) {
        const v = squash(e.attribs.content);
        if (v) return v;
      }
    }
    return null;
  };
  const base = absolute($('base[href]').first().attr('href'), pageUrl) ?? pageUrl;
  const host = new URL(pageUrl).host;
  const title = meta('og:title', 'twitter:title') ?? squash($('title').first().text()) ?? meta('title') ?? squash($('h1').first().text()) ?? host;
  const icon = $('link[rel]')
    .toArray()
    .map((e) => ({ rel: (e.attribs.rel ?? '').toLowerCase().split(/\s+/), href: e.attribs.href }))
    .sort((a, b) => Number(b.rel.includes('icon')) - Number(a.rel.includes('icon')))
    .find((l) => l.href && (l.rel.includes('icon') || l.rel.includes('apple-touch-icon')));
  const at = now.getTime();
  return {
    url: absolute(meta('og:url') ?? $('link[rel="canonical"]').first().attr('href'), base) ?? pageUrl,
    fetched_url: pageUrl,
    title,
    description: meta('og:description', 'twitter:description', 'description') ?? '',
    image: absolute(meta('og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src') ?? $('link[rel="image_src"]').first().attr('href'), base) ?? '',
    image_alt: meta('og:image:alt', 'twitter:image:alt'),
    site_name: meta('og:site_name', 'application-name', 'apple-mobile-web-app-title') ?? host,
    favicon: absolute(icon?.href, base) ?? new URL('/favicon.ico', pageUrl).href,
    type: meta('og:type'),
    locale: meta('og:locale'),
    twitter_card: meta('twitter:card'),
    twitter_site: meta('twitter:site'),
    updated: formatDateTime(at),
    updated_at: at,
  };
}

export default defineSource({
  id: 'og',
  name: '网页 Open Graph 信息',
  description: 'Link preview of a web page: title, description, image, site name, favicon and canonical URL from Open Graph, Twitter card and HTML metadata. Public http(s) pages only.',
  routes: [{ path: '/og', methods: ['GET', 'POST'] }],
  params: {
    url: { type: 'string', required: true, maxLength: 2048, doc: 'Page URL (http or https; https:// is added when no scheme is given).', example: 'https://github.com/' },
  },
  mode: 'on-demand',
  freshness: { ttlSec: 3600, timeoutMs: 20_000, backoffCapSec: 600 },
  maxKeys: 1000,
  concurrency: 4,
  headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5' },
  env: [{ name: 'SOURCE_OG_ALLOW_LOOPBACK', default: 'false', doc: 'Test-only: `true` lets og fetch loopback addresses (127.0.0.0/8, ::1, localhost); other private ranges stay refused' }],
  async fetch(ctx, p) {
    const allowLoopback = /^(1|true|yes|on)$/i.test(ctx.env('SOURCE_OG_ALLOW_LOOPBACK') ?? '');
    const url = normalizeUrl(p.url);
    let res;
    try {
      res = await ctx.http.request(url, {
        untrusted: { allowLoopback, acceptTypes: HTML_TYPES, stopAfter: '</head>', maxRedirects: 5 },
        maxBytes: MAX_BYTES,
        allowStatus: [404, 410],
        signal: ctx.signal,
      });
    } catch (err) {
      // The client's refusals (scheme, private address, unresolvable host) are about this parameter.
      if (err instanceof SourceError && err.kind === 'bad_input') throw badUrl(err.message);
      throw err;
    }
    if (res.status === 404 || res.status === 410) throw new SourceError('not_found', `the page ${res.url} does not exist (HTTP ${res.status})`);
    return parse(res.text(), res.url, ctx.now());
  },
  // Stored before 60s's shape (release 271b638), a missing description or image was null.
  migrate: (stored: unknown) => {
    const d = stored as OgData | null;
    if (!d || typeof d !== 'object' || (d.description !== null && d.image !== null)) return d ?? undefined;
    return { ...d, description: d.description ?? '', image: d.image ?? '' };
  },
  validate(d: OgData) {
    if (!d.title) return 'no title';
    if (!/^https?:\/\//.test(d.url)) return 'no absolute URL';
    return undefined;
  },
  count: () => 1,
  view: {
    title: (d: OgData) => d.title,
    text: (d) => `标题：${d.title}\n${d.description ? `描述：${d.description}\n` : ''}${d.image ? `图片：${d.image}\n` : ''}链接：${d.url}\n`,
    markdown(d) {
      const title = escapeMarkdown(d.title);
      const lines = [`# [${title}](${markdownUrl(d.url)})`, ''];
      if (d.description) lines.push(`> ${escapeMarkdown(d.description)}`, '');
      if (d.image) lines.push(`![${d.image_alt ? escapeMarkdown(d.image_alt) : title}](${markdownUrl(d.image)})`, '');
      lines.push(`- 站点：${escapeMarkdown(d.site_name ?? new URL(d.url).host)}`, `- 图标：${markdownUrl(d.favicon)}`);
      return `${lines.join('\n')}\n`;
    },
    htmlBody(d) {
      const site = `<img src="${htmlUrl(d.favicon)}" alt="" width="20" height="20" referrerpolicy="no-referrer"> <a href="${htmlUrl(d.url)}" rel="noopener noreferrer nofollow">${escapeHtml(d.site_name ?? new URL(d.url).host)}</a>`;
      const parts = [`<p class="s">${site}</p>`];
      if (d.description) parts.push(`<p>${escapeHtml(d.description)}</p>`);
      if (d.image) parts.push(`<p><img src="${htmlUrl(d.image)}" alt="${escapeHtml(d.image_alt ?? d.title)}" referrerpolicy="no-referrer"></p>`);
      return parts.join('\n');
    },
  },
  example: '/v2/apis/og?url=https://github.com/',
});
