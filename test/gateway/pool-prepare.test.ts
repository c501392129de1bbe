/**
 * The pool with a request prepared per upstream (translated or renamed): a preparation that
 * refuses the request (a 400 naming a field) must leave the upstream's state as it was.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TranslationError } from '../../src/gateway/translate/types.ts';
import { UpstreamPool } from '../../src/gateway/upstream-pool.ts';
import type { UpstreamSpec } from '../../src/gateway/upstream-settings.ts';

let primaryFailing = true;
const hits = { primary: 0, backup: 0 };
const servers: http.Server[] = [];

async function serve(name: keyof typeof hits): Promise<string> {
  const server = http.createServer((_req, res) => {
    hits[name]++;
    res.writeHead(name === 'primary' && primaryFailing ? 503 : 200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const spec = (name: string, url: string): UpstreamSpec => ({ name, url, apiKey: 'k', weight: 0, models: [], aliases: {}, api: ['openai'], apiDeclared: true });

let primaryUrl = '';
let backupUrl = '';
beforeAll(async () => {
  primaryUrl = await serve('primary');
  backupUrl = await serve('backup');
});

afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

it('a half-open upstream whose request could not be prepared is probed by the next request', async () => {
  let now = 1_000;
  const pool = new UpstreamPool({ upstreams: [spec('primary', primaryUrl), spec('backup', backupUrl)], firstByteTimeoutMs: 2000, idleTimeoutMs: 2000, attempts: 2, cooldownMs: 100, now: () => now });
  const base = { family: 'openai' as const, model: 'm', method: 'POST', path: '/v1/chat/completions', headers: {}, signal: new AbortController().signal };
  (await pool.send(base)).body.resume();
  expect(pool.status().map((u) => u.state)).toEqual(['cooling', 'up']);
  now += 200;
  const refuse = () => {
    throw new TranslationError('cannot carry', 'input[0].type');
  };
  await expect(pool.send({ ...base, prepare: refuse })).rejects.toBeInstanceOf(TranslationError);
  primaryFailing = false;
  const before = hits.primary;
  (await pool.send(base)).body.resume();
  expect(hits.primary).toBe(before + 1);
  expect(pool.status()[0]!.state).toBe('up');
  await pool.close();
});
