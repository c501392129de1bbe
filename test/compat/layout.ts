/**
 * Field layouts of vikiboss/60s answers, written in our own words from its modules' types, and a
 * checker that lists where a value of ours departs from one. A layout is:
 * - a type name: 'string', 'number', 'boolean', 'null', 'object', 'array' or 'any', or several
 *   joined by '|' ('string|null'); or a date-time text of 60s's (a string in that form):
 *   'time/' = `YYYY/MM/DD HH:mm:ss` (60s's Common.localeTime), 'time/m' = `YYYY/MM/DD HH:mm`
 *   (the digest's own text), 'time-' = `YYYY-MM-DD HH:mm:ss` (60s's dayjs format);
 * - `[item]`: an array whose every element has the layout `item`;
 * - `{ field: layout }`: an object with at least these fields (our extra fields are allowed);
 *   a name ending in '?' is a field 60s may leave out, checked only when present.
 */
export type Layout = string | [Layout] | { [field: string]: Layout };

/** 60s's date-time texts, each a layout type name of its own. */
const TIME_FORMATS: Record<string, RegExp> = {
  'time/': /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}$/,
  'time/m': /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}$/,
  'time-': /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/,
};

function fits(value: unknown, accepted: string): boolean {
  const format = TIME_FORMATS[accepted];
  return format ? typeof value === 'string' && format.test(value) : accepted === 'any' || accepted === typeName(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Every place where `value` departs from `layout`, as `path: expected …, got …`; empty when it fits. */
export function layoutMismatches(value: unknown, layout: Layout, path = 'data'): string[] {
  if (typeof layout === 'string') {
    const accepted = layout.split('|');
    if (accepted.some((a) => fits(value, a))) return [];
    const shown = typeof value === 'string' && accepted.some((a) => a in TIME_FORMATS) ? JSON.stringify(value) : typeName(value);
    return [`${path}: expected ${layout}, got ${shown}`];
  }
  if (Array.isArray(layout)) {
    if (!Array.isArray(value)) return [`${path}: expected array, got ${typeName(value)}`];
    return value.flatMap((item, i) => layoutMismatches(item, layout[0], `${path}[${i}]`));
  }
  if (typeName(value) !== 'object') return [`${path}: expected object, got ${typeName(value)}`];
  const record = value as Record<string, unknown>;
  return Object.entries(layout).flatMap(([name, inner]) => {
    const optional = name.endsWith('?');
    const field = optional ? name.slice(0, -1) : name;
    if (!(field in record)) return optional ? [] : [`${path}.${field}: missing`];
    return layoutMismatches(record[field], inner, `${path}.${field}`);
  });
}
