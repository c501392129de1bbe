/** The OpenAI SDKs pointed at the gateway: a keyed `openai` client, and an @openai/agents run with a weather tool. */
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import { makeKey, type Harness } from './helpers.ts';

/** No retries: a test sees each answer the gateway gives. */
export const openaiClient = (base: string, key: string): OpenAI => new OpenAI({ baseURL: `${base}/v1`, apiKey: key, maxRetries: 0 });

/** A new key and an `openai` client that uses it. */
export async function keyedClient(h: Harness): Promise<{ key: string; keyId: string; openai: OpenAI }> {
  const made = await makeKey(h.svc);
  return { key: made.key, keyId: made.record.id, openai: openaiClient(h.base, made.key) };
}

/** An agent over the Responses API with a `get_weather` tool that answers 'sunny', asked once as JSON and once streamed. */
export async function runWeatherAgent(base: string, key: string, model: string): Promise<{ answer: string; streamed: string }> {
  setTracingDisabled(true);
  setOpenAIAPI('responses');
  setDefaultOpenAIClient(openaiClient(base, key) as never);
  const weather = tool({ name: 'get_weather', description: 'Weather of a city', parameters: z.object({ city: z.string() }), execute: async () => 'sunny' });
  const agent = new Agent({ name: 'helper', instructions: 'Answer briefly.', model, tools: [weather] });
  const result = await run(agent, 'weather in Paris?');
  const streamed = await run(agent, 'weather in Paris?', { stream: true });
  let text = '';
  for await (const chunk of streamed.toTextStream()) text += chunk;
  await streamed.completed;
  return { answer: String(result.finalOutput), streamed: text };
}
