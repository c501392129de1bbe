/**
 * `npm run keys -- <command>`: manage the AI gateway's keys where the service keeps them: the
 * PostgreSQL database of DATABASE_URL when it is set, else the SQLite file DB_PATH. A new key is
 * printed once; only its hash is stored.
 *
 *   create --name NAME [--account ACCOUNT] [--level LEVEL] [--quota USD|unlimited]
 *          [--budget USD --budget-period daily|monthly] [--models a,b*] [--ips CIDR,...]
 *          [--expires ISO-DATE] [--json]
 *   list [--json]
 *   show ID [--json]
 *   edit ID [--name] [--level] [--quota] [--budget] [--budget-period] [--models] [--ips] [--expires] [--json]
 *   topup ID AMOUNT [--json]
 *   revoke ID [--json]
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { deploymentSettings } from '../kernel/backends.ts';
import { openDatabase } from '../kernel/db.ts';
import { openPgPool } from '../kernel/pg-store.ts';
import { budgetSpent, creditLeft, formatUsd, nextPeriodStart } from '../gateway/credit.ts';
import { parseAmount, parseBudget, parseBudgetPeriod, parseIps, parseModels, parseQuota, type Parsed } from '../gateway/key-input.ts';
import type { KeyPatch, KeyRecord, KeyStore } from '../gateway/keys.ts';
import { levelsFromSettings, type Levels } from '../gateway/levels.ts';
import { gatewaySettings } from '../gateway/settings.ts';
import { openPgGatewayStore, openSqliteGatewayStore, type GatewayStore } from '../gateway/store.ts';
import { namedTokenParts, rowTokens, type StoredUsageRow } from '../gateway/usage.ts';

const USAGE = `Usage: npm run keys -- <command>

  create --name NAME [--account ACCOUNT] [--level LEVEL] [--quota USD|unlimited]
         [--budget USD --budget-period daily|monthly] [--models a,b*] [--ips CIDR,...]
         [--expires ISO-DATE] [--json]
      Create a key and print it once. Without --account the key gets an account of its own.
      --quota: the key's credit in US dollars (e.g. 5 or 0.25; default unlimited).
      --budget: most the key may spend per UTC day or month (--budget-period, default monthly).
      --models: exact names and * patterns (default: every model).
      --ips: IPv4/IPv6 addresses or CIDRs (default: any address).
      --expires: an ISO date-time, or a date alone meaning the end of that day (UTC).
  list [--json]          every key (never the key values)
  show ID [--json]       one key with its usage and spend so far
  edit ID [--name NAME] [--level LEVEL] [--quota USD|unlimited] [--budget USD|none]
          [--budget-period daily|monthly] [--models a,b*|all] [--ips CIDR,...|any]
          [--expires ISO-DATE|never] [--json]
      Change what is given and keep the rest (--level changes the key's account).
  topup ID AMOUNT [--json]
      Add AMOUNT US dollars to the key's credit (its quota).
  revoke ID [--json]     revoke a key (it stops working at once)

Prices come from the price table (AI_PRICES, AI_PRICES_FILE, else the built-in one).

The keys live in PostgreSQL when DATABASE_URL is set (shared by every instance), else in the
SQLite file DB_PATH (default data/app.sqlite).`;

class UsageError extends Error {}

const ACCOUNT = /^[A-Za-z0-9_.:@-]{1,64}$/;

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
  const left = creditLeft(k, now);
  if (left.micros !== null && left.micros <= 0) return left.limitedBy === 'budget' ? 'over budget' : 'exhausted';
  return 'active';
}

const usd = (micros: number | null): number | null => (micros === null ? null : micros / 1_000_000);

function take<T>(r: Parsed<T>, flag: string): T {
  if ('problem' in r) throw new UsageError(`${flag}: ${r.problem}`);
  return r.value;
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
    quota_usd: usd(k.quotaMicros),
    spent_usd: usd(k.spentMicros),
    remaining_usd: usd(creditLeft(k, Date.now()).micros),
    budget_usd: usd(k.budgetMicros),
    budget_period: k.budgetPeriod,
    budget_spent_usd: usd(budgetSpent(k, Date.now())),
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

/** The parts of a request's tokens the upstream reported: " (cached 4, reasoning 3)", or nothing. */
function tokenParts(r: StoredUsageRow): string {
  const parts = namedTokenParts(rowTokens(r));
  return parts.length ? ` (${parts.join(', ')})` : '';
}


