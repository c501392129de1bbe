/**
 * The real service as a process (`node --import tsx src/main.ts`, as `npm start` runs it) on a
 * temporary SQLite file, a key made with `npm run keys`, and raw-socket exchanges with it.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

export interface ServiceProcess {
  proc: ChildProcess;
  port: number;
  base: string;
  dbPath: string;
  output: string[];
  /** Whether the process is still running. */
  alive(): boolean;
  /** `npm run keys -- create … --json` against this service's database: the new key. */
  createKey(args?: string[]): Promise<string>;
  stop(): Promise<void>;
}

export async function spawnService(env: Record<string, string>): Promise<ServiceProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-proc-'));
  const dbPath = path.join(dir, 'app.sqlite');
  const baseEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? os.tmpdir(),
    TZ: 'UTC',
    DB_PATH: dbPath,
    SCHEDULER_ENABLED: 'false',
    HTTP_RETRY: '0',
  };
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    // The log level stays at info: the port is read from the "listening" line.
    env: { ...baseEnv, PORT: '0', HOST: '127.0.0.1', ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const keep = (chunk: Buffer): void => {
    output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    if (output.length > 400) output.splice(0, output.length - 400);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const deadline = setTimeout(() => reject(new Error(`the service did not start:\n${output.join('\n')}`)), 60_000);
    const look = (): void => {
      for (const line of output) {
        const m = /listening on http:\/\/localhost:(\d+)/.exec(line);
        if (m) {
          clearTimeout(deadline);
          proc.stdout?.off('data', look);
          resolve(Number(m[1]));
          return;
        }
      }
    };
    proc.stdout?.on('data', look);
    proc.once('exit', (code) => reject(new Error(`the service exited with ${code}:\n${output.join('\n')}`)));
  });
  return {
    proc,
    port,
    base: `http://127.0.0.1:${port}`,
    dbPath,
    output,
    alive: () => proc.exitCode === null && proc.signalCode === null,
    async createKey(args = []) {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli/keys.ts', 'create', '--name', 'process test', ...args, '--json'], {
        cwd: ROOT,
        env: { ...baseEnv, LOG_LEVEL: 'silent' },
      });
      return (JSON.parse(stdout) as { key: string }).key;
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RawAnswer {
  /** Everything the server sent (latin1). */
  text: string;
  /** The status of the first response, NaN when none came. */
  status: number;
  /** The statuses of every complete response, in order. */
  statuses: number[];
  /** Whether the server closed the connection. */
  closed: boolean;
}

/** The statuses of the complete responses in `text` (bodies framed by Content-Length or chunked). */
export function completeResponses(text: string): number[] {
  const out: number[] = [];
  let at = 0;
  for (;;) {
    const headEnd = text.indexOf('\r\n\r\n', at);
    if (headEnd < 0) return out;
    const head = text.slice(at, headEnd);
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    let end: number;
    if (length) end = headEnd + 4 + Number(length[1]);
    else if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
      const last = text.indexOf('\r\n0\r\n\r\n', headEnd);
      if (last < 0) return out;
      end = last + 7;
    } else end = status === 204 || status === 304 ? headEnd + 4 : Number.POSITIVE_INFINITY;
    if (end > text.length) return out;
    out.push(status);
    at = end;
  }
}

/**
 * Write `chunks` on one connection (in order) and collect what comes back. `destroyAfterMs`
 * drops the connection that long after the last write (a client leaving mid-upload); otherwise
 * the exchange ends once `responses` complete responses arrived (default 1), when the server
 * closes, or when `waitMs` passes.
 */
export function rawExchange(port: number, chunks: (string | Buffer)[], opts: { destroyAfterMs?: number; waitMs?: number; responses?: number } = {}): Promise<RawAnswer> {
  return new Promise((resolve) => {
    let text = '';
    let closed = false;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]), statuses: completeResponses(text), closed });
    };
    const socket = net.connect(port, '127.0.0.1', () => {
      for (const c of chunks) socket.write(c);
      if (opts.destroyAfterMs !== undefined) setTimeout(finish, opts.destroyAfterMs);
    });
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (opts.destroyAfterMs === undefined && completeResponses(text).length >= (opts.responses ?? 1)) finish();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      finish();
    });
    const timer = setTimeout(finish, opts.waitMs ?? 10_000);
  });
}
