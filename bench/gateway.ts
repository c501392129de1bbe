/**
 * Gateway benchmark (not a test; nothing asserts speed): `npx tsx bench/gateway.ts`, also run by
 * `npm run bench`. Three processes: a fixed-timing upstream, the real service (keys, limiter
 * windows and usage rows in SQLite; in PostgreSQL and Redis when DATABASE_URL / REDIS_URL are set
 * for the benchmark, as a multi-instance deployment runs), and this load generator. Each scenario is measured straight
 * against the upstream and through the gateway:
 *   1. added latency of a non-streamed chat completion (p50/p99 of sequential requests; req/s at 50 connections);
 *   2. added time to the first streamed event (upstream sends it after 100 ms);
 *   3. STREAMS (GATEWAY_BENCH_STREAMS, default 1,000) concurrent streams of 200 events 20 ms apart:
 *      events/s, gateway peak RSS, events delivered and their spacing.
 *   4. the added latency of (1) with two upstreams configured (the primary healthy, so the
 *      backup gets nothing), next to one upstream, measured in alternating rounds.
 * Prints markdown tables.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Agent, request } from 'undici';

const DURATION = Number(process.env.GATEWAY_BENCH_DURATION ?? 5);
const STREAMS = Number(process.env.GATEWAY_BENCH_STREAMS ?? 1000);
const ROLE = process.argv.find((a) => a.startsWith('--role='))?.slice(7);

interface Ready {
  type: 'ready';
  port: number;
  key?: string;
  rssKb?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- upstream (child process)
async function runUpstream(): Promise<void> {
  const completion = JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 1735689600,
    model: 'bench-model',
    choices: [{ index: 0, message: { role: 'assistant', content: 'x'.repeat(800) }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 200, total_tokens: 210 },
  });
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { stream?: boolean; bench?: { chunks: number; gapMs: number; firstMs: number } };
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(completion) });
      res.end(completion);
      return;
    }
    const plan = body.bench ?? { chunks: 20, gapMs: 10, firstMs: 100 };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    await sleep(plan.firstMs);
    for (let i = 0; i < plan.chunks && !res.destroyed; i++) {
      res.write(`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"tok${i} "},"finish_reason":null}]}\n\n`);
      await sleep(plan.gapMs);
    }
    res.write(`data: {"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":${plan.chunks},"total_tokens":${10 + plan.chunks}}}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  process.send!({ type: 'ready', port: (server.address() as AddressInfo).port } satisfies Ready);
  process.on('message', (m: { type: string }) => m.type === 'stop' && process.exit(0));
}

// ---------------------------------------------------------------- gateway (child process)
async function runGateway(upstreamUrl: string): Promise<void> {
  const { createServiceAsync } = await import('../src/service.ts');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-'));
  const big = 1_000_000_000;
  const shared = Object.fromEntries((['DATABASE_URL', 'REDIS_URL'] as const).flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])));
  const svc = await createServiceAsync({
    sources: [],
    env: {
      ...shared,
      DB_PATH: path.join(dir, 'app.sqlite'),
      SCHEDULER_ENABLED: 'false',
      LOG_LEVEL: 'silent',
      AI_UPSTREAM_BASE_URL: upstreamUrl,
      AI_UPSTREAM_API_KEY: 'bench-upstream-key',
      AI_LEVELS: JSON.stringify({ bench: { rpm: big, rpd: big, tpm: big } }),
    },
  });
  const { key } = await svc.gateway.keys.create({ name: 'bench', level: 'bench', levelExplicit: true, quotaMicros: null, models: [], ips: [], expiresAt: null });
  const port = await svc.listen(0, '127.0.0.1');
  process.send!({ type: 'ready', port, key, rssKb: Math.round(process.memoryUsage().rss / 1024) } satisfies Ready);
  process.on('message', async (m: { type: string }) => {
    if (m.type === 'rss') process.send!({ type: 'rss', maxRssKb: process.resourceUsage().maxRSS });
    if (m.type === 'cpu') {
      const u = process.cpuUsage();
      process.send!({ type: 'cpu', micros: u.user + u.system });
    }
    if (m.type === 'stop') {
      await svc.close();
      fs.rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    }
  });
}

// ---------------------------------------------------------------- load generator
function start(role: string, args: string[] = []): Promise<{ proc: ChildProcess; ready: Ready }> {
  const proc = fork(import.meta.filename, [`--role=${role}`, ...args], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    proc.once('error', reject);
    proc.on('message', (m: Ready) => m.type === 'ready' && resolve({ proc, ready: m }));
  });
}

function ask<T>(proc: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { type: string }) => {
      if (m.type === type) {
        proc.off('message', on);
        resolve(m as T);
      }
    };
    proc.on('message', on);
    proc.send({ type });
  });
}

function pct(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

interface StreamStats {
  ttfbMs: number;
  events: number;
  gaps: number[];
}

/** One streamed request; times each complete SSE event as it arrives. */
async function stream(dispatcher: Agent, url: string, headers: Record<string, string>, plan: { chunks: number; gapMs: number; firstMs: number }): Promise<StreamStats> {
  const t0 = performance.now();
  const res = await request(url, {
    dispatcher,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
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

/** Sequential requests over one kept-alive connection, timed with sub-millisecond resolution. */
async function latencies(dispatcher: Agent, url: string, headers: Record<string, string>, count: number): Promise<number[]> {
  const body = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'hi' }] });
  const out: number[] = [];
  for (let i = 0; i < count + 200; i++) {
    const t0 = performance.now();
    const res = await request(url, { dispatcher, method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    await res.body.arrayBuffer();
    if (res.statusCode !== 200) throw new Error(`answered ${res.statusCode}`);
    if (i >= 200) out.push(performance.now() - t0);
  }
  return out.sort((a, b) => a - b);
}

async function nonStreamed(url: string, headers: Record<string, string>, connections: number): Promise<autocannon.Result> {
  const opts = { url, method: 'POST' as const, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'hi' }] }), connections };
  await autocannon({ ...opts, duration: 1 });
  return autocannon({ ...opts, duration: DURATION });
}

