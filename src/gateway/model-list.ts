/**
 * An upstream's model list, asked in the first style the upstream speaks that has one: OpenAI's
 * `GET /v1/models` (chat or Responses upstreams), Anthropic's `GET /v1/models` (with
 * `anthropic-version`), Gemini's `GET /v1beta/models`; read back into OpenAI's entries
 * (`{id, object, created, owned_by}`), which the gateway's own lists are made from.
 */
import { isObject } from './body.ts';
import { upstreamInvalidResponse } from './errors.ts';
import { ANTHROPIC_VERSION } from './translate/anthropic.ts';
import { spokenStyles } from './translate/index.ts';
import type { ApiStyle } from './translate/types.ts';
import type { PreparedAttempt } from './upstream-pool.ts';
import type { UpstreamSpec } from './upstream-settings.ts';

/** Anthropic's and Gemini's largest page: the whole list in one answer for any real catalogue. */
const WHOLE_LIST = 1000;

/**
 * The request for an upstream's model list; `pageSize` 1 makes it the cheapest request the
 * upstream answers in its own style (the health probe's). OpenAI's list has no pages.
 */
export function modelListAttempt(spec: UpstreamSpec, pageSize = WHOLE_LIST): PreparedAttempt {
  const styles = spokenStyles(spec);
  if (styles.includes('openai') || styles.includes('responses')) return { style: 'openai', path: '/v1/models', headers: {}, body: undefined };
  if (styles.includes('anthropic')) return { style: 'anthropic', path: `/v1/models?limit=${pageSize}`, headers: { 'anthropic-version': ANTHROPIC_VERSION }, body: undefined };
  return { style: 'gemini', path: `/v1beta/models?pageSize=${pageSize}`, headers: {}, body: undefined };
}

export interface OpenAiModel {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  [field: string]: unknown;
}

const OWNER: Record<ApiStyle, string> = { openai: 'openai', responses: 'openai', anthropic: 'anthropic', gemini: 'google' };

function seconds(iso: unknown): number {
  const ms = typeof iso === 'string' ? Date.parse(iso) : NaN;
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/** A model list answered in `style`, as OpenAI's entries (an OpenAI list's own entries as they are). */
export function openAiModels(style: ApiStyle, body: unknown): OpenAiModel[] {
  if (style === 'gemini') {
    if (!isObject(body) || !Array.isArray(body.models)) throw upstreamInvalidResponse('models is missing from the model list');
    return body.models.flatMap((m) => (isObject(m) && typeof m.name === 'string' ? [{ id: m.name.replace(/^models\//, ''), object: 'model' as const, created: 0, owned_by: OWNER.gemini }] : []));
  }
  if (!isObject(body) || !Array.isArray(body.data)) throw upstreamInvalidResponse('data is missing from the model list');
  if (style === 'anthropic') return body.data.flatMap((m) => (isObject(m) && typeof m.id === 'string' ? [{ id: m.id, object: 'model' as const, created: seconds(m.created_at), owned_by: OWNER.anthropic }] : []));
  return body.data.filter((m): m is OpenAiModel => isObject(m) && typeof m.id === 'string');
}
