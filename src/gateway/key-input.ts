/**
 * The key settings an operator types (in `npm run keys` and the console), checked once for
 * both: credit amounts in USD, budgets and their period, model patterns, IP rules.
 */
import { BUDGET_PERIODS, parseUsd, type BudgetPeriod } from './credit.ts';
import { validateIpRule, validateModelPattern } from './policy.ts';

export type Parsed<T> = { value: T } | { problem: string };

/** `--quota`: USD credits (`5`, `0.25`, `$10`), or `unlimited`. */
export function parseQuota(text: string): Parsed<number | null> {
  const t = text.trim();
  if (t === '' || t === 'unlimited') return { value: null };
  const micros = parseUsd(t);
  return micros === undefined ? { problem: `the quota must be an amount of US dollars such as 5 or 0.25 (up to 6 decimals), or "unlimited"; got "${text}"` } : { value: micros };
}

/** `--budget`: USD per period, or `none`. */
export function parseBudget(text: string): Parsed<number | null> {
  const t = text.trim();
  if (t === '' || t === 'none') return { value: null };
  const micros = parseUsd(t);
  return micros === undefined ? { problem: `the budget must be an amount of US dollars such as 5 or 0.25, or "none"; got "${text}"` } : { value: micros };
}

export function parseBudgetPeriod(text: string): Parsed<BudgetPeriod> {
  const t = text.trim();
  return (BUDGET_PERIODS as readonly string[]).includes(t) ? { value: t as BudgetPeriod } : { problem: `the budget period must be one of ${BUDGET_PERIODS.join(', ')}; got "${text}"` };
}

/** A positive top-up amount in USD. */
export function parseAmount(text: string): Parsed<number> {
  const micros = parseUsd(text);
  return micros === undefined || micros <= 0 ? { problem: `the amount must be a positive number of US dollars such as 5 or 0.25; got "${text}"` } : { value: micros };
}

function commaList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Comma-separated model patterns; empty or `all` = every model. */
export function parseModels(text: string): Parsed<string[]> {
  const list = text.trim() === 'all' ? [] : commaList(text);
  const problems = list.map(validateModelPattern).filter((p): p is string => p !== undefined);
  return problems.length ? { problem: problems.join('; ') } : { value: list };
}

/** Comma-separated IP addresses or CIDRs; empty or `any` = every address. */
export function parseIps(text: string): Parsed<string[]> {
  const list = text.trim() === 'any' ? [] : commaList(text);
  const problems = list.map(validateIpRule).filter((p): p is string => p !== undefined);
  return problems.length ? { problem: problems.join('; ') } : { value: list };
}
