/**
 * The one page shell of the browser pages: document head, viewport, the shared stylesheet, the
 * site bar (with the service's notice, e.g. that the data is a demo's) and the landmarks: the
 * page's content in <main>, its <footer> last. The encoding layer's `encoding=html` answers and
 * the pages of src/web are all wrapped by it.
 */
import { escapeHtml } from '../encoding/escape.ts';
import { PAGE_CSS } from './styles.ts';

let notice: string | undefined;

/** The line every page shows under the site bar (SITE_NOTICE); set once when the service starts. */
export function setSiteNotice(text: string | undefined): void {
  notice = text?.trim() || undefined;
}

export function siteNotice(): string | undefined {
  return notice;
}

/** The notice as a paragraph for pages with their own layout (status, console, docs); '' when unset. */
export function noticeLine(): string {
  return notice ? `<p class="site-notice" role="note" style="background:#fff8c5;color:#3b2e00;border:1px solid #d4a72c;border-radius:6px;padding:4px 10px;margin:6px 0">${escapeHtml(notice)}</p>` : '';
}

const SITE_BAR = `<a class="home" href="/">热榜首页</a><a href="/v2/apis/trending?encoding=html">全网热点</a><a href="/status">状态</a><a href="/docs">接口文档</a>`;

/** A whole page: `body` is the page's already-escaped content, `footer` (already escaped) closes it. */
export function htmlPage(title: string, body: string, footer?: string): string {
  return `<!doctype html>
<html lang="zh-CN">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
${PAGE_CSS}
</style>
</head>
<body>
<header class="site"><nav aria-label="站点">${SITE_BAR}</nav>${notice ? `<p class="notice" role="note">${escapeHtml(notice)}</p>` : ''}</header>
<main>
${body}
</main>
${footer === undefined ? '' : `<footer>${footer}</footer>\n`}</body>
</html>
`;
}
