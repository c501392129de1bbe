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
 * Several processes of each (BENCH_PROCESSES, 3): on this machine one process of the same build
 * can settle at a per-request cost up to a third above another's for its whole life, while rounds
 * within one process agree; the median over processes and rounds is robust to that.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/kernel/project-root.ts';
import { CHILD_DIR, mirrorAnswer, startServer, stopServer, type Server } from './children.ts';
import { countInstructions } from './instructions.ts';
import { GENERATOR, load, processCpuUs, type LoadResult } from './load.ts';
import { recentDates } from './dates.ts';

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100);
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 3);
/** Seconds of load before a case's rounds: the service's first second still runs code V8 is optimizing in the background. */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
/** Only the cases whose name contains this (e.g. BENCH_ONLY=QR). */
const ONLY = process.env.BENCH_ONLY;
/** The cases (names containing one of these, comma-separated) also counted in instructions under valgrind; 0 for none. */
const INSTRUCTIONS = (process.env.BENCH_INSTRUCTIONS ?? 'hot-microblog').split(',').filter((x) => x && x !== '0');

execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'scripts/build.mjs'), '--entry', 'server-child=bench/server-child.ts', '--outdir', CHILD_DIR], { stdio: 'inherit' });

interface Case {
  name: string;
  path: string;
  /** A new path each request (the path followed by a counter); no bare counterpart. */
  unique?: boolean;
  /** Request headers (a browser's Accept for the home page). */
  headers?: Record<string, string>;
}

const pastDay = recentDates(6)[5]!;
const CASES: Case[] = [
  { name: '`/v2/apis/hot-microblog` (cached hot list)', path: '/v2/apis/hot-microblog' },
  { name: '`/` for a browser (the home page: every list, trending)', path: '/', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } },
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

async function measure(server: Server, p: string, unique: boolean, headers?: Record<string, string>): Promise<Round> {
  const before = processCpuUs(server.pid);
  const result = await load(server.base, p, { connections: CONNECTIONS, durationSec: DURATION, unique, ...(headers ? { headers } : {}) });
  return { load: result, cpuUs: (processCpuUs(server.pid) - before) / result.requests };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const fmt = (n: number, d = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : '—');

const services: Server[] = [];
const bares: Server[] = [];
for (let i = 0; i < PROCESSES; i++) {
  services.push(await startServer('service'));
  bares.push(await startServer('bare'));
}
const service = services[0]!;
const rows: string[] = [];
const perRound: string[] = [];
for (const c of CASES) {
  // Bare gets the bytes and headers ours answered on this path (not for per-request texts).
  if (!c.unique) await mirrorAnswer(service, c.path, bares, c.headers);
  // Warm-up: JIT, connections, and (for a repeated path) the rendered caches.
  for (let i = 0; i < PROCESSES; i++) {
    await load(services[i]!.base, c.path, { connections: CONNECTIONS, durationSec: WARMUP, unique: !!c.unique, ...(c.headers ? { headers: c.headers } : {}) });
    if (!c.unique) await load(bares[i]!.base, '/', { connections: CONNECTIONS, durationSec: WARMUP });
  }
  const ours: Round[] = [];
  const ceiling: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < PROCESSES; i++) {
      // A new prefix each round: a "new text" is never one an earlier round cached.
      ours.push(await measure(services[i]!, c.unique ? `${c.path}r${r}p${i}-${Date.now()}-` : c.path, !!c.unique, c.headers));
      if (!c.unique) ceiling.push(await measure(bares[i]!, '/', false));
    }
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
await Promise.all([...services, ...bares].map(stopServer));

console.log(`\n### Server CPU per request, ours vs a bare node:http server with the same bytes (${GENERATOR}, ${CONNECTIONS} connections, ${PROCESSES} processes of each, ${ROUNDS} alternating rounds of ${DURATION} s per process; medians; ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)})\n`);
console.log('| route | ours CPU µs/req | bare CPU µs/req | ratio | ours req/s | bare req/s | ours p50 / p99 ms | non-2xx |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) console.log(r);
console.log(`\nPer round, process by process within a round (CPU µs per request):\n`);
for (const r of perRound) console.log(r);
for (const line of await countInstructions(CASES.filter((c) => !c.unique && INSTRUCTIONS.some((x) => c.name.includes(x))))) console.log(line);

if (process.env.BENCH_COLD !== '0') await import('./cold-start.ts');
if (process.env.BENCH_GATEWAY !== '0') await import('./gateway.ts');
