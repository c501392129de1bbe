/**
 * The one configuration loader. Every environment variable the service reads is declared in
 * `settings` below (name, kind, default, doc); `loadConfig` validates all of them at once and
 * throws a single `ConfigError` listing every bad value. The README table is tested against
 * this list, so a variable cannot be added without being documented.
 */

export type SettingKind =
  | { type: 'string' }
  | { type: 'url' }
  | { type: 'int'; min?: number; max?: number }
  | { type: 'bool' }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'list' };

export interface Setting {
  name: string;
  kind: SettingKind;
  /** Default as the raw string a user would write; `undefined` means unset. */
  default?: string;
  doc: string;
  /** Never print the value (logs, errors, status pages). */
  secret?: boolean;
}

export const settings = [
  { name: 'PORT', kind: { type: 'int', min: 0, max: 65535 }, default: '4399', doc: 'Listen port.' },
  { name: 'HOST', kind: { type: 'string' }, default: '0.0.0.0', doc: 'Listen address.' },
  { name: 'DB_PATH', kind: { type: 'string' }, default: 'data/app.sqlite', doc: 'SQLite file (`:memory:` for a throw-away database).' },
  { name: 'LOG_LEVEL', kind: { type: 'enum', values: ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] }, default: 'info', doc: 'JSON-lines log level on stdout.' },
  { name: 'TRUST_PROXY', kind: { type: 'bool' }, default: 'false', doc: 'Honour `X-Forwarded-For` for the client IP (only behind a trusted reverse proxy).' },
  { name: 'SCHEDULER_ENABLED', kind: { type: 'bool' }, default: 'true', doc: '`false` = no scheduled fetches; requests still fill the cache on demand.' },
  { name: 'SCHEDULER_CONCURRENCY', kind: { type: 'int', min: 1, max: 64 }, default: '4', doc: 'Upstream fetches that may run at the same time across all sources.' },
  { name: 'SCHEDULER_JITTER_MS', kind: { type: 'int', min: 0, max: 600000 }, default: '20000', doc: 'Random delay added to each scheduled run, so sources do not fire together.' },
  { name: 'WARMUP_SPREAD_MS', kind: { type: 'int', min: 0, max: 600000 }, default: '30000', doc: 'At boot, missing or expired scheduled data is fetched once, spread over this many ms.' },
  { name: 'HISTORY_RETENTION_DAYS', kind: { type: 'int', min: 1, max: 36500 }, default: '90', doc: 'History rows older than this are pruned daily (the newest rows per key are always kept).' },
  { name: 'SOURCES_UPSTREAM_MIRROR', kind: { type: 'url' }, doc: 'When set (e.g. `http://127.0.0.1:9000`), every upstream request to `http(s)://HOST/PATH?QUERY` goes to `<mirror>/HOST/PATH?QUERY` instead. Used by tests and the offline demo.' },
  { name: 'HTTP_USER_AGENT', kind: { type: 'string' }, default: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36', doc: 'Default User-Agent for upstream requests (sources may override).' },
  { name: 'HTTP_TIMEOUT_MS', kind: { type: 'int', min: 100, max: 300000 }, default: '10000', doc: 'Timeout of one upstream request.' },
  { name: 'HTTP_RETRY', kind: { type: 'int', min: 0, max: 5 }, default: '2', doc: 'Retries of an idempotent upstream request on network errors, 408, 429 and 5xx.' },
  { name: 'HTTP_MAX_BYTES', kind: { type: 'int', min: 1024, max: 104857600 }, default: '10485760', doc: 'Largest upstream response body accepted (bytes).' },
  { name: 'FORCE_UPDATE_INTERVAL_SEC', kind: { type: 'int', min: 0, max: 86400 }, default: '60', doc: '`force-update` refetches at most once per this many seconds per source and parameters.' },
  { name: 'AI_UPSTREAM_BASE_URL', kind: { type: 'url' }, doc: 'Root URL of the upstream model gateway for `/v1` and `/v1beta` (the incoming path is appended).' },
  { name: 'AI_UPSTREAM_API_KEY', kind: { type: 'string' }, secret: true, doc: 'Credential sent to the upstream model gateway.' },
] as const satisfies readonly Setting[];

type SettingName = (typeof settings)[number]['name'];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export type ConfigValue = string | number | boolean | string[] | undefined;

