/** A test's stand-in HTTP server on a free port of 127.0.0.1; subclasses answer in `receive`. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export abstract class LocalHttpServer {
  /** Its origin once started, e.g. `http://127.0.0.1:39123`. */
  url = '';
  private server: http.Server | undefined;

  async start(): Promise<this> {
    const server = http.createServer((req, res) => void this.receive(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  /** Closes it, open keep-alive connections included. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  protected abstract receive(req: http.IncomingMessage, res: http.ServerResponse): void | Promise<void>;
}
