/**
 * The first-use loader of undici the compiled bundle gives the gateway (scripts/build.mjs):
 * the same Pool and error classes as undici itself.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as undici from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errors, Pool } from '../../src/kernel/undici-on-first-use.ts';

let server: http.Server;
let origin: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    res.end('hello');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('undici on first use', () => {
  it('makes a real undici Pool that requests', async () => {
    const pool = new Pool(origin, { connections: 1 });
    expect(pool).toBeInstanceOf(undici.Pool);
    const res = await pool.request({ path: '/', method: 'GET' });
    expect(res.statusCode).toBe(200);
    expect(await res.body.text()).toBe('hello');
    await pool.close();
  });

  it("exposes undici's own error classes", () => {
    expect(errors.HeadersTimeoutError).toBe(undici.errors.HeadersTimeoutError);
    expect(errors.BodyTimeoutError).toBe(undici.errors.BodyTimeoutError);
    expect(new undici.errors.BodyTimeoutError()).toBeInstanceOf(errors.BodyTimeoutError);
  });
});
