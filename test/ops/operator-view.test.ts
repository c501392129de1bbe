/**
 * Issue 20 item 8: operator detail (per-key series on /metrics, the AI upstreams' host:port,
 * counters and errors on /v2/status and /status) is shown to loopback clients, to
 * `Authorization: Bearer <METRICS_TOKEN or CONSOLE_ADMIN_TOKEN>`; anyone else sees names and
 * states only. TRUST_PROXY=true lets a test be a remote client (its
 * X-Forwarded-For address).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../support/service.ts';
import { ADMIN_TOKEN, AiUpstream, eventually } from './support.ts';

const METRICS_TOKEN = 'metrics-token-0123456789';
const REMOTE = { 'x-forwarded-for': '203.0.113.9' };

interface StatusBody {
  data: { gateway: { upstreams: Record<string, unknown>[] } };
}

describe('operator detail on /metrics, /v2/status and /status', () => {
  const ai = new AiUpstream();
  let svc: TestService;
  let aiHost = '';
  let keyId = '';

  beforeAll(async () => {
    await ai.start();
    aiHost = new URL(ai.url).host;
    svc = await startService({
      env: {
        TRUST_PROXY: 'true',
        METRICS_TOKEN,
        CONSOLE_ADMIN_TOKEN: ADMIN_TOKEN,
        // The second upstream has a name of its own; the first is named after its host:port.
        AI_UPSTREAMS: JSON.stringify([{ url: ai.url }, { url: 'http://10.0.0.5:8000', name: 'backup' }]),
        AI_UPSTREAM_API_KEY: 'upstream-secret',
      },
    });
    const created = await svc.gateway.keys.create({ name: 'spender', level: 'default', levelExplicit: false, quotaMicros: null, models: [], ips: [], expiresAt: null });
    keyId = created.record.id;
    const res = await svc.get('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    await res.text();
  });
  afterAll(async () => {
    await svc?.close();
    await ai.stop();
  });

  const metricsText = async (headers: Record<string, string>) => {
    const res = await svc.get('/metrics', { headers });
    expect(res.status).toBe(200);
    return res.text();
  };

  it('/metrics: per-key and per-upstream series for an operator only', async () => {
    await eventually(async () => expect(await metricsText({})).toContain(`gateway_key_spend_usd_total{key_id="${keyId}"}`));
    for (const headers of [{}, { ...REMOTE, authorization: `Bearer ${METRICS_TOKEN}` }, { ...REMOTE, authorization: `Bearer ${ADMIN_TOKEN}` }]) {
      const text = await metricsText(headers);
      expect(text).toContain(keyId);
      expect(text).toContain('gateway_upstream_up');
    }
    for (const headers of [REMOTE, { ...REMOTE, authorization: 'Bearer wrong-token-0123456789' }]) {
      const text = await metricsText(headers);
      expect(text).not.toContain(keyId);
      expect(text).not.toContain('gateway_key_');
      expect(text).not.toContain(aiHost);
      expect(text).toContain('http_requests_total');
      expect(text).toContain('gateway_tokens_total');
    }
  });

  it('/v2/status: upstream names and states for the public, everything for an operator', async () => {
    const pub = (await (await svc.get('/v2/status', { headers: REMOTE })).json()) as StatusBody;
    expect(pub.data.gateway.upstreams).toEqual([
      { name: 'upstream-1', state: 'up' },
      { name: 'backup', state: 'up' },
    ]);
    for (const headers of [{}, { ...REMOTE, authorization: `Bearer ${METRICS_TOKEN}` }, { ...REMOTE, authorization: `Bearer ${ADMIN_TOKEN}` }]) {
      const op = (await (await svc.get('/v2/status', { headers })).json()) as StatusBody;
      expect(op.data.gateway.upstreams.map((u) => [u.name, u.host])).toEqual([
        [aiHost, aiHost],
        ['backup', '10.0.0.5:8000'],
      ]);
      expect(op.data.gateway.upstreams[0]).toHaveProperty('requests', 1);
    }
  });

  it('/status: the page shows no upstream address or counters to the public', async () => {
    const pub = await (await svc.get('/status', { headers: REMOTE })).text();
    expect(pub).toContain('data-upstream="upstream-1"');
    expect(pub).toContain('data-upstream="backup"');
    expect(pub).not.toContain(aiHost);
    expect(pub).not.toContain('10.0.0.5');
    expect(pub).not.toContain('<th>Latency</th>');
    const op = await (await svc.get('/status', { headers: { ...REMOTE, authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(op).toContain(`data-upstream="${aiHost}"`);
    expect(op).toContain('<th>Latency</th>');
  });
});
