/**
 * Token usage rows (usage-reading.ts reads the upstream's counts; output is estimated here when
 * they are absent), written as one row per request. Rows hold ids, counts and timings only:
 * never keys, prompts or answers.
 */
import type { Db } from '../kernel/db.ts';
import { DAY_MS } from '../kernel/time.ts';
import { isObject } from './body.ts';
import { periodStart } from './credit.ts';
import { stringTokens } from './estimate.ts';
import { noteKeyWrite } from './keys.ts';

export type { TokenUsage } from './usage-reading.ts';

export type UsageSource = 'upstream' | 'estimated' | 'none';
export type EndReason = 'completed' | 'client_closed' | 'upstream_error' | 'rejected';

/** Generated output seen in an answer or a stream chunk: its characters and a token estimate. */
export interface OutputSeen {
  chars: number;
  /** Each piece at least one token (a stream sends about one token per piece), else stringTokens. */
  tokens: number;
}

const NO_OUTPUT: OutputSeen = { chars: 0, tokens: 0 };

function add(seen: OutputSeen, text: unknown): OutputSeen {
  if (typeof text !== 'string' || text.length === 0) return seen;
  return { chars: seen.chars + text.length, tokens: seen.tokens + Math.max(1, stringTokens(text)) };
}

/** Text, reasoning, refusals and tool-call arguments of a chat completion or one of its stream chunks (or a Responses stream event). */
export function openAiOutput(body: unknown): OutputSeen {
  // A Responses stream's text, reasoning and call arguments arrive as `*.delta` events.
  if (isObject(body) && typeof body.type === 'string' && body.type.startsWith('response.') && body.type.endsWith('.delta')) return add(NO_OUTPUT, body.delta);
  if (!isObject(body) || !Array.isArray(body.choices)) return NO_OUTPUT;
  let seen = NO_OUTPUT;
  for (const choice of body.choices) {
    if (!isObject(choice)) continue;
    const part = isObject(choice.delta) ? choice.delta : isObject(choice.message) ? choice.message : undefined;
    if (!part) {
      seen = add(seen, choice.text);
      continue;
    }
    seen = add(add(add(add(seen, part.content), part.reasoning_content), part.reasoning), part.refusal);
    if (Array.isArray(part.tool_calls)) for (const t of part.tool_calls) if (isObject(t) && isObject(t.function)) seen = add(seen, t.function.arguments);
  }
  return seen;
}

/** Text, thinking and tool-input JSON of an Anthropic message or one of its stream events (`content_block_delta`). */
export function anthropicOutput(body: unknown): OutputSeen {
  if (!isObject(body)) return NO_OUTPUT;
  if (isObject(body.delta)) return add(add(add(NO_OUTPUT, body.delta.text), body.delta.thinking), body.delta.partial_json);
  if (!Array.isArray(body.content)) return NO_OUTPUT;
  let seen = NO_OUTPUT;
  for (const block of body.content) {
    if (!isObject(block)) continue;
    seen = add(add(seen, block.text), block.thinking);
    if (isObject(block.input)) seen = add(seen, JSON.stringify(block.input));
  }
  return seen;
}

/** Text (thoughts included) and function-call arguments of a Gemini answer or one of its stream chunks. */
export function geminiOutput(body: unknown): OutputSeen {
  if (!isObject(body) || !Array.isArray(body.candidates)) return NO_OUTPUT;
  let seen = NO_OUTPUT;
  for (const cand of body.candidates) {
    if (!isObject(cand) || !isObject(cand.content) || !Array.isArray(cand.content.parts)) continue;
    for (const part of cand.content.parts) {
      if (!isObject(part)) continue;
      seen = add(seen, part.text);
      if (isObject(part.functionCall)) seen = add(seen, JSON.stringify(part.functionCall.args ?? {}));
    }
  }
  return seen;
}

export interface UsageRow {
  requestId: string;
  /** This settlement's own id (unique): a replay of it from the journal is recognised and skipped. */
  settleId: string;
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
  /** Parts of the prompt and completion tokens, as the upstream reported them (usage-reading.ts). */
  cachedTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  audioInputTokens: number;
  audioOutputTokens: number;
  /** What the request cost, in micro-dollars (USD × 1,000,000), by the price table. */
  costMicros: number;
  usageSource: UsageSource;
  endReason: EndReason;
  ttfbMs: number | null;
  durationMs: number;
  /** The credit reservation this request held (released when the row is written); not stored. */
  reservationId?: string | null | undefined;
}