function describe(k: KeyRecord, levels: Levels): string {
  const l = levels.get(k.level);
  const limits = l ? `rpm ${l.rpm || '∞'}, rpd ${l.rpd || '∞'}, tpm ${l.tpm || '∞'}` : 'level not configured';
  return [
    `${k.id}  "${k.name}"  (${status(k)})`,
    `  key:      ${k.hint}`,
    `  account:  ${k.accountId} (level ${k.level}: ${limits})`,
    `  credit:   ${k.quotaMicros === null ? 'unlimited' : `${formatUsd(k.quotaMicros)}, ${formatUsd(Math.max(0, k.quotaMicros - k.spentMicros))} left`}`,
    `  budget:   ${k.budgetMicros === null || k.budgetPeriod === null ? 'none' : `${formatUsd(k.budgetMicros)} ${k.budgetPeriod}, ${formatUsd(budgetSpent(k, Date.now()))} spent (resets ${iso(nextPeriodStart(k.budgetPeriod, Date.now()))})`}`,
    `  used:     ${formatUsd(k.spentMicros)}, ${k.usedTokens} tokens in ${k.requestCount} requests${k.lastUsedAt ? `, last ${iso(k.lastUsedAt)}` : ''}`,
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
  const quotaMicros = typeof values.quota === 'string' ? take(parseQuota(values.quota), '--quota') : null;
  const budgetMicros = typeof values.budget === 'string' ? take(parseBudget(values.budget), '--budget') : null;
  const budgetPeriod = typeof values['budget-period'] === 'string' ? take(parseBudgetPeriod(values['budget-period']), '--budget-period') : budgetMicros !== null ? 'monthly' : null;
  const models = take(parseModels((values.models as string | undefined) ?? ''), '--models');
  const ips = take(parseIps((values.ips as string | undefined) ?? ''), '--ips');
  let expiresAt: number | null = null;
  if (typeof values.expires === 'string') {
    const e = parseExpiry(values.expires);
    if (e.past) err(`warning: --expires ${values.expires} is in the past; the key is created already expired.`);
    expiresAt = e.at;
  }
  const { key, record } = await keys.create({ name, account, level, levelExplicit: typeof values.level === 'string', quotaMicros, budgetMicros, budgetPeriod, models, ips, expiresAt });
  if (values.json) {
    out(JSON.stringify({ ...toJson(record, levels), key }));
    return;
  }
  out(`${describe(record, levels)}\n\n  ${key}\n\nStore this key now: it is shown only once and cannot be recovered.`);
}

/** `edit ID …`: the options given, checked, as a patch. */
function editPatch(values: Record<string, string | boolean | undefined>, levels: Levels, err: (s: string) => void): KeyPatch {
  const str = (name: string): string | undefined => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const patch: KeyPatch = {};
  const name = str('name');
  if (name !== undefined) {
    if (!name.trim() || name.trim().length > 100) throw new UsageError('--name must be 1 to 100 characters');
    patch.name = name.trim();
  }
  const level = str('level');
  if (level !== undefined) {
    if (!levels.get(level)) throw new UsageError(`--level "${level}" is not a configured level (known: ${levels.names().join(', ')})`);
    patch.level = level;
  }
  if (str('quota') !== undefined) patch.quotaMicros = take(parseQuota(str('quota')!), '--quota');
  if (str('budget') !== undefined) patch.budgetMicros = take(parseBudget(str('budget')!), '--budget');
  if (str('budget-period') !== undefined) patch.budgetPeriod = take(parseBudgetPeriod(str('budget-period')!), '--budget-period');
  if (patch.budgetMicros === null && patch.budgetPeriod === undefined) patch.budgetPeriod = null;
  if (str('models') !== undefined) patch.models = take(parseModels(str('models')!), '--models');
  if (str('ips') !== undefined) patch.ips = take(parseIps(str('ips')!), '--ips');
  const expires = str('expires');
  if (expires !== undefined) {
    if (expires === 'never') patch.expiresAt = null;
    else {
      const e = parseExpiry(expires);
      if (e.past) err(`warning: --expires ${expires} is in the past; the key is now expired.`);
      patch.expiresAt = e.at;
    }
  }
  if (Object.keys(patch).length === 0) throw new UsageError('edit needs at least one of --name, --level, --quota, --budget, --budget-period, --models, --ips, --expires');
  return patch;
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
        budget: { type: 'string' },
        'budget-period': { type: 'string' },
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
  const [command, id, amount] = positionals;
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
      case 'edit':
      case 'topup': {
        if (!id) throw new UsageError(`${command} needs a key id (see: npm run keys -- list)`);
        const before = await keys.get(id);
        if (!before) {
          err(`No key with id "${id}" (see: npm run keys -- list).`);
          return 1;
        }
        let record: KeyRecord | undefined;
        if (command === 'topup') {
          if (amount === undefined) throw new UsageError('topup needs an amount in US dollars: npm run keys -- topup ID 5');
          const micros = take(parseAmount(amount), 'AMOUNT');
          if (before.quotaMicros === null) throw new UsageError(`key ${id} has no quota (its credit is unlimited); give it one with: npm run keys -- edit ${id} --quota ${amount}`);
          record = await keys.topUp(id, micros);
        } else {
          const patch = editPatch(values, levels, err);
          // A budget needs a period: monthly unless one is given or kept.
          const budget = patch.budgetMicros !== undefined ? patch.budgetMicros : before.budgetMicros;
          const period = patch.budgetPeriod !== undefined ? patch.budgetPeriod : before.budgetPeriod;
          if (budget !== null && period === null) patch.budgetPeriod = 'monthly';
          record = await keys.update(id, patch);
        }
        if (!record) return 1;
        if (values.json) out(JSON.stringify(toJson(record, levels)));
        else out(`${command === 'topup' ? `Added ${formatUsd(take(parseAmount(amount!), 'AMOUNT'))} to ${record.id}.` : `Updated ${record.id}.`}\n${describe(record, levels)}`);
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
              `${describe(record, levels)}${recent.length ? `\n  recent:\n${recent.map((r) => `    ${iso(r.createdAt)} ${r.method} ${r.route} ${r.model ?? '-'} → ${r.status} ${r.chargedTokens} tokens${tokenParts(r)} ${formatUsd(r.costMicros)} (${r.endReason})`).join('\n')}` : ''}`,
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
