/**
 * Gateway benchmark (not a test; nothing asserts speed): `npx tsx bench/gateway.ts`, also run by
 * `npm run bench`. Four kinds of process, the first three in bench/gateway-child.ts compiled as
 * `npm start` compiles the service: a fixed-timing upstream, the real service (keys, limiter
 * windows, credit reservations and usage rows in SQLite; in PostgreSQL and Redis when
 * DATABASE_URL / REDIS_URL are set for the benchmark), a bare `node:http` proxy that forwards the
 * same bytes to the same upstream with the same client (undici) and nothing else (the ceiling),
 * and this load generator. Every comparison alternates its targets round by round in one run, so
 * the noise of a shared machine falls on all of them alike:
 *   1. added latency of a non-streamed chat completion (sequential requests over one connection);
 *   2. server CPU per forwarded request at 50 connections (wrk when installed, else autocannon),
 *      read from /proc/<pid>/stat (utime + stime) before and after each round: the headline;
 *   3. added time to the first streamed event (the upstream sends it after 100 ms);
 *   4. 100 and 1,000 concurrent streams: events delivered, their spacing, the first event, and
 *      the proxies' memory (RSS sampled every 50 ms);
 *   5. the added latency with two upstreams configured (the primary healthy) next to one;
 *   6. server CPU of a pass-through call and of translated ones (Responses, Messages, Gemini to a chat-only
 *      upstream), JSON and streamed;
 *   7. ("versus") the same calls, JSON and a 20-event stream sent without pauses, through the bare
 *      proxy, the floor (the bare proxy plus a key map, the JSON parses and a usage row), the
 *      gateway (pass-through and a translated Responses call) and Portkey's gateway
 *      (`@portkey-ai/gateway`, a child process): server CPU per request and added latency (p50).
 * Two keys go through the gateway: one without a credit limit, one with a quota (each request
 * then reserves its possible cost in the key store and settles it).
 *
 * Environment: GATEWAY_BENCH_DURATION (s per load round, default 5), GATEWAY_BENCH_ROUNDS
 * (default 3), GATEWAY_BENCH_STREAMS (default "100,1000"), GATEWAY_BENCH_ONLY (comma list of
 * sections: latency,cpu,first,streams,pair,translate,versus, and instructions, which runs only when
 * named; GATEWAY_BENCH_CALLGRIND_WARM and _COUNT set its requests), GATEWAY_BENCH_KEY (unlimited or credit: only that key in the
 * CPU section), GATEWAY_BENCH_PROFILE (a directory: the gateway
 * runs with `node --cpu-prof` and writes its profile there on exit).
 */
import { execFileSync, fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { Agent, request } from 'undici';
import { PROJECT_ROOT } from '../src/kernel/project-root.ts';
import { CHILD_DIR } from './children.ts';
import type { Ready as GatewayChildReady, StreamPlan } from './gateway-child.ts';

const DURATION = Number(process.env.GATEWAY_BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.GATEWAY_BENCH_ROUNDS ?? 3);
const STREAM_COUNTS = (process.env.GATEWAY_BENCH_STREAMS ?? '100,1000').split(',').map(Number).filter((n) => n > 0);
const ONLY = process.env.GATEWAY_BENCH_ONLY?.split(',');
const PROFILE_DIR = process.env.GATEWAY_BENCH_PROFILE;
const CHILD = path.join(CHILD_DIR, 'gateway-child.js');
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim() || 100);

const runs = (section: string): boolean => !ONLY || ONLY.includes(section);

type Ready = GatewayChildReady;


// ---------------------------------------------------------------- load generator
/** A server process; `callgrind`: under valgrind's callgrind, its counts written to files starting with this path. */
function start(role: string, args: string[] = [], callgrind?: string): Promise<{ proc: ChildProcess; ready: Ready }> {
  const execArgv = role === 'gateway' && PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const under = callgrind ? { execPath: 'valgrind', execArgv: ['-q', '--tool=callgrind', '--smc-check=all-non-file', `--callgrind-out-file=${callgrind}.%p`, process.execPath, ...execArgv] } : { execArgv };
  const proc = fork(CHILD, [`--role=${role}`, ...args], { ...under, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    proc.once('error', reject);
    proc.on('message', (m: Ready) => m.type === 'ready' && resolve({ proc, ready: m }));
  });
}

/** Stop server processes started by `start` and wait until they have exited. */
async function stopAll(...servers: { proc: ChildProcess }[]): Promise<void> {
  for (const s of servers) s.proc.send({ type: 'stop' });
  await Promise.all(servers.map((s) => new Promise((r) => s.proc.once('exit', r))));
}

