/**
 * `npx tsx bench/archive.ts`: the cost of the snapshot archive (issue 14). Not a test: nothing
 * here asserts speed; the numbers are recorded in BENCHMARKS.md by hand.
 *
 * 1. Real payloads: the service fetches every scheduled source's prefetch keys once from the
 *    project's fixtures (the upstreams' real formats) through the real engine. Lists shorter
 *    than the real upstream's list are grown to its size by copying real items with new titles.
 * 2. 30 simulated days, a fetch every 5 minutes for every key, written through the real store
 *    (`store.archive.record`, the engine's write): hot lists change on every fetch (heat values
 *    drift, neighbours swap, a new entry about every half hour), charts and daily sources at
 *    their own pace (see CHANGES).
 * 3. Storage per source per day and the database size, then `?at=` latency through the real
 *    service on that database (HTTP, sequential, random moments of the 30 days).
 *
 * Environment: BENCH_ARCHIVE_DAYS (default 30), BENCH_AT_REQUESTS (default 2000).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sources } from '../sources/index.ts';
import { contentHash } from '../src/kernel/archive.ts';
import { paramsKey, parseParams } from '../src/kernel/params.ts';
import type { AnyParams, FetchedSource } from '../src/kernel/source.ts';
import { createServiceAsync, type Service } from '../src/service.ts';
import { Upstream, FIXTURE_DIR } from '../test/support/upstream.ts';

const DAYS = Number(process.env.BENCH_ARCHIVE_DAYS ?? 30);
const AT_REQUESTS = Number(process.env.BENCH_AT_REQUESTS ?? 2000);
const FETCH_MS = 5 * 60_000;
const DAY = 86_400_000;

/** Items the real upstream lists (its page or API), where the fixture holds fewer. */
const REAL_SIZE: Record<string, number> = {
  'hot-microblog': 50,
  'hot-short-video-a': 50,
  'hot-search-b': 50,
  'hot-qa-site': 50,
  'hot-video-site': 50,
  'hot-news-feed': 50,
  'hot-lifestyle-a': 20,
  'hot-car': 50,
  'tech-forum': 30,
  'search-a|board=hot': 50,
  'search-a|board=teleplay': 30,
  'search-a|board=forum': 30,
  'boxoffice-a|chart=realtime-movie': 40,
  'boxoffice-a|chart=realtime-tv': 40,
  'boxoffice-a|chart=realtime-web': 40,
  'boxoffice-a|chart=all-movie': 100,
};

/** How often the content really changes: every fetch (live lists), hourly, daily or weekly. */
const CHANGES: Record<string, 'fetch' | 'hour' | 'day' | 'week'> = {
  'music-rank': 'day',
  'review-a': 'week',
  'free-games': 'week',
  'boxoffice-a|chart=all-movie': 'day',
  '60s': 'day',
  'wallpaper-daily': 'day',
  'today-in-history': 'day',
  'exchange-rate': 'hour',
  'fuel-price': 'day',
  'ai-news': 'hour',
  olympics: 'day',
  'gold-price': 'fetch',
};

function serveNamedFixtures(upstream: Upstream): void {
  const file = (rel: string, type: string) => ({ headers: { 'content-type': type }, body: fs.readFileSync(path.join(FIXTURE_DIR, rel)) });
  upstream.serve('top.baidu.com', '/board', (req) => file(req.query.get('tab') === 'teleplay' ? 'top.baidu.com/board-teleplay.html' : 'top.baidu.com/board-realtime.html', 'text/html; charset=utf-8'));
  upstream.serve('www.toutiao.com', '/hot-event/hot-board/', () => file('www.toutiao.com/hot-board.json', 'application/json; charset=utf-8'));
  upstream.serve('aweme-lq.snssdk.com', '/aweme/v1/hot/search/list/', () => file('aweme-lq.snssdk.com/hot-search-list.json', 'application/json; charset=utf-8'));
}

