/**
 * The benchmark's server processes (bench/server-child.ts compiled into dist/bench): started with
 * `fork`, optionally under a wrapper such as valgrind; the bare server is given the bytes and
 * headers the service answered on a path.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/kernel/project-root.ts';

export const CHILD_DIR = path.join(PROJECT_ROOT, 'dist/bench');
const CHILD = path.join(CHILD_DIR, 'server-child.js');

export interface Server {
  proc: ChildProcess;
  pid: number;
  base: string;
}

/** A program that runs node itself: its path and its arguments before node's path. */
export interface Wrapper {
  execPath: string;
  args: string[];
}

export function startServer(mode: 'service' | 'bare', wrapper?: Wrapper): Promise<Server> {
  const proc = wrapper
    ? fork(CHILD, [mode], { execPath: wrapper.execPath, execArgv: [...wrapper.args, process.execPath], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
    : fork(CHILD, [mode], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`${mode} server exited (${code})`)));
    proc.on('message', (m: { type: string; port: number; pid: number }) => m.type === 'ready' && resolve({ proc, pid: m.pid, base: `http://127.0.0.1:${m.port}` }));
  });
}

/** Asks the server to stop; resolves when its process has exited (killed after 30 s). */
export function stopServer(server: Server): Promise<void> {
  server.proc.removeAllListeners('exit');
  const exited = new Promise<void>((resolve) => {
    const kill = setTimeout(() => server.proc.kill('SIGKILL'), 30_000);
    server.proc.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
  });
  server.proc.send({ type: 'stop' });
  return exited;
}

function ask(proc: ChildProcess, message: object, reply: string): Promise<void> {
  return new Promise((resolve) => {
    const on = (m: { type: string }) => {
      if (m.type !== reply) return;
      proc.off('message', on);
      resolve();
    };
    proc.on('message', on);
    proc.send(message);
  });
}

/** Has the bare servers answer what the service answers on `p` (its body and headers, without the per-connection ones). */
export async function mirrorAnswer(service: Server, p: string, bares: Server[], requestHeaders: Record<string, string> = {}): Promise<void> {
  const sample = await fetch(`${service.base}${p}`, { headers: requestHeaders });
  const body = Buffer.from(await sample.arrayBuffer());
  if (sample.status !== 200) throw new Error(`${p} answered ${sample.status}`);
  const headers: Record<string, string> = {};
  sample.headers.forEach((v, k) => {
    if (!['connection', 'keep-alive', 'date', 'transfer-encoding'].includes(k)) headers[k] = v;
  });
  for (const bare of bares) await ask(bare.proc, { type: 'body', base64: body.toString('base64'), headers }, 'body-set');
}