/** CPU time (user + system, ms) a process has used, from /proc/<pid>/stat. */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

function pct(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const median = (xs: number[]) => pct([...xs].sort((a, b) => a - b), 50);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

const chatBody = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'hi' }] });

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** The process whose CPU and memory count (none for the upstream itself). */
  pid?: number;
}

interface LoadResult {
  requests: number;
  rps: number;
  p99Ms: number;
  errors: number;
}

const HAS_WRK = spawnSync('wrk', ['--version']).error === undefined;

function wrk(url: string, headers: Record<string, string>, connections: number, seconds: number): Promise<LoadResult> {
  const script = path.join(os.tmpdir(), `gw-bench-${process.pid}.lua`);
  const lines = ['wrk.method = "POST"', `wrk.body = ${JSON.stringify(chatBody)}`, 'wrk.headers["Content-Type"] = "application/json"'];
  for (const [k, v] of Object.entries(headers)) lines.push(`wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`);
  fs.writeFileSync(script, lines.join('\n'));
  return new Promise((resolve, reject) => {
    const p = spawn('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, url]);
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.on('error', reject);
    p.on('close', () => {
      const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN);
      const p99 = /99%\s+([\d.]+)(us|ms|s)\b/.exec(out);
      const p99Ms = p99 ? Number(p99[1]) * (p99[2] === 'us' ? 0.001 : p99[2] === 's' ? 1000 : 1) : NaN;
      const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
      const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      const errors = non2xx + (sock ? sock.slice(1).reduce((n, x) => n + Number(x), 0) : 0);
      resolve({ requests, rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN), p99Ms, errors });
    });
  });
}

async function load(url: string, headers: Record<string, string>, connections: number, seconds: number): Promise<LoadResult> {
  if (HAS_WRK) return wrk(url, headers, connections, seconds);
  const r = await autocannon({ url, method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: chatBody, connections, duration: seconds });
  return { requests: r.requests.total, rps: r.requests.average, p99Ms: r.latency.p99, errors: r.non2xx + r.errors };
}

/** Sequential requests over one kept-alive connection, timed with sub-millisecond resolution. */
async function latencies(dispatcher: Agent, t: Target, count: number, warmup = 50): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count + warmup; i++) {
    const t0 = performance.now();
    const res = await request(`${t.url}/v1/chat/completions`, { dispatcher, method: 'POST', headers: { 'content-type': 'application/json', ...t.headers }, body: chatBody });
    await res.body.arrayBuffer();
    if (res.statusCode !== 200) throw new Error(`${t.name} answered ${res.statusCode}`);
    if (i >= warmup) out.push(performance.now() - t0);
  }
  return out;
}

interface StreamStats {
  ttfbMs: number;
  events: number;
  gaps: number[];
}

/** One streamed request; times each complete SSE event as it arrives. */
async function stream(dispatcher: Agent, t: Target, plan: StreamPlan): Promise<StreamStats> {
  const t0 = performance.now();
  const res = await request(`${t.url}/v1/chat/completions`, {
    dispatcher,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...t.headers },
    body: JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'hi' }], stream: true, bench: plan }),
  });
  let buf = '';
  let first = NaN;
  let last = NaN;
  let events = 0;
  const gaps: number[] = [];
  for await (const chunk of res.body) {
    const now = performance.now();
    buf += (chunk as Buffer).toString('utf8');
    let i: number;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const ev = buf.slice(0, i);
      buf = buf.slice(i + 2);
      if (!ev.startsWith('data: {"id":"c","object":"chat.completion.chunk","choices":[{')) continue;
      if (Number.isNaN(first)) first = now - t0;
      else gaps.push(now - last);
      last = now;
      events++;
    }
  }
  if (res.statusCode !== 200) throw new Error(`stream answered ${res.statusCode}`);
  return { ttfbMs: first, events, gaps };
}

/** Peak RSS of some processes while `work` runs (sampled every 50 ms). */
async function peakRss<T>(pids: number[], work: () => Promise<T>): Promise<{ result: T; before: number[]; peak: number[] }> {
  const before = pids.map(rssKb);
  const peak = [...before];
  const timer = setInterval(() => pids.forEach((p, i) => (peak[i] = Math.max(peak[i]!, rssKb(p)))), 50);
  try {
    const result = await work();
    pids.forEach((p, i) => (peak[i] = Math.max(peak[i]!, rssKb(p))));
    return { result, before, peak };
  } finally {
    clearInterval(timer);
  }
}

