/**
 * POST /v1/chat/completions: the original body bytes forwarded to an upstream that speaks chat
 * (re-serialised only to add the reserved output cap or the usage request; JSON or SSE answered
 * as it comes), translated for one that does not (see styled.ts).
 * A stream always asks the upstream for its usage (`stream_options.include_usage`), so it is
 * billed by the upstream's count; when the client did not ask for it, the extra usage-only
 * chunk is left out of its stream.
 */
import { isObject, parseJsonObject, readBody, requiredString, withFields, type JsonObject } from '../body.ts';
import type { GatewayCall } from '../call.ts';
import { badRequest } from '../errors.ts';
import { estimatePrompt } from '../estimate.ts';
import { forwardStyled } from '../styled.ts';

/** The body to forward for a stream: with `include_usage` set, or `undefined` when the client set it. */
export function withStreamUsage(body: JsonObject): Buffer | undefined {
  const opts = body.stream_options;
  if (isObject(opts) && opts.include_usage === true) return undefined;
  return Buffer.from(JSON.stringify(withFields(body, { stream_options: withFields(isObject(opts) ? opts : {}, { include_usage: true }) })), 'utf8');
}

export async function chatCompletions(call: GatewayCall): Promise<void> {
  const raw = await readBody(call.ctx.req, call.deps.settings.maxBodyBytes);
  const body = parseJsonObject(raw);
  const model = requiredString(body, 'model', 'the model name, e.g. "gpt-4o-mini"');
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw badRequest('Parameter "messages" must be a non-empty array of {role, content} objects.', 'messages');
  if (body.stream !== undefined && typeof body.stream !== 'boolean') throw badRequest('Parameter "stream" must be true or false.', 'stream');
  if (body.stream_options !== undefined && body.stream_options !== null && !isObject(body.stream_options)) throw badRequest('Parameter "stream_options" must be an object such as {"include_usage": true}.', 'stream_options');
  call.permitModel(model);
  call.stream = body.stream === true;
  const capped = await call.reserveGeneration('chat', body, estimatePrompt(raw.length, body, 'openai').tokens);
  const rewritten = call.stream ? withStreamUsage(capped ?? body) : undefined;
  if (rewritten) call.hideUsageChunk = true;
  const forward = rewritten ?? (capped ? Buffer.from(JSON.stringify(capped), 'utf8') : raw);
  await forwardStyled(call, { style: 'openai', body: capped ?? body, raw: forward, model, relayNative: (up) => call.relay(up, { usage: 'openai' }) });
}
