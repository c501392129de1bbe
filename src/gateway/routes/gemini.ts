/**
 * The Gemini routes under `/v1beta`, in Google's layout:
 * - `models/{model}:generateContent` and `:streamGenerateContent` through the styled request path
 *   (native to an upstream that speaks Gemini, else translated through chat completions);
 *   `:streamGenerateContent` is a stream whatever `alt` says (`alt=sse`: SSE, else a JSON array);
 * - `:countTokens`: a Gemini upstream's count, else the gateway's own prompt estimate;
 * - `:embedContent` and `:batchEmbedContents`: native, else sent to an OpenAI-style upstream's
 *   `/v1/embeddings` and answered in Gemini's shape;
 * - `GET models`: a Gemini upstream's list, else another style's list (model-list.ts) in
 *   Gemini's shape; filtered by the key's models either way.
 * The query string (e.g. `alt=sse`) is forwarded without our `key` parameter.
 */
import { isObject, nonNegativeInt, parseJsonObject, readBody, withFields, type JsonObject } from '../body.ts';
import type { GatewayCall } from '../call.ts';
import { badRequest, GatewayError, upstreamInvalidResponse } from '../errors.ts';
import { estimatePrompt } from '../estimate.ts';
import { modelListAttempt, openAiModels } from '../model-list.ts';
import { modelPermitted } from '../policy.ts';
import { withPublicNames, type ListLayout } from '../public-models.ts';
import { TOKEN_COUNT_HEADER } from '../response-headers.ts';
import { forwardStyled } from '../styled.ts';
import { spokenStyles } from '../translate/index.ts';
import { untranslatable } from '../translate/narrow.ts';
import type { ApiStyle } from '../translate/types.ts';
import type { UpstreamResponse } from '../upstream.ts';
import type { PreparedAttempt } from '../upstream-pool.ts';
import type { UpstreamSpec } from '../upstream-settings.ts';
import { readUsage } from '../usage-reading.ts';

function pathModel(params: readonly string[]): string {
  try {
    return decodeURIComponent(params[0] ?? '');
  } catch {
    throw badRequest('The model name in the path is not valid URL encoding.', 'model');
  }
}

const speaks = (spec: UpstreamSpec, style: ApiStyle): boolean => spokenStyles(spec).includes(style);
const speaksGemini = (spec: UpstreamSpec): boolean => speaks(spec, 'gemini');

/** The query string a native upstream gets (without our `key`), with `?` when not empty. */
function query(call: GatewayCall): string {
  const path = call.upstreamPath();
  const i = path.indexOf('?');
  return i < 0 ? '' : path.slice(i);
}

/** A native Gemini upstream's version of the request: the path with its own name for the model. */
function nativeAttempt(call: GatewayCall, spec: UpstreamSpec, model: string, method: string, raw: Buffer | undefined): PreparedAttempt {
  const own = spec.aliases[model] ?? model;
  return { style: 'gemini', path: `/v1beta/models/${encodeURIComponent(own)}:${method}${query(call)}`, headers: raw ? { 'content-type': 'application/json' } : {}, body: raw, tag: 'native' };
}

export async function generateContent(call: GatewayCall, params: readonly string[]): Promise<void> {
  const model = pathModel(params);
  const method = params[1] === 'streamGenerateContent' ? 'streamGenerateContent' : 'generateContent';
  const streaming = method === 'streamGenerateContent';
  const raw = await readBody(call.ctx.req, call.deps.settings.maxBodyBytes);
  const body = parseJsonObject(raw);
  if (!Array.isArray(body.contents) || body.contents.length === 0) throw badRequest('Field "contents" must be a non-empty array of {role, parts:[{text}]} objects.', 'contents');
  call.permitModel(model);
  call.stream = streaming;
  const capped = await call.reserveGeneration('gemini', body, estimatePrompt(raw.length, body, 'gemini').tokens);
  const sent = capped ?? body;
  const sse = call.ctx.query.alt === 'sse';
  await forwardStyled(call, {
    style: 'gemini',
    body: sent,
    raw: capped ? Buffer.from(JSON.stringify(capped), 'utf8') : raw,
    model,
    chatBody: withFields(sent, streaming ? { model, stream: true, sse } : { model }),
    nativePath: (own) => `/v1beta/models/${encodeURIComponent(own)}:${method}${query(call)}`,
    relayNative: (up) => call.relay(up, { usage: 'gemini', streamJson: streaming }),
  });
}

