/**
 * The gateway benchmark's server processes (bench/gateway.ts compiles this file with
 * scripts/build.mjs, so the gateway runs what `npm start` runs): `--role=upstream`, a model
 * upstream with fixed answers; `--role=bare`, the bare node:http proxy; `--role=floor`, the bare
 * proxy plus the least any metering gateway does (see runFloorProxy); `--role=gateway`, the
 * real service in front of the upstream. Each reports `{type: 'ready', port}` and exits on
 * `{type: 'stop'}`.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';

export interface Ready {
  type: 'ready';
  port: number;
  keys?: { unlimited: string; credit: string };
}

export interface StreamPlan {
  chunks: number;
  gapMs: number;
  firstMs: number;
}


// ---------------------------------------------------------------- upstream (child process)
/** The stream a request gets when it names no plan (`--plan=chunks,gapMs,firstMs` changes it). */
const DEFAULT_PLAN: StreamPlan = ((arg) => (arg ? { chunks: arg[0]!, gapMs: arg[1]!, firstMs: arg[2]! } : { chunks: 20, gapMs: 10, firstMs: 100 }))(
  process.argv.find((a) => a.startsWith('--plan='))?.slice(7).split(',').map(Number),
);

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
    // The gateway's health probe (AI_UPSTREAM_PROBE_INTERVAL_MS) asks for the model list.
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"object":"list","data":[{"id":"bench-model","object":"model","created":0,"owned_by":"bench"}]}');
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { stream?: boolean; bench?: StreamPlan };
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(completion) });
      res.end(completion);
      return;
    }
    const plan = body.bench ?? DEFAULT_PLAN;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (plan.firstMs > 0) await sleep(plan.firstMs);
    for (let i = 0; i < plan.chunks && !res.destroyed; i++) {
      res.write(`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"tok${i} "},"finish_reason":null}]}\n\n`);
      // A plan without pauses writes its events back to back (each its own write, as a model's server sends them).
      if (plan.gapMs > 0) await sleep(plan.gapMs);
    }
    res.write(`data: {"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":${plan.chunks},"total_tokens":${10 + plan.chunks}}}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  server.keepAliveTimeout = 65_000;
  server.maxConnections = 10_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', 2048, r));
  process.send!({ type: 'ready', port: (server.address() as AddressInfo).port } satisfies Ready);
  process.on('message', (m: { type: string }) => m.type === 'stop' && process.exit(0));
}

// ---------------------------------------------------------------- bare proxy (child process)
/** The ceiling: node:http in, undici out, the request and answer bytes passed through untouched. */
async function runBareProxy(upstreamUrl: string): Promise<void> {
  const pool = new Pool(upstreamUrl, { keepAliveTimeout: 10_000 });
  const server = http.createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const up = await pool.request({ method: 'POST', path: req.url!, headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) });
      const headers: Record<string, string> = { 'content-type': String(up.headers['content-type']) };
      if (up.headers['content-length']) headers['content-length'] = String(up.headers['content-length']);
      res.writeHead(up.statusCode, headers);
      for await (const c of up.body) if (!res.write(c)) await new Promise((r) => res.once('drain', r));
      res.end();
    } catch {
      res.destroy();
    }
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', 2048, r));
  process.send!({ type: 'ready', port: (server.address() as AddressInfo).port } satisfies Ready);
  process.on('message', (m: { type: string }) => m.type === 'stop' && process.exit(0));
}

/**
 * The floor: the bare proxy plus the least a metering gateway does for every call, none of it
 * ours: the key looked up in a map, the request and the answer parsed as JSON (of a stream, the
 * events that mention usage) for the model and the usage, and one usage row per call written to SQLite (WAL,
 * the rows of one turn of the event loop in one transaction). No limits, credit, logging,
 * metrics or translation. What the gateway costs above it is the price of those.
 */
async function runFloorProxy(upstreamUrl: string): Promise<void> {
  const { default: Database } = await import('better-sqlite3');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-floor-'));
  const db = new Database(path.join(dir, 'floor.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE usage (id INTEGER PRIMARY KEY, key TEXT NOT NULL, model TEXT, prompt INTEGER, completion INTEGER, at INTEGER NOT NULL)');
  const insert = db.prepare('INSERT INTO usage (key, model, prompt, completion, at) VALUES (?, ?, ?, ?, ?)');
  let rows: [string, string, number, number, number][] = [];
  const writeAll = db.transaction((batch: typeof rows) => {
    for (const r of batch) insert.run(...r);
  });
  const record = (row: (typeof rows)[number]): void => {
    if (rows.push(row) === 1)
      setImmediate(() => {
        const batch = rows;
        rows = [];
        writeAll(batch);
      });
  };
  const keys = new Map([['Bearer floor-key', 'key-1']]);
  const usageOf = (answer: unknown): [number, number] => {
    const u = (answer as { usage?: { prompt_tokens?: number; completion_tokens?: number } } | null)?.usage;
    return [u?.prompt_tokens ?? 0, u?.completion_tokens ?? 0];
  };
  const pool = new Pool(upstreamUrl, { keepAliveTimeout: 10_000 });
  const server = http.createServer(async (req, res) => {
    try {
      const key = keys.get(req.headers.authorization ?? '');
      if (!key) return void res.writeHead(401).end();
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const raw = Buffer.concat(chunks);
      const model = String((JSON.parse(raw.toString('utf8')) as { model?: unknown }).model);
      const up = await pool.request({ method: 'POST', path: req.url!, headers: { 'content-type': 'application/json' }, body: raw });
      const type = String(up.headers['content-type']);
      let usage: [number, number] = [0, 0];
      if (type.startsWith('text/event-stream')) {
        res.writeHead(up.statusCode, { 'content-type': type });
        let pending = '';
        for await (const c of up.body) {
          pending += (c as Buffer).toString('utf8');
          let end: number;
          while ((end = pending.indexOf('\n\n')) >= 0) {
            const data = pending.slice(pending.indexOf('data: ') + 6, end);
            pending = pending.slice(end + 2);
            if (data.includes('"usage')) {
              const seen = usageOf(JSON.parse(data));
              if (seen[0] || seen[1]) usage = seen;
            }
          }
          if (!res.write(c)) await new Promise((r) => res.once('drain', r));
        }
        res.end();
      } else {
        const answer = Buffer.from(await up.body.arrayBuffer());
        usage = usageOf(JSON.parse(answer.toString('utf8')));
        res.writeHead(up.statusCode, { 'content-type': type, 'content-length': answer.length });
        res.end(answer);
      }
      record([key, model, usage[0], usage[1], Date.now()]);
    } catch {
      res.destroy();
    }
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', 2048, r));
  process.send!({ type: 'ready', port: (server.address() as AddressInfo).port } satisfies Ready);
  process.on('message', (m: { type: string }) => {
    if (m.type !== 'stop') return;
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
}

// ---------------------------------------------------------------- gateway (child process)
async function runGateway(upstreamUrl: string, api: string | undefined): Promise<void> {
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
      // With --api (e.g. "openai": chat only), requests in other styles are translated.
      ...(api ? { AI_UPSTREAMS: JSON.stringify(upstreamUrl.split(',').map((url) => ({ url, api: api.split('+') }))) } : { AI_UPSTREAM_BASE_URL: upstreamUrl }),
      AI_UPSTREAM_API_KEY: 'bench-upstream-key',
      AI_LEVELS: JSON.stringify({ bench: { rpm: big, rpd: big, tpm: big } }),
    },
  });
  const create = (name: string, quotaMicros: number | null) => svc.gateway.keys.create({ name, level: 'bench', levelExplicit: true, quotaMicros, models: [], ips: [], expiresAt: null });
  const unlimited = (await create('bench', null)).key;
  // A quota no run can spend ($1,000,000,000): every request reserves and settles its cost.
  const credit = (await create('bench-credit', 1e15)).key;
  const port = await svc.listen(0, '127.0.0.1');
  process.send!({ type: 'ready', port, keys: { unlimited, credit } } satisfies Ready);
  process.on('message', async (m: { type: string }) => {
    if (m.type === 'stop') {
      await svc.close();
      fs.rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    }
  });
}

const ROLE = process.argv.find((a) => a.startsWith('--role='))?.slice(7);
const upstreamArg = () => process.argv.find((a) => a.startsWith('--upstream='))!.slice(11);
if (ROLE === 'upstream') await runUpstream();
else if (ROLE === 'bare') await runBareProxy(upstreamArg());
else if (ROLE === 'floor') await runFloorProxy(upstreamArg());
else if (ROLE === 'gateway') await runGateway(upstreamArg(), process.argv.find((a) => a.startsWith('--api='))?.slice(6));