async function main(): Promise<void> {
  const up = await start('upstream');
  const upstreamUrl = `http://127.0.0.1:${up.ready.port}`;
  const gw = await start('gateway', [`--upstream=${upstreamUrl}`]);
  const bare = await start('bare', [`--upstream=${upstreamUrl}`]);
  const gatewayUrl = `http://127.0.0.1:${gw.ready.port}`;
  const keys = gw.ready.keys!;
  const direct: Target = { name: 'direct to upstream', url: upstreamUrl, headers: {} };
  const ceiling: Target = { name: 'bare node:http proxy', url: `http://127.0.0.1:${bare.ready.port}`, headers: {}, pid: bare.proc.pid! };
  const gateway: Target = { name: 'gateway, key without limit', url: gatewayUrl, headers: { authorization: `Bearer ${keys.unlimited}` }, pid: gw.proc.pid! };
  const gatewayCredit: Target = { name: 'gateway, key with a quota', url: gatewayUrl, headers: { authorization: `Bearer ${keys.credit}` }, pid: gw.proc.pid! };
  console.log(`\nMachine: ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} at the start; load generator ${HAS_WRK ? 'wrk' : 'autocannon'}.`);

  // 1. Added latency, sequential, alternating rounds.
  if (runs('latency')) {
    const targets = [direct, ceiling, gateway, gatewayCredit];
    const ms = new Map<Target, number[]>(targets.map((t) => [t, []]));
    const dispatchers = new Map(targets.map((t) => [t, new Agent({ connections: 1 })]));
    for (let round = 0; round < ROUNDS + 1; round++)
      for (const t of targets) {
        const got = await latencies(dispatchers.get(t)!, t, 600);
        if (round > 0) ms.get(t)!.push(...got);
      }
    await Promise.all([...dispatchers.values()].map((d) => d.close()));
    for (const xs of ms.values()) xs.sort((a, b) => a - b);
    const d = ms.get(direct)!;
    console.log(`\n### Gateway: added latency of a non-streamed chat completion (1 KB answer; ${ROUNDS} alternating rounds of 600 sequential requests, one connection each)\n`);
    console.log('| path | p50 ms | p99 ms | added p50 ms | added p99 ms |');
    console.log('| --- | --- | --- | --- | --- |');
    for (const t of targets) {
      const xs = ms.get(t)!;
      console.log(`| ${t.name} | ${fmt(pct(xs, 50), 3)} | ${fmt(pct(xs, 99), 3)} | ${t === direct ? '—' : `+${fmt(pct(xs, 50) - pct(d, 50), 3)}`} | ${t === direct ? '—' : `+${fmt(pct(xs, 99) - pct(d, 99), 3)}`} |`);
    }
  }

  // 2. Server CPU per forwarded request at 50 connections, alternating rounds.
  if (runs('cpu')) {
    const targets = [ceiling, ...(process.env.GATEWAY_BENCH_KEY === 'credit' ? [] : [gateway]), ...(process.env.GATEWAY_BENCH_KEY === 'unlimited' ? [] : [gatewayCredit])];
    const rows = new Map<Target, { cpuUs: number[]; rps: number[]; p99: number[]; errors: number }>(targets.map((t) => [t, { cpuUs: [], rps: [], p99: [], errors: 0 }]));
    for (const t of targets) await load(`${t.url}/v1/chat/completions`, t.headers, 50, 2);
    for (let round = 0; round < ROUNDS; round++)
      for (const t of targets) {
        const before = cpuMs(t.pid!);
        const r = await load(`${t.url}/v1/chat/completions`, t.headers, 50, DURATION);
        const used = cpuMs(t.pid!) - before;
        const row = rows.get(t)!;
        row.cpuUs.push((used * 1000) / r.requests);
        row.rps.push(r.rps);
        row.p99.push(r.p99Ms);
        row.errors += r.errors;
      }
    console.log(`\n### Gateway: server CPU per forwarded request (50 connections, ${ROUNDS} alternating rounds of ${DURATION} s; CPU from /proc/<pid>/stat)\n`);
    console.log('| server | CPU µs/req (median) | CPU µs/req per round | req/s (median) | p99 ms (median) | errors |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const t of targets) {
      const r = rows.get(t)!;
      console.log(`| ${t.name} | ${fmt(median(r.cpuUs), 0)} | ${r.cpuUs.map((x) => fmt(x, 0)).join(', ')} | ${Math.round(median(r.rps))} | ${fmt(median(r.p99), 1)} | ${r.errors} |`);
    }
    const ratio = (t: Target) => rows.get(t)!.cpuUs.map((x, i) => x / rows.get(ceiling)!.cpuUs[i]!);
    if (targets.length === 3) console.log(`\nCPU per request ÷ bare proxy, per round: without limit ${ratio(gateway).map((x) => `×${fmt(x)}`).join(', ')}; with a quota ${ratio(gatewayCredit).map((x) => `×${fmt(x)}`).join(', ')}.`);
  }

  const agent = new Agent({ connections: 4096, pipelining: 1 });

  // 3. Time to the first streamed event (upstream: first event after 100 ms, then 20 × 10 ms).
  if (runs('first')) {
    const targets = [direct, ceiling, gateway];
    const firstPlan = { chunks: 20, gapMs: 10, firstMs: 100 };
    const ttfb = new Map<Target, number[]>(targets.map((t) => [t, []]));
    for (const t of targets) await stream(agent, t, firstPlan);
    for (let i = 0; i < 30; i++) for (const t of targets) ttfb.get(t)!.push((await stream(agent, t, firstPlan)).ttfbMs);
    for (const xs of ttfb.values()) xs.sort((a, b) => a - b);
    const d = ttfb.get(direct)!;
    console.log('\n### Gateway: time to the first streamed event (upstream sends it at 100 ms; 30 streams each, one at a time, alternating)\n');
    console.log('| path | p50 ms | p99 ms | added p50 ms | added p99 ms |');
    console.log('| --- | --- | --- | --- | --- |');
    for (const t of targets) {
      const xs = ttfb.get(t)!;
      console.log(`| ${t.name} | ${fmt(pct(xs, 50))} | ${fmt(pct(xs, 99))} | ${t === direct ? '—' : `+${fmt(pct(xs, 50) - pct(d, 50))}`} | ${t === direct ? '—' : `+${fmt(pct(xs, 99) - pct(d, 99))}`} |`);
    }
  }

  // 4. Concurrent streams.
  if (runs('streams'))
    for (const count of STREAM_COUNTS) {
      // 1,000 streams of 20 ms events would be 50,000 events/s through each process on two cores:
      // the larger runs space their events as 1,000 slow readers of a fast model would see them.
      const plan: StreamPlan = count <= 100 ? { chunks: 200, gapMs: 20, firstMs: 0 } : { chunks: 60, gapMs: 100, firstMs: 0 };
      console.log(`\n### Gateway: ${count.toLocaleString('en-US')} concurrent streams (${plan.chunks} events each, ${plan.gapMs} ms apart)\n`);
      console.log('| path | events delivered | mean gap ms | p99 gap ms | max gap ms | p50 / p99 first event ms | errors | proxy RSS before → peak MiB | per stream KiB | proxy CPU µs/event |');
      console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
      for (const t of [direct, ceiling, gateway]) {
        const pids = t.pid ? [t.pid] : [];
        const cpuBefore = t.pid ? cpuMs(t.pid) : NaN;
        const { result: results, before, peak } = await peakRss(pids, () => Promise.allSettled(Array.from({ length: count }, () => stream(agent, t, plan))));
        const cpuUsed = t.pid ? cpuMs(t.pid) - cpuBefore : NaN;
        const ok = results.filter((r): r is PromiseFulfilledResult<StreamStats> => r.status === 'fulfilled').map((r) => r.value);
        const events = ok.reduce((n, s) => n + s.events, 0);
        const gaps = ok.flatMap((s) => s.gaps).sort((a, b) => a - b);
        const firsts = ok.map((s) => s.ttfbMs).sort((a, b) => a - b);
        const mem = pids.length ? `${fmt(before[0]! / 1024, 0)} → ${fmt(peak[0]! / 1024, 0)}` : '—';
        const perStream = pids.length ? fmt((peak[0]! - before[0]!) / count, 0) : '—';
        const failed = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
        console.log(`| ${t.name} | ${events} / ${count * plan.chunks} | ${fmt(mean(gaps))} | ${fmt(pct(gaps, 99))} | ${fmt(gaps.at(-1) ?? NaN)} | ${fmt(pct(firsts, 50), 0)} / ${fmt(pct(firsts, 99), 0)} | ${failed.length}${failed.length ? ` (${String(failed[0]!.reason).slice(0, 60)})` : ''} | ${mem} | ${perStream} | ${t.pid ? fmt((cpuUsed * 1000) / events, 0) : '—'} |`);
        await sleep(500);
      }
    }
  await agent.close();

  // 5. Two upstreams (AI_UPSTREAM_BASE_URL="primary,backup"), the primary healthy.
  if (runs('pair')) {
    const backup = await start('upstream');
    const gw2 = await start('gateway', [`--upstream=${upstreamUrl},http://127.0.0.1:${backup.ready.port}`]);
    const gateway2: Target = { name: 'gateway, two upstreams', url: `http://127.0.0.1:${gw2.ready.port}`, headers: { authorization: `Bearer ${gw2.ready.keys!.unlimited}` }, pid: gw2.proc.pid! };
    const single: Target = { ...gateway, name: 'gateway, one upstream' };
    const pair = [direct, single, gateway2];
    const ms = new Map<Target, number[]>(pair.map((t) => [t, []]));
    const cpu = new Map<Target, number[]>(pair.map((t) => [t, []]));
    const seq = new Agent({ connections: 1 });
    for (let round = 0; round < ROUNDS; round++)
      for (const t of pair) {
        ms.get(t)!.push(...(await latencies(seq, t, 600)));
        if (!t.pid) continue;
        const before = cpuMs(t.pid);
        const r = await load(`${t.url}/v1/chat/completions`, t.headers, 50, DURATION);
        cpu.get(t)!.push(((cpuMs(t.pid) - before) * 1000) / r.requests);
      }
    await seq.close();
    for (const xs of ms.values()) xs.sort((a, b) => a - b);
    const d = ms.get(direct)!;
    console.log(`\n### Gateway: two upstreams, primary healthy (${ROUNDS} alternating rounds of 600 sequential requests and ${DURATION} s at 50 connections)\n`);
    console.log('| path | p50 ms | p99 ms | added p50 ms | added p99 ms | CPU µs/req (median) |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const t of pair) {
      const xs = ms.get(t)!;
      console.log(`| ${t.name} | ${fmt(pct(xs, 50), 3)} | ${fmt(pct(xs, 99), 3)} | ${t === direct ? '—' : `+${fmt(pct(xs, 50) - pct(d, 50), 3)}`} | ${t === direct ? '—' : `+${fmt(pct(xs, 99) - pct(d, 99), 3)}`} | ${t.pid ? fmt(median(cpu.get(t)!), 0) : '—'} |`);
    }
    await stopAll(gw2, backup);
  }
  // 6. Translation: the same answers through a pass-through call and a translated one (a Responses
  // request to a chat-only upstream, translated both ways), JSON and 20-event streams.
  if (runs('translate')) {
    const gwChat = await start('gateway', [`--upstream=${upstreamUrl}`, '--api=openai']);
    const chatOnly: Target = { name: 'gateway', url: `http://127.0.0.1:${gwChat.ready.port}`, headers: { authorization: `Bearer ${gwChat.ready.keys!.unlimited}` }, pid: gwChat.proc.pid! };
    const streamChat = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const responsesJson = JSON.stringify({ model: 'bench-model', input: 'hi' });
    const responsesStream = JSON.stringify({ model: 'bench-model', input: 'hi', stream: true });
    const messagesJson = JSON.stringify({ model: 'bench-model', max_tokens: 256, messages: [{ role: 'user', content: 'hi' }] });
    const messagesStream = JSON.stringify({ model: 'bench-model', max_tokens: 256, messages: [{ role: 'user', content: 'hi' }], stream: true });
    const geminiBody = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
    const calls = [
      { name: 'bare proxy, chat JSON', t: ceiling, path: '/v1/chat/completions', body: chatBody },
      { name: 'pass-through chat JSON', t: chatOnly, path: '/v1/chat/completions', body: chatBody },
      { name: 'translated Responses → chat JSON', t: chatOnly, path: '/v1/responses', body: responsesJson },
      { name: 'translated Messages → chat JSON', t: chatOnly, path: '/v1/messages', body: messagesJson },
      { name: 'translated Gemini → chat JSON', t: chatOnly, path: '/v1beta/models/bench-model:generateContent', body: geminiBody },
      { name: 'bare proxy, chat stream', t: ceiling, path: '/v1/chat/completions', body: streamChat },
      { name: 'pass-through chat stream', t: chatOnly, path: '/v1/chat/completions', body: streamChat },
      { name: 'translated Responses → chat stream', t: chatOnly, path: '/v1/responses', body: responsesStream },
      { name: 'translated Messages → chat stream', t: chatOnly, path: '/v1/messages', body: messagesStream },
      { name: 'translated Gemini → chat stream', t: chatOnly, path: '/v1beta/models/bench-model:streamGenerateContent?alt=sse', body: geminiBody },
    ];
    const cpu = new Map<string, number[]>(calls.map((c) => [c.name, []]));
    const errors = new Map<string, number>(calls.map((c) => [c.name, 0]));
    const run = (c: (typeof calls)[number], seconds: number) =>
      autocannon({ url: `${c.t.url}${c.path}`, method: 'POST', headers: { 'content-type': 'application/json', ...c.t.headers }, body: c.body, connections: 50, duration: seconds });
    for (const c of calls) await run(c, 1);
    for (let round = 0; round < ROUNDS; round++)
      for (const c of calls) {
        const before = cpuMs(c.t.pid!);
        const r = await run(c, DURATION);
        cpu.get(c.name)!.push(((cpuMs(c.t.pid!) - before) * 1000) / r.requests.total);
        errors.set(c.name, errors.get(c.name)! + r.non2xx + r.errors);
      }
    console.log(`\n### Gateway: pass-through and translated calls (a chat-only upstream; 50 connections, ${ROUNDS} alternating rounds of ${DURATION} s; streams of 20 events)\n`);
    console.log('| call | CPU µs/req (median) | CPU µs/req per round | errors |');
    console.log('| --- | --- | --- | --- |');
    for (const c of calls) console.log(`| ${c.name} | ${fmt(median(cpu.get(c.name)!), 0)} | ${cpu.get(c.name)!.map((x) => fmt(x, 0)).join(', ')} | ${errors.get(c.name)} |`);
    const ratio = (a: string, b: string) => fmt(median(cpu.get(a)!) / median(cpu.get(b)!));
    for (const style of ['Responses', 'Messages', 'Gemini'])
      console.log(`\nTranslated ${style} ÷ pass-through: JSON ×${ratio(`translated ${style} → chat JSON`, 'pass-through chat JSON')}, stream ×${ratio(`translated ${style} → chat stream`, 'pass-through chat stream')}.`);
    await stopAll(gwChat);
  }
  if (runs('versus')) await versus();
  // Opt-in (about 15 minutes under valgrind): only when GATEWAY_BENCH_ONLY names it.
  if (ONLY?.includes('instructions')) await instructions();
  console.log(`\nLoad average at the end: ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')}.\n`);

  await stopAll(gw, bare, up);
}

