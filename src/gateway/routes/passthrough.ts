/**
 * The other categories (image generation, speech, transcription, voices, embeddings, videos,
 * music task creation): authenticated, limited and accounted, forwarded as they are. JSON
 * bodies are read (capped) for their `model` and billable units; multipart uploads stream
 * through the form gate; answers stream back (audio and other bytes) or are read for usage
 * (JSON), and for the units they report (images made, seconds transcribed).
 */
import { optionalString, parseJsonObject, readBody, type JsonObject } from '../body.ts';
import { answeredSeconds, imagesFromAnswer, requestedImages, requestedVideo, speechSeconds, uploadSeconds } from '../billing.ts';
import type { GatewayCall, JsonRelayOptions, Units } from '../call.ts';
import { badRequest } from '../errors.ts';
import { estimatePrompt, textTokens } from '../estimate.ts';
import { isMultipart } from '../multipart.ts';
import { createdTaskId } from '../tasks.ts';
import { forwardMultipart } from './upload.ts';

function modelRequired(): never {
  throw badRequest('This API key is limited to some models, so the request must name its "model".', 'model', 'missing_required_parameter');
}

/** The units a POST to this path asks for, from its JSON body or form fields (and upload size). */
function requestedUnits(path: string, fields: JsonObject, uploadBytes: number): Partial<Units> {
  if (/^\/v1\/images\//.test(path)) return requestedImages(fields);
  if (path === '/v1/audio/speech') return speechSeconds(fields.input);
  if (path === '/v1/audio/transcriptions' || path === '/v1/audio/translations') return uploadSeconds(uploadBytes);
  if (/^\/v1\/videos?$/.test(path)) return requestedVideo(fields);
  if (path === '/v1/music/generations') return { musicTasks: 1 };
  return {};
}

/** Correct the units by what the answer reports. */
function unitsFromAnswer(call: GatewayCall, answer: unknown): void {
  if (call.upstreamStatus === null || call.upstreamStatus >= 400) return;
  if (call.units.images) call.units = { ...call.units, images: imagesFromAnswer(call.units.images, answer) };
  const seconds = call.units.audioInSeconds > 0 ? answeredSeconds(answer) : undefined;
  if (seconds !== undefined) call.units = { ...call.units, audioInSeconds: seconds };
}

async function forwardBody(call: GatewayCall, relay: JsonRelayOptions): Promise<void> {
  const { ctx } = call;
  const withUnits: JsonRelayOptions = {
    ...relay,
    inspect: async (answer) => {
      unitsFromAnswer(call, answer);
      await relay.inspect?.(answer);
    },
  };
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
      const uploaded = form.files.reduce((n, f) => n + f.size, 0);
      await call.reserve({ promptTokens: textTokens(chars), units: requestedUnits(ctx.path, Object.fromEntries(form.fields), uploaded) });
    });
    return call.relay(up, withUnits);
  }
  if (/^application\/(?:[\w.+-]+\+)?json/i.test(contentType) || contentType === '') {
    const raw = await readBody(ctx.req, call.deps.settings.maxBodyBytes);
    const body = raw.length ? parseJsonObject(raw) : {};
    const model = optionalString(body, 'model');
    if (model) call.permitModel(model);
    else if (call.modelRestricted) modelRequired();
    await call.reserve({ promptTokens: estimatePrompt(raw.length, body, 'openai').tokens, units: requestedUnits(ctx.path, body, 0) });
    const up = await call.send({ body: raw, contentType: contentType || 'application/json' });
    return call.relay(up, withUnits);
  }
  // Other bodies carry no readable model; they are read whole (capped) and forwarded.
  if (call.modelRestricted) modelRequired();
  const raw = await readBody(ctx.req, call.deps.settings.maxUploadBytes);
  await call.reserve({ promptTokens: 0, units: requestedUnits(ctx.path, {}, raw.length) });
  const up = await call.send({ body: raw, contentType });
  return call.relay(up, withUnits);
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
      if (id && call.upstreamStatus !== null && call.upstreamStatus < 300) await call.deps.tasks.recordOwner(id, call.key.accountId, call.upstreamUrl ?? null);
    },
  });
}
