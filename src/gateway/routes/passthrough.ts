/**
 * The other categories (image generation, speech, transcription, voices, embeddings, videos,
 * music task creation): authenticated, limited and accounted, forwarded as they are. JSON
 * bodies are read (capped) for their `model`; multipart uploads stream through the form gate;
 * answers stream back (audio and other bytes) or are read for usage (JSON).
 */
import { optionalString, parseJsonObject, readBody } from '../body.ts';
import type { GatewayCall, JsonRelayOptions } from '../call.ts';
import { badRequest } from '../errors.ts';
import { isMultipart } from '../multipart.ts';
import { createdTaskId } from '../tasks.ts';
import { estimateTokens } from '../usage.ts';
import { forwardMultipart } from './upload.ts';

function modelRequired(): never {
  throw badRequest('This API key is limited to some models, so the request must name its "model".', 'model', 'missing_required_parameter');
}

async function forwardBody(call: GatewayCall, relay: JsonRelayOptions): Promise<void> {
  const { ctx } = call;
  if (ctx.method === 'GET' || ctx.method === 'DELETE' || ctx.method === 'HEAD') {
    const up = await call.send({ method: ctx.method });
    return call.relay(up, relay);
  }
  const contentType = ctx.get('content-type');
  if (isMultipart(contentType)) {
    const up = await forwardMultipart(call, async (form) => {
      const model = form.fields.get('model');
      if (model) call.permitModel(model);
      else if (call.modelRestricted) modelRequired();
      let chars = 0;
      for (const v of form.fields.values()) chars += v.length;
      await call.reserveTokens(estimateTokens(chars));
    });
    return call.relay(up, relay);
  }
  if (/^application\/(?:[\w.+-]+\+)?json/i.test(contentType) || contentType === '') {
    const raw = await readBody(ctx.req, call.deps.settings.maxBodyBytes);
    const model = raw.length ? optionalString(parseJsonObject(raw), 'model') : undefined;
    if (model) call.permitModel(model);
    else if (call.modelRestricted) modelRequired();
    await call.reserveTokens(estimateTokens(raw.length));
    const up = await call.send({ body: raw, contentType: contentType || 'application/json' });
    return call.relay(up, relay);
  }
  // Other bodies carry no readable model; they are read whole (capped) and forwarded.
  if (call.modelRestricted) modelRequired();
  const raw = await readBody(ctx.req, call.deps.settings.maxUploadBytes);
  const up = await call.send({ body: raw, contentType });
  return call.relay(up, relay);
}

export function passThrough(call: GatewayCall): Promise<void> {
  return forwardBody(call, { usage: 'openai' });
}

/** POST /v1/music/generations: also remembers which account created the task. */
export function createMusicTask(call: GatewayCall): Promise<void> {
  return forwardBody(call, {
    usage: 'none',
    inspect: async (body) => {
      const id = createdTaskId(body);
      if (id && call.upstreamStatus !== null && call.upstreamStatus < 300) await call.deps.tasks.recordOwner(id, call.key.accountId);
    },
  });
}
