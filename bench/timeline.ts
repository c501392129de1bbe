/**
 * `npx tsx bench/timeline.ts`: the item index at realistic size, filled through the real code
 * (SqliteItemIndex.record, the plan of item-index.ts) as the engine would: 30 lists of 50 items
 * fetched every 5 minutes for 30 simulated days (BENCH_TIMELINE_DAYS), with items drifting in
 * rank, new ones entering and old ones falling off; seven chart-like lists change only hourly.
 * Then the latency of the timeline query, directly and through the HTTP route of the real
 * service on the filled database. Prints markdown; the numbers go to BENCHMARKS.md by hand.
 * Not a test: nothing here asserts speed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/kernel/db.ts';
import { SqliteItemIndex } from '../src/kernel/sqlite-item-index.ts';
import type { ListItem } from '../src/kernel/list-items.ts';
import { createServiceAsync } from '../src/service.ts';

const DAYS = Number(process.env.BENCH_TIMELINE_DAYS ?? 30);
const LISTS = 30;
const SIZE = 50;
const STEP = 5 * 60_000;
const QUIET = new Set([0, 1, 2, 3, 4, 5, 6]);
/** Chance per fetch that a new item enters a moving list (about 144 newcomers a day). */
const ENTRY_RATE = 0.5;

/** mulberry32: a small seeded PRNG, so every run fills the same data. */
let seed = 42;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
};
const CJK = Array.from({ length: 2500 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20_000)));
const TOPICS = Array.from({ length: 200 }, () => Array.from({ length: 2 + Math.floor(rand() * 3) }, () => CJK[Math.floor(rand() * CJK.length)]).join(''));
let serial = 0;
const newTitle = () => `${TOPICS[Math.floor(rand() * TOPICS.length)]}${Array.from({ length: 5 + Math.floor(rand() * 9) }, () => CJK[Math.floor(rand() * CJK.length)]).join('')}${++serial % 10}`;

interface Live {
  title: string;
  score: number;
}

/** Every score drifts and decays about 1 % a fetch; a newcomer enters somewhere in the upper half. */
function step(list: Live[]): void {
  for (const i of list) i.score *= 0.97 + rand() * 0.04;
  if (rand() < ENTRY_RATE) list.push({ title: newTitle(), score: (list[0]?.score ?? 1) * (0.4 + rand() * 0.8) });
  list.sort((a, b) => b.score - a.score);
  list.length = Math.min(list.length, SIZE);
}

const items = (list: Live[]): ListItem[] => list.map((x, i) => ({ rank: i + 1, title: x.title, link: `https://example.com/${encodeURIComponent(x.title)}`, hot: Math.round(x.score * 1e6) }));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function timed(n: number, fn: () => Promise<unknown>): Promise<{ p50: number; p99: number; mean: number }> {
  for (let i = 0; i < 5; i++) await fn();
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p99: percentile(ms, 99), mean: ms.reduce((a, b) => a + b, 0) / n };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-timeline-'));
const file = path.join(dir, 'app.sqlite');
const db = openDatabase(file);
const index = new SqliteItemIndex(db);
const ids = Array.from({ length: LISTS }, (_, i) => `bench-list-${String(i + 1).padStart(2, '0')}`);
const lists = ids.map(() => Array.from({ length: SIZE }, () => ({ title: newTitle(), score: rand() })));
const end = Date.parse('2026-11-21T04:00:00Z');
const start = end - DAYS * 86_400_000;
let records = 0;
let written = 0;
let recordMs = 0;
const fillStarted = performance.now();
for (let t = start; t <= end; t += STEP) {
  for (let l = 0; l < LISTS; l++) {
    const quiet = QUIET.has(l);
    const changed = !quiet || (t - start) % 3_600_000 === 0;
    if (changed) step(lists[l]!);
    const r0 = performance.now();
    const r = await index.record({ sourceId: ids[l]!, paramsKey: '', fetchedAt: t, changed, items: items(lists[l]!) });
    recordMs += performance.now() - r0;
    records++;
    if (r.written) written++;
  }
}
const fillSec = (performance.now() - fillStarted) / 1000;
db.pragma('wal_checkpoint(TRUNCATE)');
const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
const itemsN = count('SELECT count(*) AS n FROM items');
const samplesN = count('SELECT count(*) AS n FROM item_samples');
const bytes = fs.statSync(file).size;
const dbstat = db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name IN ('items', 'items_by_key', 'items_by_last_seen', 'item_samples', 'item_lists') GROUP BY name").all() as { name: string; bytes: number }[];

