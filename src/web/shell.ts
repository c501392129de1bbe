/**
 * The one page shell of the browser pages: document head, viewport, the shared stylesheet, the
 * site bar (with the service's notice, e.g. that the data is a demo's) and the landmarks: the
 * page's content in <main>, its <footer> last. Pages with a part of their own in the stylesheet
 * (status, console, docs) name it as their `kind`. The encoding layer's `encoding=html` answers and
 * the pages of src/web are all wrapped by it.
 */
import { escapeHtml } from '../encoding/escape.ts';
import { PAGE_CSS, PAGE_KIND_CSS, type PageKind } from './styles.ts';

let notice: string | undefined;

/** The line every page shows under the site bar (SITE_NOTICE); set once when the service starts. */
export function setSiteNotice(text: string | undefined): void {
  notice = text?.trim() || undefined;
}

export function siteNotice(): string | undefined {
  return notice;
}

const SITE_BAR = `<a class="home" href="/">热榜首页</a><a href="/v2/apis/trending?encoding=html">全网热点</a><a href="/status">状态</a><a href="/docs">接口文档</a>`;

/** What a page adds to the shell: its own rules of the stylesheet, head lines, scripts, and its content's language. */
export interface PageOptions {
  /** The page's part of the shared stylesheet (styles.ts), its content wrapped in `<main class="kind">`. */
  kind?: PageKind;
  /** The language of the page's content when it is not Chinese (the shell's site bar is). */
  lang?: string;
  /** Extra lines of the head (e.g. `<meta http-equiv="refresh">`, a package's stylesheet). */
  head?: string;
  /** Scripts after the content (the docs page's Swagger UI; the other pages have none). */
  scripts?: string;
  /** The content brings its own `<main>` (Swagger UI's): the shell wraps it in a `<div>`, so the page keeps one main landmark. */
  ownMain?: boolean;
}

/** A whole page: `body` is the page's already-escaped content, `footer` (already escaped) closes it. */
export function htmlPage(title: string, body: string, footer?: string, options: PageOptions = {}): string {
  const mainAttrs = `${options.kind ? ` class="${options.kind}"` : ''}${options.lang ? ` lang="${escapeHtml(options.lang)}"` : ''}`;
  const wrapper = options.ownMain ? 'div' : 'main';
  const footerAttrs = options.lang ? ` lang="${escapeHtml(options.lang)}"` : '';
  return `<!doctype html>
<html lang="zh-CN">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${options.head ? `${options.head}\n` : ''}<title>${escapeHtml(title)}</title>
<style>
${PAGE_CSS}${options.kind ? `\n${PAGE_KIND_CSS[options.kind]}` : ''}
</style>
</head>
<body>
<header class="site"><nav aria-label="站点">${SITE_BAR}</nav>${notice ? `<p class="notice" role="note">${escapeHtml(notice)}</p>` : ''}</header>
<${wrapper}${mainAttrs}>
${body}
</${wrapper}>
${footer === undefined ? '' : `<footer${footerAttrs}>${footer}</footer>\n`}${options.scripts ? `${options.scripts}\n` : ''}</body>
</html>
`;
}
