/**
 * Issue 12 follow-up: clients that leave in the middle of a stream. The upstream body they
 * leave unread is dropped with an error handler (undici reports a destroyed, unread body as an
 * 'error', which without one would take the process down). 50 streaming clients drop at once,
 * at different moments, on the real service process; it keeps answering, streams included.
 */
import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ModelUpstream } from './model-upstream.ts';
import { spawnService, type ServiceProcess } from './process.ts';
import { waitFor } from './helpers.ts';

let svc: ServiceProcess;
let upstream: ModelUpstream;
let key: string;

beforeAll(async () => {
  upstream = await new ModelUpstream().start();
  svc = await spawnService({ AI_UPSTREAM_BASE_URL: upstream.url, AI_UPSTREAM_API_KEY: 'upstream-secret' });
  key = await svc.createKey(['--level', 'pro']);
}, 90_000);
afterAll(async () => {
  await svc?.stop();
  await upstream?.stop();
});

/** A streamed chat request that is dropped after `dropAfterBytes` bytes of the answer (0: as soon as the headers come). */
function dropMidStream(dropAfterBytes: number): Promise<number> {
  return new Promise((resolve) => {
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true, mock: { chunks: 40, delayMs: 15 } });
    const req = http.request(`${svc.base}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } }, (res) => {
      let seen = 0;
      res.on('data', (c: Buffer) => {
        seen += c.length;
        if (seen >= dropAfterBytes) {
          req.destroy();
          resolve(seen);
        }
      });
      res.on('error', () => undefined);
      res.on('end', () => resolve(seen));
    });
    req.on('error', () => resolve(-1));
    req.end(body);
  });
}

/** The whole of a streamed answer, as the client receives it. */
async function fullStream(): Promise<string> {
  const res = await fetch(`${svc.base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true, mock: { chunks: 5 } }),
  });
  expect(res.status).toBe(200);
  return res.text();
}

it('50 streaming clients that drop mid-stream leave the service answering', async () => {
  const before = upstream.aborted.length;
  const dropped = await Promise.all(Array.from({ length: 50 }, (_, i) => dropMidStream(1 + (i % 10) * 150)));
  expect(dropped.every((n) => n > 0)).toBe(true);
  // Every upstream stream the clients left is cancelled, not read to its end.
  expect(await waitFor(() => upstream.aborted.length - before >= 45, 10_000)).toBe(true);
  // The bodies are dropped after the clients are gone; give an unhandled 'error' the time to surface.
  await new Promise((r) => setTimeout(r, 500));
  expect(svc.alive(), svc.output.join('\n')).toBe(true);
  expect(svc.output.join('\n')).not.toMatch(/uncaught|unhandled/i);
  expect(await fullStream()).toContain('data: [DONE]');
  expect((await fetch(`${svc.base}/healthz`)).status).toBe(200);
}, 60_000);

it('and again, with every client dropping at once right after the first event', async () => {
  const dropped = await Promise.all(Array.from({ length: 50 }, () => dropMidStream(1)));
  expect(dropped.every((n) => n > 0)).toBe(true);
  await new Promise((r) => setTimeout(r, 500));
  expect(svc.alive(), svc.output.join('\n')).toBe(true);
  expect(await fullStream()).toContain('data: [DONE]');
}, 60_000);
