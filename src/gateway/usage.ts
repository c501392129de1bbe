/**
 * Token usage: read from upstream answers (OpenAI `usage`, Gemini `usageMetadata`), estimated
 * when absent, and written as one row per request. Rows hold ids, counts and timings only:
 * never keys, prompts or answers.
 */
import type { Db } from '../kernel/db.ts';
import { isObject, nonNegativeInt } from './body.ts';

export interface TokenUsage {
  prompt: number;
  completion: number;
  total: number;
}

export type UsageSource = 'upstream' | 'estimated' | 'none';
export type EndReason = 'completed' | 'client_closed' | 'upstream_error' | 'rejected';

/** About four bytes of English text or JSON per token: good enough to reserve and to bill a cut stream. */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

function usageFrom(prompt: unknown, completion: unknown, total: unknown): TokenUsage | undefined {
  const p = nonNegativeInt(prompt);
  const c = nonNegativeInt(completion);
  const t = nonNegativeInt(total);
  if (p === undefined && c === undefined && t === undefined) return undefined;
  return { prompt: p ?? 0, completion: c ?? 0, total: t ?? (p ?? 0) + (c ?? 0) };
}

/** OpenAI-style `usage` (chat, embeddings, rerank) or the images style (`input_tokens`/`output_tokens`). */
export function openAiUsage(body: unknown): TokenUsage | undefined {
  if (!isObject(body) || !isObject(body.usage)) return undefined;
  const u = body.usage;
  return usageFrom(u.prompt_tokens ?? u.input_tokens, u.completion_tokens ?? u.output_tokens, u.total_tokens);
}

export function geminiUsage(body: unknown): TokenUsage | undefined {
  if (!isObject(body) || !isObject(body.usageMetadata)) return undefined;
  const u = body.usageMetadata;
  return usageFrom(u.promptTokenCount, u.candidatesTokenCount, u.totalTokenCount);
}

/** Characters of generated text in a chat completion or one of its stream chunks. */
export function openAiOutputChars(body: unknown): number {
  if (!isObject(body) || !Array.isArray(body.choices)) return 0;
  let n = 0;
  for (const choice of body.choices) {
    if (!isObject(choice)) continue;
    const part = isObject(choice.delta) ? choice.delta : isObject(choice.message) ? choice.message : undefined;
    if (part && typeof part.content === 'string') n += part.content.length;
  }
  return n;
}

/** Characters of generated text in a Gemini answer or one of its stream chunks. */
export function geminiOutputChars(body: unknown): number {
  if (!isObject(body) || !Array.isArray(body.candidates)) return 0;
  let n = 0;
  for (const cand of body.candidates) {
    if (!isObject(cand) || !isObject(cand.content) || !Array.isArray(cand.content.parts)) continue;
    for (const part of cand.content.parts) if (isObject(part) && typeof part.text === 'string') n += part.text.length;
  }
  return n;
}

export interface UsageRow {
  requestId: string;
  keyId: string;
  accountId: string;
  route: string;
  method: string;
  model: string | null;
  stream: boolean;
  status: number;
  upstreamStatus: number | null;
  errorCode: string | null;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  chargedTokens: number;
  usageSource: UsageSource;
  endReason: EndReason;
  ttfbMs: number | null;
  durationMs: number;
}

export interface StoredUsageRow extends UsageRow {
  id: number;
  createdAt: number;
}

/** A gateway_usage row as SQL returns it (`stream` is 0/1 in SQLite, a boolean in PostgreSQL). */
export interface DbUsageRow {
  id: number;
  request_id: string;
  created_at: number;
  key_id: string;
  account_id: string;
  route: string;
  method: string;
  model: string | null;
  stream: number | boolean;
  status: number;
  upstream_status: number | null;
  error_code: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  charged_tokens: number;
  usage_source: UsageSource;
  end_reason: EndReason;
  ttfb_ms: number | null;
  duration_ms: number;
}

export const USAGE_INSERT_COLUMNS =
  'request_id, created_at, key_id, account_id, route, method, model, stream, status, upstream_status, error_code, prompt_tokens, completion_tokens, total_tokens, charged_tokens, usage_source, end_reason, ttfb_ms, duration_ms';

/** The values of one row in USAGE_INSERT_COLUMNS order (`stream` as the backend stores it). */
export function usageValues(r: UsageRow, createdAt: number, stream: number | boolean): unknown[] {
  return [
    r.requestId, createdAt, r.keyId, r.accountId, r.route, r.method, r.model, stream, r.status, r.upstreamStatus, r.errorCode,
    r.promptTokens, r.completionTokens, r.totalTokens, r.chargedTokens, r.usageSource, r.endReason, r.ttfbMs === null ? null : Math.round(r.ttfbMs), Math.round(r.durationMs),
  ];
}

export function toStoredUsage(r: DbUsageRow): StoredUsageRow {
  return {
    id: r.id,
    createdAt: r.created_at,
    requestId: r.request_id,
    keyId: r.key_id,
    accountId: r.account_id,
    route: r.route,
    method: r.method,
    model: r.model,
    stream: r.stream === 1 || r.stream === true,
    status: r.status,
    upstreamStatus: r.upstream_status,
    errorCode: r.error_code,
    promptTokens: r.prompt_tokens,
    completionTokens: r.completion_tokens,
    totalTokens: r.total_tokens,
    chargedTokens: r.charged_tokens,
    usageSource: r.usage_source,
    endReason: r.end_reason,
    ttfbMs: r.ttfb_ms,
    durationMs: r.duration_ms,
  };
}

/** The usage log: SQLite (`SqliteUsageLog`) or PostgreSQL (`PgUsageLog` in pg-stores.ts). */
export interface UsageLog {
  /** Settle one request in one transaction: its row, and its charged tokens and count added to its key. */
  record(row: UsageRow): Promise<void>;
  /** The newest rows of one key, newest first. */
  forKey(keyId: string, limit?: number): Promise<StoredUsageRow[]>;
}

export class SqliteUsageLog implements UsageLog {
  private readonly settle;

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {
    const insert = db.prepare(`INSERT INTO gateway_usage (${USAGE_INSERT_COLUMNS}) VALUES (${USAGE_INSERT_COLUMNS.split(',').map(() => '?').join(', ')})`);
    const charge = db.prepare('UPDATE gateway_keys SET used_tokens = used_tokens + ?, request_count = request_count + 1, last_used_at = ? WHERE id = ?');
    this.settle = db.transaction((r: UsageRow, at: number) => {
      charge.run(Math.max(0, Math.round(r.chargedTokens)), at, r.keyId);
      insert.run(...usageValues(r, at, r.stream ? 1 : 0));
    });
  }

  async record(r: UsageRow): Promise<void> {
    this.settle(r, this.now());
  }

  async forKey(keyId: string, limit = 100): Promise<StoredUsageRow[]> {
    return (this.db.prepare('SELECT * FROM gateway_usage WHERE key_id = ? ORDER BY id DESC LIMIT ?').all(keyId, limit) as DbUsageRow[]).map(toStoredUsage);
  }
}