export interface StoredUsageRow extends Omit<UsageRow, 'reservationId' | 'settleId'> {
  id: number;
  createdAt: number;
}

/** Tokens of several requests added up, with their parts. */
export interface TokenTotals {
  prompt: number;
  completion: number;
  cached: number;
  cacheWrite: number;
  reasoning: number;
  audioIn: number;
  audioOut: number;
}

/** One day's spend of a key on one model (the billing usage view). */
export interface DailySpend {
  /** Start of the UTC day, ms. */
  day: number;
  model: string | null;
  costMicros: number;
  tokens: TokenTotals;
}

/** The SUM columns of DAILY_SPEND rows, in TokenTotals order (SQL aliases p, c, ca, cw, r, ai, ao). */
export const TOKEN_SUMS = 'SUM(prompt_tokens) AS p, SUM(completion_tokens) AS c, SUM(cached_tokens) AS ca, SUM(cache_write_tokens) AS cw, SUM(reasoning_tokens) AS r, SUM(audio_input_tokens) AS ai, SUM(audio_output_tokens) AS ao';

export interface TokenSumsRow {
  p: number | string;
  c: number | string;
  ca: number | string;
  cw: number | string;
  r: number | string;
  ai: number | string;
  ao: number | string;
}

/** The parts of some tokens that are above 0, named as the key command and the console show them: ["cached 4", "reasoning 3"]. */
export function namedTokenParts(t: TokenTotals): string[] {
  const parts: [string, number][] = [
    ['cached', t.cached],
    ['cache writes', t.cacheWrite],
    ['reasoning', t.reasoning],
    ['audio in', t.audioIn],
    ['audio out', t.audioOut],
  ];
  return parts.filter(([, n]) => n > 0).map(([name, n]) => `${name} ${n}`);
}

/** One stored request's tokens as totals. */
export function rowTokens(r: StoredUsageRow): TokenTotals {
  return { prompt: r.promptTokens, completion: r.completionTokens, cached: r.cachedTokens, cacheWrite: r.cacheWriteTokens, reasoning: r.reasoningTokens, audioIn: r.audioInputTokens, audioOut: r.audioOutputTokens };
}

export function tokenTotals(r: TokenSumsRow): TokenTotals {
  return { prompt: Number(r.p), completion: Number(r.c), cached: Number(r.ca), cacheWrite: Number(r.cw), reasoning: Number(r.r), audioIn: Number(r.ai), audioOut: Number(r.ao) };
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
  cached_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  audio_input_tokens: number;
  audio_output_tokens: number;
  cost_micros: number;
  usage_source: UsageSource;
  end_reason: EndReason;
  ttfb_ms: number | null;
  duration_ms: number;
}

export const USAGE_INSERT_COLUMNS =
  'request_id, created_at, key_id, account_id, route, method, model, stream, status, upstream_status, error_code, prompt_tokens, completion_tokens, total_tokens, charged_tokens, cost_micros, usage_source, end_reason, ttfb_ms, duration_ms, settle_id, cached_tokens, cache_write_tokens, reasoning_tokens, audio_input_tokens, audio_output_tokens';

/** The values of one row in USAGE_INSERT_COLUMNS order (`stream` as the backend stores it). */
export function usageValues(r: UsageRow, createdAt: number, stream: number | boolean): unknown[] {
  return [
    r.requestId, createdAt, r.keyId, r.accountId, r.route, r.method, r.model, stream, r.status, r.upstreamStatus, r.errorCode,
    r.promptTokens, r.completionTokens, r.totalTokens, r.chargedTokens, Math.max(0, Math.round(r.costMicros)), r.usageSource, r.endReason, r.ttfbMs === null ? null : Math.round(r.ttfbMs), Math.round(r.durationMs), r.settleId,
    r.cachedTokens, r.cacheWriteTokens, r.reasoningTokens, r.audioInputTokens, r.audioOutputTokens,
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
    cachedTokens: Number(r.cached_tokens ?? 0),
    cacheWriteTokens: Number(r.cache_write_tokens ?? 0),
    reasoningTokens: Number(r.reasoning_tokens ?? 0),
    audioInputTokens: Number(r.audio_input_tokens ?? 0),
    audioOutputTokens: Number(r.audio_output_tokens ?? 0),
    costMicros: Number(r.cost_micros),
    usageSource: r.usage_source,
    endReason: r.end_reason,
    ttfbMs: r.ttfb_ms,
    durationMs: r.duration_ms,
  };
}