interface Key {
  source: FetchedSource;
  params: AnyParams;
  key: string;
  label: string;
  data: Record<string, unknown>;
  change: 'fetch' | 'hour' | 'day' | 'week';
}

type Item = Record<string, unknown> & { title?: string; rank?: number; hot_value?: number };

let seed = 42;
/** Deterministic pseudo-random numbers, so runs compare. */
function rand(): number {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
}

/** The list of the data: a hot list is a bare array (60s's shape); other lists sit in a container. */
function listOf(data: Record<string, unknown>): Item[] | undefined {
  if (Array.isArray(data)) return data as Item[];
  for (const field of ['list', 'news', 'items']) if (Array.isArray(data[field])) return data[field] as Item[];
  return undefined;
}

let fresh = 0;
/** A new entry: a real item of the list under a new title. */
function newEntry(list: Item[]): Item {
  const base = list[Math.floor(rand() * list.length)] as Item;
  return { ...structuredClone(base), title: `${String(base.title ?? '').slice(0, 12)}·新话题${++fresh}`, ...(typeof base.link === 'string' ? { link: `${base.link}#n${fresh}` } : {}) };
}

function grow(data: Record<string, unknown>, size: number): void {
  const list = listOf(data);
  if (!list?.length) return;
  while (list.length < size) list.push(newEntry(list));
  list.forEach((item, i) => (item.rank = i + 1));
  if (typeof data.total === 'number') data.total = list.length;
}

/**
 * Every large number in the data (heat, prices, counts) drifts by up to ±1%; within one list item
 * (or the whole data when it is no list) a number that appears twice drifts alike, as an item's
 * `hot_value` and its copy `score` do upstream.
 */
function drift(v: unknown, same = new Map<number, number>()): unknown {
  if (typeof v === 'number' && Number.isFinite(v) && v > 1000) {
    let next = same.get(v);
    if (next === undefined) same.set(v, (next = Math.round(v * (0.99 + rand() * 0.02))));
    return next;
  }
  if (Array.isArray(v)) return v.map((x) => drift(x));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k.endsWith('_at') || k === 'rank' ? x : drift(x, same)]));
  return v;
}

/** One real change of a key's content: numbers drift, neighbours swap, live lists gain a new entry now and then. */
function change(k: Key): void {
  k.data = drift(k.data) as Record<string, unknown>;
  const list = listOf(k.data);
  if (!list || list.length < 2) return;
  if (rand() < 0.3) {
    const i = Math.floor(rand() * (list.length - 1));
    [list[i], list[i + 1]] = [list[i + 1] as Item, list[i] as Item];
  }
  if (k.change === 'fetch' && rand() < 1 / 6) {
    list.pop();
    list.splice(Math.floor(rand() * list.length), 0, newEntry(list));
  }
  if (list.some((i) => typeof i.hot_value === 'number')) list.sort((a, b) => (b.hot_value ?? 0) - (a.hot_value ?? 0));
  list.forEach((item, i) => (item.rank = i + 1));
}

