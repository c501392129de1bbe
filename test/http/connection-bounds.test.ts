/**
 * Issue 12, defect 2: connections a client can leave hanging. A 413 on /v2/apis closes the
 * connection (its body was not read, so the socket cannot carry another request); a connection
 * that never sends a byte, or never finishes its headers, is closed within
 * SERVER_HEADERS_TIMEOUT_MS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../sources/index.ts';
import { rawExchange } from '../gateway/process.ts';
import { startService, type TestService } from '../support/service.ts';

const BOUND_MS = 400;
let svc: TestService;
let port: number;

beforeAll(async () => {
  svc = await startService({ env: { SERVER_HEADERS_TIMEOUT_MS: String(BOUND_MS) }, sources: sources.filter((s) => s.id === 'hash') });
  port = Number(new URL(svc.base).port);
});
afterAll(() => svc.close());

describe('413 on /v2/apis', () => {
  it('a declared body over the limit: 413 with Connection: close, and the socket is closed (the next request is not left hanging)', async () => {
    const big = 2 * 1024 * 1024;
    const first = `POST /v2/apis/hash HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${big}\r\n\r\n`;
    const second = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';
    const res = await rawExchange(port, [first, 'abc', second], { responses: 2, waitMs: 5_000 });
    expect(res.status, res.text).toBe(413);
    expect(res.text).toMatch(/\r\nConnection: close\r\n/i);
    expect(res.closed).toBe(true);
  });

  it('a streamed body that grows over the limit: 413 with Connection: close', async () => {
    const head = 'POST /v2/apis/hash HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n';
    const chunk = Buffer.alloc(256 * 1024, 'a');
    const chunks: (string | Buffer)[] = [head];
    for (let i = 0; i < 6; i++) chunks.push(`${chunk.length.toString(16)}\r\n`, chunk, '\r\n');
    const res = await rawExchange(port, chunks, { responses: 2, waitMs: 5_000 });
    expect(res.status, res.text.slice(0, 300)).toBe(413);
    expect(res.text).toMatch(/\r\nConnection: close\r\n/i);
    expect(res.closed).toBe(true);
  });

  it('a body within the limit still leaves the connection open for the next request', async () => {
    const first = 'POST /v2/apis/hash HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello';
    const res = await rawExchange(port, [first, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'], { responses: 2, waitMs: 5_000 });
    expect(res.statuses).toEqual([200, 200]);
  });
});

describe('silent and slow connections', () => {
  it('a connection that never sends a byte is closed within the bound', async () => {
    const started = Date.now();
    const res = await rawExchange(port, [], { waitMs: BOUND_MS * 10 });
    expect(res.closed).toBe(true);
    expect(Date.now() - started).toBeLessThan(BOUND_MS * 8);
  });

  it('a connection that never finishes its headers is closed within the bound', async () => {
    const started = Date.now();
    const res = await rawExchange(port, ['GET /healthz HTTP/1.1\r\nHost: x\r\n'], { waitMs: BOUND_MS * 10 });
    expect(res.closed).toBe(true);
    expect(Date.now() - started).toBeLessThan(BOUND_MS * 8);
  });

  it('a prompt request on a fresh connection is served', async () => {
    const res = await rawExchange(port, ['GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n']);
    expect(res.status).toBe(200);
  });
});
