/**
 * A translated request fitted to the OpenAI model that is to answer it. Anthropic's and Gemini's
 * clients ask for thinking (chat's `reasoning_effort` once translated) and large output budgets
 * (Claude Code: `max_tokens` 32,000) that OpenAI refuses for some models with a 400:
 * - a model without reasoning (gpt-4o, gpt-4.1 …) refuses `reasoning_effort`: it is left out and
 *   named in `x-gateway-dropped-fields` (the answer means the same, without thinking);
 * - a reasoning model (o1, o3, o4-mini, gpt-5 …) refuses `max_tokens` ("use max_completion_tokens
 *   instead") and any `temperature`/`top_p` but the default: the budget goes as
 *   `max_completion_tokens`, the sampling fields are left out and named; `minimal` effort exists
 *   for gpt-5 only (the o-series get `low`); o1-mini and o1-preview take no effort at all;
 * - an output budget above the model's maximum output ("max_tokens is too large") is brought
 *   down to that maximum, which is the most the model could write anyway.
 * The maximum output tokens are those of each model's page (platform.openai.com/docs/models,
 * checked 2026-11-27). A model of no family below (another vendor behind an OpenAI-compatible
 * API: DeepSeek, Qwen, vLLM …) gets the request as translated.
 */
import type { ChatRequest } from './types.ts';

interface ModelFacts {
  /** A reasoning model: max_completion_tokens only, default sampling only. */
  reasoning: boolean;
  /** Which reasoning efforts it takes (none for models without the parameter). */
  efforts: readonly NonNullable<ChatRequest['reasoning_effort']>[];
  maxOutput: number;
}

const NO_EFFORT: ModelFacts['efforts'] = [];
const O_EFFORTS: ModelFacts['efforts'] = ['low', 'medium', 'high'];
const GPT5_EFFORTS: ModelFacts['efforts'] = ['minimal', 'low', 'medium', 'high'];

/** The first family a model name starts with decides (more specific names first). */
const FAMILIES: readonly [RegExp, ModelFacts][] = [
  [/^gpt-5(?:\.\d+)?-chat/, { reasoning: false, efforts: NO_EFFORT, maxOutput: 16_384 }],
  [/^gpt-5(?:\.\d+)?-pro/, { reasoning: true, efforts: ['high'], maxOutput: 272_000 }],
  [/^gpt-5/, { reasoning: true, efforts: GPT5_EFFORTS, maxOutput: 128_000 }],
  [/^o1-mini/, { reasoning: true, efforts: NO_EFFORT, maxOutput: 65_536 }],
  [/^o1-preview/, { reasoning: true, efforts: NO_EFFORT, maxOutput: 32_768 }],
  [/^o[134](?:-|$)/, { reasoning: true, efforts: O_EFFORTS, maxOutput: 100_000 }],
  [/^gpt-4\.1/, { reasoning: false, efforts: NO_EFFORT, maxOutput: 32_768 }],
  [/^(?:chatgpt-4o|gpt-4o)/, { reasoning: false, efforts: NO_EFFORT, maxOutput: 16_384 }],
  [/^gpt-4-turbo|^gpt-4-\d{4}-preview/, { reasoning: false, efforts: NO_EFFORT, maxOutput: 4_096 }],
  [/^gpt-4(?:-\d{4})?$/, { reasoning: false, efforts: NO_EFFORT, maxOutput: 8_192 }],
  [/^gpt-3\.5-turbo/, { reasoning: false, efforts: NO_EFFORT, maxOutput: 4_096 }],
];

export function openAiModelFacts(model: string): ModelFacts | undefined {
  return FAMILIES.find(([re]) => re.test(model))?.[1];
}

/** The effort a model takes closest to the one asked: the next one up, else the highest it has. */
function nearestEffort(asked: NonNullable<ChatRequest['reasoning_effort']>, efforts: ModelFacts['efforts']): ChatRequest['reasoning_effort'] {
  const order = GPT5_EFFORTS;
  return efforts.find((e) => order.indexOf(e) >= order.indexOf(asked)) ?? efforts.at(-1);
}

/** `chat` as `chat.model` takes it; `dropField` names each field left out. */
export function fitToOpenAiModel(chat: ChatRequest, dropField: (field: string) => void): ChatRequest {
  const facts = openAiModelFacts(chat.model);
  if (!facts) return chat;
  const out: ChatRequest = { ...chat };
  if (out.reasoning_effort !== undefined) {
    const effort = facts.efforts.length ? nearestEffort(out.reasoning_effort, facts.efforts) : undefined;
    if (effort) out.reasoning_effort = effort;
    else {
      delete out.reasoning_effort;
      dropField('reasoning_effort');
    }
  }
  const budget = out.max_completion_tokens ?? out.max_tokens;
  delete out.max_tokens;
  delete out.max_completion_tokens;
  if (budget !== undefined) {
    const fitted = Math.min(budget, facts.maxOutput);
    if (facts.reasoning) out.max_completion_tokens = fitted;
    else if (chat.max_completion_tokens !== undefined) out.max_completion_tokens = fitted;
    else out.max_tokens = fitted;
  }
  if (facts.reasoning) {
    for (const field of ['temperature', 'top_p'] as const) {
      if (out[field] === undefined || out[field] === 1) continue;
      delete out[field];
      dropField(field);
    }
  }
  return out;
}