/** The usage log: SQLite (`SqliteUsageLog`) or PostgreSQL (`PgUsageLog` in pg-stores.ts). */
export interface UsageLog {
  /**
   * Settle one request in one transaction: its row; its cost, charged tokens and count added to
   * its key (the cost to the current budget period too); its credit reservation released. A
   * settlement whose `settleId` is already recorded changes nothing (a replay). `at`: when it
   * was settled (default now).
   */
  record(row: UsageRow, at?: number): Promise<void>;
  /** The newest rows of one key, newest first. */
  forKey(keyId: string, limit?: number): Promise<StoredUsageRow[]>;
  /** A key's spend per UTC day and model in [from, to) (ms). */
  dailySpend(keyId: string, from: number, to: number): Promise<DailySpend[]>;
  /** The tokens of each of these keys since `from` (ms), with their parts; keys without requests are absent. */
  tokensByKey(keyIds: readonly string[], from: number): Promise<Map<string, TokenTotals>>;
}

/** Keys per tokensByKey query (SQL parameter lists stay small). */
export const KEYS_PER_QUERY = 500;

/**
 * The key update of a settlement, or of several settled together (named parameters: @tokens
 * @cost @count @at @day @month @id). The budget count restarts when its period has turned.
 */
export const SETTLE_KEY_SQL = `UPDATE gateway_keys SET
  used_tokens = used_tokens + @tokens, spent_micros = spent_micros + @cost, request_count = request_count + @count, last_used_at = @at,
  budget_spent_micros = CASE
    WHEN budget_period IS NULL THEN budget_spent_micros
    WHEN budget_period_start = (CASE budget_period WHEN 'daily' THEN @day ELSE @month END) THEN budget_spent_micros + @cost
    ELSE @cost END,
  budget_period_start = CASE budget_period WHEN 'daily' THEN @day WHEN 'monthly' THEN @month ELSE budget_period_start END
  WHERE id = @id`;

export interface SettleParams {
  tokens: number;
  cost: number;
  count: number;
  at: number;
  day: number;
  month: number;
  id: string;
}

export function settleParams(r: UsageRow, at: number): SettleParams {
  return { tokens: Math.max(0, Math.round(r.chargedTokens)), cost: Math.max(0, Math.round(r.costMicros)), count: 1, at, day: periodStart('daily', at), month: periodStart('monthly', at), id: r.keyId };
}


interface PendingSettlement {
  row: UsageRow;
  at: number;
  done: () => void;
  fail: (err: Error) => void;
}

/** How long a settlement may wait for others to share its commit, and how many may wait. */
const SETTLE_BATCH_MS = 10;
const SETTLE_BATCH_ROWS = 256;

/**
 * Settlements are written in batches: the rows of the requests that ended within 10 ms share one
 * transaction (one commit instead of one per request), and none is written before the answer it
 * settles has gone out. Each key is charged once per batch, with the sum of its new rows (per
 * budget day and month, so a batch that spans midnight counts each period apart). `record`
 * resolves once its row is committed. A held credit reservation stays counted until its
 * settlement is written, so a key's credit is never overstated meanwhile.
 */
