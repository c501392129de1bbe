/**
 * The response headers the gateway itself sets (the upstream's rate-limit and retry headers
 * aside). Browsers read a cross-origin response header only when CORS exposes it, so every one
 * of them is in `GATEWAY_HEADERS`, which the gateway's Access-Control-Expose-Headers lists.
 */

/** Built-in tools left out of a translated request (the target style has no equivalent). */
export const DROPPED_TOOLS_HEADER = 'x-gateway-dropped-tools';
/** Request fields left out of a translated request because the target model cannot use them (e.g. reasoning effort for gpt-4o). */
export const DROPPED_FIELDS_HEADER = 'x-gateway-dropped-fields';
/** The fallback model that answered when every upstream of the asked model failed. */
export const FALLBACK_MODEL_HEADER = 'x-gateway-fallback-model';
/** `estimated` when a token count is the gateway's own estimate, not the upstream's. */
export const TOKEN_COUNT_HEADER = 'x-gateway-token-count';
/** The upstream's own request id (its `x-request-id`), for support requests to the vendor. */
export const UPSTREAM_REQUEST_ID_HEADER = 'x-upstream-request-id';
/** HIT or MISS: a music task answered from the gateway's cache. */
export const CACHE_HEADER = 'x-cache';

export const GATEWAY_HEADERS: readonly string[] = [DROPPED_TOOLS_HEADER, DROPPED_FIELDS_HEADER, FALLBACK_MODEL_HEADER, TOKEN_COUNT_HEADER, UPSTREAM_REQUEST_ID_HEADER, CACHE_HEADER];
