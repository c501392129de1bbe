/** Shared by the multipart routes: forward a gated upload and wait for both the form check and the upstream. */
import type { GatewayCall } from '../call.ts';
import { badRequest, upstreamInvalidResponse } from '../errors.ts';
import { Cancel } from '../cancel.ts';
import { gateMultipart, type FormSummary } from '../multipart.ts';
import { discardBody, type UpstreamResponse } from '../upstream.ts';

export async function forwardMultipart(call: GatewayCall, check: (form: FormSummary) => Promise<void> | void): Promise<UpstreamResponse> {
  const req = call.ctx.req;
  const gate = gateMultipart(req, { maxBytes: call.deps.settings.maxUploadBytes, check });
  const local = new Cancel();
  const declared = Number(req.headers['content-length']);
  const sending = call.send({ body: gate.body, contentType: req.headers['content-type'], contentLength: Number.isFinite(declared) ? declared : undefined, signal: local });
  sending.catch(() => undefined);
  const first = await Promise.race([gate.done.then(() => 'form' as const, () => 'form' as const), sending.then(() => 'upstream' as const, () => 'upstream' as const)]);
  if (first === 'form') {
    try {
      await gate.done;
    } catch (err) {
      local.abort();
      throw err;
    }
    return sending;
  }
  // The upstream answered (or failed) before the whole form was read and checked.
  gate.abandon();
  const up = await sending;
  if (up.status >= 400) return up;
  discardBody(up.body);
  throw upstreamInvalidResponse('it answered before the upload was complete');
}

export function requireField(form: FormSummary, name: string, what: string): string {
  const v = form.fields.get(name);
  if (v === undefined || v.trim() === '') throw badRequest(`Missing required form field "${name}": ${what}.`, name, 'missing_required_parameter');
  return v;
}
