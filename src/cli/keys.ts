/**
 * `npm run keys -- <command>`: manage the AI gateway's keys where the service keeps them: the
 * PostgreSQL database of DATABASE_URL when it is set, else the SQLite file DB_PATH. A new key is
 * printed once; only its hash is stored.
 *
 *   create --name NAME [--account ACCOUNT] [--level LEVEL] [--quota TOKENS|unlimited]
 *          [--models a,b*] [--ips CIDR,...] [--expires ISO-DATE] [--json]
 *   list [--json]
 *   show ID [--json]
 *   revoke ID [--json]
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { deploymentSettings } from '../kernel/backends.ts';
import { openDatabase } from '../kernel/db.ts';
import { openPgPool } from '../kernel/pg-store.ts';
import type { KeyRecord, KeyStore } from '../gateway/keys.ts';
import { levelsFromSettings, type Levels } from '../gateway/levels.ts';
import { validateIpRule, validateModelPattern } from '../gateway/policy.ts';
import { gatewaySettings } from '../gateway/settings.ts';
import { openPgGatewayStore, openSqliteGatewayStore, type GatewayStore } from '../gateway/store.ts';

const USAGE = `Usage: npm run keys -- <command>

  create --name NAME [--account ACCOUNT] [--level LEVEL] [--quota TOKENS|unlimited]
         [--models a,b*] [--ips CIDR,...] [--expires ISO-DATE] [--json]
      Create a key and print it once. Without --account the key gets an account of its own.
      --models: exact names and * patterns (default: every model).
      --ips: IPv4/IPv6 addresses or CIDRs (default: any address).
      --expires: an ISO date-time, or a date alone meaning the end of that day (UTC).
  list [--json]          every key (never the key values)
  show ID [--json]       one key with its usage so far
  revoke ID [--json]     revoke a key (it stops working at once)

The keys live in PostgreSQL when DATABASE_URL is set (shared by every instance), else in the
SQLite file DB_PATH (default data/app.sqlite).`;

class UsageError extends Error {}

const ACCOUNT = /^[A-Za-z0-9_.:@-]{1,64}$/;

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function parseExpiry(value: string, now = Date.now()): { at: number; past: boolean } {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const at = dateOnly ? Date.parse(`${value}T23:59:59.999Z`) : Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(at)) throw new UsageError(`--expires must be an ISO date such as 2026-12-31 or 2026-12-31T18:00:00Z, got "${value}"`);
  return { at, past: at <= now };
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function status(k: KeyRecord, now = Date.now()): string {
  if (k.revokedAt !== null) return 'revoked';
  if (k.expiresAt !== null && k.expiresAt <= now) return 'expired';
  if (k.quotaTokens !== null && k.usedTokens >= k.quotaTokens) return 'exhausted';
  return 'active';
}

function toJson(k: KeyRecord, levels: Levels) {
  return {
    id: k.id,
    name: k.name,
    account: k.accountId,
    level: k.level,
    limits: levels.get(k.level) ?? null,
    status: status(k),
    hint: k.hint,
    quota_tokens: k.quotaTokens,
    used_tokens: k.usedTokens,
    requests: k.requestCount,
    models: k.models,
    ips: k.ips,
    expires_at: iso(k.expiresAt),
    created_at: iso(k.createdAt),
    revoked_at: iso(k.revokedAt),
    last_used_at: iso(k.lastUsedAt),
  };
}

function describe(k: KeyRecord, levels: Levels): string {
  const l = levels.get(k.level);
  const limits = l ? `rpm ${l.rpm || '∞'}, rpd ${l.rpd || '∞'}, tpm ${l.tpm || '∞'}` : 'level not configured';
  return [
    `${k.id}  "${k.name}"  (${status(k)})`,
    `  key:      ${k.hint}`,
    `  account:  ${k.accountId} (level ${k.level}: ${limits})`,
    `  quota:    ${k.quotaTokens === null ? 'unlimited' : `${k.quotaTokens} tokens`}`,
    `  used:     ${k.usedTokens} tokens in ${k.requestCount} requests${k.lastUsedAt ? `, last ${iso(k.lastUsedAt)}` : ''}`,
    `  models:   ${k.models.length ? k.models.join(', ') : 'all'}`,
    `  ips:      ${k.ips.length ? k.ips.join(', ') : 'any'}`,
    `  expires:  ${iso(k.expiresAt) ?? 'never'}`,
    `  created:  ${iso(k.createdAt)}${k.revokedAt ? `; revoked ${iso(k.revokedAt)}` : ''}`,
  ].join('\n');
}

async function create(values: Record<string, string | boolean | undefined>, keys: KeyStore, levels: Levels, out: (s: string) => void, err: (s: string) => void): Promise<void> {
  const name = typeof values.name === 'string' ? values.name.trim() : '';
  if (!name || name.length > 100) throw new UsageError('create needs --name NAME (1 to 100 characters)');
  const account = typeof values.account === 'string' ? values.account : undefined;
  if (account !== undefined && !ACCOUNT.test(account)) throw new UsageError(`--account must be 1 to 64 letters, digits or _.:@-, got "${account}"`);
  const level = typeof values.level === 'string' ? values.level : levels.defaultLevel;
  if (!levels.get(level)) throw new UsageError(`--level "${level}" is not a configured level (known: ${levels.names().join(', ')})`);
  let quotaTokens: number | null = null;
  if (typeof values.quota === 'string' && values.quota !== 'unlimited') {
    if (!/^\d+$/.test(values.quota) || !Number.isSafeInteger(Number(values.quota))) throw new UsageError(`--quota must be a whole number of tokens or "unlimited", got "${values.quota}"`);
    quotaTokens = Number(values.quota);
  }
  const models = list(values.models as string | undefined);
  const ips = list(values.ips as string | undefined);
  const problems = [...models.map(validateModelPattern), ...ips.map(validateIpRule)].filter((p): p is string => p !== undefined);
  if (problems.length) throw new UsageError(problems.join('; '));
  let expiresAt: number | null = null;
  if (typeof values.expires === 'string') {
    const e = parseExpiry(values.expires);
    if (e.past) err(`warning: --expires ${values.expires} is in the past; the key is created already expired.`);
    expiresAt = e.at;
  }
  const { key, record } = await keys.create({ name, account, level, levelExplicit: typeof values.level === 'string', quotaTokens, models, ips, expiresAt });
  if (values.json) {
    out(JSON.stringify({ ...toJson(record, levels), key }));
    return;
  }
  out(`${describe(record, levels)}\n\n  ${key}\n\nStore this key now: it is shown only once and cannot be recovered.`);
}

/** The gateway store the service uses with this configuration, and how to close it. */
async function openStore(config: Config): Promise<{ store: GatewayStore; close(): Promise<void> }> {
  const { databaseUrl } = deploymentSettings(config);
  const keyPepper = gatewaySettings(config).keyPepper;
  if (databaseUrl) {
    const pool = openPgPool(databaseUrl, { max: 2, applicationName: 'keys-cli' });
    try {
      return { store: await openPgGatewayStore(pool, keyPepper), close: () => pool.end() };
    } catch (e) {
      await pool.end();
      throw e;
    }
  }
  const db = openDatabase(config.dbPath);
  try {
    return { store: openSqliteGatewayStore(db, keyPepper), close: async () => void db.close() };
  } catch (e) {
    db.close();
    throw e;
  }
}

