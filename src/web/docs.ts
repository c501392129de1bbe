/**
 * GET /openapi.json (the generated OpenAPI 3.1 document) and GET /docs, a Swagger UI page served
 * from the swagger-ui-dist package files: no CDN, so the docs work offline.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Router } from '@koa/router';
import type { Registry } from '../kernel/registry.ts';
import { buildOpenApi } from '../http/openapi.ts';
import type { AppState } from '../http/middleware.ts';
import { noticeLine } from './shell.ts';

const ASSET_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The only package files served, with their types. */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** Our own initializer (the package's one points at a petstore URL on the internet). */
const INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    docExpansion: 'none',
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'BaseLayout'
  });
});
`;

const page = () => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API documentation · apis-gateway</title>
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
<link rel="stylesheet" href="/docs/swagger-ui.css">
<style>body{margin:0} .topnote{font:14px system-ui,sans-serif;padding:8px 20px;background:#1b1b1b;color:#eee} .topnote a{color:#9cf}</style>
</head>
<body>
<div class="topnote">${noticeLine()}Machine-readable: <a href="/openapi.json">/openapi.json</a> · Catalogue: <a href="/v2/apis">/v2/apis</a> · Status: <a href="/status">/status</a></div>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/swagger-ui-standalone-preset.js"></script>
<script src="/docs/swagger-initializer.js"></script>
</body>
</html>
`;

export function createDocsRouter(deps: { registry: Registry }): Router<AppState> {
  const router = new Router<AppState>();
  let document: string | undefined;

  router.get('/openapi.json', (ctx) => {
    document ??= JSON.stringify(buildOpenApi({ registry: deps.registry }));
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = document;
  });

  router.get('/docs', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page();
  });

  router.get('/docs/:file', (ctx, next) => {
    const file = ctx.params.file ?? '';
    if (file === 'swagger-initializer.js') {
      ctx.type = 'application/javascript; charset=utf-8';
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = INITIALIZER;
      return;
    }
    const type = ASSETS[file];
    if (!type) return next();
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = fs.createReadStream(path.join(ASSET_DIR, file));
  });
  return router;
}
