/**
 * What one finished request is charged: its tokens (the upstream's usage, else an estimate of
 * what it accepted and delivered), its units, and its cost by the price table, never more than
 * the credit it reserved. The promise is the key's credit: a reservation is the most a request
 * can cost, so usage beyond it (an upstream that ignored the output cap, a prompt that counted
 * more tokens than its bound) is charged at the reservation and the rest is the operator's.
 */
import { billedUnits } from './billing.ts';
import type { GatewayCall } from './call.ts';
import { nextId } from './ids.ts';
import { NOTHING_CONSUMED, usdToMicros, type PriceTable } from './prices.ts';
import type { UsageRow } from './usage.ts';

export interface Ended {
  status: number;
  durationMs: number;
}

export interface Settlement {
  row: UsageRow;
  /** The cost by the price table, before the reservation capped it. */
  uncappedMicros: number;
}

export function settlement(call: GatewayCall, prices: PriceTable, ended: Ended): Settlement {
  const accepted = call.upstreamStatus !== null && call.upstreamStatus < 400;
  // Units are billed once the upstream accepted the request (it bills us then), unless it failed.
  const succeeded = accepted && call.endReason !== 'upstream_error' && call.endReason !== 'rejected';
  let charged = 0;
  let source: UsageRow['usageSource'] = 'none';
  let prompt = 0;
  let completion = 0;
  if (call.usage) {
    ({ prompt, completion } = call.usage);
    charged = call.usage.total;
    source = 'upstream';
  } else if (call.estimable && accepted && (call.endReason === 'completed' || call.endReason === 'client_closed' || call.outputChars > 0)) {
    // No usage from the upstream: the prompt estimate plus the output delivered. A client that
    // left after the upstream accepted the request still pays its prompt: the upstream bills it.
    prompt = call.promptEstimate;
    completion = call.outputTokens;
    charged = prompt + completion;
    source = 'estimated';
  }
  // NOTHING_CONSUMED first, as in the reservation: it holds every field, so the units and counts
  // below only overwrite (a spread that adds fields its base lacks cost 14 µs here; see withFields).
  const cost = usdToMicros(
    prices.cost(call.model, {
      ...NOTHING_CONSUMED,
      ...billedUnits(call.units, succeeded),
      inputTokens: prompt,
      cachedInputTokens: call.usage?.cached ?? 0,
      cacheWriteTokens: call.usage?.cacheWrite ?? 0,
      cacheWrite1hTokens: call.usage?.cacheWrite1h ?? 0,
      audioInputTokens: call.usage?.audioIn ?? 0,
      imageInputTokens: call.usage?.imageIn ?? 0,
      outputTokens: completion,
      audioOutputTokens: call.usage?.audioOut ?? 0,
    }),
  );
  let costMicros = cost;
  if (call.reservationId !== null) costMicros = call.stoppedAtReservation ? call.reservedMicros : Math.min(cost, call.reservedMicros);
  const ctx = call.ctx;
  const row: UsageRow = {
    requestId: ctx.state.rid,
    settleId: nextId(),
    keyId: call.key.id,
    accountId: call.key.accountId,
    route: call.route,
    method: ctx.method,
    model: call.model,
    stream: call.stream,
    status: ended.status,
    upstreamStatus: call.upstreamStatus,
    errorCode: call.errorCode,
    promptTokens: prompt,
    completionTokens: completion,
    totalTokens: charged,
    chargedTokens: charged,
    cachedTokens: call.usage?.cached ?? 0,
    cacheWriteTokens: call.usage?.cacheWrite ?? 0,
    reasoningTokens: call.usage?.reasoning ?? 0,
    audioInputTokens: call.usage?.audioIn ?? 0,
    audioOutputTokens: call.usage?.audioOut ?? 0,
    costMicros,
    usageSource: source,
    endReason: call.endReason,
    ttfbMs: call.ttfbMs,
    durationMs: ended.durationMs,
    reservationId: call.reservationId,
  };
  return { row, uncappedMicros: cost };
}
