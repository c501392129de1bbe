import { Pool, errors } from 'undici';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Cancel } from '../../src/gateway/cancel.ts';

describe('Cancel', () => {
  it('aborts once, and Cancel.any follows any of its parts', () => {
    const a = new Cancel();
    const b = new Cancel();
    const both = Cancel.any(a, b);
    let heard = 0;
    both.on('abort', () => heard++);
    b.abort('gone');
    b.abort('again');
    expect([both.aborted, both.reason, heard, a.aborted]).toEqual([true, 'gone', 1, false]);
    const done = new Cancel();
    done.abort();
    expect(Cancel.any(new Cancel(), done).aborted).toBe(true);
  });

  it('cancels an undici request waiting for its answer', async () => {
    const server = http.createServer(() => undefined);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const cancel = new Cancel();
    const pending = pool.request({ method: 'GET', path: '/', signal: cancel });
    setTimeout(() => cancel.abort(), 20);
    await expect(pending).rejects.toBeInstanceOf(errors.RequestAbortedError);
    await pool.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
});
