/**
 * GET /v1/models (the list of an upstream in the style it speaks, with the public model names,
 * filtered by the key's permitted models) and GET /v1/models/{model}, both in Anthropic's layout
 * for a request carrying `anthropic-version` (as Anthropic's clients send it); and the billing
 * views computed from the key: /v1/dashboard/billing/subscription and
 * /v1/dashboard/billing/usage (OpenAI's legacy shapes, as one-api and new-api serve them).
 */
import { isObject, type JsonObject } from '../body.ts';
import type { GatewayCall } from '../call.ts';
import { budgetSpent, creditLeft, nextPeriodStart } from '../credit.ts';
import { badRequest, GatewayError } from '../errors.ts';
import { modelPermitted } from '../policy.ts';
import { modelListAttempt, openAiModels, type OpenAiModel } from '../model-list.ts';
import { withPublicNames, type ListLayout } from '../public-models.ts';
import type { TokenTotals } from '../usage.ts';
import { DAY_MS } from '../../kernel/time.ts';

function modelNotFound(model: string): GatewayError {
  return new GatewayError(404, `The model "${model}" does not exist. GET /v1/models lists the models this key may use.`, { type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
}

/** What dashboards show for an unlimited key (new-api's constant). */
export const UNLIMITED_USD = 100_000_000;

/** OpenAI's model list layout: `{id, object, created, owned_by}`. */
const OPENAI_LIST: ListLayout<OpenAiModel> = {
  idOf: (m) => m.id,
  entryOf: (id) => ({ id, object: 'model', created: 0, owned_by: 'gateway' }),
};

/** Whether the caller is an Anthropic client (its SDKs send `anthropic-version` with every request). */
function anthropicClient(call: GatewayCall): boolean {
  return call.ctx.get('anthropic-version') !== '';
}

/** An OpenAI model list entry as Anthropic's ModelInfo (`created` in seconds becomes `created_at`). */
function anthropicModel(m: OpenAiModel): JsonObject {
  const created = typeof m.created === 'number' && m.created > 0 ? m.created : 0;
  return { type: 'model', id: m.id, display_name: m.id, created_at: new Date(created * 1000).toISOString() };
}

/** Anthropic's list page: every permitted model on one page. */
function anthropicList(data: OpenAiModel[]): JsonObject {
  return { data: data.map(anthropicModel), has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

/** The model list of the first upstream that answers, in the style it speaks, read as OpenAI's entries with the public names. */
async function publicModels(call: GatewayCall, use: (models: OpenAiModel[], body: unknown) => unknown): Promise<void> {
  const up = await call.send({ method: 'GET', accepts: () => true, prepare: modelListAttempt });
  const style = up.attempt?.style ?? 'openai';
  await call.relay(up, { usage: 'none', rewrite: (body) => use(withPublicNames(openAiModels(style, body), call.deps.settings.upstreams, OPENAI_LIST), body) });
}

export async function listModels(call: GatewayCall): Promise<void> {
  const patterns = call.key.models;
  await publicModels(call, (models, body) => {
    const data = patterns.length === 0 ? models : models.filter((m) => modelPermitted(patterns, m.id));
    if (anthropicClient(call)) return anthropicList(data);
    return isObject(body) && Array.isArray(body.data) ? { ...body, data } : { object: 'list', data };
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
  await publicModels(call, (models) => {
    const entry = models.find((m) => m.id === model);
    if (entry === undefined) throw modelNotFound(model);
    return anthropicClient(call) ? anthropicModel(entry) : entry;
  });
}

const usd = (micros: number): number => micros / 1_000_000;
/** US cents, as OpenAI's usage view gives them (1 cent = 10,000 micro-dollars). */
const cents = (micros: number): number => micros / 10_000;

export async function billingSubscription(call: GatewayCall): Promise<void> {
  const k = call.key;
  const now = Date.now();
  const left = creditLeft(k, now);
  const limit = k.quotaMicros !== null ? usd(k.quotaMicros) : k.budgetMicros !== null ? usd(k.budgetMicros) : UNLIMITED_USD;
  call.ctx.body = {
    object: 'billing_subscription',
    has_payment_method: true,
    soft_limit_usd: limit,
    hard_limit_usd: limit,
    system_hard_limit_usd: limit,
    access_until: k.expiresAt === null ? 0 : Math.floor(k.expiresAt / 1000),
    // Not in OpenAI's shape: the key's credit in detail (USD), and its tokens.
    quota_usd: k.quotaMicros === null ? null : usd(k.quotaMicros),
    spent_usd: usd(k.spentMicros),
    remaining_usd: left.micros === null ? null : usd(left.micros),
    budget_usd: k.budgetMicros === null ? null : usd(k.budgetMicros),
    budget_period: k.budgetPeriod,
    budget_spent_usd: usd(budgetSpent(k, now)),
    budget_resets_at: k.budgetPeriod === null ? null : new Date(nextPeriodStart(k.budgetPeriod, now)).toISOString(),
    unlimited: left.micros === null,
    used_tokens: k.usedTokens,
    expires_at: k.expiresAt === null ? null : new Date(k.expiresAt).toISOString(),
    account: k.accountId,
    level: k.level,
  };
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MAX_RANGE_DAYS = 100;

function dateParam(call: GatewayCall, name: string): number | undefined {
  const v = call.ctx.query[name];
  if (v === undefined) return undefined;
  const ms = typeof v === 'string' && DATE.test(v) ? Date.parse(`${v}T00:00:00Z`) : NaN;
  if (Number.isNaN(ms)) throw badRequest(`Parameter "${name}" must be a date such as 2025-01-31 (UTC).`, name);
  return ms;
}

/** A usage line's tokens by kind, as the billing view names them. */
function tokenParts(t: TokenTotals): Record<string, number> {
  return {
    prompt_tokens: t.prompt,
    completion_tokens: t.completion,
    cached_tokens: t.cached,
    cache_write_tokens: t.cacheWrite,
    reasoning_tokens: t.reasoning,
    audio_input_tokens: t.audioIn,
    audio_output_tokens: t.audioOut,
  };
}

const NO_TOKENS: TokenTotals = { prompt: 0, completion: 0, cached: 0, cacheWrite: 0, reasoning: 0, audioIn: 0, audioOut: 0 };

/**
 * OpenAI's legacy usage view, in US cents: with `start_date` and `end_date` (end exclusive, at
 * most 100 days), the key's spend per day and model in `daily_costs` and their sum; without
 * them, the key's whole spend and tokens, with the kinds of tokens of its usage rows.
 */
export async function billingUsage(call: GatewayCall): Promise<void> {
  const from = dateParam(call, 'start_date');
  const to = dateParam(call, 'end_date');
  if ((from === undefined) !== (to === undefined)) throw badRequest('Give both "start_date" and "end_date" (or neither, for the key\'s whole spend).', from === undefined ? 'start_date' : 'end_date');
  if (from === undefined || to === undefined) {
    const kinds = (await call.deps.usage.tokensByKey([call.key.id], 0)).get(call.key.id) ?? NO_TOKENS;
    call.ctx.body = { object: 'list', total_usage: cents(call.key.spentMicros), used_tokens: call.key.usedTokens, usage: tokenParts(kinds) };
    return;
  }
  if (to <= from || to - from > MAX_RANGE_DAYS * DAY_MS) throw badRequest(`"end_date" must be after "start_date" and at most ${MAX_RANGE_DAYS} days later.`, 'end_date');
  const rows = await call.deps.usage.dailySpend(call.key.id, from, to);
  const days = new Map<number, { name: string; cost: number; usage: Record<string, number> }[]>();
  let total = 0;
  for (const r of rows) {
    total += r.costMicros;
    const items = days.get(r.day) ?? [];
    items.push({ name: r.model ?? 'other', cost: cents(r.costMicros), usage: tokenParts(r.tokens) });
    days.set(r.day, items);
  }
  call.ctx.body = {
    object: 'list',
    daily_costs: [...days].map(([day, line_items]) => ({ timestamp: day / 1000, line_items })),
    total_usage: cents(total),
  };
}
