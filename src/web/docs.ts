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
import { htmlPage } from './shell.ts';

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

const page = () =>
  htmlPage(
    'API documentation · apis-gateway',
    '<h1>API documentation</h1>\n<p class="links">Machine-readable: <a href="/openapi.json">/openapi.json</a> · Catalogue: <a href="/v2/apis">/v2/apis</a> · Status: <a href="/status">/status</a></p>\n<div id="swagger-ui"></div>',
    undefined,
    {
      kind: 'docs',
      ownMain: true,
      lang: 'en',
      head: '<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">\n<link rel="stylesheet" href="/docs/swagger-ui.css">',
      scripts: '<script src="/docs/swagger-ui-bundle.js"></script>\n<script src="/docs/swagger-ui-standalone-preset.js"></script>\n<script src="/docs/swagger-initializer.js"></script>',
    },
  );

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
