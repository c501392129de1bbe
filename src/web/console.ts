/**
 * /console: a small server-rendered page to manage gateway keys (create, list with usage and
 * spend, edit, top up, revoke), on the gateway's key store and with the key command's rules.
 * Off unless CONSOLE_ADMIN_TOKEN is set: then /console answers 404 with a page that says how
 * to turn it on.
 *
 * Authentication: the admin token, either as `Authorization: Bearer <token>` (scripts) or through
 * the login form, which sets an HttpOnly, SameSite=Strict cookie holding an expiry and an
 * HMAC-SHA256 of it keyed by the token (so changing the token ends every session, and the
 * cookie never contains the token). CSRF: SameSite=Strict plus an Origin (or Referer) check on
 * every state-changing request authenticated by the cookie or the login form.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { Router } from '@koa/router';
import type Koa from 'koa';
import { ConfigError } from '../config.ts';
import { escapeHtml } from '../encoding/escape.ts';
import { BUDGET_PERIODS, budgetSpent, formatUsd, type BudgetPeriod } from '../gateway/credit.ts';
import { parseAmount, parseBudget, parseBudgetPeriod, parseIps, parseModels, parseQuota } from '../gateway/key-input.ts';
import type { KeyPatch, KeyRecord, KeyStore, NewKey } from '../gateway/keys.ts';
import type { Levels } from '../gateway/levels.ts';
import type { ProbeResult, UpstreamStatus } from '../gateway/upstream-pool.ts';
import { namedTokenParts, type TokenTotals, type UsageLog } from '../gateway/usage.ts';
import { parseExpiry } from '../cli/keys.ts';
import { DAY_MS, formatDateTime } from '../kernel/time.ts';
import type { AppContext, AppState } from '../http/middleware.ts';
import { htmlPage } from './shell.ts';

export const CONSOLE_COOKIE = 'console_session';
export const MIN_ADMIN_TOKEN_LENGTH = 16;
const SESSION_SEC = 12 * 3600;
const MAX_FORM_BYTES = 16 * 1024;

/** The gateway's upstreams as the console shows and probes them. */
export interface ConsoleUpstreams {
  status(): UpstreamStatus[];
  probe(name?: string): Promise<ProbeResult[]>;
}

export interface ConsoleDeps {
  adminToken: string;
  keys: KeyStore;
  levels: Levels;
  now?: () => number;
  /** Absent without upstreams (no upstream section). */
  upstreams?: ConsoleUpstreams | null;
  /** Each key's recent tokens and their parts (cached, reasoning, audio); absent: not shown. */
  usage?: Pick<UsageLog, 'tokensByKey'> | null;
}

type ConsoleState = Required<Omit<ConsoleDeps, 'upstreams' | 'usage'>> & { upstreams: ConsoleUpstreams | null; usage: Pick<UsageLog, 'tokensByKey'> | null };

/** The window of the per-key token parts the console shows. */
const TOKEN_WINDOW_DAYS = 30;

// --- sessions -----------------------------------------------------------------------------------

function sign(token: string, expiresSec: number): string {
  return createHmac('sha256', token).update(`console-session:${expiresSec}`).digest('hex');
}

export function sessionCookieValue(token: string, nowMs: number): string {
  const exp = Math.floor(nowMs / 1000) + SESSION_SEC;
  return `${exp}.${sign(token, exp)}`;
}

