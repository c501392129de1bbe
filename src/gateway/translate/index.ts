/**
 * The codecs, one per API style, and how a request picks its path: native (the upstream speaks
 * the client's style: forwarded unchanged) or translated through chat completions into the
 * first style the upstream speaks that has an upstream codec (chat preferred).
 */
import { anthropicCodec } from './anthropic.ts';
import { geminiCodec } from './gemini.ts';
import { openaiCodec } from './openai.ts';
import { responsesCodec } from './responses.ts';
import { TranslationError, type ApiStyle, type ClientCodec, type ToolDropper, type UpstreamCodec } from './types.ts';

/** Client-side codecs (a style whose requests we can read). */
const clients: Partial<Record<ApiStyle, ClientCodec>> = {
  openai: openaiCodec,
  responses: responsesCodec,
  anthropic: anthropicCodec,
  gemini: geminiCodec,
};

/** Upstream-side codecs (a style we can send to). */
const upstreams: Partial<Record<ApiStyle, UpstreamCodec>> = {
  openai: openaiCodec,
  responses: responsesCodec,
  anthropic: anthropicCodec,
  gemini: geminiCodec,
};

/**
 * The styles an upstream speaks natively: its `api`; one that does not declare it also gets
 * Gemini requests as they come, as before styles were declared (new-api, one-api and LiteLLM
 * serve /v1beta natively).
 */
export function spokenStyles(spec: { api: readonly ApiStyle[]; apiDeclared: boolean }): readonly ApiStyle[] {
  return spec.apiDeclared || spec.api.includes('gemini') ? spec.api : [...spec.api, 'gemini'];
}

export function clientCodec(style: ApiStyle): ClientCodec {
  const c = clients[style];
  if (!c) throw new Error(`no client codec for the ${style} style`);
  return c;
}

/** How a request in `client` style reaches an upstream speaking `speaks`: natively, translated via a codec, or not at all. */
export function upstreamRoute(client: ApiStyle, speaks: readonly ApiStyle[]): { native: true } | { native: false; codec: UpstreamCodec } | undefined {
  if (speaks.includes(client)) return { native: true };
  const preferred = speaks.includes('openai') ? upstreams.openai : undefined;
  const codec = preferred ?? speaks.map((s) => upstreams[s]).find((c) => c !== undefined);
  return codec ? { native: false, codec } : undefined;
}

/** Collects built-in tools and fields left out of a translated request; refuses tools instead when the operator says so. */
export class DroppedTools implements ToolDropper {
  readonly names: string[] = [];
  readonly fields: string[] = [];
  constructor(private readonly refuse: boolean) {}
  drop(tool: string, param: string): void {
    if (this.refuse)
      throw new TranslationError(`The built-in tool "${tool}" has no equivalent at the upstream serving this model, and this gateway refuses requests whose tools it would leave out.`, param, 'unsupported_tool');
    if (!this.names.includes(tool)) this.names.push(tool);
  }
  dropField(field: string): void {
    if (!this.fields.includes(field)) this.fields.push(field);
  }
}

export { type ApiStyle } from './types.ts';
