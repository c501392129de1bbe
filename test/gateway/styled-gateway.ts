/**
 * A gateway in front of three upstreams that each speak one style only (Anthropic, Gemini,
 * OpenAI chat), routed by model name, with a key: the set-up of the tests that run one client
 * style against every upstream style.
 */
import { makeKey, startGateway, type Harness } from './helpers.ts';
import { ModelUpstream } from './model-upstream.ts';
import { AnthropicUpstream, GeminiUpstream } from './vendor-upstreams.ts';

export const UPSTREAM_KEY = 'vendor-upstream-key';

export interface StyledGateway {
  anthropicUp: AnthropicUpstream;
  geminiUp: GeminiUpstream;
  openaiUp: ModelUpstream;
  h: Harness;
  key: string;
  keyId: string;
}

/** `models`: the model patterns each upstream serves. */
export async function startStyledGateway(models: { anthropic: string[]; gemini: string[]; openai: string[] }): Promise<StyledGateway> {
  const anthropicUp = await new AnthropicUpstream(UPSTREAM_KEY).start();
  const geminiUp = await new GeminiUpstream(UPSTREAM_KEY).start();
  const openaiUp = await new ModelUpstream().start();
  const h = await startGateway({
    upstream: openaiUp,
    env: {
      AI_UPSTREAM_BASE_URL: '',
      AI_UPSTREAM_API_KEY: UPSTREAM_KEY,
      AI_UPSTREAMS: JSON.stringify([
        { name: 'anthropic', url: anthropicUp.url, api: ['anthropic'], models: models.anthropic },
        { name: 'gemini', url: geminiUp.url, api: ['gemini'], models: models.gemini },
        { name: 'openai', url: openaiUp.url, api: ['openai'], models: models.openai },
      ]),
    },
  });
  const made = await makeKey(h.svc);
  return { anthropicUp, geminiUp, openaiUp, h, key: made.key, keyId: made.record.id };
}

export async function stopStyledGateway(g: Partial<StyledGateway>): Promise<void> {
  await g.h?.close();
  await g.anthropicUp?.stop();
  await g.geminiUp?.stop();
  await g.openaiUp?.stop();
}

export function resetStyledUpstreams(g: Pick<StyledGateway, 'anthropicUp' | 'geminiUp' | 'openaiUp'>): void {
  g.anthropicUp.reset();
  g.geminiUp.reset();
  g.openaiUp.reset();
}
