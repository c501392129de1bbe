/**
 * `npm run bench`: the cached hot list under load (100 connections) against a bare node:http
 * server returning the same bytes, then the gateway benchmark (BENCH_GATEWAY=0 skips it).
 * Prints markdown tables; the numbers are recorded in BENCHMARKS.md by hand. Not a test:
 * nothing here asserts speed.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100);
const child = path.join(import.meta.dirname, 'server-child.ts');

interface Ready { type: 'ready'; port: number }
interface Stats { type: 'stats'; maxRssKb: number }
interface Cpu { type: 'cpu'; us: number }
interface Round { result: autocannon.Result; cpuUsPerRequest: number }

function start(mode: 'service' | 'bare', init?: unknown): Promise<{ proc: ChildProcess; port: number }> {
  const proc = fork(child, [mode], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  if (init) proc.send(init as never);
  return new Promise((resolve, reject) => {
    proc.once('error', reject);
    proc.on('message', (m: Ready) => m.type === 'ready' && resolve({ proc, port: m.port }));
  });
}

function stop(proc: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    proc.on('message', (m: Stats) => m.type === 'stats' && resolve(m.maxRssKb));
    proc.send({ type: 'stop' });
  });
}

function cpuUs(proc: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onCpu = (m: Cpu) => {
      if (m.type !== 'cpu') return;
      proc.off('message', onCpu);
      resolve(m.us);
    };
    proc.on('message', onCpu);
    proc.send({ type: 'cpu' });
  });
}

async function load(url: string, proc: ChildProcess): Promise<Round> {
  // A short warm-up so JIT and connection set-up do not count.
  await autocannon({ url, connections: CONNECTIONS, duration: 2 });
  const before = await cpuUs(proc);
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION });
  return { result, cpuUsPerRequest: ((await cpuUs(proc)) - before) / result.requests.total };
}

// Both servers run side by side; rounds alternate so machine noise hits both alike.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const service = await start('service');
const url = `http://127.0.0.1:${service.port}/v2/apis/hot-microblog`;
const sample = await fetch(url);
const body = await sample.text();
const headers: Record<string, string> = {};
sample.headers.forEach((v, k) => {
  if (!['connection', 'keep-alive', 'date', 'transfer-encoding'].includes(k)) headers[k] = v;
});
const bare = await start('bare', { type: 'body', body, headers });
const bareUrl = `http://127.0.0.1:${bare.port}/`;

const svcRuns: Round[] = [];
const bareRuns: Round[] = [];
for (let i = 0; i < ROUNDS; i++) {
  svcRuns.push(await load(url, service.proc));
  bareRuns.push(await load(bareUrl, bare.proc));
}
const svcRss = await stop(service.proc);
const bareRss = await stop(bare.proc);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const summary = (runs: Round[]) => ({
  rps: median(runs.map((r) => r.result.requests.average)),
  p50: median(runs.map((r) => r.result.latency.p50)),
  p99: median(runs.map((r) => r.result.latency.p99)),
  cpu: median(runs.map((r) => r.cpuUsPerRequest)),
  non2xx: runs.reduce((n, r) => n + r.result.non2xx, 0),
});
const ratios = svcRuns.map((r, i) => r.result.requests.average / (bareRuns[i] as Round).result.requests.average);
const percent = (xs: number[]) => xs.map((x) => `${(x * 100).toFixed(1)}%`).join(', ');
const row = (name: string, s: ReturnType<typeof summary>, rssKb: number) =>
  `| ${name} | ${Math.round(s.rps).toLocaleString('en-US')} | ${s.p50} | ${s.p99} | ${s.cpu.toFixed(0)} | ${(rssKb / 1024).toFixed(0)} | ${s.non2xx} |`;
console.log(`\n### Cached hot list vs bare node:http (${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${DURATION} s, body ${body.length} bytes; medians)\n`);
console.log('| server | req/s | p50 ms | p99 ms | CPU µs/req | peak RSS MiB | non-2xx |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
console.log(row('/v2/apis/hot-microblog (cached)', summary(svcRuns), svcRss));
console.log(row('bare node:http, same bytes', summary(bareRuns), bareRss));
console.log(`\nReq/s per round, service: ${svcRuns.map((r) => Math.round(r.result.requests.average)).join(', ')}; bare: ${bareRuns.map((r) => Math.round(r.result.requests.average)).join(', ')}.`);
console.log(`Throughput ratio per round: ${percent(ratios)}; median ${(median(ratios) * 100).toFixed(1)}% of bare (target ≥ 60%).`);
console.log(`CPU per request, bare / service, per round: ${percent(svcRuns.map((r, i) => (bareRuns[i] as Round).cpuUsPerRequest / r.cpuUsPerRequest))}.\n`);

// BENCH_GATEWAY=0 runs the hot-list comparison alone.
if (process.env.BENCH_GATEWAY !== '0') {
  try {
    await import('./gateway.ts');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw err;
  }
}
