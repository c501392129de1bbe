/** Dates (YYYY-MM-DD, Asia/Shanghai) from today back `days` days, newest first. */
export function recentDates(days: number, now = Date.now()): string[] {
  return Array.from({ length: days }, (_, i) => new Date(now + 8 * 3600_000 - i * 86_400_000).toISOString().slice(0, 10));
}
