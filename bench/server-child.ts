/**
 * A server for the benchmark, run in its own process so its CPU and memory are measured apart
 * from the load generator (bench/run.ts compiles this file with scripts/build.mjs, so it runs
 * what production runs). `service`: the real service, its cached data filled once from the
 * project's fixtures through the mirror (the microblog hot list; the 60s digest of today and of
 * the ten days before, so the feed has its history). `bare`: node:http answering fixed bytes and
 * headers, switched by a message to those of each route measured.
 */
import http from 'node:http';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/kernel/project-root.ts';
import { parseParams } from '../src/kernel/params.ts';
import { createService } from '../src/service.ts';
import { Upstream } from '../test/support/upstream.ts';
import { recentDates } from './dates.ts';

type Msg = { type: 'body'; base64: string; headers: Record<string, string> } | { type: 'stop' };

const mode = process.argv[2];
const send = (m: unknown) => process.send?.(m);
const FIXTURES = path.join(PROJECT_ROOT, 'test/fixtures/upstream');

if (mode === 'service') {
  const upstream = await new Upstream(FIXTURES).start();
  // The 60s static host publishes every day: the recorded digest under each date asked.
  const day = JSON.parse(fs.readFileSync(path.join(FIXTURES, '60s-static.viki.moe/60s/2026-11-20.json'), 'utf8')) as Record<string, unknown>;
  upstream.serve('60s-static.viki.moe', /^\/60s\/\d{4}-\d{2}-\d{2}\.json$/, (req) => {
    const date = /(\d{4}-\d{2}-\d{2})/.exec(req.path)![1]!;
    return { body: { ...day, date, news: Array.from({ length: 15 }, (_, i) => `${date} 要闻 ${i + 1}：${'新闻内容'.repeat(8)}`), tip: `${date} 的微语` } };
  });
  const svc = createService({ env: { DB_PATH: ':memory:', SCHEDULER_ENABLED: 'false', LOG_LEVEL: 'silent', SOURCES_UPSTREAM_MIRROR: upstream.url, SOURCE_HOT_MICROBLOG_COOKIE: 'bench', APIS_RATE_LIMIT: '0' } });
  const port = await svc.listen(0, '127.0.0.1');
  const warm = async (p: string) => {
    const r = await fetch(`http://127.0.0.1:${port}${p}`);
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`warm-up of ${p} failed: ${r.status}`);
  };
  await warm('/v2/apis/hot-microblog');
  // Every other list the fixtures have, for the home page (lists without a recording stay empty).
  for (const source of svc.registry.sources) {
    if (source.mode !== 'scheduled' || !source.view.rows || source.id === '60s') continue;
    for (const raw of source.prefetch?.length ? source.prefetch : [{}]) await svc.engine.run(source, parseParams(source.params, raw as Record<string, string>)).catch(() => undefined);
  }
  await warm('/v2/apis/60s');
  for (const date of recentDates(11).slice(1)) await warm(`/v2/apis/60s?date=${date}`);
  send({ type: 'ready', port, pid: process.pid });
  process.on('message', async (m: Msg) => {
    if (m.type !== 'stop') return;
    await svc.close();
    await upstream.stop();
    process.exit(0);
  });
} else if (mode === 'bare') {
  let body = Buffer.alloc(0);
  let headers: Record<string, string> = {};
  const server = http.createServer((_req, res) => {
    res.writeHead(200, headers).end(body);
  });
  server.listen(0, '127.0.0.1', () => send({ type: 'ready', port: (server.address() as AddressInfo).port, pid: process.pid }));
  process.on('message', (m: Msg) => {
    if (m.type === 'body') {
      body = Buffer.from(m.base64, 'base64');
      headers = m.headers;
      send({ type: 'body-set' });
    } else if (m.type === 'stop') {
      server.close(() => process.exit(0));
      server.closeAllConnections();
    }
  });
}
