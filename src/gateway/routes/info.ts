/**
 * GET /v1/models (the upstream list, filtered by the key's permitted models), GET
 * /v1/models/{model}, and the billing views computed from the key: /v1/dashboard/billing/subscription
 * and /v1/dashboard/billing/usage (OpenAI's legacy shapes, as one-api and new-api serve them).
 */
import { isObject } from '../body.ts';
import type { GatewayCall } from '../call.ts';
import { badRequest, GatewayError } from '../errors.ts';
import { modelPermitted } from '../policy.ts';

function modelNotFound(model: string): GatewayError {
  return new GatewayError(404, `The model "${model}" does not exist. GET /v1/models lists the models this key may use.`, { type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
}

/** What dashboards show for an unlimited key (new-api's constant). */
export const UNLIMITED_USD = 100_000_000;

export async function listModels(call: GatewayCall): Promise<void> {
  const patterns = call.key.models;
  const up = await call.send({ method: 'GET', path: '/v1/models' });
  await call.relay(up, {
    usage: 'none',
    rewrite: (body) => {
      if (patterns.length === 0 || !isObject(body) || !Array.isArray(body.data)) return body;
      return { ...body, data: body.data.filter((m) => isObject(m) && typeof m.id === 'string' && modelPermitted(patterns, m.id)) };
    },
  });
}

/**
 * GET /v1/models/{model}: the model's entry in the upstream list. Ids may hold "/"
 * (Qwen/Qwen2.5-7B-Instruct), which a per-model upstream path cannot carry reliably, so the
 * list is read and the entry picked from it (as one-api and new-api answer this route).
 */
export async function retrieveModel(call: GatewayCall, params: readonly string[]): Promise<void> {
  let model: string;
  try {
    model = decodeURIComponent(params[0] ?? '');
  } catch {
    throw badRequest('The model id in the path is not valid URL encoding.', 'model');
  }
  call.permitModel(model);
  const up = await call.send({ method: 'GET', path: '/v1/models' });
  await call.relay(up, {
    usage: 'none',
    rewrite: (body) => {
      const entry = isObject(body) && Array.isArray(body.data) ? body.data.find((m) => isObject(m) && m.id === model) : undefined;
      if (entry === undefined) throw modelNotFound(model);
      return entry;
    },
  });
}

function usd(tokens: number, perUsd: number): number {
  return Math.round((tokens / perUsd) * 1e6) / 1e6;
}

export async function billingSubscription(call: GatewayCall): Promise<void> {
  const k = call.key;
  const perUsd = call.deps.settings.quotaPerUsd;
  const limit = k.quotaTokens === null ? UNLIMITED_USD : usd(k.quotaTokens, perUsd);
  call.ctx.body = {
    object: 'billing_subscription',
    has_payment_method: true,
    soft_limit_usd: limit,
    hard_limit_usd: limit,
    system_hard_limit_usd: limit,
    access_until: k.expiresAt === null ? 0 : Math.floor(k.expiresAt / 1000),
    // Not in OpenAI's shape: the same facts in tokens, which is how quotas are kept here.
    quota_tokens: k.quotaTokens,
    used_tokens: k.usedTokens,
    remaining_tokens: k.quotaTokens === null ? null : Math.max(0, k.quotaTokens - k.usedTokens),
    unlimited: k.quotaTokens === null,
    expires_at: k.expiresAt === null ? null : new Date(k.expiresAt).toISOString(),
    account: k.accountId,
    level: k.level,
  };
}

export async function billingUsage(call: GatewayCall): Promise<void> {
  const perUsd = call.deps.settings.quotaPerUsd;
  // total_usage is in US cents, over the key's whole life (start_date/end_date are not used).
  call.ctx.body = { object: 'list', total_usage: Math.round(usd(call.key.usedTokens, perUsd) * 100 * 1e4) / 1e4, used_tokens: call.key.usedTokens };
}
