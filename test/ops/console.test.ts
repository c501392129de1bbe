/**
 * The key console over HTTP: off without a token, login (cookie flags, no token in the cookie),
 * CSRF protection (Origin check; SameSite=Strict), the key command's rules on the form, the key
 * shown once, and revocation on the gateway's key store. (The same flow in a browser, with the
 * revoked key refused on /v1/models: browser.test.ts.)
 */
import * as cheerio from 'cheerio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.ts';
import { parseKeyForm, sessionCookieValue, validSession } from '../../src/web/console.ts';
import { loadLevels } from '../../src/gateway/levels.ts';
import { usageRows } from '../gateway/helpers.ts';
import { startService, type TestService } from '../support/service.ts';
import { ADMIN_TOKEN, AiUpstream } from './support.ts';

const FORM = 'application/x-www-form-urlencoded';

describe('console switched off', () => {
  it('is a 404 without CONSOLE_ADMIN_TOKEN, with a page that says how to turn it on', async () => {
    const svc = await startService();
    try {
      const res = await svc.get('/console');
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const text = cheerio.load(await res.text())('#console-off').text();
      expect(text).toContain('CONSOLE_ADMIN_TOKEN');
      expect(text).toMatch(/at least 16 characters/);
      const post = await svc.get('/console/login', { method: 'POST' });
      expect(post.status).toBe(404);
      expect(await post.text()).toContain('CONSOLE_ADMIN_TOKEN');
    } finally {
      await svc.close();
    }
  });

  it('refuses a short admin token at boot', async () => {
    await expect(startService({ env: { CONSOLE_ADMIN_TOKEN: 'short' } })).rejects.toThrow(ConfigError);
  });
});

