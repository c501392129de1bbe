/**
 * User-space instructions per request, ours against the bare server, counted by valgrind's
 * callgrind. CPU time per request (bench/run.ts) moves by up to a third between processes of one
 * build on this machine; an instruction count is the same for the same build and inputs whatever
 * else the machine is doing, so it shows what a change did. It leaves out the kernel's share (the
 * socket reads and writes, the same bytes for both) and cache effects, so its ratio is the
 * difference in our own work, not a second CPU figure. Each server runs under callgrind (about 50
 * times slower), is warmed by WARM_SEC of load, and is counted over the next COUNT_SEC.
 * Skipped, with a line saying so, when valgrind is not installed.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { mirrorAnswer, startServer, stopServer, type Server } from './children.ts';
import { GENERATOR, load } from './load.ts';

const WARM_SEC = Number(process.env.BENCH_INSTRUCTIONS_WARM_SEC ?? 15);
const COUNT_SEC = Number(process.env.BENCH_INSTRUCTIONS_SEC ?? 15);
const CONNECTIONS = 10;
const run = promisify(execFile);

export interface InstructionCase {
  name: string;
  path: string;
}

function hasValgrind(): boolean {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The instructions one server spends per request of `p`, from a callgrind dump of the counted window. */
async function count(server: Server, outFile: string, p: string): Promise<number> {
  await load(server.base, p, { connections: CONNECTIONS, durationSec: WARM_SEC });
  await run('callgrind_control', ['--zero', String(server.pid)]);
  const { requests } = await load(server.base, p, { connections: CONNECTIONS, durationSec: COUNT_SEC });
  await run('callgrind_control', ['--dump', String(server.pid)]);
  const dumps = fs.readdirSync(path.dirname(outFile)).filter((f) => f.startsWith(`${path.basename(outFile)}.`) && /\.\d+$/.test(f));
  const text = fs.readFileSync(path.join(path.dirname(outFile), dumps.sort().at(-1)!), 'utf8');
  const total = Number(/^(?:summary|totals): (\d+)/m.exec(text)?.[1]);
  if (!Number.isFinite(total) || !requests) throw new Error(`no instruction count for ${p}`);
  return total / requests;
}

export async function countInstructions(cases: InstructionCase[]): Promise<string[]> {
  if (!cases.length) return [];
  if (!hasValgrind()) return ['\nInstructions per request: skipped (valgrind is not installed; `apt-get install valgrind`).'];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-callgrind-'));
  const rows: string[] = [];
  try {
    for (const c of cases) {
      const under = (name: string) => ({ execPath: 'valgrind', args: ['-q', '--tool=callgrind', '--smc-check=all-non-file', `--callgrind-out-file=${path.join(dir, name)}.%p`] });
      const [service, bare] = await Promise.all([startServer('service', under('service')), startServer('bare', under('bare'))]);
      try {
        await mirrorAnswer(service, c.path, [bare]);
        // Both at once: each count is its own process's, whatever the other is doing.
        const [ours, ceiling] = await Promise.all([count(service, path.join(dir, `service.${service.pid}`), c.path), count(bare, path.join(dir, `bare.${bare.pid}`), '/')]);
        rows.push(`| ${c.name} | **${Math.round(ours).toLocaleString('en-US')}** | ${Math.round(ceiling).toLocaleString('en-US')} | **${(ours / ceiling).toFixed(2)}×** |`);
      } finally {
        // Callgrind writes its last dump as a process exits: the folder goes after.
        await Promise.all([stopServer(service), stopServer(bare)]);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return [
    `\n### User-space instructions per request, ours vs bare (valgrind callgrind, ${GENERATOR} with ${CONNECTIONS} connections, ${WARM_SEC} s of warm-up, ${COUNT_SEC} s counted; the same count on a busy or a quiet machine)\n`,
    '| route | ours instructions/req | bare instructions/req | ratio |',
    '| --- | --- | --- | --- |',
    ...rows,
  ];
}