async function main(): Promise<void> {
  const up = await start('upstream');
  const upstreamUrl = `http://127.0.0.1:${up.ready.port}`;
  const gw = await start('gateway', [`--upstream=${upstreamUrl}`]);
  const gatewayUrl = `http://127.0.0.1:${gw.ready.port}`;
  const auth = { authorization: `Bearer ${gw.ready.key!}` };
  const targets = [
    { name: 'direct to upstream', url: upstreamUrl, headers: {} },
    { name: 'through the gateway', url: gatewayUrl, headers: auth },
  ];

  // 1. Non-streamed latency (sequential) and throughput (50 connections).
  const one = new Agent({ connections: 1 });
  const lat: { name: string; ms: number[]; many: autocannon.Result }[] = [];
  let cpuPerRequestUs = NaN;
  for (const t of targets) {
    const ms = await latencies(one, `${t.url}/v1/chat/completions`, t.headers, 3000);
    const before = (await ask<{ micros: number }>(gw.proc, 'cpu')).micros;
    const many = await nonStreamed(`${t.url}/v1/chat/completions`, t.headers, 50);
    if (t.url === gatewayUrl) cpuPerRequestUs = ((await ask<{ micros: number }>(gw.proc, 'cpu')).micros - before) / (many.requests.total + many.requests.average);
    lat.push({ name: t.name, ms, many });
  }
  await one.close();
  console.log(`\n### Gateway: non-streamed chat completion (1 KB answer; 3000 sequential requests, then 50 connections for ${DURATION} s)\n`);
  console.log('| path | p50 ms | p99 ms | req/s (50 conns) | p99 ms (50 conns) | errors |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const l of lat) console.log(`| ${l.name} | ${fmt(pct(l.ms, 50))} | ${fmt(pct(l.ms, 99))} | ${Math.round(l.many.requests.average)} | ${fmt(l.many.latency.p99, 0)} | ${l.many.non2xx + l.many.errors} |`);
  console.log(`\nAdded by the gateway (sequential): p50 +${fmt(pct(lat[1]!.ms, 50) - pct(lat[0]!.ms, 50))} ms, p99 +${fmt(pct(lat[1]!.ms, 99) - pct(lat[0]!.ms, 99))} ms. Gateway CPU per request (user+system, from the 50-connection run including its warm-up): ${fmt(cpuPerRequestUs / 1000, 3)} ms; machine: ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)}.`);

  // 2. Time to the first streamed event (upstream: first event after 100 ms, then 20 × 10 ms).
  const agent = new Agent({ connections: Math.max(256, STREAMS + 16), pipelining: 1 });
  const firstPlan = { chunks: 20, gapMs: 10, firstMs: 100 };
  const ttfb: Record<string, number[]> = {};
  for (const t of targets) {
    ttfb[t.name] = [];
    await stream(agent, `${t.url}/v1/chat/completions`, t.headers, firstPlan);
    for (let i = 0; i < 30; i++) ttfb[t.name]!.push((await stream(agent, `${t.url}/v1/chat/completions`, t.headers, firstPlan)).ttfbMs);
    ttfb[t.name]!.sort((a, b) => a - b);
  }
  const [d, g] = [ttfb[targets[0]!.name]!, ttfb[targets[1]!.name]!];
  console.log('\n### Gateway: time to the first streamed event (upstream sends it at 100 ms; 30 streams, one at a time)\n');
  console.log('| path | p50 ms | p99 ms |');
  console.log('| --- | --- | --- |');
  console.log(`| direct to upstream | ${fmt(pct(d, 50))} | ${fmt(pct(d, 99))} |`);
  console.log(`| through the gateway | ${fmt(pct(g, 50))} | ${fmt(pct(g, 99))} |`);
  console.log(`\nAdded to the first token: p50 +${fmt(pct(g, 50) - pct(d, 50))} ms, p99 +${fmt(pct(g, 99) - pct(d, 99))} ms.`);

  // 3. STREAMS concurrent streams of 200 events, 20 ms apart.
  const plan = { chunks: 200, gapMs: 20, firstMs: 0 };
  console.log(`\n### Gateway: ${STREAMS} concurrent streams (200 events each, 20 ms apart)\n`);
  console.log('| path | events/s | events delivered | mean gap ms | p99 gap ms | max gap ms | p99 first event ms | errors |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const t of targets) {
    const t0 = performance.now();
    const results = await Promise.allSettled(Array.from({ length: STREAMS }, () => stream(agent, `${t.url}/v1/chat/completions`, t.headers, plan)));
    const secs = (performance.now() - t0) / 1000;
    const ok = results.filter((r): r is PromiseFulfilledResult<StreamStats> => r.status === 'fulfilled').map((r) => r.value);
    const events = ok.reduce((n, s) => n + s.events, 0);
    const gaps = ok.flatMap((s) => s.gaps).sort((a, b) => a - b);
    const firsts = ok.map((s) => s.ttfbMs).sort((a, b) => a - b);
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    console.log(`| ${t.name} | ${Math.round(events / secs)} | ${events} / ${STREAMS * plan.chunks} | ${fmt(mean)} | ${fmt(pct(gaps, 99))} | ${fmt(gaps.at(-1) ?? NaN)} | ${fmt(pct(firsts, 99))} | ${results.length - ok.length} |`);
  }
  const { maxRssKb } = await ask<{ maxRssKb: number }>(gw.proc, 'rss');
  console.log(`\nGateway process RSS after start: ${((gw.ready.rssKb ?? NaN) / 1024).toFixed(0)} MiB; peak over the whole run: ${(maxRssKb / 1024).toFixed(0)} MiB.\n`);

  await agent.close();

  // 4. Two upstreams (AI_UPSTREAM_BASE_URL="primary,backup"), the primary healthy.
  const backup = await start('upstream');
  const gw2 = await start('gateway', [`--upstream=${upstreamUrl},http://127.0.0.1:${backup.ready.port}`]);
  const pair = [
    { name: 'direct to upstream', url: upstreamUrl, headers: {} as Record<string, string>, ms: [] as number[], rps: [] as number[] },
    { name: 'gateway, one upstream', url: gatewayUrl, headers: auth, ms: [] as number[], rps: [] as number[] },
    { name: 'gateway, two upstreams', url: `http://127.0.0.1:${gw2.ready.port}`, headers: { authorization: `Bearer ${gw2.ready.key!}` }, ms: [] as number[], rps: [] as number[] },
  ];
  const seq = new Agent({ connections: 1 });
  for (let round = 0; round < 4; round++)
    for (const t of pair) {
      t.ms.push(...(await latencies(seq, `${t.url}/v1/chat/completions`, t.headers, 800)));
      t.rps.push((await nonStreamed(`${t.url}/v1/chat/completions`, t.headers, 50)).requests.average);
    }
  await seq.close();
  console.log(`\n### Gateway: two upstreams, primary healthy (4 alternating rounds of 800 sequential requests and ${DURATION} s at 50 connections)\n`);
  console.log('| path | p50 ms | p99 ms | added p50 ms | added p99 ms | req/s (50 conns, mean of rounds) |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const t of pair) t.ms.sort((a, b) => a - b);
  const [direct, single, double] = pair as [(typeof pair)[0], (typeof pair)[0], (typeof pair)[0]];
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  for (const t of pair)
    console.log(`| ${t.name} | ${fmt(pct(t.ms, 50))} | ${fmt(pct(t.ms, 99))} | ${t === direct ? '—' : `+${fmt(pct(t.ms, 50) - pct(direct.ms, 50))}`} | ${t === direct ? '—' : `+${fmt(pct(t.ms, 99) - pct(direct.ms, 99))}`} | ${Math.round(mean(t.rps))} |`);
  const added = (t: typeof direct, p: number) => pct(t.ms, p) - pct(direct.ms, p);
  console.log(`\nTwo upstreams ÷ one upstream, same run: added p50 ×${fmt(added(double, 50) / added(single, 50))}, added p99 ×${fmt(added(double, 99) / added(single, 99))}, req/s ×${fmt(mean(double.rps) / mean(single.rps))}.\n`);

  for (const p of [gw, gw2, up, backup]) p.proc.send({ type: 'stop' });
  await Promise.all([gw, gw2, up, backup].map((p) => new Promise((r) => p.proc.once('exit', r))));
}

if (ROLE === 'upstream') await runUpstream();
else if (ROLE === 'gateway') await runGateway(process.argv.find((a) => a.startsWith('--upstream='))!.slice(11));
else await main();