// Queries: a topic word (hundreds of matching items, capped at 50), a rare substring (one item).
const popular = TOPICS[0]!;
const rare = lists[10]![3]!.title.slice(2, 8);
const now = end;
const DAY = 86_400_000;
const direct = [
  ['topic word, 7 days', { q: popular, since: now - 7 * DAY }],
  ['topic word, 30 days', { q: popular, since: now - 30 * DAY }],
  ['topic word, one list, 30 days', { q: popular, sourceId: ids[12]!, since: now - 30 * DAY }],
  ['rare text, 7 days', { q: rare, since: now - 7 * DAY }],
] as const;
const directRows: string[] = [];
for (const [label, q] of direct) {
  const found = await index.search(q);
  const s = await timed(200, () => index.search(q));
  directRows.push(`| ${label} | ${found.length} | ${found.reduce((a, i) => a + i.samples.length, 0)} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} |`);
}
db.close();

const svc = await createServiceAsync({ env: { DB_PATH: file, SCHEDULER_ENABLED: 'false', LOG_LEVEL: 'silent', APIS_RATE_LIMIT: '0' }, now: () => now });
const port = await svc.listen(0, '127.0.0.1');
const base = `http://127.0.0.1:${port}/v2/apis/timeline`;
const routes = [
  ['json, topic word, 7 days', `?q=${encodeURIComponent(popular)}`],
  ['json, topic word, 30 days', `?q=${encodeURIComponent(popular)}&days=30`],
  ['html (SVG charts), topic word, 30 days', `?q=${encodeURIComponent(popular)}&days=30&encoding=html`],
  ['json, rare text, 7 days', `?q=${encodeURIComponent(rare)}`],
] as const;
const routeRows: string[] = [];
for (const [label, query] of routes) {
  const res = await fetch(base + query);
  const size = (await res.arrayBuffer()).byteLength;
  if (res.status !== 200) throw new Error(`${label}: HTTP ${res.status}`);
  const s = await timed(200, async () => (await fetch(base + query)).arrayBuffer());
  routeRows.push(`| ${label} | ${(size / 1024).toFixed(0)} KB | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} |`);
}
await svc.close();
fs.rmSync(dir, { recursive: true, force: true });

const perListDay = (n: number) => (n / LISTS / DAYS).toFixed(0);
console.log(`## Item index: ${LISTS} lists × ${SIZE} items, a fetch every 5 min, ${DAYS} days (SQLite)\n`);
console.log(`| | value |\n| --- | --- |`);
console.log(`| recordings (list commits) | ${records} (${written} written, the rest unchanged within the hour) |`);
console.log(`| record(), mean | ${(recordMs / records).toFixed(3)} ms (fill ${fillSec.toFixed(0)} s) |`);
console.log(`| items | ${itemsN} (${perListDay(itemsN)} per list per day) |`);
console.log(`| rank samples | ${samplesN} (${perListDay(samplesN)} per list per day) |`);
console.log(`| database file | ${(bytes / 1024 / 1024).toFixed(1)} MB (${((bytes / LISTS / DAYS) / 1024).toFixed(0)} KB per list per day) |`);
for (const d of dbstat) console.log(`| of which ${d.name} | ${(d.bytes / 1024 / 1024).toFixed(1)} MB |`);
console.log(`\n### ItemIndex.search (200 runs)\n\n| query | items | samples | p50 ms | p99 ms |\n| --- | --- | --- | --- | --- |\n${directRows.join('\n')}`);
console.log(`\n### GET /v2/apis/timeline through the service (200 sequential requests)\n\n| request | body | p50 ms | p99 ms |\n| --- | --- | --- | --- |\n${routeRows.join('\n')}`);
