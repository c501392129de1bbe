/**
 * What the tests of the real coding CLIs share: a chat-completions upstream answer streamed as
 * OpenAI sends it, and a refusing HTTPS proxy that counts what would have left the machine.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A chat-completions stream of one text answer (`words`: one chunk per word, else one chunk), usage last. */
export function chatTextStream(res: http.ServerResponse, model: string, text: string, opts: { words?: boolean } = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (body: Record<string, unknown>) => res.write(`data: ${JSON.stringify({ id: 'chatcmpl-cli', object: 'chat.completion.chunk', created: 1735689600, model, ...body })}\n\n`);
  const delta = (d: Record<string, unknown>, finish: string | null) => chunk({ choices: [{ index: 0, delta: d, finish_reason: finish }] });
  delta({ role: 'assistant', content: '' }, null);
  for (const part of opts.words ? text.split(/(?= )/) : [text]) delta({ content: part }, null);
  delta({}, 'stop');
  chunk({ choices: [], usage: { prompt_tokens: 900, completion_tokens: 4, total_tokens: 904 } });
  res.end('data: [DONE]\n\n');
}

/** An HTTP(S) proxy that refuses everything; `count` is how many requests or tunnels it was asked for. */
export class RefusingProxy {
  count = 0;
  private readonly server = http.createServer((_req, res) => res.writeHead(403).end());

  async start(): Promise<this> {
    this.server.on('connect', (_req, socket) => {
      this.count++;
      // The CLI may reset the tunnel it was refused: that is an answer here, not a test failure.
      socket.on('error', () => {});
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    });
    this.server.on('request', () => this.count++);
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}
