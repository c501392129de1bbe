/**
 * `npm run bench`: server CPU time per request of the routes people use most, each against a
 * bare node:http server sending the same bytes and headers (the ceiling), round by round in
 * turn so machine noise hits both alike; then cold start and idle memory (bench/cold-start.ts)
 * and the gateway (bench/gateway.ts; BENCH_GATEWAY=0 skips it). Prints markdown tables; the
 * numbers are recorded in BENCHMARKS.md by hand. Not a test: nothing here asserts speed.
 *
 * The servers run the compiled service (scripts/build.mjs), as `npm start` does. CPU per request
 * is the server process's user + system time over a round (/proc/<pid>/stat) divided by the
 * requests it answered: the headline figure, which machine load disturbs far less than req/s.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/kernel/project-root.ts';
import { GENERATOR, load, processCpuUs, type LoadResult } from './load.ts';
import { recentDates } from './dates.ts';

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100);
/** Only the cases whose name contains this (e.g. BENCH_ONLY=QR). */
const ONLY = process.env.BENCH_ONLY;

const childDir = path.join(PROJECT_ROOT, 'dist/bench');
execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'scripts/build.mjs'), '--entry', 'server-child=bench/server-child.ts', '--outdir', childDir], { stdio: 'inherit' });

interface Server {
  proc: ChildProcess;
  pid: number;
  base: string;
}

function start(mode: 'service' | 'bare'): Promise<Server> {
  const proc = fork(path.join(childDir, 'server-child.js'), [mode], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`${mode} server exited (${code})`)));
    proc.on('message', (m: { type: string; port: number; pid: number }) => m.type === 'ready' && resolve({ proc, pid: m.pid, base: `http://127.0.0.1:${m.port}` }));
  });
}

function request(proc: ChildProcess, message: object, reply: string): Promise<void> {
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

interface Case {
  name: string;
  path: string;
  /** A new path each request (the path followed by a counter); no bare counterpart. */
  unique?: boolean;
}

const pastDay = recentDates(6)[5]!;
const CASES: Case[] = [
  { name: '`/v2/apis/hot-microblog` (cached hot list)', path: '/v2/apis/hot-microblog' },
  { name: '`/v2/apis/60s/rss` (feed from 10 days of history)', path: '/v2/apis/60s/rss' },
  { name: `\`/v2/apis/60s?date=${pastDay}\` (a past day)`, path: `/v2/apis/60s?date=${pastDay}` },
  { name: '`/v2/apis/qrcode?encoding=image`, the same text', path: `/v2/apis/qrcode?encoding=image&text=${encodeURIComponent('https://example.com/same')}` },
  { name: '`/v2/apis/qrcode?encoding=image`, a new text each request', path: '/v2/apis/qrcode?encoding=image&text=https%3A%2F%2Fexample.com%2Fitem%2F', unique: true },
  { name: '`/v2/apis/hash?content=abc` (the same content)', path: '/v2/apis/hash?content=abc' },
  { name: '`/v2/apis/hash`, a new content each request', path: '/v2/apis/hash?content=bench-', unique: true },
].filter((c) => !ONLY || c.name.includes(ONLY));

interface Round {
  load: LoadResult;
  cpuUs: number;
}

async function measure(server: Server, p: string, unique: boolean): Promise<Round> {
  const before = processCpuUs(server.pid);
  const result = await load(server.base, p, { connections: CONNECTIONS, durationSec: DURATION, unique });
  return { load: result, cpuUs: (processCpuUs(server.pid) - before) / result.requests };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const fmt = (n: number, d = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : '—');

const service = await start('service');
const bare = await start('bare');
const rows: string[] = [];
const perRound: string[] = [];
for (const c of CASES) {
  // Bare gets the bytes and headers ours answered on this path (not for per-request texts).
  if (!c.unique) {
    const sample = await fetch(`${service.base}${c.path}`);
    const body = Buffer.from(await sample.arrayBuffer());
    const headers: Record<string, string> = {};
    sample.headers.forEach((v, k) => {
      if (!['connection', 'keep-alive', 'date', 'transfer-encoding'].includes(k)) headers[k] = v;
    });
    if (sample.status !== 200) throw new Error(`${c.path} answered ${sample.status}`);
    await request(bare.proc, { type: 'body', base64: body.toString('base64'), headers }, 'body-set');
  }
  // Warm-up: JIT, connections, and (for a repeated path) the rendered caches.
  await load(service.base, c.path, { connections: CONNECTIONS, durationSec: 1, unique: !!c.unique });
  if (!c.unique) await load(bare.base, '/', { connections: CONNECTIONS, durationSec: 1 });
  const ours: Round[] = [];
  const ceiling: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // A new prefix each round: a "new text" is never one an earlier round cached.
    ours.push(await measure(service, c.unique ? `${c.path}r${r}-${Date.now()}-` : c.path, !!c.unique));
    if (!c.unique) ceiling.push(await measure(bare, '/', false));
  }
  const cpu = median(ours.map((x) => x.cpuUs));
  const bareCpu = ceiling.length ? median(ceiling.map((x) => x.cpuUs)) : NaN;
  const ratios = ceiling.map((b, i) => ours[i]!.cpuUs / b.cpuUs);
  const non2xx = ours.reduce((n, x) => n + x.load.non2xx, 0);
  rows.push(
    `| ${c.name} | **${fmt(cpu)}** | ${fmt(bareCpu)} | ${ratios.length ? `**${fmt(median(ratios), 2)}×**` : '—'} | ${fmt(median(ours.map((x) => x.load.rps)))} | ${ceiling.length ? fmt(median(ceiling.map((x) => x.load.rps))) : '—'} | ${fmt(median(ours.map((x) => x.load.p50Ms)), 2)} / ${fmt(median(ours.map((x) => x.load.p99Ms)), 2)} | ${non2xx} |`,
  );
  perRound.push(`- ${c.name}: ours ${ours.map((x) => fmt(x.cpuUs)).join(', ')} µs${ceiling.length ? `; bare ${ceiling.map((x) => fmt(x.cpuUs)).join(', ')} µs; ratio ${ratios.map((x) => `${fmt(x, 2)}×`).join(', ')}` : ''}`);
}
service.proc.removeAllListeners('exit');
bare.proc.removeAllListeners('exit');
service.proc.send({ type: 'stop' });
bare.proc.send({ type: 'stop' });

console.log(`\n### Server CPU per request, ours vs a bare node:http server with the same bytes (${GENERATOR}, ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${DURATION} s; medians; ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)})\n`);
console.log('| route | ours CPU µs/req | bare CPU µs/req | ratio | ours req/s | bare req/s | ours p50 / p99 ms | non-2xx |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) console.log(r);
console.log('\nPer round (CPU µs per request):\n');
for (const r of perRound) console.log(r);

if (process.env.BENCH_COLD !== '0') await import('./cold-start.ts');
if (process.env.BENCH_GATEWAY !== '0') await import('./gateway.ts');
