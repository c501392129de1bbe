/** The gateway's settings, read from the one config loader (declared in src/config.ts). */
import path from 'node:path';
import type { Config, ConfigValue } from '../config.ts';
import type { UpstreamSpec } from './upstream-settings.ts';

export interface GatewaySettings {
  /** The upstreams, in order (empty = none configured). */
  upstreams: UpstreamSpec[];
  upstreamAttempts: number;
  upstreamCooldownMs: number;
  /** Between scheduled health probes of the upstreams; 0 = none. */
  upstreamProbeIntervalMs: number;
  keyPepper: string | undefined;
  firstByteTimeoutMs: number;
  idleTimeoutMs: number;
  keepAliveMs: number;
  maxBodyBytes: number;
  maxUploadBytes: number;
  maxResponseBytes: number;
  levelsJson: string | undefined;
  levelsFile: string | undefined;
  defaultLevel: string;
  pricesJson: string | undefined;
  pricesFile: string | undefined;
  reserveOutputTokens: number;
  /** Public model -> the models tried after it, in order, when all its upstreams fail before the first byte. */
  modelFallbacks: Record<string, string[]>;
  /** Whether a built-in tool a translation would leave out is a 400 instead. */
  refuseDroppedTools: boolean;
  /** Where settlements wait while the store is down (`undefined`: in memory only). */
  settlementJournal: string | undefined;
}

function num(values: Readonly<Record<string, ConfigValue>>, name: string): number {
  const v = values[name];
  if (typeof v !== 'number') throw new Error(`setting ${name} is not declared as a number in src/config.ts`);
  return v;
}

function str(values: Readonly<Record<string, ConfigValue>>, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

export function gatewaySettings(config: Config): GatewaySettings {
  const v = config.values;
  return {
    upstreams: config.aiUpstreams,
    upstreamAttempts: num(v, 'AI_UPSTREAM_ATTEMPTS'),
    upstreamCooldownMs: num(v, 'AI_UPSTREAM_COOLDOWN_MS'),
    upstreamProbeIntervalMs: num(v, 'AI_UPSTREAM_PROBE_INTERVAL_MS'),
    keyPepper: str(v, 'AI_KEY_PEPPER'),
    firstByteTimeoutMs: num(v, 'AI_FIRST_BYTE_TIMEOUT_MS'),
    idleTimeoutMs: num(v, 'AI_PROXY_TIMEOUT_MS'),
    keepAliveMs: num(v, 'AI_STREAM_KEEPALIVE_MS'),
    maxBodyBytes: num(v, 'AI_MAX_BODY_BYTES'),
    maxUploadBytes: num(v, 'AI_MAX_UPLOAD_BYTES'),
    maxResponseBytes: num(v, 'AI_MAX_RESPONSE_BYTES'),
    levelsJson: str(v, 'AI_LEVELS'),
    levelsFile: str(v, 'AI_LEVELS_FILE'),
    defaultLevel: str(v, 'AI_DEFAULT_LEVEL') ?? 'default',
    pricesJson: str(v, 'AI_PRICES'),
    pricesFile: str(v, 'AI_PRICES_FILE'),
    reserveOutputTokens: num(v, 'AI_RESERVE_OUTPUT_TOKENS'),
    modelFallbacks: config.aiModelFallbacks,
    refuseDroppedTools: v.AI_REFUSE_DROPPED_TOOLS === true,
    settlementJournal: str(v, 'AI_SETTLEMENT_JOURNAL') ?? (config.dbPath === ':memory:' ? undefined : path.join(path.dirname(config.dbPath), 'gateway-settlements.jsonl')),
  };
}
