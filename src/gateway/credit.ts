/**
 * A key's credit, in USD-denominated credits kept as whole micro-dollars: a quota (the total
 * granted; top-ups raise it) minus what was spent, and an optional budget that resets at the
 * start of each UTC day or month. What is left is the smaller of the two, minus what requests
 * in flight have reserved. Pure rules; the stores apply them in their transactions.
 */
import type { KeyRecord } from './keys.ts';

export type BudgetPeriod = 'daily' | 'monthly';
export const BUDGET_PERIODS: readonly BudgetPeriod[] = ['daily', 'monthly'];

/** A reservation older than this no longer holds credit (its request died without settling). */
export const RESERVATION_TTL_MS = 2 * 3600_000;

/** Start (ms, UTC) of the budget period that contains `now`. */
export function periodStart(period: BudgetPeriod, now: number): number {
  const d = new Date(now);
  return period === 'daily' ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) : Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

export function nextPeriodStart(period: BudgetPeriod, now: number): number {
  const d = new Date(now);
  return period === 'daily' ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** The credit columns of a key as the stores read them. */
export interface CreditColumns {
  quotaMicros: number | null;
  spentMicros: number;
  budgetMicros: number | null;
  budgetPeriod: BudgetPeriod | null;
  budgetSpentMicros: number;
  budgetPeriodStart: number | null;
}

/** Spent in the current budget period (0 once the period has turned). */
export function budgetSpent(c: CreditColumns, now: number): number {
  if (c.budgetPeriod === null) return 0;
  return c.budgetPeriodStart === periodStart(c.budgetPeriod, now) ? c.budgetSpentMicros : 0;
}

export interface CreditLeft {
  /** Micro-dollars left (before reservations); `null` = no quota and no budget. */
  micros: number | null;
  /** Which limit leaves the least. */
  limitedBy: 'quota' | 'budget' | null;
  /** When a budget-limited key gets credit again (ms). */
  resetsAt: number | null;
}

export function creditLeft(c: CreditColumns, now: number): CreditLeft {
  const quota = c.quotaMicros === null ? null : c.quotaMicros - c.spentMicros;
  const budget = c.budgetMicros === null || c.budgetPeriod === null ? null : c.budgetMicros - budgetSpent(c, now);
  if (quota === null && budget === null) return { micros: null, limitedBy: null, resetsAt: null };
  if (budget !== null && (quota === null || budget < quota)) return { micros: Math.max(0, budget), limitedBy: 'budget', resetsAt: nextPeriodStart(c.budgetPeriod!, now) };
  return { micros: Math.max(0, quota!), limitedBy: 'quota', resetsAt: null };
}

/** Whether the key's credit is limited at all (unlimited keys reserve nothing). */
export function creditLimited(k: Pick<KeyRecord, 'quotaMicros' | 'budgetMicros'>): boolean {
  return k.quotaMicros !== null || k.budgetMicros !== null;
}

export function formatUsd(micros: number): string {
  const usd = micros / 1_000_000;
  return `$${usd >= 1 ? usd.toFixed(2) : usd.toFixed(6).replace(/0+$/, '').replace(/\.$/, '')}`;
}

/** A USD amount typed by an operator (`5`, `0.25`, `$10`): micro-dollars, or a problem. */
export function parseUsd(text: string): number | undefined {
  const m = /^\$?(\d{1,12})(?:\.(\d{1,6}))?$/.exec(text.trim());
  if (!m) return undefined;
  return Number(m[1]) * 1_000_000 + Number((m[2] ?? '').padEnd(6, '0'));
}

export type ReserveResult = { ok: true } | { ok: false; left: CreditLeft; heldMicros: number };