/** The Content objects a countTokens body asks about (`contents`, or `generateContentRequest.contents`). */
function countedRequest(body: JsonObject): JsonObject {
  const inner = isObject(body.generateContentRequest) ? body.generateContentRequest : body;
  if (!Array.isArray(inner.contents) || inner.contents.length === 0)
    throw badRequest('Field "contents" (or "generateContentRequest.contents") must be a non-empty array of {role, parts:[{text}]} objects.', 'contents');
  return inner;
}

export async function countTokens(call: GatewayCall, params: readonly string[]): Promise<void> {
  const model = pathModel(params);
  const raw = await readBody(call.ctx.req, call.deps.settings.maxBodyBytes);
  const body = parseJsonObject(raw);
  const counted = countedRequest(body);
  call.permitModel(model);
  let up: UpstreamResponse;
  try {
    up = await call.send({ accepts: speaksGemini, prepare: (spec) => nativeAttempt(call, spec, model, 'countTokens', raw) });
  } catch (err) {
    if (!(err instanceof GatewayError && err.code === 'unsupported_api_style')) throw err;
    call.ctx.set(TOKEN_COUNT_HEADER, 'estimated');
    call.ctx.body = { totalTokens: estimatePrompt(Buffer.byteLength(JSON.stringify(counted)), counted, 'gemini').tokens };
    return;
  }
  await call.relay(up, { usage: 'none' });
}

/** The text of a Gemini Content to embed (OpenAI embeddings take text only). */
function embedText(content: unknown, path: string): string {
  if (!isObject(content) || !Array.isArray(content.parts) || content.parts.length === 0) throw badRequest(`Field "${path}" must be a Content object {parts:[{text}]}.`, path);
  return content.parts
    .map((p, i) => {
      if (!isObject(p) || typeof p.text !== 'string') throw untranslatable(`${path}.parts[${i}]`, 'only text can be embedded by an OpenAI-style upstream');
      return p.text;
    })
    .join('\n');
}

/** OpenAI embeddings' `data[i].embedding`, narrowed. */
function embeddings(body: unknown): number[][] {
  if (!isObject(body) || !Array.isArray(body.data)) throw upstreamInvalidResponse('data is missing from the embeddings answer');
  return body.data.map((d, i) => {
    if (!isObject(d) || !Array.isArray(d.embedding) || !d.embedding.every((x) => typeof x === 'number')) throw upstreamInvalidResponse(`data[${i}].embedding is not an array of numbers`);
    return d.embedding as number[];
  });
}

/** `:embedContent` (one Content) and `:batchEmbedContents` (`requests`), native or as OpenAI embeddings. */
export async function embedContent(call: GatewayCall, params: readonly string[]): Promise<void> {
  const model = pathModel(params);
  const batch = params[1] === 'batchEmbedContents';
  const raw = await readBody(call.ctx.req, call.deps.settings.maxBodyBytes);
  const body = parseJsonObject(raw);
  const items: JsonObject[] = batch ? (Array.isArray(body.requests) ? body.requests.filter(isObject) : []) : [body];
  if (batch && (!Array.isArray(body.requests) || body.requests.length === 0 || items.length !== body.requests.length))
    throw badRequest('Field "requests" must be a non-empty array of {model, content:{parts:[{text}]}} objects.', 'requests');
  if (!batch && !isObject(body.content)) throw badRequest('Field "content" must be a Content object {parts:[{text}]}.', 'content');
  if (items.length > 2048) throw badRequest('Field "requests" may hold at most 2048 requests.', 'requests');
  const dims = items.map((it) => nonNegativeInt(it.outputDimensionality)).find((d) => d !== undefined);
  call.permitModel(model);
  await call.reserve({ promptTokens: estimatePrompt(raw.length, body, 'gemini').tokens });
  let texts: string[] | undefined;
  const openAiBody = (own: string): Buffer => {
    texts ??= items.map((it, i) => embedText(it.content, batch ? `requests[${i}].content` : 'content'));
    return Buffer.from(JSON.stringify({ model: own, input: batch ? texts : texts[0], encoding_format: 'float', ...(dims ? { dimensions: dims } : {}) }), 'utf8');
  };
  const up = await call.send({
    accepts: (spec) => speaksGemini(spec) || speaks(spec, 'openai'),
    prepare: (spec) =>
      speaksGemini(spec)
        ? nativeAttempt(call, spec, model, batch ? 'batchEmbedContents' : 'embedContent', raw)
        : { style: 'openai', path: '/v1/embeddings', headers: { 'content-type': 'application/json' }, body: openAiBody(spec.aliases[model] ?? model), tag: 'openai' },
  });
  if (up.attempt?.tag !== 'openai' || up.status >= 400) return call.relay(up, { usage: 'none' });
  await call.relay(up, {
    usage: 'none',
    rewrite: (answer) => {
      const usage = readUsage('openai', answer);
      if (usage) call.usage = usage;
      const vectors = embeddings(answer);
      return batch ? { embeddings: vectors.map((values) => ({ values })) } : { embedding: { values: vectors[0] ?? [] } };
    },
  });
}