// ---------------------------------------------------------------- 7. versus Portkey
/** A free local port (Portkey's server takes its port from `--port=`). */
async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

/** Portkey's gateway as its README starts it (`node build/start-server.js`), once it answers. */
async function startPortkey(): Promise<{ proc: ChildProcess; url: string } | undefined> {
  let entry: string;
  try {
    entry = path.join(path.dirname(fileURLToPath(import.meta.resolve('@portkey-ai/gateway/package.json'))), 'build', 'start-server.js');
  } catch {
    return undefined;
  }
  if (!fs.existsSync(entry)) return undefined;
  const port = await freePort();
  const proc = spawn(process.execPath, [entry, `--port=${port}`, '--headless'], { stdio: 'ignore', env: { ...process.env, NODE_ENV: 'production' } });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    await sleep(100);
    const ok = await request(`${url}/`, { method: 'GET' }).then(
      async (r) => (await r.body.arrayBuffer(), true),
      () => false,
    );
    if (ok) return { proc, url };
  }
  proc.kill();
  return undefined;
}

async function versus(): Promise<void> {
  // Streams of 20 events sent at once: what is measured is the proxies' work, not the upstream's pauses.
  const up = await start('upstream', ['--plan=20,0,0']);
  const upstreamUrl = `http://127.0.0.1:${up.ready.port}`;
  const bare = await start('bare', [`--upstream=${upstreamUrl}`]);
  const floor = await start('floor', [`--upstream=${upstreamUrl}`]);
  const gw = await start('gateway', [`--upstream=${upstreamUrl}`, '--api=openai']);
  const portkey = await startPortkey();
  const keys = gw.ready.keys!;
  const gwUrl = `http://127.0.0.1:${gw.ready.port}`;
  const json = chatBody;
  const streamed = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'hi' }], stream: true });
  const responsesJson = JSON.stringify({ model: 'bench-model', input: 'hi' });
  const responsesStream = JSON.stringify({ model: 'bench-model', input: 'hi', stream: true });
  interface Row {
    name: string;
    kind: 'JSON' | 'stream';
    url: string;
    headers: Record<string, string>;
    body: string;
    pid?: number;
  }
  const chat = `/v1/chat/completions`;
  const portkeyHeaders = { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${upstreamUrl}/v1`, authorization: 'Bearer bench-upstream-key' };
  const rows: Row[] = [];
  for (const kind of ['JSON', 'stream'] as const) {
    const body = kind === 'JSON' ? json : streamed;
    rows.push(
      { name: 'direct to upstream', kind, url: `${upstreamUrl}${chat}`, headers: {}, body },
      { name: 'bare node:http proxy', kind, url: `http://127.0.0.1:${bare.ready.port}${chat}`, headers: {}, body, pid: bare.proc.pid! },
      { name: 'floor: bare proxy + key map, JSON parse, usage row', kind, url: `http://127.0.0.1:${floor.ready.port}${chat}`, headers: { authorization: 'Bearer floor-key' }, body, pid: floor.proc.pid! },
      { name: 'gateway pass-through, key without limit', kind, url: `${gwUrl}${chat}`, headers: { authorization: `Bearer ${keys.unlimited}` }, body, pid: gw.proc.pid! },
      { name: 'gateway pass-through, key with a quota', kind, url: `${gwUrl}${chat}`, headers: { authorization: `Bearer ${keys.credit}` }, body, pid: gw.proc.pid! },
      { name: 'gateway translated Responses → chat, key without limit', kind, url: `${gwUrl}/v1/responses`, headers: { authorization: `Bearer ${keys.unlimited}` }, body: kind === 'JSON' ? responsesJson : responsesStream, pid: gw.proc.pid! },
      ...(portkey ? [{ name: 'Portkey gateway 1.15', kind, url: `${portkey.url}${chat}`, headers: portkeyHeaders, body, pid: portkey.proc.pid! }] : []),
    );
  }
  const cpu = new Map<Row, number[]>(rows.map((r) => [r, []]));
  const ms = new Map<Row, number[]>(rows.map((r) => [r, []]));
  const errors = new Map<Row, number>(rows.map((r) => [r, 0]));
  const load1 = (r: Row, seconds: number) => autocannon({ url: r.url, method: 'POST', headers: { 'content-type': 'application/json', ...r.headers }, body: r.body, connections: 50, duration: seconds });
  const seq = new Agent({ connections: 1 });
  const sequential = async (r: Row, count: number): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < count; i++) {
      const t0 = performance.now();
      const res = await request(r.url, { dispatcher: seq, method: 'POST', headers: { 'content-type': 'application/json', ...r.headers }, body: r.body });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) errors.set(r, errors.get(r)! + 1);
      out.push(performance.now() - t0);
    }
    return out;
  };
  for (const r of rows) {
    await load1(r, 1);
    await sequential(r, 50);
  }
  for (let round = 0; round < ROUNDS; round++)
    for (const r of rows) {
      ms.get(r)!.push(...(await sequential(r, 200)));
      if (!r.pid) continue;
      const before = cpuMs(r.pid);
      const res = await load1(r, DURATION);
      cpu.get(r)!.push(((cpuMs(r.pid) - before) * 1000) / res.requests.total);
      errors.set(r, errors.get(r)! + res.non2xx + res.errors);
    }
  await seq.close();
  for (const xs of ms.values()) xs.sort((a, b) => a - b);
  console.log(`\n### Gateway versus a bare proxy and Portkey (one upstream; JSON: a 1 KB completion; stream: 20 events sent at once; ${ROUNDS} alternating rounds of 200 sequential requests and ${DURATION} s at 50 connections)\n`);
  if (!portkey) console.log('(Portkey not measured: `@portkey-ai/gateway` is not installed or did not start.)\n');
  console.log('| call | server | CPU µs/req (median) | per round | ÷ bare proxy | p50 ms | added p50 ms | errors |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) {
    const direct = rows.find((d) => d.kind === r.kind && !d.pid)!;
    const bareRow = rows.find((d) => d.kind === r.kind && d.pid === bare.proc.pid)!;
    const c = cpu.get(r)!;
    const p50 = pct(ms.get(r)!, 50);
    const vsBare = r.pid && r !== bareRow ? `×${fmt(median(c) / median(cpu.get(bareRow)!))}` : '—';
    console.log(`| ${r.kind} | ${r.name} | ${r.pid ? fmt(median(c), 0) : '—'} | ${c.map((x) => fmt(x, 0)).join(', ') || '—'} | ${vsBare} | ${fmt(p50, 3)} | ${r === direct ? '—' : `+${fmt(p50 - pct(ms.get(direct)!, 50), 3)}`} | ${errors.get(r)} |`);
  }
  portkey?.proc.kill();
  await stopAll(gw, floor, bare, up);
}

