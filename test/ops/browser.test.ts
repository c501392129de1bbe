/**
 * The operator pages in headless Chromium: the docs (Swagger UI from local files, nothing
 * fetched from elsewhere), the status page (desktop and phone, screenshots saved under
 * test-artifacts/), and the key console (log in, create, see the key once, the tokens' cached,
 * reasoning and audio parts, revoke; the revoked key then gets 401 on /v1/models). Skipped with a message when /usr/bin/chromium is absent,
 * unless REQUIRE_BROWSER=1 (CI), which makes its absence a failure.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageRows } from '../gateway/helpers.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';
import { ADMIN_TOKEN, AiUpstream, ARTIFACTS, BROWSER_MISSING_REQUIRED, BROWSER_REQUIRED, HAVE_BROWSER, launchBrowser, NO_BROWSER_MESSAGE } from './support.ts';

const skip = !HAVE_BROWSER && !BROWSER_REQUIRED;
if (skip) process.stderr.write(`${NO_BROWSER_MESSAGE}\n`);

describe.skipIf(skip)(skip ? NO_BROWSER_MESSAGE : 'operator pages in headless Chromium', () => {
  const upstream = new Upstream();
  const ai = new AiUpstream();
  let svc: TestService;
  let browser: Browser;

  beforeAll(async () => {
    if (!HAVE_BROWSER) throw new Error(BROWSER_MISSING_REQUIRED);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await upstream.start();
    await ai.start();
    svc = await startService({ upstream, env: { CONSOLE_ADMIN_TOKEN: ADMIN_TOKEN, AI_UPSTREAM_BASE_URL: ai.url, SOURCE_HOT_MICROBLOG_COOKIE: 'SUB=browser' } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
    await ai.stop();
    await upstream.stop();
  });

  /** A page that records every request it makes outside the service. */
  async function openPage(viewport = { width: 1280, height: 900 }): Promise<{ page: Page; foreign: string[] }> {
    const page = await browser.newPage({ viewport });
    const foreign: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(svc.base) && !r.url().startsWith('data:')) foreign.push(r.url());
    });
    return { page, foreign };
  }

  it('renders the API docs from local files only', async () => {
    const { page, foreign } = await openPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${svc.base}/docs`);
    await page.locator('.opblock-tag', { hasText: 'AI gateway' }).click();
    await expect.poll(() => page.locator('.opblock-summary-path', { hasText: '/v1/chat/completions' }).count()).toBeGreaterThan(0);
    await page.locator('.opblock-tag', { hasText: 'Utilities' }).click();
    const qr = page.locator('.opblock-summary-path', { hasText: /^\/v2\/apis\/qrcode$/ });
    await qr.click();
    await expect.poll(() => page.locator('.parameters .parameter__name', { hasText: 'level' }).count()).toBeGreaterThan(0);
    expect(await page.locator('.opblock-body').first().textContent()).toContain('Available values : L, M, Q, H');
    await page.screenshot({ path: path.join(ARTIFACTS, 'docs.png') });
    // The shared shell around Swagger UI: the site bar, and one main landmark (Swagger UI's own).
    expect(await page.locator('header.site nav a[href="/status"]').count()).toBe(1);
    expect(await page.locator('main').count()).toBe(1);
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  });

  it('shows the status page on desktop and phone', async () => {
    // Fill what the fixtures allow, and let one upstream fail, so every state shows.
    expect((await svc.get('/v2/apis/hot-microblog')).status).toBe(200);
    expect((await svc.get('/v2/apis/60s?date=2026-11-20')).status).toBe(200);
    upstream.serve('m.weibo.cn', '/api/container/getIndex', { status: 502, body: 'bad gateway' });
    await svc.get('/v2/apis/hot-microblog?force-update');
    await svc.get('/v1/models');

    const { page, foreign } = await openPage();
    await page.goto(`${svc.base}/status`);
    expect(await page.title()).toMatch(/^Status · /);
    expect(await page.locator('.card, #local-sources .local').count()).toBe(svc.registry.sources.length);
    expect(await page.locator('#source-hot-microblog').getAttribute('data-state')).toBe('failing');
    expect(await page.locator('#source-hot-microblog .error').textContent()).toMatch(/^transient: /);
    expect(await page.locator('#source-hot-microblog svg.spark rect').count()).toBe(2);
    expect(Number(await page.locator('#gateway-requests').textContent())).toBeGreaterThanOrEqual(1);
    // The badge of a failing source is red, a fresh one green (dark enough for its white text: 4.5:1 and more).
    const colour = (sel: string) => page.locator(sel).evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(await colour('#source-hot-microblog .badge')).toBe('rgb(180, 35, 24)');
    if (await page.locator('.card[data-state=fresh]').count()) expect(await colour('.card[data-state=fresh] .badge')).toBe('rgb(6, 118, 71)');
    // The shared shell: the site bar, the landmarks, the page's language.
    expect(await page.locator('header.site nav a[href="/"]').count()).toBe(1);
    expect(await page.locator('main[lang=en] h1').textContent()).toMatch(/ status$/);
    expect(await page.locator('body > footer a[href="/v2/status"]').count()).toBe(1);
    const columns = await page.locator('.grid').evaluate((el) => getComputedStyle(el).gridTemplateColumns.split(' ').length);
    expect(columns).toBeGreaterThanOrEqual(3);
    await page.screenshot({ path: path.join(ARTIFACTS, 'status-desktop.png'), fullPage: true });
    await page.close();

    const phone = await openPage({ width: 390, height: 844 });
    await phone.page.goto(`${svc.base}/status`);
    const fit = await phone.page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
    expect(fit.scroll).toBeLessThanOrEqual(fit.inner);
    expect(await phone.page.locator('.grid').evaluate((el) => getComputedStyle(el).gridTemplateColumns.split(' ').length)).toBe(1);
    await phone.page.screenshot({ path: path.join(ARTIFACTS, 'status-phone.png') });
    await phone.page.screenshot({ path: path.join(ARTIFACTS, 'status-phone-full.png'), fullPage: true });
    await phone.page.close();
    expect([...foreign, ...phone.foreign]).toEqual([]);
  });

  it('runs the key console: log in, create, see the key once, revoke; the revoked key gets 401', async () => {
    const { page, foreign } = await openPage();
    await page.goto(`${svc.base}/console`);
    await page.fill('input[name=token]', 'not-the-token-0123456789');
    await page.click('button[type=submit]');
    expect(await page.locator('.problems').textContent()).toContain('Wrong admin token');
    await page.fill('input[name=token]', ADMIN_TOKEN);
    await page.click('button[type=submit]');
    await page.waitForSelector('form#create');
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'console_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' });

    await page.fill('#name', 'browser key');
    await page.fill('#account', 'browser-team');
    await page.selectOption('#level', 'pro');
    await page.fill('#quota', '100000');
    await page.fill('#models', 'gpt-*');
    await page.fill('#expires', '2999-01-31');
    await page.click('form#create button[type=submit]');
    const key = (await page.locator('#new-key').textContent()) ?? '';
    const id = (await page.locator('#new-key-id').textContent()) ?? '';
    expect(key).toMatch(/^sk-[A-Za-z0-9_-]{43}$/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'console-created.png') });
    expect(await page.locator('header.site nav a[href="/"]').count()).toBe(1);
    expect(await page.locator('main.console[lang=en] #new-key').count()).toBe(1);

    const models = await svc.get('/v1/models', { headers: { authorization: `Bearer ${key}` } });
    expect(models.status).toBe(200);
    expect(((await models.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toEqual(['gpt-test']);
    const chat = await svc.get('/v1/chat/completions', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }) });
    expect(chat.status).toBe(200);
    // The usage rows are written after the answer has gone out.
    expect(await usageRows(svc, id, 2)).toHaveLength(2);

    await page.goto(`${svc.base}/console`);
    expect(await page.content()).not.toContain(key);
    const row = page.locator(`tr[data-key-id="${id}"]`);
    expect(await row.locator('.state').textContent()).toBe('active');
    expect(await row.locator('.requests').textContent()).toBe('2');
    // The parts of the tokens the upstream reported (issue 21), as on the billing usage view and `keys show`.
    expect(await row.locator('.token-parts').textContent()).toBe('30 days: 11 in, 7 out (cached 4, reasoning 3, audio in 2)');
    await page.screenshot({ path: path.join(ARTIFACTS, 'console-list.png'), fullPage: true });
    await row.locator('button', { hasText: 'Revoke' }).click();
    // Asked first: the key still works until the confirmation.
    await page.waitForSelector('#confirm-revoke');
    expect(await page.locator('h1').textContent()).toMatch(/^Revoke key ".+"\?$/);
    await page.locator('#confirm-revoke button').click();
    await page.waitForSelector('.notice');
    expect(await page.locator('.notice').textContent()).toContain('is revoked');
    expect(await page.locator(`tr[data-key-id="${id}"] .state`).textContent()).toMatch(/^revoked /);

    const after = await svc.get('/v1/models', { headers: { authorization: `Bearer ${key}` } });
    expect(after.status).toBe(401);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    expect(foreign).toEqual([]);
    await page.close();
  });
});