function due(k: Key, t: number, start: number): boolean {
  const step = (t - start) / FETCH_MS;
  switch (k.change) {
    case 'fetch':
      return true;
    case 'hour':
      return step % 12 === 0;
    case 'day':
      return step % 288 === 0;
    case 'week':
      return step % (288 * 7) === 0;
  }
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-bench-'));
  const dbPath = path.join(dir, 'app.sqlite');
  const upstream = await new Upstream().start();
  serveNamedFixtures(upstream);
  const env = { DB_PATH: dbPath, SCHEDULER_ENABLED: 'false', LOG_LEVEL: 'silent', HTTP_RETRY: '0', SOURCES_UPSTREAM_MIRROR: upstream.url, APIS_RATE_LIMIT: '0' };
  const end = Date.now();
  const start = end - DAYS * DAY;

  // 1. Real payloads through the real engine.
  // (A database of its own: these fetches happen now, after the simulated days.)
  let svc: Service = await createServiceAsync({ env: { ...env, DB_PATH: ':memory:' } });
  const keys: Key[] = [];
  const skipped: string[] = [];
  for (const s of svc.registry.sources) {
    if (s.mode !== 'scheduled') continue;
    for (const raw of s.prefetch?.length ? s.prefetch : [{}]) {
      const params = parseParams(s.params, raw as Record<string, string>);
      const key = paramsKey(params);
      const label = key ? `${s.id}|${key}` : s.id;
      try {
        const snap = await svc.engine.run(s, params, key);
        const data = JSON.parse(snap.payload as string) as Record<string, unknown>;
        grow(data, REAL_SIZE[label] ?? REAL_SIZE[s.id] ?? 0);
        keys.push({ source: s, params, key, label, data, change: CHANGES[label] ?? CHANGES[s.id] ?? 'fetch' });
      } catch (err) {
        skipped.push(`${label} (${(err as Error).message.slice(0, 80)})`);
      }
    }
  }
  await svc.close();

  // 2. DAYS days of fetches every 5 minutes, through the real store.
  svc = await createServiceAsync({ env });
  const archive = svc.store.archive;
  const writeMs: number[] = [];
  const t0 = performance.now();
  for (let t = start; t < end; t += FETCH_MS) {
    for (const k of keys) {
      if (due(k, t, start)) change(k);
      if ('updated_at' in k.data) {
        k.data.updated_at = t;
        k.data.updated = new Date(t).toISOString();
      }
      const payload = JSON.stringify(k.data);
      const w0 = performance.now();
      await archive.record({ sourceId: k.source.id, paramsKey: k.key, fetchedAt: t, contentHash: contentHash(k.data), payload });
      writeMs.push(performance.now() - w0);
    }
  }
  const simulatedSec = (performance.now() - t0) / 1000;
  svc.db.pragma('wal_checkpoint(TRUNCATE)');

  // 3. Storage per source.
  const perKey = svc.db
    .prepare(
      `SELECT s.source_id, s.params_key, COUNT(*) AS snapshots, SUM(p.stored) AS stored, AVG(p.raw) AS raw FROM archive_snapshots s
       JOIN (SELECT content_hash, length(body) AS stored, bytes AS raw FROM archive_payloads) p ON p.content_hash = s.content_hash
       GROUP BY s.source_id, s.params_key ORDER BY stored DESC`,
    )
    .all() as { source_id: string; params_key: string; snapshots: number; stored: number; raw: number }[];
  const stats = await archive.stats();
  const frames = svc.db.prepare('SELECT COUNT(*) AS keyframes, COALESCE(SUM(length(body)), 0) AS keyframeBytes FROM archive_payloads WHERE base_hash IS NULL').get() as { keyframes: number; keyframeBytes: number };
  const fileBytes = fs.statSync(dbPath).size;
  const tableBytes = (name: string) => (svc.db.prepare("SELECT SUM(pgsize) AS n FROM dbstat WHERE name = ?").get(name) as { n: number | null }).n ?? 0;
  let dbstat: Record<string, number> | undefined;
  try {
    dbstat = Object.fromEntries(['archive_payloads', 'sqlite_autoindex_archive_payloads_1', 'archive_snapshots', 'archive_snapshots_at', 'archive_snapshots_seen'].map((n) => [n, tableBytes(n)]));
  } catch {
    dbstat = undefined; // SQLite built without DBSTAT
  }

  // 4. `?at=` latency through the real service on this database.
  const port = await svc.listen(0, '127.0.0.1');
  const routes = keys.map((k) => {
    const route = k.source.routes.find((r) => !r.forceEncoding && Object.entries(r.fixed ?? {}).every(([n, v]) => String(k.params[n]) === v) && !r.path.includes(':'));
    return route ? `/v2/apis${route.path}` : undefined;
  });
  const targets = routes.filter((r): r is string => !!r);
  const http: number[] = [];
  let failures = 0;
  // A short warm-up (JIT, connections) is not counted.
  for (let i = 0; i < 100; i++) await (await fetch(`http://127.0.0.1:${port}${targets[i % targets.length]}?at=${end - DAY}`)).arrayBuffer();
  for (let i = 0; i < AT_REQUESTS; i++) {
    const route = targets[i % targets.length] as string;
    const at = Math.floor(start + rand() * (end - start - 60_000));
    const h0 = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}${route}?at=${at}`);
    await res.arrayBuffer();
    http.push(performance.now() - h0);
    if (res.status !== 200 || res.headers.get('x-cache') !== 'HISTORY') failures++;
  }
  const store: number[] = [];
  for (let i = 0; i < AT_REQUESTS; i++) {
    const k = keys[i % keys.length] as Key;
    const s0 = performance.now();
    await archive.at(k.source.id, k.key, Math.floor(start + rand() * (end - start)));
    store.push(performance.now() - s0);
  }
  await svc.close();
  await upstream.stop();

  http.sort((a, b) => a - b);
  store.sort((a, b) => a - b);
  writeMs.sort((a, b) => a - b);
  const out: string[] = [];
  out.push(`${keys.length} keys of ${new Set(keys.map((k) => k.source.id)).size} scheduled sources, ${DAYS} days, a fetch every 5 min (${(keys.length * DAYS * 288).toLocaleString('en')} fetches simulated in ${simulatedSec.toFixed(0)} s; write p50 ${pct(writeMs, 50).toFixed(2)} ms, p99 ${pct(writeMs, 99).toFixed(2)} ms)`);
  if (skipped.length) out.push(`skipped (no fixture answer): ${skipped.join('; ')}`);
  out.push('', '| source (key) | items | json size | changes | snapshots/day | stored/day |', '| --- | --- | --- | --- | --- | --- |');
  for (const r of perKey) {
    const k = keys.find((x) => x.source.id === r.source_id && x.key === r.params_key);
    const items = k ? (listOf(k.data)?.length ?? '—') : '—';
    out.push(`| ${r.params_key ? `${r.source_id} (${r.params_key})` : r.source_id} | ${items} | ${kb(r.raw)} | ${k?.change ?? ''} | ${(r.snapshots / DAYS).toFixed(0)} | ${kb(r.stored / DAYS)} |`);
  }
  out.push(
    '',
    `Archive: ${stats.snapshots.toLocaleString('en')} snapshots, ${stats.payloads.toLocaleString('en')} payloads (${frames.keyframes.toLocaleString('en')} whole, ${mb(frames.keyframeBytes)}; ${(stats.payloads - frames.keyframes).toLocaleString('en')} deltas, ${mb(stats.storedBytes - frames.keyframeBytes)}), ${mb(stats.rawBytes)} of JSON stored as ${mb(stats.storedBytes)} (brotli). Database file after ${DAYS} days: ${mb(fileBytes)}.`,
  );
  if (dbstat) out.push(`Pages by table/index: ${Object.entries(dbstat).map(([n, b]) => `${n} ${mb(b)}`).join(', ')}.`);
  out.push(
    '',
    '| `?at=` latency | p50 | p95 | p99 | max |',
    '| --- | --- | --- | --- | --- |',
    `| HTTP, json, ${AT_REQUESTS} sequential requests over ${targets.length} routes (${failures} not HISTORY/200) | ${pct(http, 50).toFixed(2)} ms | ${pct(http, 95).toFixed(2)} ms | ${pct(http, 99).toFixed(2)} ms | ${(http[http.length - 1] ?? 0).toFixed(2)} ms |`,
    `| store.archive.at() alone | ${pct(store, 50).toFixed(2)} ms | ${pct(store, 95).toFixed(2)} ms | ${pct(store, 99).toFixed(2)} ms | ${(store[store.length - 1] ?? 0).toFixed(2)} ms |`,
  );
  console.log(out.join('\n'));
  fs.rmSync(dir, { recursive: true, force: true });
}

await main();
