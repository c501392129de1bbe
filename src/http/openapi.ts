/**
 * The OpenAPI 3.1 document, generated from the code: every `/v2/apis` route of the source
 * registry (path and query parameters with type, default, range, enum, required flag and
 * description; the route's `encoding` values; `force-update` for fetched sources; the envelope
 * and error envelope), the AI gateway routes (bearer keys, OpenAI- and Google-shaped errors) and
 * the service routes. Served at GET /openapi.json and browsed at /docs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describeAccepted } from '../kernel/params.ts';
import { callerGives, paramEntries, type Registry } from '../kernel/registry.ts';
import { PROJECT_ROOT } from '../kernel/project-root.ts';
import type { AnySource, Encoding, ParamSpec, RouteSpec } from '../kernel/source.ts';
import { ENCODING_PARAM, FORCE_PARAM, SERVICE_NAME, catalogueEntry } from './apis-router.ts';
import { CATEGORIES, categoryOf } from './categories.ts';

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

const PACKAGE_VERSION = (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

// --- gateway routes ---------------------------------------------------------------------------

export interface GatewayRoute {
  method: 'get' | 'post' | 'delete';
  /** OpenAPI path template. */
  path: string;
  summary: string;
  family: 'openai' | 'gemini' | 'anthropic';
  /** Forwarded as it is: the interface spec gives no request or response shape. */
  passThrough?: boolean;
}

/** The AI gateway routes (used by the document and as metric labels); the first eight are the spec's. */
export const GATEWAY_ROUTES: readonly GatewayRoute[] = [
  { method: 'post', path: '/v1/chat/completions', summary: 'Chat completion (OpenAI style), JSON or streamed (SSE)', family: 'openai' },
  { method: 'post', path: '/v1beta/models/{model}:generateContent', summary: 'Content generation (Gemini style)', family: 'gemini' },
  { method: 'post', path: '/v1beta/models/{model}:streamGenerateContent', summary: 'Content generation (Gemini style), streamed', family: 'gemini' },
  { method: 'post', path: '/v1/rerank', summary: 'Rerank documents against a query', family: 'openai' },
  { method: 'post', path: '/v1/responses', summary: 'Create a response (OpenAI Responses), JSON or streamed (SSE); translated when the upstream speaks another style', family: 'openai', passThrough: true },
  { method: 'get', path: '/v1/responses/{response_id}', summary: 'A stored response, from the upstream that created it', family: 'openai', passThrough: true },
  { method: 'delete', path: '/v1/responses/{response_id}', summary: 'Delete a stored response on the upstream that created it', family: 'openai', passThrough: true },
  { method: 'get', path: '/v1/responses/{response_id}/input_items', summary: 'The input items of a stored response', family: 'openai', passThrough: true },
  { method: 'post', path: '/v1/responses/{response_id}/cancel', summary: 'Cancel a background response', family: 'openai', passThrough: true },
  { method: 'post', path: '/v1/completions', summary: 'Text completion (legacy OpenAI completions)', family: 'openai', passThrough: true },
  { method: 'post', path: '/v1/moderations', summary: 'Moderation', family: 'openai', passThrough: true },
  { method: 'post', path: '/v1/messages', summary: 'Messages (Anthropic style), JSON or streamed (SSE); key also from x-api-key', family: 'anthropic', passThrough: true },
  { method: 'post', path: '/v1/messages/count_tokens', summary: 'Count the tokens of a Messages request (Anthropic style)', family: 'anthropic', passThrough: true },
  { method: 'post', path: '/v1beta/models/{model}:countTokens', summary: 'Count tokens (Gemini style)', family: 'gemini', passThrough: true },
  { method: 'post', path: '/v1beta/models/{model}:embedContent', summary: 'Embed one content (Gemini style)', family: 'gemini', passThrough: true },
  { method: 'post', path: '/v1beta/models/{model}:batchEmbedContents', summary: 'Embed several contents (Gemini style)', family: 'gemini', passThrough: true },
  { method: 'get', path: '/v1beta/models', summary: 'Models this key may use (Gemini style)', family: 'gemini', passThrough: true },
  { method: 'get', path: '/v1beta/models/{model}', summary: 'One model, if this key may use it (Gemini style)', family: 'gemini', passThrough: true },
  { method: 'post', path: '/v1/images/edits', summary: 'Edit an uploaded image according to a prompt', family: 'openai' },
  { method: 'get', path: '/v1/music/tasks/{task_id}', summary: 'Progress and result of a music task', family: 'openai' },
  { method: 'get', path: '/v1/models', summary: 'Models this key may use (also checks a key); Anthropic\'s layout for a request with anthropic-version', family: 'openai' },
  { method: 'get', path: '/v1/dashboard/billing/subscription', summary: 'Quota and expiry of the calling key', family: 'openai' },
  { method: 'get', path: '/v1/models/{model}', summary: 'One model, if this key may use it', family: 'openai', passThrough: true },
  { method: 'get', path: '/v1/dashboard/billing/usage', summary: 'Usage of the calling key', family: 'openai', passThrough: true },
  { method: 'post', path: '/v1/music/generations', summary: 'Create a music task (its id is then queried at /v1/music/tasks/{task_id})', family: 'openai', passThrough: true },
  { method: 'post', path: '/v1/images/generations', summary: 'Text-to-image generation', family: 'openai', passThrough: true },
  { method: 'post', path: '/v1/images/variations', summary: 'Image generation from reference images', family: 'openai', passThrough: true },
  { method: 'post', path: '/v1/audio/speech', summary: 'Text to speech', family: 'openai', passThrough: true },
  { method: 'post', path: '/v1/audio/transcriptions', summary: 'Speech recognition', family: 'openai', passThrough: true },
  { method: 'post', path: '/v1/audio/translations', summary: 'Speech translation', family: 'openai', passThrough: true },
  { method: 'get', path: '/v1/audio/voices', summary: 'List voices', family: 'openai', passThrough: true },
  { method: 'post', path: '/v1/audio/voices', summary: 'Clone a voice', family: 'openai', passThrough: true },
  { method: 'delete', path: '/v1/audio/voices/{voice_id}', summary: 'Delete a cloned voice', family: 'openai', passThrough: true },
  { method: 'post', path: '/v1/embeddings', summary: 'Embeddings', family: 'openai', passThrough: true },
  { method: 'post', path: '/v1/videos', summary: 'Create a video generation task', family: 'openai', passThrough: true },
  { method: 'get', path: '/v1/videos/{video_id}', summary: 'Progress and result of a video task', family: 'openai', passThrough: true },
  { method: 'delete', path: '/v1/videos/{video_id}', summary: 'Delete a video task', family: 'openai', passThrough: true },
];

