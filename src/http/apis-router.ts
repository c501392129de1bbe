/**
 * `/v2/apis/*`, built from the registry: validate parameters and the encoding, read through
 * the engine, render through the encoding layer. Also `GET /v2/apis`, the catalogue.
 */
import { Router } from '@koa/router';
import type Koa from 'koa';
import { CONTENT_TYPES, render, type Rendered } from '../encoding/index.ts';
import { archiveParamSpecs, parseMoment } from '../kernel/archive-params.ts';
import type { Engine } from '../kernel/engine.ts';
import { AppError, badParam, unsupportedEncoding } from '../kernel/errors.ts';
import { describeAccepted, parseParams } from '../kernel/params.ts';
import { callerGives, paramEntries, routeExample, supportedEncodings, type Registry } from '../kernel/registry.ts';
import { ALL_ENCODINGS, type AnySource, type Encoding, type RouteSpec } from '../kernel/source.ts';
import type { Store } from '../kernel/store.ts';
import { headerBlock, isBuffered, writable, type ApisRequest } from './apis-request.ts';
import { allowCors, clientIp, sendRequestId, setHeaders, type AppContext, type AppState } from './middleware.ts';
import { requestHeader } from './request-headers.ts';
import { AnswerMemo } from './answer-memo.ts';
import { aliasesOfRoute } from './sixty-aliases.ts';
import { Snapshots } from '../web/snapshots.ts';

export const ENCODING_PARAM = 'encoding';
export const FORCE_PARAM = 'force-update';
const MAX_BODY_BYTES = 1024 * 1024;
export const SERVICE_NAME = 'apis-gateway';

const NO_BODY: Readonly<Record<string, string>> = Object.freeze({});

