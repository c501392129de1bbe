/** The gateway's route table: method, path pattern, interface family, handler. */
import type { GatewayCall } from '../call.ts';
import type { GatewayFamily } from '../errors.ts';
import { chatCompletions } from './chat.ts';
import { createMessage, countMessageTokens } from './anthropic.ts';
import { countTokens, embedContent, generateContent, getGeminiModel, listGeminiModels } from './gemini.ts';
import { imageEdits } from './images.ts';
import { billingSubscription, billingUsage, listModels, retrieveModel } from './info.ts';
import { musicTask } from './music.ts';
import { createMusicTask, passThrough } from './passthrough.ts';
import { completions } from './completions.ts';
import { rerank } from './rerank.ts';
import { createResponse, storedResponse } from './responses.ts';

export interface Route {
  name: string;
  methods: readonly string[];
  pattern: RegExp;
  /** Whether the route forwards to the upstream (503 when none is configured). */
  upstream: boolean;
  /** Whether its POST calls cost money (refused once the key's credit is spent); others stay open. */
  billed: boolean;
  /** Whether its parameter may hold "/" (written as is or as %2F), e.g. model ids such as Qwen/Qwen2.5-7B-Instruct. */
  slashInParams?: boolean;
  handle(call: GatewayCall, params: readonly string[]): Promise<void>;
}

const ANY = ['GET', 'POST', 'DELETE'] as const;

export const routes: readonly Route[] = [
  { name: 'chat.completions', methods: ['POST'], pattern: /^\/v1\/chat\/completions$/, upstream: true, billed: true, handle: chatCompletions },
  { name: 'responses.create', methods: ['POST'], pattern: /^\/v1\/responses$/, upstream: true, billed: true, handle: createResponse },
  { name: 'responses.stored', methods: ['GET', 'DELETE', 'POST'], pattern: /^\/v1\/responses\/([^/]+)(?:\/(input_items|cancel))?$/, upstream: true, billed: false, handle: storedResponse },
  { name: 'completions', methods: ['POST'], pattern: /^\/v1\/completions$/, upstream: true, billed: true, handle: completions },
  { name: 'moderations', methods: ['POST'], pattern: /^\/v1\/moderations$/, upstream: true, billed: true, handle: passThrough },
  { name: 'messages', methods: ['POST'], pattern: /^\/v1\/messages$/, upstream: true, billed: true, handle: createMessage },
  { name: 'messages.count_tokens', methods: ['POST'], pattern: /^\/v1\/messages\/count_tokens$/, upstream: true, billed: false, handle: countMessageTokens },
  { name: 'gemini.generate', methods: ['POST'], pattern: /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/, upstream: true, billed: true, handle: generateContent },
  { name: 'gemini.count_tokens', methods: ['POST'], pattern: /^\/v1beta\/models\/([^/:]+):countTokens$/, upstream: true, billed: false, handle: countTokens },
  { name: 'gemini.embed', methods: ['POST'], pattern: /^\/v1beta\/models\/([^/:]+):(embedContent|batchEmbedContents)$/, upstream: true, billed: true, handle: embedContent },
  { name: 'gemini.models', methods: ['GET'], pattern: /^\/v1beta\/models$/, upstream: true, billed: false, handle: listGeminiModels },
  { name: 'gemini.models.get', methods: ['GET'], pattern: /^\/v1beta\/models\/([^/:]+)$/, upstream: true, billed: false, handle: getGeminiModel },
  { name: 'rerank', methods: ['POST'], pattern: /^\/v1\/rerank$/, upstream: true, billed: true, handle: rerank },
  { name: 'images.edits', methods: ['POST'], pattern: /^\/v1\/images\/edits$/, upstream: true, billed: true, handle: imageEdits },
  { name: 'music.tasks', methods: ['GET'], pattern: /^\/v1\/music\/tasks\/([^/]+)$/, upstream: true, billed: false, handle: musicTask },
  { name: 'music.generations', methods: ['POST'], pattern: /^\/v1\/music\/generations$/, upstream: true, billed: true, handle: createMusicTask },
  { name: 'models.list', methods: ['GET'], pattern: /^\/v1\/models$/, upstream: true, billed: false, handle: listModels },
  { name: 'models.retrieve', methods: ['GET'], pattern: /^\/v1\/models\/(.+)$/, upstream: true, billed: false, slashInParams: true, handle: retrieveModel },
  { name: 'billing.subscription', methods: ['GET'], pattern: /^\/v1\/dashboard\/billing\/subscription$/, upstream: false, billed: false, handle: billingSubscription },
  { name: 'billing.usage', methods: ['GET'], pattern: /^\/v1\/dashboard\/billing\/usage$/, upstream: false, billed: false, handle: billingUsage },
  { name: 'images.generations', methods: ['POST'], pattern: /^\/v1\/images\/(?:generations|variations)$/, upstream: true, billed: true, handle: passThrough },
  { name: 'audio', methods: ['POST'], pattern: /^\/v1\/audio\/(?:speech|transcriptions|translations)$/, upstream: true, billed: true, handle: passThrough },
  { name: 'audio.voices', methods: ANY, pattern: /^\/v1\/audio\/voices(?:\/[^/]+)*$/, upstream: true, billed: true, handle: passThrough },
  { name: 'embeddings', methods: ['POST'], pattern: /^\/v1\/embeddings$/, upstream: true, billed: true, handle: passThrough },
  { name: 'videos', methods: ANY, pattern: /^\/v1\/videos?(?:\/[^/]+)*$/, upstream: true, billed: true, handle: passThrough },
];

export type Family = GatewayFamily | 'unversioned';

/** API paths called without their version segment (a base URL missing `/v1`). */
const UNVERSIONED = /^\/(?:chat|completions|embeddings|models|rerank|images|audio|music|videos?|dashboard|responses|moderations|files|batches|fine_tuning)(?:\/|$)/;

export function familyOf(path: string): Family | undefined {
  if (path === '/v1beta' || path.startsWith('/v1beta/')) return 'gemini';
  if (path === '/v1/messages' || path.startsWith('/v1/messages/')) return 'anthropic';
  if (path === '/v1' || path.startsWith('/v1/')) return 'openai';
  if (UNVERSIONED.test(path)) return 'unversioned';
  return undefined;
}

export type RouteMatch = { route: Route; params: string[] } | { allowed: readonly string[] } | undefined;

/** Dot segments and encoded separators: the upstream could resolve them to a path we never allowed. */
const UNSAFE_PATH = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)|%2f|%5c|\\/i;

export function matchRoute(method: string, path: string): RouteMatch {
  const unsafe = UNSAFE_PATH.test(path);
  // Routes whose parameter may hold "/" read %2F as "/"; dot segments hidden behind it are still found.
  const unsafeWithSlashes = UNSAFE_PATH.test(path.replace(/%2f/gi, '/'));
  const allowed = new Set<string>();
  for (const route of routes) {
    if (route.slashInParams ? unsafeWithSlashes : unsafe) continue;
    const m = route.pattern.exec(path);
    if (!m) continue;
    if (route.methods.includes(method)) return { route, params: m.slice(1).map((p) => p ?? '') };
    for (const x of route.methods) allowed.add(x);
  }
  return allowed.size ? { allowed: [...allowed] } : undefined;
}