const GATEWAY_PATTERNS = GATEWAY_ROUTES.map((r) => ({
  template: r.path,
  re: new RegExp(`^${r.path.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** The template of a gateway path (`/v1/music/tasks/abc` → `/v1/music/tasks/{task_id}`), if it is one. */
export function gatewayRouteTemplate(p: string): string | undefined {
  return GATEWAY_PATTERNS.find((x) => x.re.test(p))?.template;
}

// --- service routes ---------------------------------------------------------------------------

export interface ServiceRoute {
  method: 'get' | 'post';
  path: string;
  summary: string;
  type: string;
  tag: 'Service' | 'Operations';
}

/** Routes outside /v2/apis and the gateway, as registered by the meta, docs, status, metrics and console routers. */
export const SERVICE_ROUTES: readonly ServiceRoute[] = [
  { method: 'get', path: '/', summary: 'Service index: links to the catalogue, status and health', type: 'application/json', tag: 'Service' },
  { method: 'get', path: '/healthz', summary: 'Readiness probe: 200 while the data store answers, 503 with Retry-After while it is unreachable', type: 'application/json', tag: 'Service' },
  { method: 'get', path: '/livez', summary: 'Liveness probe: 200 while the process serves requests, whatever the data store', type: 'application/json', tag: 'Service' },
  { method: 'get', path: '/health', summary: "60s's health route: the bare word ok", type: 'text/plain', tag: 'Service' },
  { method: 'get', path: '/endpoints', summary: "60s's path list: every path served (60s's /v2 paths, then ours under /v2/apis)", type: 'application/json', tag: 'Service' },
  { method: 'get', path: '/v2/status', summary: 'Freshness of every source (JSON)', type: 'application/json', tag: 'Service' },
  { method: 'get', path: '/dailyhot/all', summary: 'DailyHotApi drop-in: its route names served here (`{code, count, routes: [{name, path}]}`)', type: 'application/json', tag: 'Service' },
  {
    method: 'get',
    path: '/dailyhot/{name}',
    summary: "DailyHotApi drop-in: one list in its shape (`{code, name, title, type, link, total, updateTime, fromCache, data: [{id, title, hot, timestamp, url, mobileUrl, …}]}`); query `limit`, `cache=false`, `rss=true`, `type` and a route's own options (`month`, `day` of `history`, `game` of `miyoushe`, `province` of `weatheralarm`)",
    type: 'application/json',
    tag: 'Service',
  },
  { method: 'get', path: '/status', summary: 'Status page: every source at a glance, gateway counts (HTML)', type: 'text/html', tag: 'Operations' },
  { method: 'get', path: '/metrics', summary: 'Prometheus metrics (text exposition format)', type: 'text/plain', tag: 'Operations' },
  { method: 'get', path: '/openapi.json', summary: 'This document', type: 'application/json', tag: 'Operations' },
  { method: 'get', path: '/docs', summary: 'Browsable API documentation (Swagger UI, served locally)', type: 'text/html', tag: 'Operations' },
  { method: 'get', path: '/docs/{file}', summary: 'Swagger UI assets', type: 'application/octet-stream', tag: 'Operations' },
  { method: 'get', path: '/console', summary: 'Key console (needs CONSOLE_ADMIN_TOKEN): login form, or the keys with their usage', type: 'text/html', tag: 'Operations' },
  { method: 'post', path: '/console/login', summary: 'Console login with the admin token (form field `token`)', type: 'text/html', tag: 'Operations' },
  { method: 'post', path: '/console/logout', summary: 'Console logout', type: 'text/html', tag: 'Operations' },
  { method: 'post', path: '/console/keys', summary: 'Create a gateway key; the key is shown once', type: 'text/html', tag: 'Operations' },
  { method: 'post', path: '/console/keys/{id}/revoke', summary: 'Revoke a gateway key', type: 'text/html', tag: 'Operations' },
  { method: 'post', path: '/console/keys/{id}/edit', summary: 'Edit a gateway key: name, level, quota, budget, models, IPs, expiry', type: 'text/html', tag: 'Operations' },
  { method: 'post', path: '/console/keys/{id}/topup', summary: 'Add credit (USD) to a gateway key', type: 'text/html', tag: 'Operations' },
  { method: 'post', path: '/console/upstreams/probe', summary: 'Probe every AI upstream now (health state on /v2/status)', type: 'text/html', tag: 'Operations' },
];

// --- /v2/apis ---------------------------------------------------------------------------------

/** `/music-rank/:id` → `/v2/apis/music-rank/{id}` */
export function openApiPath(route: RouteSpec): string {
  return `/v2/apis${route.path.replace(/:(\w+)/g, '{$1}')}`;
}

function paramSchema(spec: ParamSpec): JsonObject {
  switch (spec.type) {
    case 'string':
      return {
        type: 'string',
        ...(spec.enum ? { enum: [...spec.enum] } : {}),
        ...(spec.default !== undefined ? { default: spec.default } : {}),
        maxLength: spec.maxLength ?? 2048,
      };
    case 'integer':
    case 'number':
      return {
        type: spec.type,
        ...(spec.min !== undefined ? { minimum: spec.min } : {}),
        ...(spec.max !== undefined ? { maximum: spec.max } : {}),
        ...(spec.default !== undefined ? { default: spec.default } : {}),
      };
    case 'boolean':
      return { type: 'boolean', ...(spec.default !== undefined ? { default: spec.default } : {}) };
    case 'date':
      return { type: 'string', format: 'date', ...(spec.default !== undefined ? { default: spec.default } : {}) };
  }
}

const MEDIA: Record<Encoding, string> = {
  json: 'application/json',
  text: 'text/plain',
  markdown: 'text/markdown',
  html: 'text/html',
  rss: 'application/rss+xml',
  image: 'image/*',
  'image-proxy': 'image/*',
  audio: 'audio/*',
  'audio-proxy': 'audio/*',
};

/** One line per encoding, for the docs page, the OpenAPI descriptions and the README. */
export const ENCODING_DOCS: Readonly<Record<Encoding, string>> = {
  json: 'The envelope `{"code":200,"message":"success","data":…}` (`application/json`), `data` an object or, for the lists 60s answers so, an array; errors use the same shape with the real HTTP status in `code` and `data: null`.',
  text: 'Plain text (`text/plain; charset=utf-8`): numbered rows or the endpoint\'s own layout, with the update time.',
  markdown: 'Markdown (`text/markdown; charset=utf-8`): a heading and a list or table; links kept (http and https links only, as in every encoding).',
  html: 'A minimal self-contained HTML page (`text/html`), every value escaped; only http and https URLs become links or images.',
  rss: 'An RSS 2.0 feed (`application/rss+xml`) with stable guids; items dated when first seen; item links and enclosures are http or https URLs only.',
  image: 'The image itself: generated PNG/SVG bytes, or a 302 redirect to the upstream image (an http or https URL; otherwise 404).',
  'image-proxy': 'The upstream image bytes streamed through this service (for clients that cannot reach the upstream host). The image URL comes from the upstream\'s data, so it is fetched like a caller\'s URL: public http(s) addresses only, checked after DNS resolution and on every redirect; a private, loopback or link-local address is a 502.',
  audio: 'A 302 redirect to the audio file (an http or https URL; otherwise 404).',
  'audio-proxy': 'The audio bytes streamed through this service, with the address checks of `image-proxy`.',
};

function redirects(s: AnySource, encodings: readonly Encoding[]): boolean {
  return (encodings.includes('image') && !!s.view.imageUrl && !s.view.image) || (encodings.includes('audio') && !!s.view.audioUrl);
}

const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
const errorResponse = (description: string, retryAfter = false): JsonObject => ({
  description,
  ...(retryAfter ? { headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } } : {}),
  content: { 'application/json': { schema: ref('ErrorEnvelope') } },
});

function apisOperation(s: AnySource, route: RouteSpec, method: 'get' | 'post'): JsonObject {
  const entry = catalogueEntry(s, route);
  const encodings = entry.encodings;
  const fetched = s.mode !== 'local';
  const pathNames = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  const parameters: JsonObject[] = paramEntries(s)
    .filter(([name, spec]) => !(route.fixed && name in route.fixed) && callerGives(spec) && (spec.in !== 'path' || pathNames.includes(name)))
    .filter(([name]) => method === 'get' || pathNames.includes(name))
    .map(([name, spec]) => {
      const inPath = pathNames.includes(name);
      return {
        name,
        in: inPath ? 'path' : 'query',
        required: inPath || (spec.required ?? false),
        description: `${spec.doc} Accepted: ${describeAccepted(spec)}.`,
        schema: paramSchema(spec),
        ...(spec.example !== undefined ? { example: spec.example } : {}),
      };
    });
  if (!route.forceEncoding) {
    parameters.push({
      name: ENCODING_PARAM,
      in: 'query',
      required: false,
      description: `Response format. This endpoint supports: ${encodings.join(', ')}. Unknown or unsupported values answer 400 listing them.`,
      schema: { type: 'string', enum: [...encodings], default: entry.default_encoding },
    });
  }
  if (fetched) {
    parameters.push({
      name: FORCE_PARAM,
      in: 'query',
      required: false,
      description: 'Refetch from the upstream now (at most once a minute per source and parameters, and limited per client IP). The old data is kept if the fetch fails.',
      schema: { type: 'boolean', default: false },
      allowEmptyValue: true,
    });
  }
  const content: JsonObject = {};
  for (const e of encodings) {
    const media = MEDIA[e];
    if (content[media]) continue;
    if (e === 'json') content[media] = { schema: ref('SuccessEnvelope') };
    else if (media.endsWith('/*')) content[media] = { schema: { type: 'string', contentMediaType: 'application/octet-stream' } };
    else content[media] = { schema: { type: 'string' } };
  }
  const okHeaders: JsonObject = fetched
    ? {
        'X-Cache': { description: 'HIT (fresh cache), STALE (served while refreshing or after a failed refresh), MISS (fetched for this request).', schema: { type: 'string', enum: ['HIT', 'STALE', 'MISS'] } },
        ETag: { description: 'Validator of the data and encoding; send it back in If-None-Match for a 304.', schema: { type: 'string' } },
        'Last-Modified': { description: 'When the data was fetched.', schema: { type: 'string' } },
        'X-Total-Count': { description: 'Number of items, when `data` is an array (the hot lists, shaped as in 60s).', schema: { type: 'integer' } },
      }
    : {};
  const responses: JsonObject = {
    '200': {
      description: `Success. Encodings: ${encodings.map((e) => `\`${e}\``).join(', ')}.`,
      ...(Object.keys(okHeaders).length ? { headers: okHeaders } : {}),
      content,
    },
  };
  if (redirects(s, encodings)) responses['302'] = { description: 'encoding=image or audio: redirect to the upstream file.', headers: { Location: { schema: { type: 'string', format: 'uri' } } } };
  if (fetched) responses['304'] = { description: 'Not modified (If-None-Match matched the ETag).' };
  responses['400'] = errorResponse('A parameter is missing or invalid, or the encoding is not supported; the message names the parameter and the accepted values.');
  responses['401'] = errorResponse('Only when the service sets APIS_REQUIRE_KEY=true: a missing or invalid gateway key.');
  responses['403'] = errorResponse('The client address is on the deny list.');
  responses['404'] = errorResponse('Nothing found for these parameters (or an unknown route; GET /v2/apis lists every endpoint).');
  responses['429'] = errorResponse('Too many requests from this address (or too many force-update requests); wait for Retry-After seconds.', true);
  if (fetched || (s.mode === 'local' && s.feed)) responses['503'] = errorResponse('The upstream is unavailable and no cached data exists yet; the message names the source.', true);

  const op: JsonObject = {
    operationId: `${method}_${route.path.replace(/^\//, '').replace(/:(\w+)/g, 'by_$1').replace(/[^A-Za-z0-9]+/g, '_')}`,
    tags: [categoryOf(s)],
    summary: s.name,
    description: `${entry.description}${route.forceEncoding ? ` Always answers as ${route.forceEncoding}.` : ''}${fetched ? ` Cached data (refreshed ${s.mode === 'scheduled' ? `on the schedule \`${s.schedule}\`` : 'on demand'}, fresh for ${s.freshness.ttlSec} s).` : ' Computed locally.'}\n\nExample: \`${entry.example}\`${entry.aliases.length ? `\n\nAlso answers at 60s's paths (aliases of this endpoint, same handler and cache): ${entry.aliases.map((a) => `\`${a}\``).join(', ')}.` : ''}`,
    ...(entry.aliases.length ? { 'x-aliases': entry.aliases } : {}),
    parameters,
    responses,
    security: [{}, { bearer: [] }],
  };
  if (method === 'post') {
    op.operationId = `${String(op.operationId)}_post`;
    const props: JsonObject = {};
    for (const [name, spec] of paramEntries(s)) if (!pathNames.includes(name) && !(route.fixed && name in route.fixed) && callerGives(spec) && spec.in !== 'path') props[name] = { ...paramSchema(spec), description: spec.doc };
    const required = paramEntries(s)
      .filter(([name, spec]) => spec.required && spec.in !== 'path' && spec.in !== 'client-ip' && !pathNames.includes(name) && !(route.fixed && name in route.fixed))
      .map(([name]) => name);
    const bodySchema: JsonObject = { type: 'object', properties: props, ...(required.length ? { required } : {}) };
    op.requestBody = {
      description: 'The parameters as a JSON object or a form; a text/plain body is the value of the first required text parameter. Query parameters win.',
      content: { 'application/json': { schema: bodySchema }, 'application/x-www-form-urlencoded': { schema: bodySchema }, 'text/plain': { schema: { type: 'string' } } },
    };
  }
  return op;
}

function catalogueOperation(): JsonObject {
  return {
    operationId: 'get_catalogue',
    tags: ['Service'],
    summary: 'Catalogue of every /v2/apis endpoint with its parameters and encodings',
    responses: {
      '200': { description: 'The catalogue.', content: { 'application/json': { schema: ref('Catalogue') } } },
      '429': errorResponse('Too many requests from this address.', true),
    },
  };
}

// --- gateway operations -----------------------------------------------------------------------

const GATEWAY_BODIES: Record<string, { type: string; schema: string }> = {
  '/v1/chat/completions': { type: 'application/json', schema: 'ChatCompletionRequest' },
  '/v1beta/models/{model}:generateContent': { type: 'application/json', schema: 'GenerateContentRequest' },
  '/v1beta/models/{model}:streamGenerateContent': { type: 'application/json', schema: 'GenerateContentRequest' },
  '/v1/rerank': { type: 'application/json', schema: 'RerankRequest' },
  '/v1/images/edits': { type: 'multipart/form-data', schema: 'ImageEditRequest' },
};

const GATEWAY_RESULTS: Record<string, JsonObject> = {
  '/v1/chat/completions': {
    'application/json': { schema: ref('ChatCompletion') },
    'text/event-stream': { schema: { type: 'string', description: 'With `stream: true`: `data: {chat.completion.chunk}` events, ending with `data: [DONE]`.' } },
  },
  '/v1beta/models/{model}:generateContent': { 'application/json': { schema: ref('GenerateContentResponse') } },
  '/v1beta/models/{model}:streamGenerateContent': {
    'text/event-stream': { schema: { type: 'string', description: 'With `alt=sse`: `data: {GenerateContentResponse}` events; the stream ends when the connection closes.' } },
    'application/json': { schema: { type: 'array', items: ref('GenerateContentResponse') } },
  },
  '/v1/rerank': { 'application/json': { schema: ref('RerankResult') } },
  '/v1/images/edits': { 'application/json': { schema: ref('ImageEditResult') } },
  '/v1/music/tasks/{task_id}': { 'application/json': { schema: ref('MusicTaskEnvelope') } },
  '/v1/models': { 'application/json': { schema: ref('ModelList') } },
  '/v1/dashboard/billing/subscription': { 'application/json': { schema: ref('BillingSubscription') } },
};

const PATH_PARAM_DOCS: Record<string, string> = { model: 'Model name.', response_id: 'Identifier of the response.', task_id: 'Identifier of the music task.', voice_id: 'Identifier of the voice.', video_id: 'Identifier of the video task.' };

function gatewayOperation(r: GatewayRoute): JsonObject {
  const errSchema = r.family === 'gemini' ? 'GoogleError' : r.family === 'anthropic' ? 'AnthropicError' : 'OpenAIError';
  const err = (description: string, retryAfter = false): JsonObject => ({
    description,
    ...(retryAfter ? { headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } } : {}),
    content: { 'application/json': { schema: ref(errSchema) } },
  });
  const parameters: JsonObject[] = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1] as string,
    in: 'path',
    required: true,
    description: PATH_PARAM_DOCS[m[1] as string] ?? 'Identifier.',
    schema: { type: 'string' },
  }));
  if (r.path.endsWith(':streamGenerateContent')) parameters.push({ name: 'alt', in: 'query', required: false, description: '`sse` for Server-Sent Events.', schema: { type: 'string', enum: ['sse'] } });
  const body = GATEWAY_BODIES[r.path];
  const passBody: JsonObject | undefined =
    r.passThrough && r.method === 'post'
      ? {
          description: 'Forwarded unchanged to the upstream model gateway.',
          required: true,
          content: { 'application/json': { schema: { type: 'object' } }, 'multipart/form-data': { schema: { type: 'object' } } },
        }
      : undefined;
  const op: JsonObject = {
    operationId: `${r.method}_${r.path.replace(/^\//, '').replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+/g, '_')}`,
    tags: ['AI gateway'],
    summary: r.summary,
    ...(r.passThrough ? { description: 'Authenticated and limited like every /v1 route, then forwarded to the upstream model gateway as it is.' } : {}),
    security: r.family === 'gemini' ? [{ bearer: [] }, { googApiKey: [] }, { queryKey: [] }] : r.family === 'anthropic' || r.path.startsWith('/v1/models') ? [{ bearer: [] }, { anthropicApiKey: [] }] : [{ bearer: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(body ? { requestBody: { required: true, content: { [body.type]: { schema: ref(body.schema) } } } } : passBody ? { requestBody: passBody } : {}),
    responses: {
      '200': {
        description: 'Success (passed through from the upstream model gateway).',
        content: GATEWAY_RESULTS[r.path] ?? { 'application/json': { schema: { type: 'object' } }, 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
      },
      '400': err('The request is invalid.'),
      '401': err('Missing, malformed, unknown, expired or revoked key (`invalid_api_key`).'),
      '403': err('The key may not be used from this IP address or for this model.'),
      '413': err('The request body is too large.'),
      '429': err('A rate limit (RPM, RPD, TPM) or the key\'s quota is exhausted.', true),
      '502': err('The upstream model gateway failed or could not be reached.'),
      '503': err('The gateway has no upstream configured.'),
      '504': err('The upstream model gateway did not answer in time.'),
    },
  };
  return op;
}

// --- components -------------------------------------------------------------------------------

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;

const SCHEMAS: JsonObject = {
  SuccessEnvelope: {
    type: 'object',
    required: ['code', 'message', 'data'],
    properties: {
      code: { type: 'integer', const: 200 },
      message: { type: 'string', const: 'success' },
      data: { description: 'Endpoint-specific content (snake_case fields; `xxx` = date-time text in Asia/Shanghai, `xxx_at` = ms timestamp; links `link`, covers `cover`).' },
    },
  },
  ErrorEnvelope: {
    type: 'object',
    required: ['code', 'message', 'data'],
    properties: {
      code: { type: 'integer', description: 'The HTTP status, repeated.', minimum: 400, maximum: 599 },
      message: { type: 'string', description: 'What was wrong and how to fix it (English).' },
      data: { type: 'null' },
    },
  },
  Catalogue: {
    type: 'object',
    required: ['code', 'message', 'data'],
    properties: {
      code: { type: 'integer', const: 200 },
      message: { type: 'string', const: 'success' },
      data: {
        type: 'object',
        properties: {
          total: int,
          endpoints: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                path: str,
                id: str,
                name: str,
                description: str,
                mode: { type: 'string', enum: ['scheduled', 'on-demand', 'local'] },
                encodings: { type: 'array', items: str },
                default_encoding: str,
                params: { type: 'array', items: { type: 'object' } },
                example: str,
              },
            },
          },
        },
      },
    },
  },
  OpenAIError: {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['message', 'type', 'code'],
        properties: {
          message: str,
          type: { type: 'string', examples: ['invalid_request_error', 'requests', 'tokens', 'insufficient_quota', 'upstream_error', 'server_error'] },
          param: { type: ['string', 'null'] },
          code: { type: ['string', 'null'], examples: ['invalid_api_key', 'rate_limit_exceeded', 'ip_not_allowed', 'model_not_allowed'] },
        },
      },
    },
  },
  AnthropicError: {
    type: 'object',
    required: ['type', 'error'],
    properties: { type: { type: 'string', const: 'error' }, error: { type: 'object', required: ['type', 'message'], properties: { type: str, message: str } } },
  },
  GoogleError: {
    type: 'object',
    required: ['error'],
    properties: { error: { type: 'object', required: ['code', 'message', 'status'], properties: { code: int, message: str, status: str, details: { type: 'array', items: { type: 'object' } } } } },
  },
  ChatMessage: { type: 'object', required: ['role', 'content'], properties: { role: str, content: str } },
  ChatCompletionRequest: {
    type: 'object',
    required: ['model', 'messages'],
    properties: {
      model: str,
      messages: { type: 'array', items: ref('ChatMessage') },
      style: { type: 'string', const: 'openai' },
      stream: { type: 'boolean' },
    },
  },
  ChatCompletion: {
    type: 'object',
    properties: {
      id: str,
      object: str,
      created: int,
      model: str,
      choices: { type: 'array', items: { type: 'object', properties: { index: int, message: ref('ChatMessage'), finish_reason: str } } },
      usage: { type: 'object', properties: { prompt_tokens: int, completion_tokens: int, total_tokens: int } },
    },
  },
  GenerateContentRequest: {
    type: 'object',
    required: ['contents'],
    properties: {
      contents: {
        type: 'array',
        items: { type: 'object', properties: { role: { type: 'string', examples: ['user', 'model'] }, parts: { type: 'array', items: { type: 'object', properties: { text: str } } } } },
      },
      generationConfig: { type: 'object', properties: { temperature: { type: 'number' }, maxOutputTokens: int } },
      safetySettings: { type: 'array', items: { type: 'object' } },
      tools: { type: 'array', items: { type: 'object' } },
    },
  },
  GenerateContentResponse: {
    type: 'object',
    properties: {
      candidates: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            content: { type: 'object', properties: { role: str, parts: { type: 'array', items: { type: 'object', properties: { text: str } } } } },
            finishReason: str,
          },
        },
      },
      usageMetadata: { type: 'object', properties: { promptTokenCount: int, candidatesTokenCount: int, totalTokenCount: int } },
    },
  },
  RerankRequest: {
    type: 'object',
    required: ['model', 'query', 'documents'],
    properties: { model: str, query: str, documents: { type: 'array', items: str, minItems: 1 }, top_n: { type: 'integer', minimum: 1 } },
  },
  RerankResult: {
    type: 'object',
    properties: {
      results: { type: 'array', items: { type: 'object', properties: { index: int, relevance_score: { type: 'number' } } } },
      usage: { type: 'object', properties: { prompt_tokens: int, total_tokens: int } },
    },
  },
  ImageEditRequest: {
    type: 'object',
    required: ['model', 'image', 'prompt'],
    properties: { model: str, image: { type: 'string', contentMediaType: 'application/octet-stream' }, prompt: str },
  },
  ImageEditResult: { type: 'object', properties: { created: int, data: { type: 'array', items: { type: 'object', properties: { url: str } } } } },
  Song: {
    type: 'object',
    properties: {
      id: str,
      tags: str,
      title: str,
      prompt: str,
      audioUrl: str,
      duration: { type: 'number' },
      imageUrl: str,
      modelName: str,
      createTime: int,
      sourceAudioUrl: str,
      sourceImageUrl: str,
      streamAudioUrl: str,
      sourceStreamAudioUrl: str,
    },
  },
  MusicTask: {
    type: 'object',
    properties: {
      task_id: str,
      action: str,
      status: { type: 'string', examples: ['SUCCESS'] },
      fail_reason: str,
      submit_time: int,
      start_time: int,
      finish_time: int,
      progress: str,
      data: { type: 'array', items: ref('Song') },
    },
  },
  MusicTaskEnvelope: { type: 'object', properties: { code: str, message: str, data: ref('MusicTask') } },
  ModelList: { type: 'object', properties: { object: { type: 'string', const: 'list' }, data: { type: 'array', items: { type: 'object', properties: { id: str, object: str, created: int, owned_by: str } } } } },
  BillingSubscription: {
    type: 'object',
    properties: {
      object: { type: 'string', const: 'billing_subscription' },
      has_payment_method: { type: 'boolean' },
      soft_limit_usd: { type: 'number' },
      hard_limit_usd: { type: 'number' },
      system_hard_limit_usd: { type: 'number' },
      access_until: { type: 'integer', description: 'Expiry of the key in unix seconds, 0 = none.' },
    },
  },
};

