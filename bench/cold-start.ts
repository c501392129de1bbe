/**
 * Cold start and idle memory of `npm start`'s server process (`node dist/main.js`, compiled
 * first if stale), with its default settings (the scheduler on) and a fresh SQLite file: time
 * and CPU time to the first answer of /healthz, then resident memory after IDLE_SEC of idling.
 * For comparison, the same for the TypeScript run through tsx, as `npm start` ran before.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PROJECT_ROOT } from '../src/kernel/project-root.ts';
import { processCpuUs, processRssKb } from './load.ts';

const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 5);
const IDLE_SEC = Number(process.env.BENCH_IDLE_SEC ?? 5);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}


async function once(args: string[]): Promise<{ firstMs: number; cpuMs: number; idleRssMiB: number }> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cold-'));
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd: PROJECT_ROOT, stdio: 'ignore', env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DB_PATH: path.join(dir, 'app.sqlite'), LOG_LEVEL: 'silent' } });
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
      if (ok) break;
      if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode})`);
      await sleep(5);
    }
    const firstMs = performance.now() - t0;
    const cpuMs = processCpuUs(child.pid!) / 1000;
    await sleep(IDLE_SEC * 1000);
    return { firstMs, cpuMs, idleRssMiB: processRssKb(child.pid!) / 1024 };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'scripts/build.mjs'), '--if-stale'], { stdio: 'inherit' });
const variants = [
  { name: '`node dist/main.js` (what `npm start` runs)', args: ['dist/main.js'] },
  { name: '`node --import tsx src/main.ts` (before: TypeScript at run time)', args: ['--import', 'tsx', 'src/main.ts'] },
];
console.log(`\n### Cold start and idle memory (${RUNS} runs each, medians; default settings, scheduler on; RSS after ${IDLE_SEC} s idle; load average ${os.loadavg()[0]!.toFixed(1)})\n`);
console.log('| server process | first answer ms | CPU ms to first answer | idle RSS MiB | runs (first answer ms / idle RSS MiB) |');
console.log('| --- | --- | --- | --- | --- |');
for (const v of variants) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await once(v.args));
  console.log(`| ${v.name} | ${median(runs.map((r) => r.firstMs)).toFixed(0)} | ${median(runs.map((r) => r.cpuMs)).toFixed(0)} | ${median(runs.map((r) => r.idleRssMiB)).toFixed(0)} | ${runs.map((r) => `${r.firstMs.toFixed(0)} / ${r.idleRssMiB.toFixed(0)}`).join(', ')} |`);
}