describe('console', () => {
  const ai = new AiUpstream();
  let svc: TestService;
  let cookie = '';
  const post = (p: string, body: string, headers: Record<string, string> = {}) =>
    svc.get(p, { method: 'POST', headers: { 'content-type': FORM, origin: svc.base, ...(cookie ? { cookie } : {}), ...headers }, body });

  beforeAll(async () => {
    await ai.start();
    svc = await startService({ env: { CONSOLE_ADMIN_TOKEN: ADMIN_TOKEN, AI_UPSTREAM_BASE_URL: ai.url } });
  });
  afterAll(async () => {
    await svc.close();
    await ai.stop();
  });

  it('shows the login form, refuses a wrong token and one sent from another origin', async () => {
    const page = await svc.get('/console');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(cheerio.load(await page.text())('input[name=token][type=password]')).toHaveLength(1);
    expect((await post('/console/login', 'token=wrong-token-wrong-token')).status).toBe(401);
    expect((await post('/console/login', `token=${ADMIN_TOKEN}`, { origin: 'https://evil.example' })).status).toBe(403);
    const noOrigin = await svc.get('/console/login', { method: 'POST', headers: { 'content-type': FORM }, body: `token=${ADMIN_TOKEN}` });
    expect(noOrigin.status).toBe(403);
  });

  it('logs in with an HttpOnly, SameSite=Strict cookie that does not contain the token', async () => {
    const res = await post('/console/login', `token=${encodeURIComponent(ADMIN_TOKEN)}`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/console');
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^console_session=\d+\.[0-9a-f]{64}; path=\/console; /);
    expect(setCookie.toLowerCase()).toContain('httponly');
    expect(setCookie.toLowerCase()).toContain('samesite=strict');
    expect(setCookie).not.toContain(ADMIN_TOKEN);
    cookie = setCookie.split(';')[0] as string;
    const page = await svc.get('/console', { headers: { cookie } });
    const $ = cheerio.load(await page.text());
    expect($('form#create')).toHaveLength(1);
    expect($('select[name=level] option').map((_, el) => $(el).attr('value')).get()).toEqual(expect.arrayContaining(['free', 'default', 'pro']));
  });

  it('refuses cross-site and origin-less posts made with the cookie (CSRF)', async () => {
    const before = (await svc.gateway.keys.list()).length;
    expect((await post('/console/keys', 'name=evil', { origin: 'https://evil.example' })).status).toBe(403);
    const bare = await svc.get('/console/keys', { method: 'POST', headers: { 'content-type': FORM, cookie }, body: 'name=evil' });
    expect(bare.status).toBe(403);
    expect((await post('/console/keys', 'name=evil', { origin: 'null' })).status).toBe(403);
    expect((await svc.gateway.keys.list()).length).toBe(before);
  });

  it('applies the key rules: problems are listed and nothing is created', async () => {
    const before = (await svc.gateway.keys.list()).length;
    const res = await post('/console/keys', new URLSearchParams({ name: '', level: 'gold', quota: '12x', budget: '-1', ips: '300.1.1.1', models: `gpt-4,${'m'.repeat(201)}`, expires: '2001-01-01' }).toString());
    expect(res.status).toBe(400);
    const problems = cheerio.load(await res.text())('.problems li').map((_, el) => cheerio.load(el).text()).get();
    expect(problems).toHaveLength(7);
    expect(problems.join('\n')).toMatch(/Name.*\n.*Level: one of free, default, pro.*\n.*Quota.*US dollars.*\n.*Budget.*\n.*Models.*1 to 200 characters.*\n.*IP allowlist.*300\.1\.1\.1.*\n.*Expiry: the date must be in the future/);
    expect((await svc.gateway.keys.list()).length).toBe(before);
  });

  it('creates a key shown once, lists it with its usage, and revokes it', async () => {
    const res = await post('/console/keys', new URLSearchParams({ name: 'ci <bot>', account: 'team-a', level: 'pro', quota: '5', budget: '1.5', budget_period: 'daily', models: 'gpt-*', ips: '127.0.0.1/32', expires: '2999-12-31' }).toString());
    expect(res.status).toBe(201);
    const $ = cheerio.load(await res.text());
    const key = $('#new-key').text();
    const id = $('#new-key-id').text();
    expect(key).toMatch(/^sk-[A-Za-z0-9_-]{43}$/);
    const record = await svc.gateway.keys.get(id);
    expect(record).toMatchObject({ name: 'ci <bot>', accountId: 'team-a', level: 'pro', quotaMicros: 5_000_000, budgetMicros: 1_500_000, budgetPeriod: 'daily', models: ['gpt-*'], ips: ['127.0.0.1/32'], expiresAt: Date.parse('2999-12-31T23:59:59.999Z') });
    expect((await svc.gateway.keys.findByKey(key))?.id).toBe(id);

    const models = await svc.get('/v1/models', { headers: { authorization: `Bearer ${key}` } });
    expect(models.status).toBe(200);
    await models.text();
    // The usage row is written after the answer has gone out.
    expect(await usageRows(svc, id, 1)).toHaveLength(1);

    const list = await (await svc.get('/console', { headers: { cookie } })).text();
    expect(list).not.toContain(key);
    expect(list).toContain('ci &lt;bot&gt;');
    const row = cheerio.load(list)(`tr[data-key-id="${id}"]`);
    expect(row.find('.state').text()).toBe('active');
    expect(row.find('.spend').text()).toBe('$0 / $5.00');
    expect(row.find('.budget').text()).toBe('$0 / $1.50 daily');
    expect(row.find('.requests').text()).toBe('1');

    // Edit (every field of the form) and top up, as the browser posts them.
    const edit = await post(`/console/keys/${id}/edit`, new URLSearchParams({ level: 'free', quota: '7', budget: '', budget_period: 'monthly', models: 'gpt-4o', ips: '', expires: '' }).toString());
    expect(edit.status).toBe(303);
    expect(await svc.gateway.keys.get(id)).toMatchObject({ level: 'free', quotaMicros: 7_000_000, budgetMicros: null, budgetPeriod: null, models: ['gpt-4o'], ips: [], expiresAt: null });
    const badEdit = await post(`/console/keys/${id}/edit`, new URLSearchParams({ level: 'free', quota: 'lots', budget: '', budget_period: 'monthly', models: '', ips: '', expires: '' }).toString());
    expect(badEdit.status).toBe(400);
    expect(cheerio.load(await badEdit.text())('#edit-problems').text()).toMatch(/Quota/);
    const topup = await post(`/console/keys/${id}/topup`, 'amount=2.5');
    expect(topup.status).toBe(303);
    expect((await svc.gateway.keys.get(id))?.quotaMicros).toBe(9_500_000);
    const topped = cheerio.load(await (await svc.get(topup.headers.get('location')!, { headers: { cookie } })).text());
    expect(topped('.notice').text()).toContain('$9.50 of credit left');
    expect((await post(`/console/keys/${id}/topup`, 'amount=-1')).status).toBe(400);
    expect((await post(`/console/keys/${id}/topup`, 'amount=1', { origin: 'https://evil.example' })).status).toBe(403);

    // The list's Revoke button asks first; only the confirmation revokes.
    const ask = await post(`/console/keys/${id}/revoke`, '');
    expect(ask.status).toBe(200);
    const confirm = cheerio.load(await ask.text());
    expect(confirm('h1').text()).toBe('Revoke key "ci <bot>"?');
    expect(confirm('#confirm-revoke input[name="confirm"]').val()).toBe('yes');
    expect((await svc.gateway.keys.get(id))?.revokedAt).toBeNull();
    const revoke = await post(`/console/keys/${id}/revoke`, 'confirm=yes');
    expect(revoke.status).toBe(303);
    expect(revoke.headers.get('location')).toBe(`/console?revoked=${id}`);
    expect((await svc.gateway.keys.get(id))?.revokedAt).not.toBeNull();
    const after = cheerio.load(await (await svc.get(`/console?revoked=${id}`, { headers: { cookie } })).text());
    expect(after('.notice').text()).toContain('is revoked');
    expect(after(`tr[data-key-id="${id}"] .state`).text()).toMatch(/^revoked /);
    expect(after(`tr[data-key-id="${id}"] form`)).toHaveLength(0);
    expect((await svc.get('/v1/models', { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
    expect((await post('/console/keys/key_nope/revoke', '')).status).toBe(404);
  });

  it('accepts the admin token as a bearer header for scripts (no cookie, no Origin needed)', async () => {
    const res = await svc.get('/console/keys', { method: 'POST', headers: { 'content-type': FORM, authorization: `Bearer ${ADMIN_TOKEN}` }, body: 'name=script' });
    expect(res.status).toBe(201);
    expect((await svc.get('/console/keys', { method: 'POST', headers: { 'content-type': FORM, authorization: 'Bearer wrong-token-0123456789' }, body: 'name=script' })).status).toBe(401);
  });

  it('logs out', async () => {
    const res = await post('/console/logout', '');
    expect(res.status).toBe(303);
    expect(res.headers.get('set-cookie')).toMatch(/^console_session=;/);
  });
});

describe('console sessions and form rules', () => {
  it('signs sessions with the token and lets them expire', () => {
    const now = Date.parse('2026-11-21T00:00:00Z');
    const value = sessionCookieValue(ADMIN_TOKEN, now);
    expect(validSession(ADMIN_TOKEN, value, now)).toBe(true);
    expect(validSession(`${ADMIN_TOKEN}x`, value, now)).toBe(false);
    expect(validSession(ADMIN_TOKEN, value, now + 13 * 3600_000)).toBe(false);
    expect(validSession(ADMIN_TOKEN, value.replace(/.$/, (c) => (c === '0' ? '1' : '0')), now)).toBe(false);
    expect(validSession(ADMIN_TOKEN, undefined, now)).toBe(false);
  });

  it('turns the form into the key command input', () => {
    const levels = loadLevels({ json: undefined, file: undefined, defaultLevel: 'default' });
    const now = Date.parse('2026-11-21T00:00:00Z');
    const ok = parseKeyForm({ name: ' bot ', account: '', level: '', quota: '', models: 'a, b*', ips: '10.0.0.0/8, 2001:db8::/32', expires: '' }, levels, now);
    expect(ok.key).toEqual({ name: 'bot', account: undefined, level: 'default', levelExplicit: false, quotaMicros: null, budgetMicros: null, budgetPeriod: null, models: ['a', 'b*'], ips: ['10.0.0.0/8', '2001:db8::/32'], expiresAt: null });
    expect(parseKeyForm({ name: 'x', account: 'bad account!', level: 'free', quota: '1', models: '', ips: '', expires: '2026-13-01' }, levels, now).problems).toHaveLength(2);
  });
});