export function sameSecret(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

export function validSession(token: string, value: string | undefined, nowMs: number): boolean {
  const m = /^(\d{1,12})\.([0-9a-f]{64})$/.exec(value ?? '');
  if (!m) return false;
  const exp = Number(m[1]);
  if (exp * 1000 <= nowMs) return false;
  return sameSecret(sign(token, exp), m[2] as string);
}

type Auth = 'header' | 'cookie' | undefined;

function authOf(ctx: AppContext, token: string, now: number): Auth {
  const header = ctx.get('authorization');
  if (header) {
    const m = /^Bearer (\S+)$/.exec(header);
    return m?.[1] && sameSecret(m[1], token) ? 'header' : undefined;
  }
  return validSession(token, ctx.cookies.get(CONSOLE_COOKIE), now) ? 'cookie' : undefined;
}

/** Whether a browser request comes from this origin (Origin, else Referer). */
function sameOrigin(ctx: AppContext): boolean {
  const from = ctx.get('origin') || ctx.get('referer');
  if (!from || from === 'null') return false;
  try {
    return new URL(from).host === ctx.host;
  } catch {
    return false;
  }
}

async function readForm(ctx: AppContext): Promise<URLSearchParams> {
  const type = ctx.get('content-type');
  if (!type.startsWith('application/x-www-form-urlencoded')) {
    ctx.throw(415, 'Send the console forms as application/x-www-form-urlencoded.');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) ctx.throw(413, 'Form too large.');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

// --- the key form: the key command's rules ------------------------------------------------------

export interface KeyForm {
  name: string;
  account: string;
  level: string;
  /** USD credit; empty = unlimited. */
  quota: string;
  /** USD per budget period; empty = none. */
  budget?: string;
  budget_period?: string;
  models: string;
  ips: string;
  expires: string;
}

/** The key command's account rule. */
const ACCOUNT = /^[A-Za-z0-9_.:@-]{1,64}$/;

/** Form values → a NewKey, or the list of problems (each names the field and what is accepted). */
export function parseKeyForm(f: KeyForm, levels: Levels, now: number): { key?: NewKey; problems: string[] } {
  const problems: string[] = [];
  const name = f.name.trim();
  if (!name || name.length > 100) problems.push('Name: 1 to 100 characters (e.g. who or what uses the key).');
  const account = f.account.trim();
  if (account && !ACCOUNT.test(account)) problems.push('Account: 1 to 64 letters, digits or _ . : @ - (empty = a new account for this key).');
  const level = f.level.trim() || levels.defaultLevel;
  if (!levels.get(level)) problems.push(`Level: one of ${levels.names().join(', ')}.`);
  const credit = parseCredit(f, problems);
  const access = parseAccess(f, problems, now, false);
  if (!access) return { problems };
  return { problems, key: { name, account: account || undefined, level, levelExplicit: f.level.trim() !== '', ...credit, ...access } };
}

/**
 * Models, IP allowlist and expiry of a form (problems added to `problems`); undefined when any
 * field of the form has a problem. `never` (edit form) or empty means no expiry.
 */
function parseAccess(f: Pick<KeyForm, 'models' | 'ips' | 'expires'>, problems: string[], now: number, editing: boolean): { models: string[]; ips: string[]; expiresAt: number | null } | undefined {
  const models = parseModels(f.models);
  if ('problem' in models) problems.push(`Models: ${models.problem}.`);
  const ips = parseIps(f.ips);
  if ('problem' in ips) problems.push(`IP allowlist: ${ips.problem}.`);
  let expiresAt: number | null = null;
  const exp = f.expires.trim();
  if (exp && !(editing && exp === 'never')) {
    try {
      const e = parseExpiry(exp, now);
      // The command warns and creates an already expired key; here the form says so instead.
      if (e.past) problems.push(editing ? 'Expiry: the date must be in the future (empty = never).' : 'Expiry: the date must be in the future.');
      else expiresAt = e.at;
    } catch {
      problems.push(
        editing
          ? 'Expiry: a date such as 2026-12-31 (valid through that day, UTC), or empty for never.'
          : 'Expiry: a date such as 2026-12-31 (valid through that day, UTC) or an ISO date-time such as 2026-12-31T18:00:00Z.',
      );
    }
  }
  if (problems.length || 'problem' in models || 'problem' in ips) return undefined;
  return { models: models.value, ips: ips.value, expiresAt };
}

/** Quota, budget and budget period of a form (problems added to `problems`). */
function parseCredit(f: Pick<KeyForm, 'quota' | 'budget' | 'budget_period'>, problems: string[]): { quotaMicros: number | null; budgetMicros: number | null; budgetPeriod: BudgetPeriod | null } {
  const quota = parseQuota(f.quota);
  if ('problem' in quota) problems.push(`Quota: ${quota.problem} (empty = unlimited).`);
  const budget = parseBudget(f.budget ?? '');
  if ('problem' in budget) problems.push(`Budget: ${budget.problem} (empty = none).`);
  const period = parseBudgetPeriod(f.budget_period?.trim() || 'monthly');
  if ('problem' in period) problems.push(`Budget period: ${period.problem}.`);
  const budgetMicros = 'value' in budget ? budget.value : null;
  return {
    quotaMicros: 'value' in quota ? quota.value : null,
    budgetMicros,
    budgetPeriod: budgetMicros !== null && 'value' in period ? period.value : null,
  };
}

/** The edit form of one key → a patch of every field it holds, or its problems. */
export function parseEditForm(f: Omit<KeyForm, 'name' | 'account'>, levels: Levels, now: number): { patch?: KeyPatch; problems: string[] } {
  const problems: string[] = [];
  const level = f.level.trim();
  if (!levels.get(level)) problems.push(`Level: one of ${levels.names().join(', ')}.`);
  const credit = parseCredit(f, problems);
  const access = parseAccess(f, problems, now, true);
  if (!access) return { problems };
  return { problems, patch: { level, ...credit, ...access } };
}

// --- pages ----------------------------------------------------------------------------------------

function page(title: string, body: string): string {
  return htmlPage(`${title} · key console`, body, undefined, { kind: 'console', lang: 'en', head: '<meta name="robots" content="noindex">' });
}

/** "Revoke this key?": revoking cannot be undone, so the list's button leads here first. */
function revokeConfirmPage(k: KeyRecord): string {
  return page(
    'Revoke key?',
    `<h1>Revoke key "${escapeHtml(k.name)}"?</h1>
<form class="box" method="post" action="/console/keys/${encodeURIComponent(k.id)}/revoke" id="confirm-revoke">
<p>Key <code>${escapeHtml(k.id)}</code> (account ${escapeHtml(k.accountId)}) will stop working at once: every request with it gets 401. This cannot be undone.</p>
<input type="hidden" name="confirm" value="yes">
<button class="danger" type="submit">Yes, revoke this key</button> <a href="/console">Cancel</a>
</form>`,
  );
}

function loginPage(error?: string): string {
  return page(
    'Log in',
    `<h1>Key console</h1>
<form class="box" method="post" action="/console/login">
${error ? `<p class="problems">${escapeHtml(error)}</p>` : ''}
<label for="token">Admin token <span class="hint">(CONSOLE_ADMIN_TOKEN)</span></label>
<input id="token" name="token" type="password" autocomplete="current-password" required>
<button type="submit">Log in</button>
</form>`,
  );
}

function keyState(k: KeyRecord, now: number): string {
  if (k.revokedAt !== null) return `revoked ${formatDateTime(k.revokedAt)}`;
  if (k.expiresAt !== null && k.expiresAt <= now) return 'expired';
  return 'active';
}

const EMPTY_FORM: KeyForm = { name: '', account: '', level: '', quota: '', budget: '', budget_period: 'monthly', models: '', ips: '', expires: '' };

function levelOptions(levels: Levels, selectedLevel: string): string {
  return levels
    .names()
    .map((n) => {
      const l = levels.get(n);
      const selected = selectedLevel === n ? ' selected' : '';
      return `<option value="${escapeHtml(n)}"${selected}>${escapeHtml(n)}${l ? ` (RPM ${l.rpm}, RPD ${l.rpd}, TPM ${l.tpm})` : ''}</option>`;
    })
    .join('');
}

function periodOptions(selected: string): string {
  return BUDGET_PERIODS.map((p) => `<option value="${p}"${p === selected ? ' selected' : ''}>${p}</option>`).join('');
}

/** USD as an operator types it (no $ sign, no trailing zeros). */
const usdText = (micros: number | null): string => (micros === null ? '' : String(micros / 1_000_000));

function createForm(levels: Levels, f: KeyForm, problems: string[]): string {
  const field = (id: keyof KeyForm, label: string, hint: string, attrs = '') =>
    `<div><label for="${id}">${label} <span class="hint">${hint}</span></label><input id="${id}" name="${id}" value="${escapeHtml(f[id] ?? '')}" ${attrs}></div>`;
  const options = levelOptions(levels, f.level || levels.defaultLevel);
  return `<form class="box" method="post" action="/console/keys" id="create">
<h2>Create a key</h2>
${problems.length ? `<ul class="problems">${problems.map((p) => `<li>${escapeHtml(p)}</li>`).join('')}</ul>` : ''}
<div class="grid">
${field('name', 'Name', '(required)', 'required maxlength="100"')}
${field('account', 'Account', '(empty = new account)', 'maxlength="64"')}
<div><label for="level">Level <span class="hint">(rate limits of the account)</span></label><select id="level" name="level">${options}</select></div>
${field('quota', 'Credit', '(USD, e.g. 5 or 0.25; empty = unlimited)', 'inputmode="decimal"')}
${field('budget', 'Budget', '(USD per period; empty = none)', 'inputmode="decimal"')}
<div><label for="budget_period">Budget period <span class="hint">(UTC)</span></label><select id="budget_period" name="budget_period">${periodOptions(f.budget_period || 'monthly')}</select></div>
${field('models', 'Models', '(comma-separated, * wildcards; empty = all)')}
${field('ips', 'IP allowlist', '(IPs or CIDRs; empty = any)')}
${field('expires', 'Expires', '(end of that day, UTC; empty = never)', 'type="date"')}
</div>
<button type="submit">Create key</button>
</form>`;
}

function editForm(k: KeyRecord, levels: Levels): string {
  const input = (name: string, label: string, value: string, attrs = '') =>
    `<label>${label} <input name="${name}" value="${escapeHtml(value)}" ${attrs}></label>`;
  return `<details class="edit"><summary>Edit</summary>
<form method="post" action="/console/keys/${encodeURIComponent(k.id)}/edit">
<label>Level <select name="level">${levelOptions(levels, k.level)}</select></label>
${input('quota', 'Credit (USD; empty = unlimited)', usdText(k.quotaMicros), 'inputmode="decimal"')}
${input('budget', 'Budget (USD; empty = none)', usdText(k.budgetMicros), 'inputmode="decimal"')}
<label>Budget period <select name="budget_period">${periodOptions(k.budgetPeriod ?? 'monthly')}</select></label>
${input('models', 'Models (empty = all)', k.models.join(', '))}
${input('ips', 'IP allowlist (empty = any)', k.ips.join(', '))}
${input('expires', 'Expires (empty = never)', k.expiresAt === null ? '' : new Date(k.expiresAt).toISOString().slice(0, 10), 'type="date"')}
<button type="submit">Save</button>
</form></details>
${k.quotaMicros !== null ? `<form method="post" action="/console/keys/${encodeURIComponent(k.id)}/topup" class="topup"><label>Top up (USD) <input name="amount" inputmode="decimal" required></label><button type="submit">Add credit</button></form>` : ''}`;
}

function creditCell(k: KeyRecord, now: number): string {
  const quota = k.quotaMicros === null ? 'unlimited' : formatUsd(k.quotaMicros);
  const budget = k.budgetMicros === null || k.budgetPeriod === null ? '' : `<br><span class="budget">${escapeHtml(formatUsd(budgetSpent(k, now)))} / ${escapeHtml(formatUsd(k.budgetMicros))} ${k.budgetPeriod}</span>`;
  return `<span class="spend">${escapeHtml(formatUsd(k.spentMicros))} / ${escapeHtml(quota)}</span>${budget}`;
}

/** A key's tokens of the window: prompt and completion, and the parts the upstreams reported. */
function tokenPartsLine(t: TokenTotals | undefined): string {
  if (!t) return '';
  const parts = namedTokenParts(t);
  return `<br><span class="token-parts hint">${TOKEN_WINDOW_DAYS} days: ${t.prompt} in, ${t.completion} out${parts.length ? ` (${escapeHtml(parts.join(', '))})` : ''}</span>`;
}

function keysTable(keys: KeyRecord[], now: number, levels: Levels, tokens: ReadonlyMap<string, TokenTotals>): string {
  if (!keys.length) return '<p class="box">No keys yet.</p>';
  const rows = keys
    .map((k) => {
      const state = keyState(k, now);
      return `<tr class="${k.revokedAt !== null ? 'revoked' : ''}" data-key-id="${escapeHtml(k.id)}">
<td><strong>${escapeHtml(k.name)}</strong><br><code>${escapeHtml(k.hint)}</code><br><code class="hint">${escapeHtml(k.id)}</code></td>
<td>${escapeHtml(k.accountId)}<br><span class="hint">${escapeHtml(k.level)}</span></td>
<td class="state">${escapeHtml(state)}</td>
<td>${creditCell(k, now)}<br><span class="tokens">${k.usedTokens}</span> tokens, <span class="requests">${k.requestCount}</span> requests${tokenPartsLine(tokens.get(k.id))}<br><span class="hint">last ${k.lastUsedAt ? escapeHtml(formatDateTime(k.lastUsedAt)) : 'never'}</span></td>
<td>${escapeHtml(formatDateTime(k.createdAt))}<br><span class="hint">expires ${k.expiresAt ? escapeHtml(formatDateTime(k.expiresAt)) : 'never'}</span></td>
<td>models: ${k.models.length ? escapeHtml(k.models.join(', ')) : 'all'}<br>IPs: ${k.ips.length ? escapeHtml(k.ips.join(', ')) : 'any'}</td>
<td>${k.revokedAt === null ? `${editForm(k, levels)}<form method="post" action="/console/keys/${encodeURIComponent(k.id)}/revoke"><button class="danger" type="submit" aria-label="Revoke ${escapeHtml(k.name)}">Revoke</button></form>` : ''}</td>
</tr>`;
    })
    .join('\n');
  return `<div class="scroll"><table id="keys">
<thead><tr><th>Key</th><th>Account / level</th><th>State</th><th>Spend (spent / credit)</th><th>Created</th><th>Limits</th><th></th></tr></thead>
<tbody>
${rows}
</tbody></table></div>`;
}

function upstreamsSection(upstreams: readonly UpstreamStatus[], now: number): string {
  if (upstreams.length === 0) return '';
  const when = (at: number | null): string => (at === null ? 'never' : `${Math.max(0, Math.round((now - at) / 1000))} s ago`);
  const rows = upstreams
    .map((u) => `<tr data-upstream="${escapeHtml(u.name)}"><td>${escapeHtml(u.name)}</td><td>${u.state}</td><td>${u.last_probe_ok === null ? '—' : u.last_probe_ok ? 'passed' : 'failed'} (${when(u.last_probe_at)})</td><td>${escapeHtml(u.last_error ?? '')}</td></tr>`)
    .join('\n');
  return `<h2>Upstreams</h2>
<table id="upstreams"><thead><tr><th>Upstream</th><th>State</th><th>Last probe</th><th>Last error</th></tr></thead><tbody>
${rows}
</tbody></table>
<form method="post" action="/console/upstreams/probe"><button type="submit" id="probe-now">Probe upstreams now</button></form>`;
}

async function consolePage(deps: ConsoleState, opts: { form?: KeyForm; problems?: string[]; notice?: string; editProblems?: string[] }): Promise<string> {
  const now = deps.now();
  const keys = await deps.keys.list();
  const tokens = deps.usage ? await deps.usage.tokensByKey(keys.map((k) => k.id), now - TOKEN_WINDOW_DAYS * DAY_MS) : new Map<string, TokenTotals>();
  return page(
    'Keys',
    `<div class="top"><h1>Key console</h1><form method="post" action="/console/logout"><button class="plain" type="submit">Log out</button></form></div>
${opts.notice ? `<p class="notice">${escapeHtml(opts.notice)}</p>` : ''}
${opts.editProblems?.length ? `<ul class="problems" id="edit-problems">${opts.editProblems.map((p) => `<li>${escapeHtml(p)}</li>`).join('')}</ul>` : ''}
${createForm(deps.levels, opts.form ?? EMPTY_FORM, opts.problems ?? [])}
<h2>Keys</h2>
${keysTable(keys, now, deps.levels, tokens)}
${deps.upstreams ? upstreamsSection(deps.upstreams.status(), now) : ''}
<p class="hint">The same keys as <code>npm run keys -- list</code>. Spend is in US dollars by the price table (AI_PRICES); usage counts every request and the tokens charged, with the last ${TOKEN_WINDOW_DAYS} days' prompt and completion tokens and their cached, cache-write, reasoning and audio parts.</p>`,
  );
}

function createdPage(key: string, k: KeyRecord): string {
  return page(
    'Key created',
    `<h1>Key created</h1>
<div class="box">
<p><strong>Copy this key now: it is shown only once.</strong> Only its hash is stored; a lost key cannot be recovered.</p>
<code class="newkey" id="new-key">${escapeHtml(key)}</code>
<p>Name <strong>${escapeHtml(k.name)}</strong> · id <code id="new-key-id">${escapeHtml(k.id)}</code> · account ${escapeHtml(k.accountId)} · level ${escapeHtml(k.level)}</p>
<p><a href="/console">Back to the console</a></p>
</div>`,
  );
}

// --- router -----------------------------------------------------------------------------------------

export function createConsoleRouter(input: ConsoleDeps): Router<AppState> {
  if (input.adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new ConfigError([`CONSOLE_ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters long (or unset to turn the console off).`]);
  }
  const deps: ConsoleState = { now: Date.now, upstreams: null, usage: null, ...input };
  const token = deps.adminToken;
  const router = new Router<AppState>({ prefix: '/console' });

  const html = (ctx: AppContext, status: number, body: string) => {
    ctx.status = status;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = body;
  };

  router.use(async (ctx: AppContext, next: Koa.Next) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('X-Content-Type-Options', 'nosniff');
    // same-origin: form posts keep a real Origin header (no-referrer would make it "null").
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    await next();
  });

  /** State-changing requests: a cookie or form login needs a same-origin browser request. */
  const guard = (ctx: AppContext): Auth => {
    const auth = authOf(ctx, token, deps.now());
    if (auth === 'cookie' && !sameOrigin(ctx)) {
      html(ctx, 403, loginPage('This request came from another site or carried no Origin header; it was refused.'));
      return undefined;
    }
    if (!auth) html(ctx, 401, loginPage(ctx.get('authorization') ? 'Wrong admin token.' : 'Please log in.'));
    return auth;
  };

  router.get('/', async (ctx) => {
    if (!authOf(ctx, token, deps.now())) return html(ctx, 200, loginPage());
    const about = async (name: string) => (typeof ctx.query[name] === 'string' ? await deps.keys.get(ctx.query[name] as string) : undefined);
    const revoked = await about('revoked');
    const edited = await about('edited');
    const topped = await about('topped');
    const notice = revoked
      ? `Key "${revoked.name}" (${revoked.id}) is revoked.`
      : edited
        ? `Key "${edited.name}" (${edited.id}) is updated.`
        : topped
          ? `Key "${topped.name}" (${topped.id}) now has ${formatUsd(Math.max(0, (topped.quotaMicros ?? 0) - topped.spentMicros))} of credit left.`
          : undefined;
    html(ctx, 200, await consolePage(deps, notice ? { notice } : {}));
  });

  router.post('/login', async (ctx) => {
    if (!sameOrigin(ctx)) return html(ctx, 403, loginPage('This request came from another site or carried no Origin header; it was refused.'));
    const form = await readForm(ctx);
    if (!sameSecret(form.get('token') ?? '', token)) return html(ctx, 401, loginPage('Wrong admin token.'));
    ctx.cookies.set(CONSOLE_COOKIE, sessionCookieValue(token, deps.now()), {
      httpOnly: true,
      sameSite: 'strict',
      path: '/console',
      maxAge: SESSION_SEC * 1000,
      secure: ctx.secure,
      overwrite: true,
    });
    ctx.status = 303;
    ctx.redirect('/console');
  });

  router.post('/logout', (ctx) => {
    if (!sameOrigin(ctx)) return html(ctx, 403, loginPage('This request came from another site or carried no Origin header; it was refused.'));
    ctx.cookies.set(CONSOLE_COOKIE, '', { httpOnly: true, sameSite: 'strict', path: '/console', maxAge: 0, overwrite: true });
    ctx.status = 303;
    ctx.redirect('/console');
  });

  router.post('/keys', async (ctx) => {
    if (!guard(ctx)) return;
    const raw = await readForm(ctx);
    const form: KeyForm = {
      name: raw.get('name') ?? '',
      account: raw.get('account') ?? '',
      level: raw.get('level') ?? '',
      quota: raw.get('quota') ?? '',
      budget: raw.get('budget') ?? '',
      budget_period: raw.get('budget_period') ?? '',
      models: raw.get('models') ?? '',
      ips: raw.get('ips') ?? '',
      expires: raw.get('expires') ?? '',
    };
    const parsed = parseKeyForm(form, deps.levels, deps.now());
    if (!parsed.key) return html(ctx, 400, await consolePage(deps, { form, problems: parsed.problems }));
    const { key, record } = await deps.keys.create(parsed.key);
    ctx.state.log.info({ keyId: record.id, account: record.accountId, level: record.level }, 'console: key created');
    html(ctx, 201, createdPage(key, record));
  });

  router.post('/keys/:id/edit', async (ctx) => {
    if (!guard(ctx)) return;
    const id = ctx.params.id ?? '';
    const raw = await readForm(ctx);
    if (!(await deps.keys.get(id))) return html(ctx, 404, await consolePage(deps, { notice: `No key with id ${id}.` }));
    const parsed = parseEditForm(
      { level: raw.get('level') ?? '', quota: raw.get('quota') ?? '', budget: raw.get('budget') ?? '', budget_period: raw.get('budget_period') ?? '', models: raw.get('models') ?? '', ips: raw.get('ips') ?? '', expires: raw.get('expires') ?? '' },
      deps.levels,
      deps.now(),
    );
    if (!parsed.patch) return html(ctx, 400, await consolePage(deps, { editProblems: parsed.problems.map((p) => `Key ${id}: ${p}`) }));
    const record = await deps.keys.update(id, parsed.patch);
    ctx.state.log.info({ keyId: id }, 'console: key edited');
    ctx.status = 303;
    ctx.redirect(`/console?edited=${encodeURIComponent(record?.id ?? id)}`);
  });

  router.post('/keys/:id/topup', async (ctx) => {
    if (!guard(ctx)) return;
    const id = ctx.params.id ?? '';
    const raw = await readForm(ctx);
    const before = await deps.keys.get(id);
    if (!before) return html(ctx, 404, await consolePage(deps, { notice: `No key with id ${id}.` }));
    const amount = parseAmount(raw.get('amount') ?? '');
    if ('problem' in amount) return html(ctx, 400, await consolePage(deps, { editProblems: [`Key ${id}: top-up: ${amount.problem}.`] }));
    if (before.quotaMicros === null) return html(ctx, 400, await consolePage(deps, { editProblems: [`Key ${id}: its credit is unlimited; give it a credit with Edit first.`] }));
    await deps.keys.topUp(id, amount.value);
    ctx.state.log.info({ keyId: id, micros: amount.value }, 'console: key topped up');
    ctx.status = 303;
    ctx.redirect(`/console?topped=${encodeURIComponent(id)}`);
  });

  router.post('/upstreams/probe', async (ctx) => {
    if (!guard(ctx)) return;
    const results = deps.upstreams ? await deps.upstreams.probe() : [];
    ctx.state.log.info({ results }, 'console: upstreams probed');
    const notice = results.length ? `Probed: ${results.map((r) => `${r.upstream} ${r.ok ? 'passed' : 'failed'} (${r.detail}, ${r.ms} ms)`).join('; ')}.` : 'No upstreams are configured.';
    html(ctx, 200, await consolePage(deps, { notice }));
  });

  router.post('/keys/:id/revoke', async (ctx) => {
    if (!guard(ctx)) return;
    const id = ctx.params.id ?? '';
    // The list's Revoke button asks first (a page of its own: the console runs no script).
    if ((await readForm(ctx)).get('confirm') !== 'yes') {
      const key = await deps.keys.get(id);
      if (!key) return html(ctx, 404, await consolePage(deps, { notice: `No key with id ${id}.` }));
      return html(ctx, 200, revokeConfirmPage(key));
    }
    const record = await deps.keys.revoke(id);
    if (!record) return html(ctx, 404, await consolePage(deps, { notice: `No key with id ${id}.` }));
    ctx.state.log.info({ keyId: record.id }, 'console: key revoked');
    ctx.status = 303;
    ctx.redirect(`/console?revoked=${encodeURIComponent(record.id)}`);
  });

  return router;
}

/**
 * The console when CONSOLE_ADMIN_TOKEN is unset: every /console path answers 404 with a page
 * that names the variable and how to set it.
 */
export function createConsoleOffRouter(): Router<AppState> {
  const router = new Router<AppState>();
  const off = (ctx: AppContext) => {
    ctx.status = 404;
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'");
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page(
      'Console is off',
      `<h1>Key console</h1>
<div class="box" id="console-off">
<p><strong>The key console is off.</strong> It is turned on by setting the environment variable <code>CONSOLE_ADMIN_TOKEN</code> to a secret of at least ${MIN_ADMIN_TOKEN_LENGTH} characters and restarting the service, for example:</p>
<p><code>CONSOLE_ADMIN_TOKEN="$(openssl rand -hex 24)" npm start</code></p>
<p>Then open <a href="/console">/console</a> and log in with that token. Keys can also be managed without the console: <code>npm run keys -- --help</code>.</p>
</div>`,
    );
  };
  router.all('/console{/*rest}', off);
  return router;
}