export async function run(argv: readonly string[], env: Record<string, string | undefined>, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        account: { type: 'string' },
        level: { type: 'string' },
        quota: { type: 'string' },
        models: { type: 'string' },
        ips: { type: 'string' },
        expires: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    err(`${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, id] = positionals;
  if (values.help || !command || command === 'help') {
    out(USAGE);
    return command || values.help ? 0 : 2;
  }
  let opened: Awaited<ReturnType<typeof openStore>> | undefined;
  try {
    const config = loadConfig(env);
    const levels = levelsFromSettings(gatewaySettings(config));
    opened = await openStore(config);
    const { keys, usage } = opened.store;
    switch (command) {
      case 'create':
        await create(values, keys, levels, out, err);
        return 0;
      case 'list': {
        const all = await keys.list();
        if (values.json) out(JSON.stringify(all.map((k) => toJson(k, levels))));
        else out(all.length ? all.map((k) => describe(k, levels)).join('\n\n') : 'No keys yet. Create one with: npm run keys -- create --name NAME');
        return 0;
      }
      case 'show':
      case 'revoke': {
        if (!id) throw new UsageError(`${command} needs a key id (see: npm run keys -- list)`);
        const record = command === 'revoke' ? await keys.revoke(id) : await keys.get(id);
        if (!record) {
          err(`No key with id "${id}" (see: npm run keys -- list).`);
          return 1;
        }
        if (command === 'show') {
          const recent = await usage.forKey(id, 10);
          if (values.json) out(JSON.stringify({ ...toJson(record, levels), recent_requests: recent }));
          else
            out(
              `${describe(record, levels)}${recent.length ? `\n  recent:\n${recent.map((r) => `    ${iso(r.createdAt)} ${r.method} ${r.route} ${r.model ?? '-'} → ${r.status} ${r.chargedTokens} tokens (${r.endReason})`).join('\n')}` : ''}`,
            );
        } else if (values.json) out(JSON.stringify({ id: record.id, revoked_at: iso(record.revokedAt) }));
        else out(`Revoked ${record.id} ("${record.name}"). Requests with this key now get 401.`);
        return 0;
      }
      default:
        throw new UsageError(`Unknown command "${command}".`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      err(`${e.message}\n\n${USAGE}`);
      return 2;
    }
    if (e instanceof ConfigError) {
      err(e.message);
      return 1;
    }
    err(`keys: ${(e as Error).message}`);
    return 1;
  } finally {
    await opened?.close();
  }
}

// Run as a program (from source or compiled to dist/keys.js), not when the console imports it (in dist/main.js too).
if (/(?:^|[\\/])(?:src[\\/]cli[\\/]keys\.ts|dist[\\/]keys\.js)$/.test(process.argv[1] ?? '')) {
  process.exitCode = await run(process.argv.slice(2), process.env, (s) => process.stdout.write(`${s}\n`), (s) => process.stderr.write(`${s}\n`));
}
