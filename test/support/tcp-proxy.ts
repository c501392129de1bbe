/**
 * A TCP proxy in front of a server (PostgreSQL in the outage tests) that a test can cut, stall and
 * restore: `cut()` stops listening and drops every open connection (clients then see their
 * connections end and new ones refused); `stall()` keeps every connection open but forwards
 * nothing, as a network partition does (clients wait); `restore()` drops what a stall held and
 * forwards again, on the same port.
 */
import net from 'node:net';

export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private stalled = false;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<this> {
    await this.listen(0);
    return this;
  }

  /** `url` with its host and port replaced by this proxy's. */
  rewrite(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  /** Refuse new connections and drop the open ones. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Keep connections (and accept new ones) but forward nothing. */
  stall(): void {
    this.stalled = true;
    for (const s of this.sockets) {
      s.unpipe();
      s.pause();
    }
  }

  /** Forward again, on the same port (connections held by a stall are dropped). */
  async restore(): Promise<void> {
    if (this.stalled) {
      this.stalled = false;
      for (const s of this.sockets) s.destroy();
      this.sockets.clear();
    }
    if (!this.server) await this.listen(this.port);
  }

  async stop(): Promise<void> {
    await this.cut();
  }

  private async listen(port: number): Promise<void> {
    const server = net.createServer((client) => {
      if (this.stalled) {
        this.sockets.add(client);
        client.on('close', () => this.sockets.delete(client));
        client.on('error', () => client.destroy());
        client.pause();
        return;
      }
      const upstream = net.connect(this.target);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
  }
}
