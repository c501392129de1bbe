/**
 * The OpenAPI 3.1 document: valid (checked by a JSON-schema validator of the OpenAPI spec),
 * complete (every route the app registers, every source route, every gateway route), and
 * faithful to the source registry (parameter types, defaults, ranges, enums, encodings).
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import type { Router } from '@koa/router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../sources/index.ts';
import { routes as gatewayRoutes } from '../../src/gateway/routes/index.ts';
import { categoryOf } from '../../src/http/categories.ts';
import { buildOpenApi, GATEWAY_ROUTES, gatewayRouteTemplate, openApiPath, type JsonObject } from '../../src/http/openapi.ts';
import { callerGives, createRegistry, paramEntries, supportedEncodings } from '../../src/kernel/registry.ts';
import { startService, type TestService } from '../support/service.ts';
import { ADMIN_TOKEN } from './support.ts';

const registry = createRegistry(sources);
const doc = buildOpenApi({ registry });
const paths = doc.paths as Record<string, Record<string, JsonObject>>;

type Param = { name: string; in: string; required: boolean; schema: JsonObject; description: string };
const params = (op: JsonObject | undefined) => ((op?.parameters ?? []) as Param[]);
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

async function validate(d: Record<string, unknown>) {
  const v = new Validator();
  const res = await v.validate(d);
  return { ...res, version: v.version };
}

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const res = await validate(clone(doc) as Record<string, unknown>);
    expect(res.errors).toBeUndefined();
    expect(res.valid).toBe(true);
    expect(res.version).toBe('3.1');
    expect(doc.openapi).toBe('3.1.0');
  });

  it('the validator does reject a broken copy (a parameter without `in`, a response without a description)', async () => {
    const broken = clone(doc) as { paths: Record<string, Record<string, { parameters?: Record<string, unknown>[]; responses: Record<string, Record<string, unknown>> }>> };
    const op = broken.paths['/v2/apis/qrcode']!.get!;
    delete op.parameters![0]!.in;
    expect((await validate(broken as unknown as Record<string, unknown>)).valid).toBe(false);
    const broken2 = clone(doc) as typeof broken;
    delete broken2.paths['/v2/apis/qrcode']!.get!.responses['200']!.description;
    expect((await validate(broken2 as unknown as Record<string, unknown>)).valid).toBe(false);
  });

  it('puts every source in a category of the interface spec (add new ids to src/http/categories.ts)', () => {
    expect(registry.sources.filter((s) => categoryOf(s) === 'Other').map((s) => s.id)).toEqual([]);
    const tags = (doc.tags as { name: string }[]).map((t) => t.name);
    expect(tags.slice(0, 4)).toEqual(['Periodic information', 'Hot lists and rankings', 'Utilities', 'Entertainment']);
  });

  it('has every route of every source, with GET (and POST where declared)', () => {
    for (const s of registry.sources) {
      for (const r of s.routes) {
        const p = paths[openApiPath(r)];
        expect(p?.get, `${s.id} ${r.path}`).toBeDefined();
        if (r.methods?.includes('POST')) expect(p?.post, `${s.id} POST ${r.path}`).toBeDefined();
      }
    }
    expect(paths['/v2/apis']?.get).toBeDefined();
  });

  it('describes each parameter: type, default, range, enum, required, description', () => {
    for (const s of registry.sources) {
      for (const r of s.routes) {
        const op = paths[openApiPath(r)]!.get;
        const byName = new Map(params(op).map((p) => [p.name, p]));
        for (const [name, spec] of paramEntries(s)) {
          if ((r.fixed && name in r.fixed) || !callerGives(spec) || (spec.in === 'path' && !r.path.includes(`:${name}`))) {
            expect(byName.has(name), `${s.id}.${name} is fixed, implicit or not in this route`).toBe(false);
            continue;
          }
          const p = byName.get(name);
          expect(p, `${s.id} ${r.path} ${name}`).toBeDefined();
          expect(p!.in).toBe(r.path.includes(`:${name}`) ? 'path' : 'query');
          expect(p!.required).toBe(r.path.includes(`:${name}`) || (spec.required ?? false));
          expect(p!.description).toContain(spec.doc);
          expect(p!.schema.type).toBe(spec.type === 'date' ? 'string' : spec.type);
          if (spec.default !== undefined) expect(p!.schema.default).toEqual(spec.default);
          if (spec.type === 'integer' || spec.type === 'number') {
            expect(p!.schema.minimum).toEqual(spec.min);
            expect(p!.schema.maximum).toEqual(spec.max);
          }
          if (spec.type === 'string' && spec.enum) expect(p!.schema.enum).toEqual([...spec.enum]);
          if (spec.type === 'date') expect(p!.schema.format).toBe('date');
        }
      }
    }
    // Spot checks against the interface spec.
    const qr = new Map(params(paths['/v2/apis/qrcode']!.get).map((p) => [p.name, p.schema]));
    expect(qr.get('size')).toMatchObject({ type: 'integer', default: 256 });
    expect(qr.get('level')).toMatchObject({ type: 'string', enum: ['L', 'M', 'Q', 'H'], default: 'M' });
  });

  it('lists the encodings of each route, and force-update for fetched sources only', () => {
    for (const s of registry.sources) {
      for (const r of s.routes) {
        const op = paths[openApiPath(r)]!.get!;
        const enc = params(op).find((p) => p.name === 'encoding');
        if (r.forceEncoding) expect(enc).toBeUndefined();
        else {
          expect(enc?.schema.enum, `${s.id} ${r.path}`).toEqual(supportedEncodings(s));
          expect(enc?.schema.default).toBe(s.view.defaultEncoding ?? 'json');
        }
        const force = params(op).find((p) => p.name === 'force-update');
        expect(!!force, `${s.id} force-update`).toBe(s.mode !== 'local');
        const responses = op.responses as Record<string, JsonObject>;
        for (const code of ['400', '404']) expect(JSON.stringify(responses[code]), `${s.id} ${code}`).toContain('#/components/schemas/ErrorEnvelope');
        if (s.mode !== 'local') expect(JSON.stringify(responses['503'])).toContain('ErrorEnvelope');
        if (supportedEncodings(s).includes('json') && !r.forceEncoding) expect(JSON.stringify(responses['200'])).toContain('#/components/schemas/SuccessEnvelope');
      }
    }
    const schemas = (doc.components as { schemas: Record<string, { properties: Record<string, JsonObject> }> }).schemas;
    expect(schemas.ErrorEnvelope!.properties.data).toEqual({ type: 'null' });
    expect(Object.keys(schemas.SuccessEnvelope!.properties)).toEqual(['code', 'message', 'data']);
  });

  it('has the gateway routes with the bearer scheme and the OpenAI error shape', () => {
    for (const p of ['/v1/chat/completions', '/v1beta/models/{model}:generateContent', '/v1beta/models/{model}:streamGenerateContent', '/v1/rerank', '/v1/images/edits']) {
      expect(paths[p]?.post, p).toBeDefined();
    }
    for (const p of ['/v1/music/tasks/{task_id}', '/v1/models', '/v1/dashboard/billing/subscription']) expect(paths[p]?.get, p).toBeDefined();
    const chat = paths['/v1/chat/completions']!.post!;
    expect(chat.security).toEqual([{ bearer: [] }]);
    expect(JSON.stringify((chat.responses as JsonObject)['401'])).toContain('#/components/schemas/OpenAIError');
    expect(JSON.stringify(paths['/v1/images/edits']!.post!.requestBody)).toContain('multipart/form-data');
    const schemes = (doc.components as { securitySchemes: Record<string, JsonObject> }).securitySchemes;
    expect(schemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('documents every route of the gateway table, and every documented gateway path is one the gateway serves', () => {
    const sampleOf = (template: string) => template.replace(/\{[^}]+\}/g, 'x1');
    for (const route of gatewayRoutes) {
      for (const method of route.methods) {
        const documented = GATEWAY_ROUTES.some((r) => r.method === method.toLowerCase() && route.pattern.test(sampleOf(r.path)));
        expect(documented, `${method} ${route.pattern} (${route.name}) in GATEWAY_ROUTES`).toBe(true);
      }
    }
    for (const r of GATEWAY_ROUTES) {
      const served = gatewayRoutes.some((g) => g.methods.includes(r.method.toUpperCase()) && g.pattern.test(sampleOf(r.path)));
      expect(served, `${r.method} ${r.path} is served`).toBe(true);
      expect(gatewayRouteTemplate(sampleOf(r.path))).toBeDefined();
    }
    expect(gatewayRouteTemplate('/v1/music/tasks/abc')).toBe('/v1/music/tasks/{task_id}');
    expect(gatewayRouteTemplate('/v1/nothing')).toBeUndefined();
  });
});

describe('OpenAPI over HTTP', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startService({ env: { CONSOLE_ADMIN_TOKEN: ADMIN_TOKEN } });
  });
  afterAll(async () => {
    await svc.close();
  });

  it('contains every route the app registers (routers introspected, console included)', () => {
    const registered: string[] = [];
    for (const mw of svc.app.middleware) {
      const router = (mw as { router?: Router }).router;
      if (!router) continue;
      for (const layer of router.stack) {
        if (!layer.methods.length || typeof layer.path !== 'string') continue;
        const p = layer.path.replace(/:(\w+)/g, '{$1}').replace(/(.)\/$/, '$1');
        for (const m of layer.methods) if (m !== 'HEAD') registered.push(`${m.toLowerCase()} ${p}`);
      }
    }
    expect(registered.length).toBeGreaterThan(registry.sources.length);
    const missing = registered.filter((r) => {
      const [method, p] = r.split(' ') as [string, string];
      return !paths[p]?.[method];
    });
    expect(missing).toEqual([]);
    for (const p of ['/status', '/metrics', '/docs', '/openapi.json', '/console', '/console/keys']) expect(registered.some((r) => r.endsWith(` ${p}`)), p).toBe(true);
  });

  it('GET /openapi.json serves the document; /docs is Swagger UI from local files only', async () => {
    const res = await svc.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(doc)));

    const page = await svc.get('/docs');
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(refs.length).toBeGreaterThan(3);
    for (const ref of refs) expect(ref.startsWith('/'), ref).toBe(true);
    for (const ref of refs.filter((r) => r.startsWith('/docs/'))) {
      const asset = await svc.get(ref);
      expect(asset.status, ref).toBe(200);
      expect((await asset.arrayBuffer()).byteLength, ref).toBeGreaterThan(100);
    }
    const init = await (await svc.get('/docs/swagger-initializer.js')).text();
    expect(init).toContain("url: '/openapi.json'");
    expect(init).toContain('validatorUrl: null');
    expect((await svc.get('/docs/package.json')).status).toBe(404);
    expect((await svc.get('/docs/..%2Fpackage.json')).status).toBe(404);
  });
});
