/**
 * The one page shell of the browser pages: document head, viewport and the shared stylesheet.
 * The encoding layer's `encoding=html` answers and the pages of src/web are all wrapped by it.
 */
import { escapeHtml } from '../encoding/escape.ts';
import { PAGE_CSS } from './styles.ts';

export function htmlPage(title: string, body: string): string {
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
${body}
</body>
</html>
`;
}
