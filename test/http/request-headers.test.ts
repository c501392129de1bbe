/**
 * requestHeader (src/http/request-headers.ts) reads one header from a request's raw list and must
 * give what node's own `req.headers` gives: checked against it on requests written byte by byte,
 * with names in any case and repeated headers of both kinds (the first kept, the values joined).
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestHeader } from '../../src/http/request-headers.ts';

const NAMES = ['host', 'x-request-id', 'if-none-match', 'if-modified-since', 'cookie', 'x-empty', 'user-agent', 'x-absent', 'content-type'];

let server: http.Server;
let port: number;
const seen: { ours: Record<string, string | undefined>; node: Record<string, string | undefined> }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    // Ours first: node's object is built on its first read (by the server for Host, before this).
    const ours = Object.fromEntries(NAMES.map((n) => [n, requestHeader(req, n)]));
    const node = Object.fromEntries(NAMES.map((n) => [n, req.headers[n] as string | undefined]));
    seen.push({ ours, node });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function send(head: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`GET / HTTP/1.1\r\n${head}Connection: close\r\n\r\n`));
    socket.on('error', reject);
    socket.on('data', () => {});
    socket.on('end', () => resolve());
  });
}

describe('requestHeader', () => {
  it('gives the value req.headers has, for single, repeated and differently cased headers', async () => {
    const heads = [
      'Host: a\r\n',
      'Host: a\r\nHOST: b\r\nX-Request-Id: one\r\nx-request-id: two\r\n',
      'host: a\r\nIf-None-Match: "x"\r\nif-none-match: "y"\r\nIF-MODIFIED-SINCE: Tue, 24 Nov 2026 10:00:00 GMT\r\nIf-Modified-Since: Wed, 25 Nov 2026 10:00:00 GMT\r\n',
      'Host: a\r\nCookie: a=1\r\ncookie: b=2\r\nX-Empty: \r\nx-empty: z\r\nUser-Agent: one\r\nuser-agent: two\r\n',
      'Host: a\r\nContent-Type: text/plain\r\nCONTENT-TYPE: application/json\r\nX-Request-Id: \r\n',
    ];
    for (const head of heads) await send(head);
    expect(seen).toHaveLength(heads.length);
    for (const { ours, node } of seen) expect(ours).toEqual(node);
    // The cases above reach each rule: a kept first value, joined values, the cookie separator.
    expect(seen[1]!.ours['x-request-id']).toBe('one, two');
    expect(seen[1]!.ours.host).toBe('a');
    expect(seen[2]!.ours['if-modified-since']).toBe('Tue, 24 Nov 2026 10:00:00 GMT');
    expect(seen[3]!.ours.cookie).toBe('a=1; b=2');
    expect(seen[3]!.ours['x-empty']).toBe(', z');
    expect(seen[0]!.ours['x-absent']).toBeUndefined();
  });
});
