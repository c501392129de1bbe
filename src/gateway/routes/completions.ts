/**
 * POST /v1/completions (OpenAI's legacy text completions): forwarded as sent to upstreams that
 * speak the OpenAI style (no other style has it); a stream asks for usage like chat does.
 */
import { parseJsonObject, readBody, requiredString } from '../body.ts';
import type { GatewayCall } from '../call.ts';
import { badRequest } from '../errors.ts';
import { estimatePrompt } from '../estimate.ts';
import { withStreamUsage } from './chat.ts';

export async function completions(call: GatewayCall): Promise<void> {
  const raw = await readBody(call.ctx.req, call.deps.settings.maxBodyBytes);
  const body = parseJsonObject(raw);
  const model = requiredString(body, 'model', 'the model name, e.g. "gpt-3.5-turbo-instruct"');
  const prompt = body.prompt;
  const promptOk = typeof prompt === 'string' || (Array.isArray(prompt) && prompt.length > 0 && (prompt.every((p) => typeof p === 'string') || prompt.every((p) => typeof p === 'number') || prompt.every((p) => Array.isArray(p))));
  if (!promptOk) throw badRequest('Parameter "prompt" must be a string, an array of strings, or token arrays.', 'prompt');
  if (body.stream !== undefined && typeof body.stream !== 'boolean') throw badRequest('Parameter "stream" must be true or false.', 'stream');
  call.permitModel(model);
  call.stream = body.stream === true;
  const capped = await call.reserveGeneration('completions', body, estimatePrompt(raw.length, body, 'openai').tokens);
  const rewritten = call.stream ? withStreamUsage(capped ?? body) : undefined;
  if (rewritten) call.hideUsageChunk = true;
  const up = await call.send({ body: rewritten ?? (capped ? Buffer.from(JSON.stringify(capped), 'utf8') : raw), contentType: 'application/json' });
  await call.relay(up, { usage: 'openai' });
}