/** An OpenAI- or Anthropic-style model list entry in Gemini's shape. */
function geminiModel(id: string): JsonObject {
  const embeds = /embed/i.test(id);
  return { name: `models/${id}`, displayName: id, supportedGenerationMethods: embeds ? ['embedContent', 'batchEmbedContents'] : ['generateContent', 'countTokens'] };
}

function modelName(m: unknown): string | undefined {
  return isObject(m) && typeof m.name === 'string' ? m.name.replace(/^models\//, '') : undefined;
}

/** Gemini's model list layout: `{name: "models/ID", …}`. */
const GEMINI_LIST: ListLayout<unknown> = { idOf: modelName, entryOf: geminiModel };

/** Another style's model list (no upstream speaks Gemini's), its ids with the public names. */
async function relayForeignList(call: GatewayCall, use: (ids: string[]) => unknown): Promise<void> {
  const up = await call.send({ method: 'GET', accepts: () => true, prepare: modelListAttempt });
  const style = up.attempt?.style ?? 'openai';
  const ids = (body: unknown): string[] => withPublicNames(openAiModels(style, body).map((m) => m.id), call.deps.settings.upstreams, { idOf: (id) => id, entryOf: (id) => id });
  await call.relay(up, { usage: 'none', rewrite: (body) => use(ids(body)) });
}

/** GET /v1beta/models: the list of a Gemini upstream, else another style's in Gemini's shape; public names, filtered by the key. */
export async function listGeminiModels(call: GatewayCall): Promise<void> {
  const patterns = call.key.models;
  const permitted = (id: string | undefined): boolean => id !== undefined && (patterns.length === 0 || modelPermitted(patterns, id));
  let up: UpstreamResponse;
  try {
    up = await call.send({ method: 'GET', accepts: speaksGemini, prepare: () => ({ style: 'gemini', path: `/v1beta/models${query(call)}`, headers: {}, body: undefined, tag: 'native' }) });
  } catch (err) {
    if (!(err instanceof GatewayError && err.code === 'unsupported_api_style')) throw err;
    return relayForeignList(call, (ids) => ({ models: ids.filter(permitted).map(geminiModel) }));
  }
  await call.relay(up, {
    usage: 'none',
    rewrite: (body) => {
      if (!isObject(body) || !Array.isArray(body.models)) return body;
      return { ...body, models: withPublicNames(body.models, call.deps.settings.upstreams, GEMINI_LIST).filter((m) => permitted(modelName(m))) };
    },
  });
}

/** GET /v1beta/models/{model}: a Gemini upstream's entry, else the model's entry in another style's list, in Gemini's shape. */
export async function getGeminiModel(call: GatewayCall, params: readonly string[]): Promise<void> {
  const model = pathModel(params).replace(/^models\//, '');
  call.permitModel(model);
  let up: UpstreamResponse;
  try {
    up = await call.send({ method: 'GET', accepts: speaksGemini, prepare: (spec) => ({ style: 'gemini', path: `/v1beta/models/${encodeURIComponent(spec.aliases[model] ?? model)}`, headers: {}, body: undefined, tag: 'native' }) });
  } catch (err) {
    if (!(err instanceof GatewayError && err.code === 'unsupported_api_style')) throw err;
    return relayForeignList(call, (ids) => {
      if (!ids.includes(model)) throw new GatewayError(404, `The model "${model}" does not exist. GET /v1beta/models lists the models this key may use.`, { type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
      return geminiModel(model);
    });
  }
  await call.relay(up, { usage: 'none' });
}