function serviceOperation(r: ServiceRoute): JsonObject {
  const parameters: JsonObject[] = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1] as string, in: 'path', required: true, schema: { type: 'string' } }));
  const responses: JsonObject = { '200': { description: 'OK', content: { [r.type]: { schema: r.type === 'application/json' ? { type: 'object' } : { type: 'string' } } } } };
  if (r.path.startsWith('/console')) {
    responses['303'] = { description: 'Redirect back to the console after the action.' };
    responses['401'] = { description: 'Not logged in, or a wrong token.' };
    responses['403'] = { description: 'The request came from another origin (CSRF protection).' };
    responses['404'] = { description: 'The console is off (no CONSOLE_ADMIN_TOKEN).' };
  }
  return {
    operationId: `${r.method}_${r.path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '') || 'index'}`,
    tags: [r.tag],
    summary: r.summary,
    ...(parameters.length ? { parameters } : {}),
    ...(r.path.startsWith('/console') ? { security: [{ consoleToken: [] }, { consoleSession: [] }] } : {}),
    responses,
  };
}

export interface OpenApiOptions {
  registry: Registry;
  /** Absolute base URL for `servers` (default: relative `/`). */
  serverUrl?: string;
}

export function buildOpenApi(opts: OpenApiOptions): JsonObject {
  const paths: Record<string, JsonObject> = {};
  const add = (p: string, method: string, op: JsonObject) => {
    paths[p] = { ...(paths[p] ?? {}), [method]: op };
  };
  add('/v2/apis', 'get', catalogueOperation());
  for (const s of opts.registry.sources) {
    for (const route of s.routes) {
      const p = openApiPath(route);
      add(p, 'get', apisOperation(s, route, 'get'));
      if (route.methods?.includes('POST')) add(p, 'post', apisOperation(s, route, 'post'));
    }
  }
  for (const r of GATEWAY_ROUTES) add(r.path, r.method, gatewayOperation(r));
  for (const r of SERVICE_ROUTES) add(r.path, r.method, serviceOperation(r));

  const usedCategories = CATEGORIES.filter((c) => opts.registry.sources.some((s) => categoryOf(s) === c));
  return {
    openapi: '3.1.0',
    info: {
      title: SERVICE_NAME,
      version: PACKAGE_VERSION,
      summary: 'Aggregate endpoints (/v2/apis) and an AI gateway (/v1, /v1beta) in one service.',
      description: [
        'Generated from the source registry and the gateway route list at request time.',
        '',
        '**/v2/apis** answers `GET` with the envelope `{code, message, data}`; errors use the real HTTP status, the same number in `code`, an English `message` and `data: null`. The `encoding` query parameter selects the format:',
        '',
        ...(Object.entries(ENCODING_DOCS) as [Encoding, string][]).map(([e, d]) => `- \`${e}\`: ${d}`),
        '',
        '**/v1** and **/v1beta** take `Authorization: Bearer <key>` (keys from `npm run keys` or the console); errors are OpenAI-shaped on /v1 and Google-shaped on /v1beta.',
      ].join('\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: opts.serverUrl ?? '/' }],
    tags: [
      ...usedCategories.map((c) => ({ name: c, description: `/v2/apis: ${c.toLowerCase()}` })),
      { name: 'AI gateway', description: '/v1 and /v1beta, authenticated by bearer keys' },
      { name: 'Service', description: 'Catalogue, health and status' },
      { name: 'Operations', description: 'Status page, metrics, documentation and the key console' },
    ],
    paths,
    components: {
      schemas: SCHEMAS,
      headers: { RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } } },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A gateway key `sk-…` (Authorization: Bearer <key>). On /v2/apis only when APIS_REQUIRE_KEY=true.' },
        googApiKey: { type: 'apiKey', in: 'header', name: 'x-goog-api-key', description: 'The same key, as the Google client sends it (/v1beta only).' },
        anthropicApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The same key, as the Anthropic clients send it (/v1/messages and /v1/models only).' },
        queryKey: { type: 'apiKey', in: 'query', name: 'key', description: 'The same key as `?key=` (/v1beta only).' },
        consoleToken: { type: 'http', scheme: 'bearer', description: 'The console admin token (CONSOLE_ADMIN_TOKEN).' },
        consoleSession: { type: 'apiKey', in: 'cookie', name: 'console_session', description: 'Set by POST /console/login.' },
      },
    },
  };
}
