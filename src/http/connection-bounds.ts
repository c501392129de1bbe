/**
 * Time bounds on what a client holds open before it has sent a request. Node checks
 * `headersTimeout` only every `connectionsCheckingInterval` (30 s), so a connection that sends
 * nothing, or only part of its headers, could stay open for up to a minute and a half; here each
 * new connection must deliver its first complete request head within the bound or it is closed.
 * Later requests on a kept-alive connection are bounded by `keepAliveTimeout` and `headersTimeout`.
 */
import http from 'node:http';
import type { Socket } from 'node:net';

/**
 * A server answering with `listener`, under these bounds. The first request of a connection clears
 * its timer in the server's one request listener (a second listener would cost every request an
 * array copy in `emit`).
 */
export function createBoundedServer(listener: http.RequestListener, headersTimeoutMs: number): http.Server {
  const waiting = new WeakMap<Socket, NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const timer = waiting.get(req.socket);
    if (timer !== undefined) {
      clearTimeout(timer);
      waiting.delete(req.socket);
    }
    return listener(req, res);
  });
  server.headersTimeout = headersTimeoutMs;
  if (server.requestTimeout > 0 && server.requestTimeout < headersTimeoutMs) server.requestTimeout = headersTimeoutMs;
  server.on('connection', (socket: Socket) => {
    const timer = setTimeout(() => socket.destroy(), headersTimeoutMs);
    timer.unref();
    waiting.set(socket, timer);
    socket.once('close', () => clearTimeout(timer));
  });
  return server;
}
