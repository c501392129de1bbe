/**
 * Active health probes: each upstream's model list is asked for on a schedule in its own style
 * (Bearer for OpenAI style, x-api-key and anthropic-version for Anthropic), so a dead upstream is
 * out before a request finds it; the state is on /v2/status and /metrics, and the key console
 * probes on demand.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, waitFor, type Harness } from './helpers.ts';
import { ModelUpstream } from './model-upstream.ts';
import { AnthropicUpstream } from './vendor-upstreams.ts';

const ADMIN = 'admin-token-for-probe-tests-0123';

let openaiUp: ModelUpstream;
let anthropic: AnthropicUpstream;
let deadPort: number;
let h: Harness;

interface View {
  name: string;
  state: string;
  last_probe_ok: boolean | null;
  last_probe_at: number | null;
}

async function upstreams(): Promise<Record<string, View>> {
  const body = (await (await fetch(`${h.base}/v2/status`)).json()) as { data: { gateway: { upstreams: View[] } } };
  return Object.fromEntries(body.data.gateway.upstreams.map((u) => [u.name, u]));
}

beforeAll(async () => {
  openaiUp = await new ModelUpstream().start();
  anthropic = await new AnthropicUpstream('ant-key').start();
  // A port that refuses connections: a server started and closed again.
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  deadPort = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  h = await startGateway({
    upstream: openaiUp,
    env: {
      AI_UPSTREAM_BASE_URL: '',
      AI_UPSTREAMS: JSON.stringify([
        { name: 'openai', url: openaiUp.url, key: 'oa-key' },
        { name: 'claude', url: anthropic.url, key: 'ant-key', api: ['anthropic'] },
        { name: 'dead', url: `http://127.0.0.1:${deadPort}` },
      ]),
      AI_UPSTREAM_PROBE_INTERVAL_MS: '150',
      AI_UPSTREAM_COOLDOWN_MS: '60000',
      CONSOLE_ADMIN_TOKEN: ADMIN,
    },
  });
});

afterAll(async () => {
  await h?.close();
  await openaiUp?.stop();
  await anthropic?.stop();
});

describe('scheduled upstream probes', () => {
  it('take a dead upstream out and keep live ones up, each asked in its own style', async () => {
    let view: Record<string, View> = {};
    const seen = await waitFor(() => {
      void upstreams().then((v) => (view = v));
      return view.dead?.last_probe_ok === false && view.openai?.last_probe_ok === true && view.claude?.last_probe_ok === true;
    }, 5000);
    expect(seen, JSON.stringify(view)).toBe(true);
    expect(view.dead!.state).toBe('cooling');
    expect(view.openai!.state).toBe('up');
    const probe = anthropic.requests.find((r) => r.method === 'GET' && r.path === '/v1/models');
    expect(probe?.headers['x-api-key']).toBe('ant-key');
    expect(probe?.headers['anthropic-version']).toBe('2023-06-01');
    const oa = openaiUp.requests.find((r) => r.method === 'GET' && r.path === '/v1/models');
    expect(oa?.headers.authorization).toBe('Bearer oa-key');
    const metrics = await (await fetch(`${h.base}/metrics`)).text();
    expect(metrics).toMatch(/gateway_upstream_probe_ok\{upstream="dead"\} 0/);
    expect(metrics).toMatch(/gateway_upstream_probe_ok\{upstream="claude"\} 1/);
    expect(metrics).toMatch(/gateway_upstream_up\{upstream="dead"\} 0/);
    const page = await (await fetch(`${h.base}/status`)).text();
    expect(page).toMatch(/data-upstream="dead"[^]*?data-probe="failed"/);
    expect(page).toMatch(/data-upstream="claude"[^]*?data-probe="passed"/);
  });

  it('probes on demand from the key console', async () => {
    const page = await fetch(`${h.base}/console`, { headers: { authorization: `Bearer ${ADMIN}` } });
    const html = await page.text();
    expect(html).toContain('id="probe-now"');
    expect(html).toContain('data-upstream="dead"');
    const res = await fetch(`${h.base}/console/upstreams/probe`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/Probed: openai passed \(HTTP 200, \d+ ms\); claude passed \(HTTP 200, \d+ ms\); dead failed \(connect, \d+ ms\)\./);
    const refused = await fetch(`${h.base}/console/upstreams/probe`, { method: 'POST' });
    expect(refused.status).toBe(401);
  });
});
