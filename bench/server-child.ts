/**
 * A server for the benchmark, run in its own process so its CPU and memory are measured apart
 * from the load generator. `service`: the real service with a cached hot list (filled once
 * from the project's fixtures through the mirror). `bare`: node:http answering fixed bytes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createService } from '../src/service.ts';
import { Upstream } from '../test/support/upstream.ts';

type Msg = { type: 'body'; body: string; headers: Record<string, string> } | { type: 'stop' } | { type: 'cpu' };

const mode = process.argv[2];
const send = (m: unknown) => process.send?.(m);

// CPU time used so far (µs, user + system): the parent divides the difference over a round by
// the requests served, a per-request cost that machine load disturbs less than req/s.
process.on('message', (m: Msg) => {
  if (m.type !== 'cpu') return;
  const { user, system } = process.cpuUsage();
  send({ type: 'cpu', us: user + system });
});

if (mode === 'service') {
  const upstream = await new Upstream().start();
  const svc = createService({ env: { DB_PATH: ':memory:', SCHEDULER_ENABLED: 'false', LOG_LEVEL: 'silent', SOURCES_UPSTREAM_MIRROR: upstream.url, SOURCE_HOT_MICROBLOG_COOKIE: 'bench', APIS_RATE_LIMIT: '0' } });
  const port = await svc.listen(0, '127.0.0.1');
  const warm = await fetch(`http://127.0.0.1:${port}/v2/apis/hot-microblog`);
  if (warm.status !== 200) throw new Error(`warm-up failed: ${warm.status}`);
  await warm.arrayBuffer();
  send({ type: 'ready', port });
  process.on('message', async (m: Msg) => {
    if (m.type !== 'stop') return;
    send({ type: 'stats', maxRssKb: process.resourceUsage().maxRSS });
    await svc.close();
    await upstream.stop();
    process.exit(0);
  });
} else {
  let body = '';
  let headers: Record<string, string> = {};
  const server = http.createServer((_req, res) => {
    res.writeHead(200, headers).end(body);
  });
  process.on('message', (m: Msg) => {
    if (m.type === 'body') {
      body = m.body;
      headers = m.headers;
      server.listen(0, '127.0.0.1', () => send({ type: 'ready', port: (server.address() as AddressInfo).port }));
    } else if (m.type === 'stop') {
      send({ type: 'stats', maxRssKb: process.resourceUsage().maxRSS });
      server.close(() => process.exit(0));
    }
  });
}
