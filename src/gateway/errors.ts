/**
 * The one error type of the gateway side. Every refusal or failure on `/v1` is rendered
 * OpenAI-shaped (`{error:{message,type,param,code}}`) so the openai SDK maps it to its error
 * classes; on `/v1beta` the same error is rendered Google-shaped (`{error:{code,message,status}}`),
 * and on the Anthropic routes (`/v1/messages…`) Anthropic-shaped (`{type:"error",error:{type,message}}`).
 */

import { formatUsd, type CreditColumns, type CreditLeft } from './credit.ts';

export type GatewayFamily = 'openai' | 'gemini' | 'anthropic';

export class GatewayError extends Error {
  readonly status: number;
  readonly type: string;
  readonly code: string;
  readonly param: string | null;
  readonly headers: Record<string, string>;
  constructor(status: number, message: string, opts: { type: string; code: string; param?: string | null; headers?: Record<string, string>; cause?: unknown }) {
    super(message, { cause: opts.cause });
    this.name = 'GatewayError';
    this.status = status;
    this.type = opts.type;
    this.code = opts.code;
    this.param = opts.param ?? null;
    this.headers = opts.headers ?? {};
  }
}

const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export function googleStatus(status: number): string {
  return GOOGLE_STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
}

const ANTHROPIC_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** Anthropic's error type for an HTTP status (its API reference, "Errors"). */
export function anthropicErrorType(status: number): string {
  return ANTHROPIC_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

export function errorBody(err: GatewayError, family: GatewayFamily): Record<string, unknown> {
  if (family === 'anthropic') return { type: 'error', error: { type: anthropicErrorType(err.status), message: err.message } };
  if (family === 'gemini') {
    return {
      error: {
        code: err.status,
        message: err.message,
        status: googleStatus(err.status),
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: err.code, domain: 'gateway', metadata: { type: err.type } }],
      },
    };
  }
  return { error: { message: err.message, type: err.type, param: err.param, code: err.code } };
}

// --- authentication and policy -------------------------------------------------------------

export function invalidApiKey(message: string): GatewayError {
  return new GatewayError(401, message, { type: 'invalid_request_error', code: 'invalid_api_key' });
}

export function ipNotAllowed(ip: string): GatewayError {
  return new GatewayError(403, `This API key may not be used from IP address ${ip}. Ask the key's owner to add it to the key's IP allowlist.`, {
    type: 'invalid_request_error',
    code: 'ip_not_allowed',
  });
}

export function modelNotAllowed(model: string): GatewayError {
  return new GatewayError(403, `This API key is not permitted to use model "${model}". GET /v1/models lists the models this key may use.`, {
    type: 'invalid_request_error',
    code: 'model_not_allowed',
    param: 'model',
  });
}

/**
 * Credit refusals are 429 insufficient_quota (OpenAI's code for it) with `x-should-retry:
 * false`: retrying cannot help. A budget-limited key gets a truthful retry-after: the start of
 * its next budget period.
 */
function creditError(message: string, left: CreditLeft, now: number): GatewayError {
  const headers: Record<string, string> = { 'x-should-retry': 'false' };
  if (left.limitedBy === 'budget' && left.resetsAt !== null) {
    const ms = Math.max(1, left.resetsAt - now);
    headers['retry-after'] = String(Math.ceil(ms / 1000));
    headers['retry-after-ms'] = String(ms);
  }
  return new GatewayError(429, message, { type: 'insufficient_quota', code: 'insufficient_quota', headers });
}

function limitText(k: CreditColumns, left: CreditLeft): string {
  if (left.limitedBy === 'budget') return `its ${k.budgetPeriod} budget of ${formatUsd(k.budgetMicros ?? 0)} (resets ${new Date(left.resetsAt ?? 0).toISOString()})`;
  return `its credit of ${formatUsd(k.quotaMicros ?? 0)}`;
}

/** The key has nothing left. */
export function insufficientQuota(k: CreditColumns, left: CreditLeft, now = Date.now()): GatewayError {
  return creditError(`You exceeded this API key's credit: it has spent ${limitText(k, left)}. Ask for a top-up or a larger budget.`, left, now);
}

