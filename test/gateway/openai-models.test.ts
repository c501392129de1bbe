/**
 * Translated requests fitted to the OpenAI model answering them (translate/openai-models.ts):
 * the limits of each family as OpenAI's model pages give them (platform.openai.com/docs/models).
 */
import { describe, expect, it } from 'vitest';
import { fitToOpenAiModel } from '../../src/gateway/translate/openai-models.ts';
import type { ChatRequest } from '../../src/gateway/translate/types.ts';

function fit(chat: Omit<ChatRequest, 'messages'>): { sent: ChatRequest; dropped: string[] } {
  const dropped: string[] = [];
  const sent = fitToOpenAiModel({ ...chat, messages: [{ role: 'user', content: 'hi' }] }, (f) => dropped.push(f));
  const { messages: _m, ...rest } = sent;
  return { sent: rest as ChatRequest, dropped };
}

describe('fitToOpenAiModel', () => {
  it('reasoning efforts each model takes: minimal only on gpt-5, none on o1-mini, high only on gpt-5-pro', () => {
    expect(fit({ model: 'o3', reasoning_effort: 'minimal' })).toEqual({ sent: { model: 'o3', reasoning_effort: 'low' }, dropped: [] });
    expect(fit({ model: 'gpt-5-nano', reasoning_effort: 'minimal' }).sent.reasoning_effort).toBe('minimal');
    expect(fit({ model: 'o1-mini', reasoning_effort: 'high' })).toEqual({ sent: { model: 'o1-mini' }, dropped: ['reasoning_effort'] });
    expect(fit({ model: 'gpt-5-pro', reasoning_effort: 'low' }).sent.reasoning_effort).toBe('high');
    expect(fit({ model: 'gpt-4.1-mini', reasoning_effort: 'low' }).dropped).toEqual(['reasoning_effort']);
    expect(fit({ model: 'gpt-5-chat-latest', reasoning_effort: 'low' }).dropped).toEqual(['reasoning_effort']);
  });

  it('output budgets: max_completion_tokens for reasoning models, each brought down to the model\'s maximum output', () => {
    expect(fit({ model: 'o4-mini', max_tokens: 200_000 }).sent).toEqual({ model: 'o4-mini', max_completion_tokens: 100_000 });
    expect(fit({ model: 'gpt-4.1', max_tokens: 64_000 }).sent).toEqual({ model: 'gpt-4.1', max_tokens: 32_768 });
    expect(fit({ model: 'gpt-4o-mini', max_completion_tokens: 20_000 }).sent).toEqual({ model: 'gpt-4o-mini', max_completion_tokens: 16_384 });
    expect(fit({ model: 'gpt-3.5-turbo', max_tokens: 1000 }).sent).toEqual({ model: 'gpt-3.5-turbo', max_tokens: 1000 });
  });

  it('sampling other than the default is left out for reasoning models only; other vendors\' models are untouched', () => {
    expect(fit({ model: 'gpt-5', temperature: 0.2, top_p: 1 })).toEqual({ sent: { model: 'gpt-5', top_p: 1 }, dropped: ['temperature'] });
    expect(fit({ model: 'gpt-4o', temperature: 0.2 })).toEqual({ sent: { model: 'gpt-4o', temperature: 0.2 }, dropped: [] });
    const other = { model: 'deepseek-reasoner', max_tokens: 64_000, reasoning_effort: 'high' as const, temperature: 0.5 };
    expect(fit(other)).toEqual({ sent: other, dropped: [] });
  });
});