/** The parameters of a POST body (see the handler for how they combine with the query). */
async function readBody(ctx: ApisRequest): Promise<Record<string, string>> {
  const declared = Number(ctx.req.headers['content-length'] || 0);
  if (declared > MAX_BODY_BYTES) throw new AppError(413, `Request body is larger than ${MAX_BODY_BYTES} bytes.`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new AppError(413, `Request body is larger than ${MAX_BODY_BYTES} bytes.`);
    chunks.push(chunk);
  }
  const raw = Buffer.concat(chunks).toString('utf8');
  if (!raw) return {};
  const type = ctx.req.headers['content-type'] ?? '';
  if (type.includes('application/json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new AppError(400, 'The request body is not valid JSON.');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new AppError(400, 'The JSON body must be an object of parameters.');
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(parsed)) if (v !== null && v !== undefined) out[k] = typeof v === 'object' ? JSON.stringify(v) : String(v);
    return out;
  }
  if (type.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
  // A plain-text body is the value of the source's first required string parameter (e.g. hash `content`).
  return { '': raw };
}

/**
 * Whether the request carries a validator. Without one `ctx.fresh` is false, and it is worth
 * asking first: Koa's `fresh` copies every response header to answer.
 */
function isConditional(ctx: Pick<ApisRequest, 'req'>): boolean {
  return !!(requestHeader(ctx.req, 'if-none-match') || requestHeader(ctx.req, 'if-modified-since'));
}

function describePathParam(source: AnySource, name: string): string {
  const spec = paramEntries(source).find(([n]) => n === name)?.[1];
  return spec ? describeAccepted(spec) : 'give a value';
}

function firstValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

export function catalogueEntry(s: AnySource, route: RouteSpec) {
  const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  return {
    path: `/v2/apis${route.path}`,
    id: s.id,
    name: s.name,
    description: route.summary ?? s.description,
    mode: s.mode,
    methods: route.methods ?? ['GET'],
    encodings: route.forceEncoding ? [route.forceEncoding] : supportedEncodings(s),
    default_encoding: route.forceEncoding ?? s.view.defaultEncoding ?? 'json',
    params: paramEntries(s)
      .filter(([name, spec]) => !(route.fixed && name in route.fixed) && callerGives(spec))
      .map(([name, spec]) => ({
        name,
        in: pathParams.includes(name) ? 'path' : 'query',
        type: spec.type,
        required: pathParams.includes(name) || (spec.required ?? false),
        default: spec.default ?? null,
        accepted: describeAccepted(spec),
        ...(spec.type === 'string' && spec.enum ? { enum: spec.enum } : {}),
        ...(spec.type === 'integer' || spec.type === 'number' ? { min: spec.min ?? null, max: spec.max ?? null } : {}),
        doc: spec.doc,
      })),
    ...(s.mode !== 'local' ? { force_update: true, ttl_sec: s.freshness.ttlSec } : {}),
    ...(s.mode === 'scheduled' ? { schedule: s.schedule } : {}),
    example: routeExample(s, route),
    /** 60s's paths for this route (src/http/sixty-aliases.ts): the same endpoint, not another one. */
    aliases: aliasesOfRoute(route.path),
  };
}

/**
 * Validates a request to one route, reads or computes its data and renders it; a repeated request
 * whose answer is remembered (see AnswerMemo) gets it at once, without a promise.
 */
export type Answer = (ctx: ApisRequest) => Rendered | Promise<Rendered>;

export interface ApisRouter {
  router: Router<AppState>;
  /** The answer behind each route handler of the router (the fast path calls it directly). */
  answers: ReadonlyMap<unknown, Answer>;
}

export function createApisRouter(deps: { registry: Registry; engine: Engine; store: Store }): ApisRouter {
  const router = new Router<AppState>();
  const answers = new Map<unknown, Answer>();
  const memo = new AnswerMemo(deps.engine);
  const snapshots = new Snapshots({ engine: deps.engine, archive: deps.store.archive });

  router.get('/v2/apis', (ctx) => {
    const endpoints = deps.registry.sources.flatMap((s) => s.routes.map((r) => catalogueEntry(s, r)));
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = { code: 200, message: 'success', data: { total: endpoints.length, endpoints } };
  });

  for (const source of deps.registry.sources) {
    const encodings = supportedEncodings(source);
    const paramSpecs = paramEntries(source);
    const momentParams = archiveParamSpecs(source).map(([name]) => name);
    // A plain-text POST body fills the first required string parameter that is not in the path.
    const plainBodyTarget = paramSpecs.find(([, s]) => s.type === 'string' && s.required && s.in !== 'path')?.[0];
    for (const route of source.routes) {
      const routeEncodings = route.forceEncoding ? [route.forceEncoding] : encodings;
      const fixed = Object.entries(route.fixed ?? {});
      // Answers that depend on the URL alone may be remembered (a client-address parameter does not; nor a POST body).
      const memoable = source.mode !== 'local' && !paramSpecs.some(([, spec]) => spec.in === 'client-ip');
      const remembers = (ctx: ApisRequest) => memoable && ctx.method !== 'POST';
      const compute = async (ctx: ApisRequest): Promise<Rendered> => {
        const query = ctx.query;
        const requested = firstValue(query[ENCODING_PARAM]);
        let encoding: Encoding;
        if (route.forceEncoding) encoding = route.forceEncoding;
        else if (requested === undefined || requested === '') encoding = source.view.defaultEncoding ?? 'json';
        else {
          const asked = requested.trim().toLowerCase() as Encoding;
          if (!ALL_ENCODINGS.includes(asked) || !routeEncodings.includes(asked)) throw unsupportedEncoding(requested, routeEncodings);
          encoding = asked;
        }
        ctx.state.encoding = encoding;

        const raw: Record<string, string | undefined> = {};
        const body = ctx.method === 'POST' ? await readBody(ctx) : NO_BODY;
        for (const [name, spec] of paramSpecs) {
          if (spec.in === 'client-ip') raw[name] = (spec.queryOverride ? firstValue(query[name])?.trim() || undefined : undefined) ?? clientIp(ctx);
          else if (spec.in !== 'path') raw[name] = firstValue(query[name]) ?? body[name];
        }
        if (body[''] !== undefined && plainBodyTarget !== undefined && raw[plainBodyTarget] === undefined) raw[plainBodyTarget] = body[''];
        for (const name in ctx.params) {
          const value = ctx.params[name] as string;
          // A blank path segment (`/music-rank/%20`) would count as absent and answer another resource.
          if (value.trim() === '') throw badParam(name, `a blank value is not accepted in the path; ${describePathParam(source, name)}`);
          raw[name] = value;
        }
        for (const [name, value] of fixed) raw[name] = value;
        const params = parseParams(source.params, raw, deps.engine.now());

        let result;
        if (source.mode === 'local') {
          result = await deps.engine.compute(source, params, { clientIp: clientIp(ctx) });
        } else {
          const forceRaw = firstValue(query[FORCE_PARAM]);
          let force = false;
          if (forceRaw !== undefined) {
            const v = forceRaw.trim().toLowerCase();
            if (['', '1', 'true', 'yes', 'on'].includes(v)) force = true;
            else if (!['0', 'false', 'no', 'off'].includes(v)) throw badParam(FORCE_PARAM, 'present (or true/1) to refetch now, false/0 to read the cache');
          }
          // `date`/`at` of archived sources: a dated snapshot, never the upstream.
          const moment = momentParams.some((name) => raw[name] !== undefined) ? parseMoment(source, raw, deps.engine.now()) : undefined;
          if (moment && force) throw badParam(FORCE_PARAM, `it cannot be combined with "${moment.param}" (a stored snapshot is never refetched)`);
          result = moment ? await deps.engine.readAt(source, params, moment) : await deps.engine.read(source, params, { force });
        }

        const now = deps.engine.now();
        const out = await render(result, encoding, {
          store: deps.store,
          http: deps.engine.http(source),
          now,
          request: ctx,
          serviceName: SERVICE_NAME,
          feedHistory: (r, limit) => deps.engine.feedHistory(r, limit),
          listNav: (r) => snapshots.listNav(r, ctx.originalUrl),
        });
        if (remembers(ctx)) memo.remember(ctx.originalUrl, encoding, result, out, now);
        return out;
      };
      const answer: Answer = (ctx) => {
        const remembered = remembers(ctx) ? memo.recall(ctx.originalUrl) : undefined;
        if (!remembered) return compute(ctx);
        ctx.state.encoding = remembered.encoding;
        return remembered.answer;
      };
      const handler = async (ctx: AppContext & ApisRequest) => {
        const out = await answer(ctx);
        if (!writeBufferedAnswer(ctx, out)) applyAnswer(ctx, out);
      };
      answers.set(handler, answer);
      const path = `/v2/apis${route.path}`;
      router.get(path, handler);
      if (route.methods?.includes('POST')) router.post(path, handler);
    }
  }
  return { router, answers };
}

/** Whether the request's validators match a 200 answer whose headers are set (Koa's `ctx.fresh`). */
function notModified(ctx: Pick<ApisRequest, 'req' | 'fresh'>, out: Rendered): boolean {
  return out.status === 200 && !!out.headers.ETag && isConditional(ctx) && ctx.fresh;
}

/**
 * Sends a 200 answer held whole in memory (text, or image bytes), or its 304, on the Node
 * response: the bytes Koa's respond sends, with the request id and CORS headers, in one
 * `writeHead` of the answer's header block (see headerBlock). Returns false, having done nothing,
 * for any other answer (redirects, streams, errors).
 */
export function writeBufferedAnswer(ctx: ApisRequest, out: Rendered): boolean {
  if (!isBuffered(out)) return false;
  const res = ctx.res;
  ctx.respond = false;
  ctx.state.cache = out.headers['X-Cache'];
  res.statusCode = 200;
  if (out.headers.ETag && isConditional(ctx)) {
    // Koa's `fresh` compares the validators with the response's headers: set them one by one.
    sendRequestId(ctx);
    allowCors(ctx);
    setHeaders(ctx, out.headers);
    if (notModified(ctx, out)) {
      res.statusCode = 304;
      res.end();
      return true;
    }
  }
  const block = headerBlock(out);
  block[block.length - 1] = ctx.state.rid;
  res.writeHead(200, block);
  res.end(ctx.method === 'HEAD' || !writable(res) ? undefined : out.body);
  return true;
}

/** Any other answer (redirects, images, streams) through Koa's response. */
export function applyAnswer(ctx: Koa.Context, out: Rendered): void {
  ctx.status = out.status;
  setHeaders(ctx, out.headers);
  if (notModified(ctx, out)) {
    ctx.status = 304;
    ctx.body = null;
    return;
  }
  if (out.body === null) return; // redirects: Koa answers with the status text
  if (out.type) ctx.type = out.type;
  ctx.body = out.body;
}
