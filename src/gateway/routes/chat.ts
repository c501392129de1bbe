/** POST /v1/chat/completions: the original body bytes forwarded; JSON or SSE answered as it comes. */
import { nonNegativeInt, parseJsonObject, readBody, requiredString } from '../body.ts';
import type { GatewayCall } from '../call.ts';
import { badRequest } from '../errors.ts';
import { estimateTokens } from '../usage.ts';

export async function chatCompletions(call: GatewayCall): Promise<void> {
  const raw = await readBody(call.ctx.req, call.deps.settings.maxBodyBytes);
  const body = parseJsonObject(raw);
  const model = requiredString(body, 'model', 'the model name, e.g. "gpt-4o-mini"');
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw badRequest('Parameter "messages" must be a non-empty array of {role, content} objects.', 'messages');
  if (body.stream !== undefined && typeof body.stream !== 'boolean') throw badRequest('Parameter "stream" must be true or false.', 'stream');
  call.permitModel(model);
  call.stream = body.stream === true;
  const maxOutput = nonNegativeInt(body.max_completion_tokens ?? body.max_tokens) ?? 0;
  await call.reserveTokens(estimateTokens(raw.length), maxOutput);
  const up = await call.send({ body: raw, contentType: 'application/json' });
  await call.relay(up, { usage: 'openai' });
}
