/**
 * OpenAI Responses: `POST /v1/responses` (JSON or SSE) through the styled request path (native
 * to an upstream that speaks Responses, else translated through chat completions), and the
 * stored-response routes (`GET`/`DELETE /v1/responses/{id}`, `GET …/input_items`, `POST
 * …/cancel`), sent to the upstream that created the response and only for the account that
 * created it through this gateway.
 */
import { isObject, parseJsonObject, readBody, requiredString } from '../body.ts';
import type { GatewayCall } from '../call.ts';
import { badRequest, GatewayError } from '../errors.ts';
import { estimatePrompt } from '../estimate.ts';
import { forwardStyled } from '../styled.ts';

const RESPONSE_ID = /^[A-Za-z0-9_-]{1,128}$/;

export async function createResponse(call: GatewayCall): Promise<void> {
  const raw = await readBody(call.ctx.req, call.deps.settings.maxBodyBytes);
  const body = parseJsonObject(raw);
  const model = requiredString(body, 'model', 'the model name, e.g. "gpt-4.1-mini"');
  if (body.input === undefined) throw badRequest('Missing required parameter "input": a string or an array of input items.', 'input', 'missing_required_parameter');
  if (body.stream !== undefined && typeof body.stream !== 'boolean') throw badRequest('Parameter "stream" must be true or false.', 'stream');
  call.permitModel(model);
  call.stream = body.stream === true;
  const capped = await call.reserveGeneration('responses', body, estimatePrompt(raw.length, body, 'openai').tokens);
  /** Stored responses are read back from the upstream that made them, by the account that made them. */
  const remember = (response: unknown): void => {
    if (!isObject(response) || response.object !== 'response' || typeof response.id !== 'string' || !RESPONSE_ID.test(response.id)) return;
    if (call.upstreamStatus === null || call.upstreamStatus >= 300) return;
    call.deps.tasks.recordOwner(response.id, call.key.accountId, call.upstreamUrl ?? null).catch((err: unknown) => call.log.warn({ err: { message: (err as Error).message } }, 'could not remember a response id'));
  };
  await forwardStyled(call, {
    style: 'responses',
    body: capped ?? body,
    raw: capped ? Buffer.from(JSON.stringify(capped), 'utf8') : raw,
    model,
    relayNative: (up) =>
      call.relay(up, {
        usage: 'openai',
        inspect: remember,
        inspectEvent: (event) => {
          if (isObject(event) && event.type === 'response.created') remember(event.response);
        },
      }),
  });
}

/** GET/DELETE /v1/responses/{id}, GET /v1/responses/{id}/input_items, POST /v1/responses/{id}/cancel. */
export async function storedResponse(call: GatewayCall, params: readonly string[]): Promise<void> {
  const id = params[0] ?? '';
  const action = params[1] || undefined;
  const allowed = action === 'cancel' ? ['POST'] : action === 'input_items' ? ['GET'] : ['GET', 'DELETE'];
  if (!allowed.includes(call.ctx.method))
    throw new GatewayError(405, `Method ${call.ctx.method} is not allowed on ${call.ctx.path}; use ${allowed.join(' or ')}.`, { type: 'invalid_request_error', code: 'method_not_allowed', headers: { allow: allowed.join(', ') } });
  if (!RESPONSE_ID.test(id)) throw badRequest('The response id must be 1 to 128 letters, digits, "_" or "-".', 'response_id');
  const owner = await call.deps.tasks.owner(id);
  if (owner === undefined || owner.accountId !== call.key.accountId)
    throw new GatewayError(404, `No response "${id}" was stored for this account through this gateway (responses answered by translation are not stored).`, {
      type: 'invalid_request_error',
      code: 'response_not_found',
      param: 'response_id',
    });
  const up = await call.send({ method: call.ctx.method, upstream: owner.upstream ?? undefined, accepts: (spec) => spec.api.includes('responses') });
  await call.relay(up, { usage: 'none' });
}