/** The request may cost more than the key has left. */
export function creditRefused(
  k: CreditColumns,
  micros: number,
  left: CreditLeft,
  heldMicros: number,
  d: { model: string | null; promptTokens: number; outputTokens: number; outputLimitGiven: boolean },
  now = Date.now(),
): GatewayError {
  const available = Math.max(0, (left.micros ?? 0) - heldMicros);
  const held = heldMicros > 0 ? ` (${formatUsd(heldMicros)} of it is held by requests in progress)` : '';
  const how = d.outputLimitGiven ? 'Lower max_tokens' : `Set max_tokens (without it ${d.outputTokens} output tokens are reserved)`;
  return creditError(
    `This request may cost up to ${formatUsd(micros)} (about ${d.promptTokens} prompt tokens and up to ${d.outputTokens} output tokens, or its units, at the prices of ${d.model ?? 'this route'}), more than the ${formatUsd(available)} this API key has left of ${limitText(k, left)}${held}. ${how}, or ask for a top-up.`,
    left,
    now,
  );
}

// --- the caller's request -------------------------------------------------------------------

export function badRequest(message: string, param: string | null = null, code = 'invalid_value'): GatewayError {
  return new GatewayError(400, message, { type: 'invalid_request_error', code, param });
}

export function missingParam(param: string, what: string): GatewayError {
  return badRequest(`Missing required parameter "${param}": ${what}.`, param, 'missing_required_parameter');
}

export function tooLarge(limit: number): GatewayError {
  return new GatewayError(413, `Request body too large: the limit is ${limit} bytes.`, { type: 'invalid_request_error', code: 'request_too_large' });
}

export function unknownUrl(method: string, path: string): GatewayError {
  return new GatewayError(404, `Invalid URL (${method} ${path}). See the gateway routes in the README.`, { type: 'invalid_request_error', code: 'unknown_url' });
}

// --- upstream and configuration -------------------------------------------------------------

export function upstreamNotConfigured(): GatewayError {
  return new GatewayError(503, 'The AI gateway has no upstream: set AI_UPSTREAM_BASE_URL (and AI_UPSTREAM_API_KEY) and restart the service.', {
    type: 'server_error',
    code: 'upstream_not_configured',
  });
}

export function upstreamUnreachable(cause?: unknown): GatewayError {
  return new GatewayError(502, 'The upstream model gateway could not be reached. Try again later.', { type: 'upstream_error', code: 'upstream_unreachable', cause });
}

export function upstreamTimeout(cause?: unknown): GatewayError {
  return new GatewayError(504, 'The upstream model gateway did not answer in time. Try again later.', { type: 'upstream_error', code: 'upstream_timeout', cause });
}

export function upstreamBadGateway(status: number): GatewayError {
  return new GatewayError(502, `The upstream model gateway failed (HTTP ${status}). Try again later.`, { type: 'upstream_error', code: 'bad_gateway' });
}

export function upstreamAuthFailed(status: number): GatewayError {
  // Never a 401/403: the caller would read it as "your key is bad".
  return new GatewayError(502, `The upstream model gateway rejected this service's credential (HTTP ${status}); this is a server configuration problem, not your key.`, {
    type: 'upstream_error',
    code: 'upstream_auth_failed',
  });
}

export function upstreamInvalidResponse(detail: string): GatewayError {
  return new GatewayError(502, `The upstream model gateway sent an invalid response (${detail}).`, { type: 'upstream_error', code: 'bad_gateway' });
}

export function internalError(): GatewayError {
  return new GatewayError(500, 'Internal server error. The failure was logged; please try again later.', { type: 'server_error', code: 'internal_error' });
}

/** The key store (the database) did not answer: the key could not be checked, so nothing was forwarded. */
export function storeUnavailable(): GatewayError {
  return new GatewayError(503, 'The gateway cannot check API keys right now (its database is unavailable). Please retry shortly.', {
    type: 'server_error',
    code: 'service_unavailable',
    headers: { 'retry-after': '2' },
  });
}
