/** Escaping helpers shared by the renderers (and by sources that write their own html/markdown). */

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Escape text for inline markdown (link texts, table cells). */
export function escapeMarkdown(s: string): string {
  return s.replace(/\r?\n/g, ' ').replace(/([\\`*_[\]|<>#])/g, '\\$1');
}

/** A URL usable inside a markdown link target. */
export function markdownUrl(url: string): string {
  return url.replace(/[()\s]/g, (c) => encodeURIComponent(c));
}

/** Only http(s) URLs are put into href/src attributes. */
export function safeUrl(url: string | undefined): string | undefined {
  return url && /^https?:\/\//i.test(url) ? url : undefined;
}
