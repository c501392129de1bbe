/**
 * Logs are JSON lines with request ids, and never carry credentials: Authorization headers,
 * cookies, gateway keys, the console's admin token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/kernel/log.ts';
import { ADMIN_TOKEN, startLoggedService, type LoggedService } from './support.ts';

const BEARER_SECRET = 'sk-ThisIsAVerySecretBearerValue0123456789abcdefgh';
const COOKIE_SECRET = 'session-cookie-secret-value-42';
const GOOG_SECRET = 'goog-secret-key-value-77';

describe('request logs', () => {
  let s: LoggedService;
  beforeAll(async () => {
    s = await startLoggedService({ CONSOLE_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'debug' });
  });
  afterAll(async () => {
    await s.svc.close();
  });

  it('are JSON lines with the request id, and hold no Authorization, cookie or key values', async () => {
    const res = await fetch(`${s.base}/v2/apis/qrcode?text=hi&encoding=json`, {
      headers: { authorization: `Bearer ${BEARER_SECRET}`, cookie: `console_session=${COOKIE_SECRET}; other=${COOKIE_SECRET}`, 'x-request-id': 'req-logs-1' },
    });
    expect(res.status).toBe(200);
    await res.text();
    const gw = await fetch(`${s.base}/v1beta/models/x:generateContent?key=${GOOG_SECRET}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BEARER_SECRET}`, cookie: `a=${COOKIE_SECRET}`, 'x-goog-api-key': GOOG_SECRET },
      body: '{}',
    });
    expect(gw.status).toBe(401);
    await gw.text();
    const login = await fetch(`${s.base}/console/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: s.base },
      body: `token=${ADMIN_TOKEN}`,
      redirect: 'manual',
    });
    expect(login.status).toBe(303);
    await new Promise((r) => setTimeout(r, 50));

    expect(s.lines.length).toBeGreaterThanOrEqual(3);
    const parsed = s.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const request = parsed.find((l) => l.msg === 'request' && l.rid === 'req-logs-1');
    expect(request).toMatchObject({ level: 'info', method: 'GET', path: '/v2/apis/qrcode', status: 200, encoding: 'json' });
    expect(typeof request?.time).toBe('string');
    for (const l of parsed.filter((x) => x.msg === 'request')) expect(typeof l.rid).toBe('string');
    const all = s.lines.join('\n');
    for (const secret of [BEARER_SECRET, COOKIE_SECRET, GOOG_SECRET, ADMIN_TOKEN]) expect(all).not.toContain(secret);
    expect(all).not.toMatch(/authorization/i);
    expect(all).not.toMatch(/"cookie"/i);
  });
});

describe('the logger redacts credentials handed to it', () => {
  it('censors authorization, cookie, set-cookie and key fields, at any depth the service uses', () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (s: string) => void lines.push(s) });
    log.child({ rid: 'r1' }).info(
      {
        headers: { authorization: `Bearer ${BEARER_SECRET}`, cookie: COOKIE_SECRET, 'set-cookie': COOKIE_SECRET, 'x-goog-api-key': GOOG_SECRET },
        req: { headers: { authorization: BEARER_SECRET, cookie: COOKIE_SECRET } },
        upstream: { apiKey: 'upstream-secret-1234567', token: ADMIN_TOKEN },
        key: BEARER_SECRET,
      },
      'incoming',
    );
    const out = lines.join('');
    for (const secret of [BEARER_SECRET, COOKIE_SECRET, GOOG_SECRET, ADMIN_TOKEN, 'upstream-secret-1234567']) expect(out).not.toContain(secret);
    const line = JSON.parse(out) as { rid: string; headers: Record<string, string>; req: { headers: Record<string, string> } };
    expect(line.rid).toBe('r1');
    expect(line.headers.authorization).toBe('[redacted]');
    expect(line.req.headers.cookie).toBe('[redacted]');
  });
});
