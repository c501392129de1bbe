/**
 * Anthropic Messages: `POST /v1/messages` (JSON or SSE; Claude Code adds `?beta=true`) through
 * the styled request path (native to an upstream that speaks Anthropic, with the client's
 * `anthropic-version` and `anthropic-beta` headers; else translated through chat completions),
 * and `POST /v1/messages/count_tokens`, answered by an Anthropic upstream or, when the model's
 * upstreams speak another style, by the gateway's own prompt estimate.
 */
import { isObject, parseJsonObject, readBody, requiredString, withFields, type JsonObject } from '../body.ts';
import type { GatewayCall } from '../call.ts';
import { badRequest, GatewayError } from '../errors.ts';
import { estimatePrompt } from '../estimate.ts';
import { TOKEN_COUNT_HEADER } from '../response-headers.ts';
import { forwardStyled } from '../styled.ts';
import { DroppedTools } from '../translate/index.ts';
import { ANTHROPIC_VERSION, anthropicCodec } from '../translate/anthropic.ts';
import type { UpstreamSpec } from '../upstream-settings.ts';

const HEADER_VALUE = /^[\x21-\x7e][\x20-\x7e]{0,499}$/;

/** The Anthropic headers a native upstream gets: the client's version (else the current one) and betas. */
function anthropicHeaders(call: GatewayCall): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['anthropic-version', 'anthropic-beta']) {
    const v = call.ctx.get(name);
    if (!v) continue;
    if (!HEADER_VALUE.test(v)) throw badRequest(`The ${name} header must be printable ASCII of at most 500 characters.`, name);
    out[name] = v;
  }
  out['anthropic-version'] ??= ANTHROPIC_VERSION;
  return out;
}

/**
 * The body as the prompt estimate reads it: Anthropic's base64 sources as inline media (so an
 * image counts by its size in pixels, not its base64 length), and images given by URL as image
 * parts of unknown size.
 */
function estimateView(x: unknown, depth = 0): unknown {
  if (depth > 32) return x;
  if (Array.isArray(x)) return x.map((v) => estimateView(v, depth + 1));
  if (!isObject(x)) return x;
  if (x.type === 'base64' && typeof x.media_type === 'string' && typeof x.data === 'string') return { inlineData: { mimeType: x.media_type, data: x.data } };
  if (x.type === 'image' && isObject(x.source) && x.source.type === 'url' && typeof x.source.url === 'string') return { image_url: { url: x.source.url } };
  return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, estimateView(v, depth + 1)]));
}

function readMessagesBody(raw: Buffer): { body: JsonObject; model: string } {
  const body = parseJsonObject(raw);
  const model = requiredString(body, 'model', 'the model name, e.g. "claude-sonnet-4-5"');
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw badRequest('Parameter "messages" must be a non-empty array of {role, content} objects.', 'messages');
  return { body, model };
}

export async function createMessage(call: GatewayCall): Promise<void> {
  const raw = await readBody(call.ctx.req, call.deps.settings.maxBodyBytes);
  const { body, model } = readMessagesBody(raw);
  const maxTokens = body.max_tokens;
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1)
    throw badRequest('Parameter "max_tokens" is required: the most tokens the answer may have, a whole number of at least 1.', 'max_tokens', maxTokens === undefined ? 'missing_required_parameter' : 'invalid_value');
  if (body.stream !== undefined && typeof body.stream !== 'boolean') throw badRequest('Parameter "stream" must be true or false.', 'stream');
  const headers = anthropicHeaders(call);
  call.permitModel(model);
  call.stream = body.stream === true;
  await call.reserveGeneration('anthropic', body, estimatePrompt(raw.length, estimateView(body), 'anthropic').tokens);
  await forwardStyled(call, { style: 'anthropic', body, raw, model, nativeHeaders: headers, relayNative: (up) => call.relay(up, { usage: 'anthropic' }) });
}

function speaksAnthropic(spec: UpstreamSpec): boolean {
  return spec.api.includes('anthropic');
}

/** Our own count, for a model whose upstreams speak another style: the request read as Anthropic's, estimated. */
function estimatedCount(call: GatewayCall, body: JsonObject): void {
  // Read in full (it must be a valid Messages request); tools are counted, never dropped.
  const chat = anthropicCodec.toChatRequest({ ...body, max_tokens: 1 }, new DroppedTools(false));
  const text = JSON.stringify(chat);
  call.ctx.status = 200;
  call.ctx.body = { input_tokens: estimatePrompt(Buffer.byteLength(text), chat, 'anthropic').tokens };
  call.ctx.set(TOKEN_COUNT_HEADER, 'estimated');
}

export async function countMessageTokens(call: GatewayCall): Promise<void> {
  const raw = await readBody(call.ctx.req, call.deps.settings.maxBodyBytes);
  const { body, model } = readMessagesBody(raw);
  const headers = anthropicHeaders(call);
  call.permitModel(model);
  let up;
  try {
    up = await call.send({
      accepts: speaksAnthropic,
      prepare: (spec) => {
        const own = spec.aliases[model] ?? model;
        return { style: 'anthropic', path: call.upstreamPath(), headers: withFields(headers, { 'content-type': 'application/json' }), body: own === model ? raw : Buffer.from(JSON.stringify({ ...body, model: own }), 'utf8') };
      },
    });
  } catch (err) {
    if (err instanceof GatewayError && err.code === 'unsupported_api_style') return estimatedCount(call, body);
    throw err;
  }
  await call.relay(up, { usage: 'none' });
}