export class SqliteUsageLog implements UsageLog {
  private readonly settleOne: (r: UsageRow, at: number) => void;
  private readonly settleAll: (batch: readonly PendingSettlement[]) => void;
  private pending: PendingSettlement[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {
    const insert = db.prepare(`INSERT INTO gateway_usage (${USAGE_INSERT_COLUMNS}) VALUES (${USAGE_INSERT_COLUMNS.split(',').map(() => '?').join(', ')}) ON CONFLICT (settle_id) DO NOTHING`);
    const charge = db.prepare(SETTLE_KEY_SQL);
    const release = db.prepare('DELETE FROM gateway_reservations WHERE key_id = ? AND id = ?');
    /** Writes the row and releases its reservation; whether the row is new (a replay from the journal is not charged again). */
    const write = (r: UsageRow, at: number): boolean => {
      if (r.reservationId) release.run(r.keyId, r.reservationId);
      return insert.run(...usageValues(r, at, r.stream ? 1 : 0)).changes > 0;
    };
    this.settleOne = (r, at) => {
      if (write(r, at)) charge.run(settleParams(r, at));
    };
    const one = db.transaction(this.settleOne);
    const all = db.transaction((batch: readonly PendingSettlement[]) => {
      const charges = new Map<string, SettleParams>();
      for (const p of batch) {
        if (!write(p.row, p.at)) continue;
        const add = settleParams(p.row, p.at);
        const group = `${add.id}\n${add.day}\n${add.month}`;
        const sum = charges.get(group);
        if (!sum) charges.set(group, add);
        else {
          sum.tokens += add.tokens;
          sum.cost += add.cost;
          sum.count += 1;
          sum.at = Math.max(sum.at, add.at);
        }
      }
      for (const c of charges.values()) charge.run(c);
    });
    this.settleAll = (batch) => {
      if (batch.length === 1) one(batch[0]!.row, batch[0]!.at);
      else all(batch);
    };
  }

  record(r: UsageRow, at = this.now()): Promise<void> {
    return new Promise((done, fail) => {
      this.pending.push({ row: r, at, done, fail });
      if (this.pending.length === 1) this.timer = setTimeout(() => this.flush(), SETTLE_BATCH_MS);
      else if (this.pending.length >= SETTLE_BATCH_ROWS) this.flush();
    });
  }

  private flush(): void {
    clearTimeout(this.timer);
    const batch = this.pending;
    this.pending = [];
    try {
      this.settleAll(batch);
      noteKeyWrite(this.db, batch.map((p) => p.row.keyId));
      for (const p of batch) p.done();
    } catch {
      // One bad settlement must not lose the others: each on its own.
      for (const p of batch) {
        try {
          this.db.transaction(this.settleOne)(p.row, p.at);
          noteKeyWrite(this.db, [p.row.keyId]);
          p.done();
        } catch (err) {
          p.fail(err instanceof Error ? err : new Error(String(err)));
        }
      }
    }
  }

  async forKey(keyId: string, limit = 100): Promise<StoredUsageRow[]> {
    return (this.db.prepare('SELECT * FROM gateway_usage WHERE key_id = ? ORDER BY id DESC LIMIT ?').all(keyId, limit) as DbUsageRow[]).map(toStoredUsage);
  }

  async dailySpend(keyId: string, from: number, to: number): Promise<DailySpend[]> {
    const rows = this.db
      .prepare(
        `SELECT (created_at / ${DAY_MS}) * ${DAY_MS} AS day, model, SUM(cost_micros) AS cost, ${TOKEN_SUMS} FROM gateway_usage
         WHERE key_id = ? AND created_at >= ? AND created_at < ? AND cost_micros > 0 GROUP BY day, model ORDER BY day, model`,
      )
      .all(keyId, from, to) as ({ day: number; model: string | null; cost: number } & TokenSumsRow)[];
    return rows.map((r) => ({ day: r.day, model: r.model, costMicros: r.cost, tokens: tokenTotals(r) }));
  }

  async tokensByKey(keyIds: readonly string[], from: number): Promise<Map<string, TokenTotals>> {
    const out = new Map<string, TokenTotals>();
    for (let i = 0; i < keyIds.length; i += KEYS_PER_QUERY) {
      const ids = keyIds.slice(i, i + KEYS_PER_QUERY);
      const rows = this.db
        .prepare(`SELECT key_id, ${TOKEN_SUMS} FROM gateway_usage WHERE key_id IN (${ids.map(() => '?').join(', ')}) AND created_at >= ? GROUP BY key_id`)
        .all(...ids, from) as ({ key_id: string } & TokenSumsRow)[];
      for (const r of rows) out.set(r.key_id, tokenTotals(r));
    }
    return out;
  }
}
