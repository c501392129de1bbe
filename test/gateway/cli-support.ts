/**
 * What the tests of the real coding CLIs share: finding the pinned CLI, running it, a
 * chat-completions upstream answer streamed as OpenAI sends it, and a refusing HTTPS proxy that
 * counts what would have left the machine.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { LocalHttpServer } from '../support/local-http-server.ts';
import { makeKey, startGateway, type Harness } from './helpers.ts';
import { ModelUpstream } from './model-upstream.ts';

/**
 * The CLI's executable as `.ci/run` installs it: under `dirVar` if set, else ~/.cache/apis-ci/<folder>.
 * When it is missing the test is skipped with a warning, or fails when `requireVar` is 1.
 */
export function installedCli(o: { name: string; dirVar: string; folder: string; bin: string; requireVar: string; testFile: string }): { bin: string; installed: boolean } {
  const dir = process.env[o.dirVar] ?? path.join(os.homedir(), '.cache', 'apis-ci', o.folder);
  const bin = path.join(dir, 'node_modules', '.bin', o.bin);
  const installed = fs.existsSync(bin);
  if (!installed && process.env[o.requireVar] === '1') throw new Error(`${o.requireVar}=1 but ${o.name} is not installed at ${bin}`);
  if (!installed) console.warn(`${o.testFile} skipped: ${o.name} is not installed at ${bin} (.ci/run installs it; or set ${o.dirVar})`);
  return { bin, installed };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to its end, stdin closed (with a pipe open some CLIs wait for more prompt), killed after `timeoutMs`. */
export function runCli(bin: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(bin, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

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

  /** The variables that send a CLI's outside traffic here, while the gateway on 127.0.0.1 is reached directly. */
  env(): Record<string, string> {
    return { HTTPS_PROXY: this.url, HTTP_PROXY: this.url, NO_PROXY: '127.0.0.1,localhost' };
  }

  stop(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

/** What a CLI runs against: our gateway, its two upstreams, the refusing proxy, a key of ours and an empty home. */
export interface CliRig<V extends LocalHttpServer> {
  vendor: V;
  chatOnly: ModelUpstream;
  proxy: RefusingProxy;
  gateway: Harness;
  key: string;
  home: string;
}

/**
 * A CliRig for the enclosing describe block, ready before its tests and gone after them: the
 * gateway routes `vendorRoute.models` to the vendor-style upstream and gpt-* to a chat-only one,
 * both taking `upstreamKey`.
 */
export function useCliRig<V extends LocalHttpServer>(o: { vendor: () => V; vendorRoute: { name: string; api: string[]; models: string[] }; upstreamKey: string; homePrefix: string }): CliRig<V> {
  const rig = {} as CliRig<V>;
  beforeAll(async () => {
    rig.vendor = await o.vendor().start();
    rig.chatOnly = await new ModelUpstream().start();
    rig.proxy = await new RefusingProxy().start();
    rig.gateway = await startGateway({
      upstream: rig.chatOnly,
      env: {
        AI_UPSTREAM_BASE_URL: '',
        AI_UPSTREAM_API_KEY: o.upstreamKey,
        AI_UPSTREAMS: JSON.stringify([
          { ...o.vendorRoute, url: rig.vendor.url },
          { name: 'chat-only', url: rig.chatOnly.url, api: ['openai'], models: ['gpt-*'] },
        ]),
      },
    });
    rig.key = (await makeKey(rig.gateway.svc)).key;
    rig.home = fs.mkdtempSync(path.join(os.tmpdir(), o.homePrefix));
  });
  afterAll(async () => {
    await rig.gateway?.close();
    await rig.vendor?.stop();
    await rig.chatOnly?.stop();
    await rig.proxy?.stop();
    if (rig.home) fs.rmSync(rig.home, { recursive: true, force: true });
  });
  return rig;
}
