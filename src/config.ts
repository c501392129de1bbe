/**
 * The one configuration loader. Every environment variable the service reads is declared in
 * `settings` below (name, kind, default, doc); `loadConfig` validates all of them at once and
 * throws a single `ConfigError` listing every bad value. The README table is tested against
 * this list, so a variable cannot be added without being documented.
 */
import { parseModelFallbacks, parseUpstreams, type UpstreamSpec } from './gateway/upstream-settings.ts';

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
  { name: 'HISTORY_RETENTION_DAYS', kind: { type: 'int', min: 0, max: 36500 }, default: '30', doc: 'Days of dated snapshots (the archive behind `date`/`at`) and history rows kept; older ones are pruned daily at 04:17 (a key\'s newest snapshot and newest history rows are always kept). `0` keeps everything.' },
  { name: 'SOURCES_UPSTREAM_MIRROR', kind: { type: 'url' }, doc: 'When set (e.g. `http://127.0.0.1:9000`), every upstream request to `http(s)://HOST/PATH?QUERY` goes to `<mirror>/HOST/PATH?QUERY` instead. Used by tests and the offline demo.' },
  { name: 'HTTP_USER_AGENT', kind: { type: 'string' }, default: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36', doc: 'Default User-Agent for upstream requests (sources may override).' },
  { name: 'HTTP_TIMEOUT_MS', kind: { type: 'int', min: 100, max: 300000 }, default: '10000', doc: 'Timeout of one upstream request.' },
  { name: 'HTTP_RETRY', kind: { type: 'int', min: 0, max: 5 }, default: '2', doc: 'Retries of an idempotent upstream request on network errors, 408, 429 and 5xx.' },
  { name: 'HTTP_MAX_BYTES', kind: { type: 'int', min: 1024, max: 104857600 }, default: '10485760', doc: 'Largest upstream response body accepted (bytes).' },
  { name: 'SERVER_HEADERS_TIMEOUT_MS', kind: { type: 'int', min: 100, max: 300000 }, default: '20000', doc: 'A client connection must send its request headers within this time (silent connections included), else it is closed.' },
  { name: 'STORE_READ_TIMEOUT_MS', kind: { type: 'int', min: 0, max: 600000 }, default: '5000', doc: 'A read of PostgreSQL that serves a request (snapshots, history, archive, status) counts as the store being unreachable after this long (a database behind a network partition neither answers nor refuses): the request is answered from memory or with a 503. `0` = wait as long as the database driver does.' },
  { name: 'FORCE_UPDATE_INTERVAL_SEC', kind: { type: 'int', min: 0, max: 86400 }, default: '60', doc: '`force-update` refetches at most once per this many seconds per source and parameters.' },
  // Operations (issue #7): abuse limits on /v2/apis, the key console, metrics.
  { name: 'APIS_RATE_LIMIT', kind: { type: 'int', min: 0, max: 1000000 }, default: '600', doc: 'Requests one client IP may make to /v2/apis per `APIS_RATE_WINDOW_SEC` (0 = no limit); beyond it: 429 envelope with `Retry-After`.' },
  { name: 'APIS_RATE_WINDOW_SEC', kind: { type: 'int', min: 1, max: 86400 }, default: '60', doc: 'Window of `APIS_RATE_LIMIT`, in seconds.' },
  { name: 'APIS_FORCE_UPDATE_LIMIT', kind: { type: 'int', min: 0, max: 100000 }, default: '10', doc: 'Requests with `force-update` one client IP may make per minute, on top of `APIS_RATE_LIMIT` (0 = no limit); beyond it: 429 envelope.' },
  { name: 'APIS_DENY_IPS', kind: { type: 'list' }, doc: 'Comma-separated IP addresses or CIDRs refused on /v2/apis with a 403 envelope, e.g. `203.0.113.7,198.51.100.0/24,2001:db8::/32`. The client IP follows `TRUST_PROXY`.' },
  { name: 'APIS_REQUIRE_KEY', kind: { type: 'bool' }, default: 'false', doc: '`true` = /v2/apis also requires a gateway key (`Authorization: Bearer sk-…`, the keys of `npm run keys`; revoked, expired or IP-restricted keys are refused); otherwise 401 envelope.' },
  { name: 'CONSOLE_ADMIN_TOKEN', kind: { type: 'string' }, secret: true, doc: 'Admin token (at least 16 characters) of the key console at /console. Unset = the console is off (404).' },
  { name: 'SITE_NOTICE', kind: { type: 'string' }, doc: 'A line shown at the top of every html page (the home page, list pages, charts), e.g. that the data is a demo\'s; `npm run demo` sets it. Unset = none.' },
  { name: 'METRICS_ENABLED', kind: { type: 'bool' }, default: 'true', doc: '`false` = no /metrics route (Prometheus text format).' },
  { name: 'METRICS_TOKEN', kind: { type: 'string' }, secret: true, doc: 'Operator token: `Authorization: Bearer <token>` shows the operator detail (per-key series on /metrics, the AI upstreams\' addresses, counters and errors on /v2/status and /status) to a client that is not on loopback. `CONSOLE_ADMIN_TOKEN` (or a console login) does too.' },
  { name: 'AI_UPSTREAM_BASE_URL', kind: { type: 'string' }, doc: 'Root URL of the upstream model gateway for `/v1` and `/v1beta` (the incoming path is appended). Several upstreams: a comma-separated list, tried in that order (the first is the primary; see "Several upstreams").' },
  { name: 'AI_UPSTREAMS', kind: { type: 'string' }, secret: true, doc: 'Instead of AI_UPSTREAM_BASE_URL: a JSON array (or the path of a JSON file) of upstreams `{"url", "name"?, "key"?, "weight"?, "models"?, "api"?}`, tried in order; see "Several upstreams" and "Styles, translation, aliases and fallbacks".' },
  { name: 'AI_MODEL_FALLBACKS', kind: { type: 'string' }, doc: 'JSON object of fallback models per public model, tried in order when every upstream of the model fails before the first byte, e.g. `{"gpt-4o":["gpt-4o-mini","claude-sonnet-4-5"]}`; see "Styles, translation, aliases and fallbacks".' },
  { name: 'AI_REFUSE_DROPPED_TOOLS', kind: { type: 'bool' }, default: 'false', doc: '`true` = a translated request carrying a built-in tool the upstream has no equivalent for (file search, code interpreter …) gets a 400 naming it, instead of being sent without it (named in `x-gateway-dropped-tools`).' },
  { name: 'AI_UPSTREAM_PROBE_INTERVAL_MS', kind: { type: 'int', min: 0, max: 86400000 }, default: '60000', doc: 'Every this many ms each upstream is probed with one page of its model list in the style it speaks (`GET /v1/models`, the Anthropic list with `anthropic-version`, or `/v1beta/models` for a Gemini-only one), so a dead upstream is out before a request finds it and a recovered one is back (0 = no scheduled probes; the key console can still probe).' },
  { name: 'AI_UPSTREAM_ATTEMPTS', kind: { type: 'int', min: 1, max: 10 }, default: '3', doc: 'Most upstreams one request is tried on (connection errors, timeouts, 5xx and 429 before the first byte go to the next).' },
  { name: 'AI_UPSTREAM_COOLDOWN_MS', kind: { type: 'int', min: 100, max: 3600000 }, default: '30000', doc: 'A failing upstream is taken out for this long, then one request probes it back (half-open).' },
  { name: 'AI_UPSTREAM_API_KEY', kind: { type: 'string' }, secret: true, doc: 'Credential sent to the upstream model gateway.' },
  { name: 'AI_KEY_PEPPER', kind: { type: 'string' }, secret: true, doc: 'Secret (at least 16 characters) mixed into the HMAC-SHA256 of every gateway key. Unset: a random pepper is generated once and kept in the database (table `gateway_meta`). Changing it invalidates every key.' },
  { name: 'AI_FIRST_BYTE_TIMEOUT_MS', kind: { type: 'int', min: 100, max: 3600000 }, default: '60000', doc: 'Longest wait for the upstream response headers; beyond it the gateway answers 504.' },
  { name: 'AI_PROXY_TIMEOUT_MS', kind: { type: 'int', min: 100, max: 3600000 }, default: '300000', doc: 'Longest silence between two chunks of an upstream response body (streams included); beyond it the request fails with 504 (or an in-stream error event).' },
  { name: 'AI_STREAM_KEEPALIVE_MS', kind: { type: 'int', min: 0, max: 600000 }, default: '15000', doc: 'While a stream is quiet this long, the gateway sends an SSE comment `: keep-alive` (0 = never).' },
  { name: 'AI_MAX_BODY_BYTES', kind: { type: 'int', min: 1024, max: 1073741824 }, default: '10485760', doc: 'Largest JSON request body on /v1 and /v1beta (bytes); larger bodies get 413.' },
  { name: 'AI_MAX_UPLOAD_BYTES', kind: { type: 'int', min: 1024, max: 1073741824 }, default: '52428800', doc: 'Largest multipart or binary request body (image edits, transcriptions), in bytes; larger uploads get 413.' },
  { name: 'AI_MAX_RESPONSE_BYTES', kind: { type: 'int', min: 1024, max: 1073741824 }, default: '67108864', doc: 'Largest non-streamed JSON answer accepted from the upstream (bytes); larger answers get 502.' },
  { name: 'AI_LEVELS', kind: { type: 'string' }, doc: 'JSON object of account levels overriding the built-in ones by name, e.g. `{"free":{"rpm":10,"rpd":200,"tpm":20000}}` (0 = unlimited).' },
  { name: 'AI_LEVELS_FILE', kind: { type: 'string' }, doc: 'Path of a JSON file of account levels (same shape as AI_LEVELS, which wins over it).' },
  { name: 'AI_DEFAULT_LEVEL', kind: { type: 'string' }, default: 'default', doc: 'Level given to new accounts when `npm run keys -- create` has no `--level`.' },
  { name: 'AI_PRICES', kind: { type: 'string' }, doc: 'JSON price table overriding the built-in one by model pattern (USD), e.g. `{"gpt-4o-mini*":{"input":0.15,"output":0.6},"dall-e-3":{"image":{"1024x1024/hd":0.08,"default":0.04}}}`; fields: `input`, `cached_input`, `output` (per 1M tokens), `image`, `audio_in_second`, `audio_out_second`, `video_second`, `video_call`, `music_task`, `rerank_search`. See "Prices and credits".' },
  { name: 'AI_PRICES_FILE', kind: { type: 'string' }, doc: 'Path of a JSON price table file (same shape as AI_PRICES, which wins over it).' },
  { name: 'AI_RESERVE_OUTPUT_TOKENS', kind: { type: 'int', min: 1, max: 10000000 }, default: '4096', doc: 'Output tokens reserved per answer against a limited key\'s credit for a request that sets no `max_tokens` (or `max_completion_tokens`, `max_output_tokens`, `maxOutputTokens`); that cap is set on the forwarded request and a stream is ended there; the request is then settled at its real cost, at most what it reserved.' },
  { name: 'AI_SETTLEMENT_JOURNAL', kind: { type: 'string' }, doc: 'File where settlements wait (fsynced JSON lines) while the database cannot take them; replayed with backoff and at start, each charged once. Default `gateway-settlements.jsonl` beside `DB_PATH` (none with `DB_PATH=:memory:`: they then wait in memory only). One file per instance.' },
  // Several instances (issue #8): shared engines, job locks, per-source schedule overrides.
  { name: 'DATABASE_URL', kind: { type: 'string' }, secret: true, doc: 'PostgreSQL URL (`postgres://user:pass@host:5432/db`): snapshots, history, run records and the gateway keys, usage and music tasks live there instead of SQLite (and rate limits, without `REDIS_URL`), so several instances share them; `npm run keys` uses it too. Unset = SQLite at `DB_PATH`.' },
  { name: 'DATABASE_POOL_MAX', kind: { type: 'int', min: 1, max: 200 }, default: '10', doc: 'Largest number of PostgreSQL connections of one instance (plus one for job locks).' },
  { name: 'REDIS_URL', kind: { type: 'string' }, secret: true, doc: 'Redis URL (`redis://host:6379/0`, `rediss://` for TLS): rate limits (the /v2/apis abuse limits and the gateway RPM/RPD/TPM windows) and job locks are shared through it. Unset = limits in PostgreSQL when `DATABASE_URL` is set, else in this process.' },
  { name: 'REDIS_KEY_PREFIX', kind: { type: 'string' }, default: 'apis:', doc: 'Prefix of every Redis key this service writes, so several deployments can share one Redis.' },
  { name: 'INSTANCE_ID', kind: { type: 'string' }, doc: 'Name of this instance in logs, job locks and `pg_stat_activity` (default `<hostname>-<pid>`).' },
  { name: 'JOB_LOCK', kind: { type: 'enum', values: ['auto', 'local', 'postgres', 'redis'] }, default: 'auto', doc: 'How instances agree on who runs each scheduled fetch: `redis` (SET NX PX), `postgres` (advisory locks), `local` (no lock: one instance only); `auto` = redis if `REDIS_URL`, else postgres if `DATABASE_URL`, else local.' },
  { name: 'JOB_LOCK_TTL_MS', kind: { type: 'int', min: 1000, max: 3600000 }, default: '60000', doc: 'Redis job locks: expiry after their holder stops renewing them (it died), so another instance takes over the job within this time.' },
  { name: 'SCHEDULER_OVERRIDES', kind: { type: 'string' }, doc: 'Replace the schedule of some sources: `id=cron` pairs separated by `;`, e.g. `hot-microblog=*/10 * * * * *;60s=0 */2 * * *` (6-field cron = with seconds; Asia/Shanghai). For tests and demos.' },
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
  /** The first upstream's URL. */
  aiUpstreamBaseUrl: string | undefined;
  aiUpstreamApiKey: string | undefined;
  /** Every upstream of /v1, in order (AI_UPSTREAM_BASE_URL or AI_UPSTREAMS). */
  aiUpstreams: UpstreamSpec[];
  /** AI_MODEL_FALLBACKS: public model -> fallback models, in order. */
  aiModelFallbacks: Record<string, string[]>;
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
  const v = <T extends ConfigValue>(name: SettingName) => values[name] as T;
  const aiUpstreams = parseUpstreams({ baseUrls: v<string | undefined>('AI_UPSTREAM_BASE_URL'), json: v<string | undefined>('AI_UPSTREAMS'), apiKey: v<string | undefined>('AI_UPSTREAM_API_KEY') }, problems);
  const aiModelFallbacks = parseModelFallbacks(v<string | undefined>('AI_MODEL_FALLBACKS'), problems);
  if (problems.length) throw new ConfigError(problems);
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
    aiUpstreamBaseUrl: aiUpstreams[0]?.url,
    aiUpstreamApiKey: v<string | undefined>('AI_UPSTREAM_API_KEY'),
    aiUpstreams,
    aiModelFallbacks,
    values: Object.freeze(values),
    env: Object.freeze({ ...env }),
  });
}
