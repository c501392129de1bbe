/** Escaping helpers shared by the renderers (and by sources that write their own html/markdown). */

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Escape text for inline markdown (link texts, table cells). */
export function escapeMarkdown(s: string): string {
  return s.replace(/\r?\n/g, ' ').replace(/([\\`*_[\]|<>#])/g, '\\$1');
}

/**
 * The one rule for every URL an encoding writes (an html href or src, a markdown link, an RSS link
 * or enclosure, a redirect): only absolute http(s) URLs. Upstream data is not ours: a
 * `javascript:`, `data:` or `file:` URL in it must not reach a reader's browser or feed reader.
 */
export function safeUrl(url: string | null | undefined): string | undefined {
  if (!url || !/^https?:\/\//i.test(url)) return undefined;
  return URL.canParse(url) ? url : undefined;
}

/** A URL inside a markdown link target: the safe URL, brackets and spaces encoded; empty when unsafe. */
export function markdownUrl(url: string | null | undefined): string {
  // encodeURIComponent leaves brackets alone, and a `)` would end the link target.
  return (safeUrl(url) ?? '').replace(/[()\s]/g, (c) => (c === '(' ? '%28' : c === ')' ? '%29' : encodeURIComponent(c)));
}

/** A URL inside an html attribute (href, src): the safe URL, escaped; empty when unsafe. */
export function htmlUrl(url: string | null | undefined): string {
  return escapeHtml(safeUrl(url) ?? '');
}