export interface Config {
  port: number;
  host: string;
  dbPath: string;
  logLevel: string;
  trustProxy: boolean;
  schedulerEnabled: boolean;
  schedulerConcurrency: number;
  schedulerJitterMs: number;
  warmupSpreadMs: number;
  historyRetentionDays: number;
  upstreamMirror: string | undefined;
  httpUserAgent: string;
  httpTimeoutMs: number;
  httpRetry: number;
  httpMaxBytes: number;
  forceUpdateIntervalSec: number;
  aiUpstreamBaseUrl: string | undefined;
  aiUpstreamApiKey: string | undefined;
  /** Every declared setting by env name, parsed (core and `extra`). */
  values: Readonly<Record<string, ConfigValue>>;
  /** The raw environment, for `SOURCE_*` lookups declared by sources. */
  env: Readonly<Record<string, string | undefined>>;
}

function parseValue(s: Setting, raw: string): { value?: ConfigValue; problem?: string } {
  const k = s.kind;
  switch (k.type) {
    case 'string':
      return { value: raw };
    case 'url':
      try {
        const u = new URL(raw);
        if (u.protocol !== 'http:' && u.protocol !== 'https:') return { problem: `${s.name} must be an http(s) URL, got "${raw}"` };
        return { value: raw.replace(/\/+$/, '') };
      } catch {
        return { problem: `${s.name} must be a URL such as http://127.0.0.1:9000, got "${raw}"` };
      }
    case 'int': {
      if (!/^-?\d+$/.test(raw.trim())) return { problem: `${s.name} must be a whole number, got "${raw}"` };
      const n = Number(raw);
      if ((k.min !== undefined && n < k.min) || (k.max !== undefined && n > k.max))
        return { problem: `${s.name} must be between ${k.min ?? '-inf'} and ${k.max ?? 'inf'}, got ${n}` };
      return { value: n };
    }
    case 'bool': {
      const v = raw.trim().toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(v)) return { value: true };
      if (['false', '0', 'no', 'off'].includes(v)) return { value: false };
      return { problem: `${s.name} must be true or false, got "${raw}"` };
    }
    case 'enum':
      if (!k.values.includes(raw)) return { problem: `${s.name} must be one of ${k.values.join(', ')}, got "${raw}"` };
      return { value: raw };
    case 'list':
      return { value: raw.split(',').map((x) => x.trim()).filter(Boolean) };
  }
}

/**
 * Parse and validate every declared setting; throws one ConfigError listing all problems.
 * `extra` holds settings declared elsewhere (the `env` of source definitions).
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, extra: readonly Setting[] = []): Config {
  const problems: string[] = [];
  const values: Record<string, ConfigValue> = {};
  for (const s of [...settings, ...extra] as Setting[]) {
    const raw = env[s.name];
    const effective = raw === undefined || raw === '' ? s.default : raw;
    if (effective === undefined) {
      values[s.name] = undefined;
      continue;
    }
    const r = parseValue(s, effective);
    if (r.problem) problems.push(r.problem);
    else values[s.name] = r.value;
  }
  if (problems.length) throw new ConfigError(problems);
  const v = <T extends ConfigValue>(name: SettingName) => values[name] as T;
  return Object.freeze({
    port: v<number>('PORT'),
    host: v<string>('HOST'),
    dbPath: v<string>('DB_PATH'),
    logLevel: v<string>('LOG_LEVEL'),
    trustProxy: v<boolean>('TRUST_PROXY'),
    schedulerEnabled: v<boolean>('SCHEDULER_ENABLED'),
    schedulerConcurrency: v<number>('SCHEDULER_CONCURRENCY'),
    schedulerJitterMs: v<number>('SCHEDULER_JITTER_MS'),
    warmupSpreadMs: v<number>('WARMUP_SPREAD_MS'),
    historyRetentionDays: v<number>('HISTORY_RETENTION_DAYS'),
    upstreamMirror: v<string | undefined>('SOURCES_UPSTREAM_MIRROR'),
    httpUserAgent: v<string>('HTTP_USER_AGENT'),
    httpTimeoutMs: v<number>('HTTP_TIMEOUT_MS'),
    httpRetry: v<number>('HTTP_RETRY'),
    httpMaxBytes: v<number>('HTTP_MAX_BYTES'),
    forceUpdateIntervalSec: v<number>('FORCE_UPDATE_INTERVAL_SEC'),
    aiUpstreamBaseUrl: v<string | undefined>('AI_UPSTREAM_BASE_URL'),
    aiUpstreamApiKey: v<string | undefined>('AI_UPSTREAM_API_KEY'),
    values: Object.freeze(values),
    env: Object.freeze({ ...env }),
  });
}
