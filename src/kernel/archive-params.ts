/**
 * `date` and `at`: the parameters the kernel gives every archived source (every scheduled one),
 * answered from the snapshot archive instead of the upstream. A source that declares a
 * parameter of the same name itself (60s's `date`, a day of its digest) keeps its own meaning;
 * the kernel then adds only the other one.
 */
import { AppError, badParam } from './errors.ts';
import type { AnySource, ParamSpec, ScheduledSource } from './source.ts';
import { normalizeDate } from './params.ts';
import { addDays, formatDate, formatDateTime, isIsoDate, shanghaiMidnight } from './time.ts';

export const DATE_PARAM = 'date';
export const AT_PARAM = 'at';

const AT_ACCEPTED = 'an ISO 8601 time (e.g. 2026-11-21T10:00:00+08:00; without an offset Asia/Shanghai is meant) or a 13-digit ms timestamp, not in the future';
const DATE_ACCEPTED = 'a day YYYY-MM-DD (also YYYY/M/D or YYYYMMDD; Asia/Shanghai), not in the future';

/** The kernel's `date` and `at`; a local source answering from stored lists declares the same ones (see `momentFrom`). */
export const DATE_SPEC = {
  type: 'date',
  doc: 'A past day (Asia/Shanghai): the last stored snapshot of that day, from the archive (`X-Cache: HISTORY`).',
  example: '2026-11-20',
} as const satisfies ParamSpec;
export const AT_SPEC = {
  type: 'string',
  pattern: /^(?:\d{13}|\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)?(?:Z|[+\- ]\d{2}:?\d{2})?)$/i,
  patternDoc: AT_ACCEPTED,
  maxLength: 40,
  doc: 'A past moment (ISO 8601 or ms timestamp): the snapshot in force then, from the archive (`X-Cache: HISTORY`).',
  example: '2026-11-20T12:00:00+08:00',
} as const satisfies ParamSpec;

const KERNEL_SPECS: Readonly<Record<string, ParamSpec>> = { [DATE_PARAM]: DATE_SPEC, [AT_PARAM]: AT_SPEC };

/** Whether the kernel keeps dated snapshots of this source (and answers `date`/`at` from them). */
export function isArchived(s: AnySource): s is ScheduledSource<Record<string, ParamSpec>, unknown> {
  return s.mode === 'scheduled';
}

/** The archive parameters the kernel adds to a source: `date` and `at`, minus names it declares itself. */
export function archiveParamSpecs(s: AnySource): [string, ParamSpec][] {
  if (!isArchived(s)) return [];
  const own = (s.params ?? {}) as Record<string, ParamSpec>;
  return Object.entries(KERNEL_SPECS).filter(([name]) => !(name in own));
}

/** The moment a request asks the archive about. */
export interface Moment {
  /** The snapshot in force at this time (ms) answers. */
  at: number;
  /** Which parameter asked, and its value (a `date` as YYYY-MM-DD, an `at` as given). */
  param: typeof DATE_PARAM | typeof AT_PARAM;
  value: string;
  /** True while the moment is "now" (date = today): the answer may still change. */
  live: boolean;
}

/** ms of an ISO 8601 time or a 13-digit ms timestamp; undefined when malformed. */
export function parseInstant(raw: string): number | undefined {
  const v = raw.trim();
  if (/^\d{13}$/.test(v)) return Number(v);
  // A `+` of an offset arrives as a space when the caller did not escape it in the query string.
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?)?(Z|[+\- ]\d{2}:?\d{2})?$/i.exec(v);
  if (!m) return undefined;
  const [, day, hh = '00', mm = '00', ss = '00', frac = '', zone] = m;
  if (!isIsoDate(day as string) || Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) return undefined;
  let offset = '+08:00';
  if (zone && zone.toUpperCase() === 'Z') offset = 'Z';
  else if (zone) {
    const z = /^([+\- ])(\d{2}):?(\d{2})$/.exec(zone) as RegExpExecArray;
    if (Number(z[2]) > 14 || Number(z[3]) > 59) return undefined;
    offset = `${z[1] === '-' ? '-' : '+'}${z[2]}:${z[3]}`;
  }
  const ms = Date.parse(`${day}T${hh}:${mm}:${ss}${frac.padEnd(frac ? 4 : 0, '0')}${offset}`);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The moment asked for by the kernel's `date`/`at` of a request (raw query values), or undefined
 * when neither is given. Throws a 400 naming the parameter for malformed, future or combined values.
 */
export function parseMoment(s: AnySource, raw: Readonly<Record<string, string | undefined>>, now: number): Moment | undefined {
  return momentFrom(
    raw,
    archiveParamSpecs(s).map(([name]) => name),
    now,
  );
}

/** The moment asked for by `date` or `at` (of `names`, the ones the source takes) in raw values; see parseMoment. */
export function momentFrom(raw: Readonly<Record<string, string | undefined>>, names: readonly string[], now: number): Moment | undefined {
  const given = names.map((name) => [name, raw[name]?.trim()] as const).filter((e): e is readonly [string, string] => !!e[1]);
  if (!given.length) return undefined;
  if (given.length > 1) throw new AppError(400, `Invalid parameter "${AT_PARAM}": it cannot be combined with "${DATE_PARAM}"; use one of them.`);
  const [param, value] = given[0] as readonly [string, string];
  if (value.length > 40) throw badParam(param, param === DATE_PARAM ? DATE_ACCEPTED : AT_ACCEPTED);
  if (param === DATE_PARAM) {
    // The forms every date parameter accepts (YYYY/M/D, YYYYMMDD… as 60s's clients write days).
    const day = normalizeDate(value, false, now);
    if (day === undefined) throw badParam(DATE_PARAM, DATE_ACCEPTED);
    const today = formatDate(now);
    if (day > today) throw badParam(DATE_PARAM, `${DATE_ACCEPTED}; ${day} is after today (${today})`);
    const endOfDay = shanghaiMidnight(addDays(day, 1)) - 1;
    return { at: Math.min(endOfDay, now), param: DATE_PARAM, value: day, live: day === today };
  }
  const at = parseInstant(value);
  if (at === undefined) throw badParam(AT_PARAM, AT_ACCEPTED);
  if (at > now) throw badParam(AT_PARAM, `${AT_ACCEPTED}; ${value} is after now (${formatDateTime(now)} Asia/Shanghai)`);
  return { at, param: AT_PARAM, value, live: false };
}
