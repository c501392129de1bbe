/**
 * Time bounds on what a client holds open before it has sent a request. Node checks
 * `headersTimeout` only every `connectionsCheckingInterval` (30 s), so a connection that sends
 * nothing, or only part of its headers, could stay open for up to a minute and a half; here each
 * new connection must deliver its first complete request head within the bound or it is closed.
 * Later requests on a kept-alive connection are bounded by `keepAliveTimeout` and `headersTimeout`.
 */
import type http from 'node:http';
import type { Socket } from 'node:net';

export function boundConnections(server: http.Server, headersTimeoutMs: number): void {
  server.headersTimeout = headersTimeoutMs;
  if (server.requestTimeout > 0 && server.requestTimeout < headersTimeoutMs) server.requestTimeout = headersTimeoutMs;
  const waiting = new WeakMap<Socket, NodeJS.Timeout>();
  server.on('connection', (socket: Socket) => {
    const timer = setTimeout(() => socket.destroy(), headersTimeoutMs);
    timer.unref();
    waiting.set(socket, timer);
    socket.once('close', () => clearTimeout(timer));
  });
  server.on('request', (req: http.IncomingMessage) => {
    const timer = waiting.get(req.socket);
    if (timer === undefined) return;
    clearTimeout(timer);
    waiting.delete(req.socket);
  });
}
