/**
 * A local WHOIS (port-43 protocol) server for tests: reads one query line, answers with text
 * and closes. Answers come from a handler, else from test/fixtures/upstream/<name>/<query>.txt,
 * else "No match". Point the whois source at it with SOURCE_WHOIS_SERVER_OVERRIDE.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { FIXTURE_DIR } from './upstream.ts';

export interface WhoisReply {
  body: string;
  /** Wait before answering. */
  delayMs?: number;
  /** Drop the connection instead of answering (a failing server). */
  reset?: boolean;
}

export type WhoisHandler = (query: string) => WhoisReply | string | undefined;

export class WhoisServer {
  readonly queries: string[] = [];
  port = 0;
  private handler: WhoisHandler | undefined;
  private readonly server = net.createServer((socket) => this.handle(socket));
  private readonly sockets = new Set<net.Socket>();

  /** `name` is the WHOIS server this one stands for (its fixture folder). */
  constructor(readonly name: string) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** `name=127.0.0.1:port`, for SOURCE_WHOIS_SERVER_OVERRIDE. */
  get override(): string {
    return `${this.name}=127.0.0.1:${this.port}`;
  }

  /** Answer with this handler until reset (undefined from it falls back to the fixtures). */
  use(handler: WhoisHandler): this {
    this.handler = handler;
    return this;
  }

  reset(): void {
    this.handler = undefined;
    this.queries.length = 0;
  }

  private handle(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = '';
    socket.on('data', (chunk) => {
      buf += chunk.toString('utf8');
      const end = buf.indexOf('\r\n');
      if (end < 0) return;
      const query = buf.slice(0, end);
      this.queries.push(query);
      const raw = this.handler?.(query) ?? this.fromFile(query);
      const reply = typeof raw === 'string' ? { body: raw } : raw;
      setTimeout(() => {
        if (socket.destroyed) return;
        if (reply.reset) socket.resetAndDestroy();
        else socket.end(reply.body);
      }, reply.delayMs ?? 0);
    });
  }

  private fromFile(query: string): WhoisReply {
    const file = path.join(FIXTURE_DIR, this.name, `${query.toLowerCase()}.txt`);
    if (file.startsWith(FIXTURE_DIR) && fs.existsSync(file)) return { body: fs.readFileSync(file, 'utf8') };
    return { body: `No match for "${query.toUpperCase()}".\r\n` };
  }
}
