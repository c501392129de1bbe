/**
 * POST /v1beta/models/{model}:generateContent and :streamGenerateContent, passed through in the
 * Gemini layout. `:streamGenerateContent` is a stream whatever `alt` says; the query string
 * (e.g. `alt=sse`) is forwarded, without our `key` parameter.
 */
import { parseJsonObject, readBody } from '../body.ts';
import type { GatewayCall } from '../call.ts';
import { badRequest } from '../errors.ts';
import { estimatePrompt } from '../estimate.ts';

export async function generateContent(call: GatewayCall, params: readonly string[]): Promise<void> {
  let model: string;
  try {
    model = decodeURIComponent(params[0] ?? '');
  } catch {
    throw badRequest('The model name in the path is not valid URL encoding.', 'model');
  }
  const streaming = params[1] === 'streamGenerateContent';
  const raw = await readBody(call.ctx.req, call.deps.settings.maxBodyBytes);
  const body = parseJsonObject(raw);
  if (!Array.isArray(body.contents) || body.contents.length === 0) throw badRequest('Field "contents" must be a non-empty array of {role, parts:[{text}]} objects.', 'contents');
  call.permitModel(model);
  call.stream = streaming;
  const capped = await call.reserveGeneration('gemini', body, estimatePrompt(raw.length, body, 'gemini').tokens);
  const up = await call.send({ body: capped ? Buffer.from(JSON.stringify(capped), 'utf8') : raw, contentType: 'application/json' });
  await call.relay(up, { usage: 'gemini', streamJson: streaming });
}