/**
 * User-space instructions per request of the bare proxy and the gateway, counted by valgrind's
 * callgrind: the same count for the same build whatever else the machine is doing, where CPU
 * time moves by a third between runs here. Kernel time (the socket writes, alike for both) is
 * left out. Every call warms both servers with WARM requests; each is then counted three times
 * over COUNT more, in rotation, and the least count kept.
 */
async function instructions(): Promise<void> {
  if (spawnSync('valgrind', ['--version']).status !== 0) {
    console.log('\nInstructions per request: skipped (valgrind is not installed).');
    return;
  }
  const warm = Number(process.env.GATEWAY_BENCH_CALLGRIND_WARM ?? 4000);
  const counted = Number(process.env.GATEWAY_BENCH_CALLGRIND_COUNT ?? 3000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-callgrind-'));
  const up = await start('upstream', ['--plan=20,0,0']);
  const upstreamUrl = `http://127.0.0.1:${up.ready.port}`;
  const bare = await start('bare', [`--upstream=${upstreamUrl}`], path.join(dir, 'bare'));
  const floor = await start('floor', [`--upstream=${upstreamUrl}`], path.join(dir, 'floor'));
  const gw = await start('gateway', [`--upstream=${upstreamUrl}`, '--api=openai'], path.join(dir, 'gateway'));
  const keys = gw.ready.keys!;
  const calls = (url: string, headers: Record<string, string>, body: string, amount: number) =>
    autocannon({ url: `${url}/v1/chat/completions`, method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, connections: 10, amount, timeout: 120 });
  const bareUrl = `http://127.0.0.1:${bare.ready.port}`;
  const gwUrl = `http://127.0.0.1:${gw.ready.port}`;
  const bodies = { JSON: JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'hi' }] }), stream: JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'hi' }], stream: true }) };
  interface Case {
    kind: 'JSON' | 'stream';
    proc: ChildProcess;
    url: string;
    headers: Record<string, string>;
    body: string;
  }
  const cases = (['JSON', 'stream'] as const).flatMap((kind): Case[] => [
    { kind, proc: bare.proc, url: bareUrl, headers: {}, body: bodies[kind] },
    { kind, proc: floor.proc, url: `http://127.0.0.1:${floor.ready.port}`, headers: { authorization: 'Bearer floor-key' }, body: bodies[kind] },
    { kind, proc: gw.proc, url: gwUrl, headers: { authorization: `Bearer ${keys.unlimited}` }, body: bodies[kind] },
    { kind, proc: gw.proc, url: gwUrl, headers: { authorization: `Bearer ${keys.credit}` }, body: bodies[kind] },
  ]);
  const count = async (c: (typeof cases)[number]): Promise<number> => {
    const pid = String(c.proc.pid);
    spawnSync('callgrind_control', ['--zero', pid]);
    const before = new Set(fs.readdirSync(dir));
    const { requests, non2xx, errors } = await calls(c.url, c.headers, c.body, counted);
    spawnSync('callgrind_control', ['--dump', pid]);
    const dump = fs.readdirSync(dir).find((f) => f.includes(`.${pid}`) && !before.has(f));
    const total = dump ? Number(/^(?:summary|totals): (\d+)/m.exec(fs.readFileSync(path.join(dir, dump), 'utf8'))?.[1]) : NaN;
    if (non2xx || errors || !Number.isFinite(total)) throw new Error(`instructions: ${non2xx} non-2xx answers, ${errors} errors, dump ${dump ?? 'missing'}`);
    return total / requests.total;
  };
  const rows: string[] = [];
  try {
    // Every call warms both servers before any is counted: V8 compiles on other threads, which
    // callgrind counts too, so a count taken while a later call still compiles would carry it.
    for (const c of cases) await calls(c.url, c.headers, c.body, warm);
    const k = (n: number) => `${Math.round(n / 1000).toLocaleString('en-US')}k`;
    // The least of three counts per call, taken in rotation: a collection or a compilation that
    // falls into one window does not count as the call's own work.
    const least = new Map<Case, number>();
    for (let round = 0; round < 3; round++) for (const c of cases) least.set(c, Math.min(least.get(c) ?? Infinity, await count(c)));
    for (const kind of ['JSON', 'stream'] as const) {
      // The table's columns, in the order of `cases`.
      const [ceiling, floorCount, free, quota] = cases.filter((x) => x.kind === kind).map((c) => least.get(c)!) as [number, number, number, number];
      rows.push(`| ${kind} | ${k(ceiling)} | ${k(floorCount)} (×${fmt(floorCount / ceiling)}) | ${k(free)} (×${fmt(free / ceiling)}) | ${k(quota)} (×${fmt(quota / ceiling)}) |`);
    }
  } finally {
    await stopAll(gw, floor, bare, up);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\n### User-space instructions per request (valgrind callgrind; autocannon, 10 connections; ${warm} requests of warm-up per call, then the least of 3 counts of ${counted}; the stream: 20 events sent at once)\n`);
  console.log('| call | bare proxy | floor (see runFloorProxy) | gateway pass-through, key without limit | with a quota |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(r);
}

// The servers run compiled, as `npm start` runs the service (tsx would add its own work to theirs).
execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'scripts/build.mjs'), '--entry', 'gateway-child=bench/gateway-child.ts', '--outdir', CHILD_DIR], { stdio: 'inherit' });
await main();
