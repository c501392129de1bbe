/**
 * `npx tsx bench/trending.ts`: what trending costs. (1) The merge (features, clustering, ranking)
 * on each real moment of ../shared/fixtures/hotlists-archive and on all its lists at once (33
 * lists, about as many items as 40 hot lists give), and on one moment with 18 coverage lists (the
 * other moments' lists joining its events): the time to recompute after a list changes.
 * (2) Building word rarity from 30,000 stored titles (done once per 6 hours of moments). (3) The
 * CPU of one request while the lists are unchanged (the merge reused), through the real service
 * on the project's own fixture lists (general and coverage): `engine.compute` alone, and a whole
 * HTTP GET with the client in the same process. Prints markdown; the numbers go to BENCHMARKS.md
 * by hand. Not a test.
 */
import { readMoments } from '../scripts/trending-eval/moments.ts';
import { serveNamedFixtures } from '../scripts/demo.ts';
import { FeatureFrequencies, mergeEvents, type PlatformList } from '../sources/_shared/trending.ts';
import { paramsKey, parseParams } from '../src/kernel/params.ts';
import type { FetchedSource } from '../src/kernel/source.ts';
import { startService } from '../test/support/service.ts';
import { Upstream } from '../test/support/upstream.ts';

const RUNS = Number(process.env.BENCH_TRENDING_RUNS ?? 15);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** Median CPU milliseconds of f (user + system of this process: less disturbed than wall time on a shared machine). */
function time(f: () => unknown, runs = RUNS): number {
  f();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.cpuUsage();
    f();
    const d = process.cpuUsage(t);
    ms.push((d.user + d.system) / 1000);
  }
  return median(ms);
}

const moments = readMoments();
if (!moments) console.log('(skipping the merge on real lists: ../shared/fixtures/hotlists-archive is absent)\n');
else {
  const allTitles = moments.flatMap((m) => m.lists.flatMap((l) => l.items.map((i) => i.title)));
  const frequencies = FeatureFrequencies.of(allTitles);
  console.log('| merge (recompute after a list change) | lists | items | median CPU ms |\n| --- | --- | --- | --- |');
  for (const m of moments) {
    const items = m.lists.reduce((a, l) => a + l.items.length, 0);
    console.log(`| ${m.date} | ${m.lists.length} | ${items} | ${time(() => mergeEvents(m.lists, { frequencies })).toFixed(1)} |`);
  }
  // Every title new to the features kept from earlier merges (a tail of its own, shared by no other title): the worst case of a list change.
  let run = 0;
  const fresh = moments.find((m) => m.date === '2025-09-03') ?? moments[0]!;
  const freshItems = fresh.lists.reduce((a, l) => a + l.items.length, 0);
  const freshMs = time(() => {
    run++;
    mergeEvents(
      fresh.lists.map((l) => ({ ...l, items: l.items.map((i) => ({ ...i, title: `${i.title}r${run}${l.sourceId}${i.rank}` })) })),
      { frequencies },
    );
  });
  console.log(`| ${fresh.date}, every title new | ${fresh.lists.length} | ${freshItems} | ${freshMs.toFixed(1)} |`);
  // Coverage lists join the events after the clustering: 18 of them (as many as are marked), real titles of the other moments.
  const coverage: PlatformList[] = moments
    .filter((m) => m !== fresh)
    .flatMap((m) => m.lists.map((l) => ({ ...l, sourceId: `${m.date}/${l.sourceId}`, role: 'coverage' as const })))
    .slice(0, 18);
  const coverageItems = coverage.reduce((a, l) => a + l.items.length, 0);
  const withCoverage = [...fresh.lists, ...coverage];
  console.log(`| ${fresh.date} and ${coverage.length} coverage lists (other moments' titles) | ${withCoverage.length} | ${freshItems} + ${coverageItems} | ${time(() => mergeEvents(withCoverage, { frequencies })).toFixed(1)} |`);
  const all: PlatformList[] = moments.flatMap((m) => m.lists.map((l) => ({ ...l, sourceId: `${m.date}/${l.sourceId}` })));
  const allItems = all.reduce((a, l) => a + l.items.length, 0);
  console.log(`| all seven moments at once | ${all.length} | ${allItems} | ${time(() => mergeEvents(all, { frequencies }), 5).toFixed(1)} |`);

  // 30,000 distinct titles: the archive's, each in 15 variants (a distinct tail), as many as MAX_TITLES.
  const variants = Array.from({ length: Math.ceil(30_000 / allTitles.length) }, (_, v) => allTitles.map((t) => `${t}${v}`)).flat().slice(0, 30_000);
  console.log(`\n| word rarity from stored titles | titles | median CPU ms |\n| --- | --- | --- |\n| FeatureFrequencies.of | ${variants.length} | ${time(() => FeatureFrequencies.of(variants), 3).toFixed(0)} |`);
}

const upstream = new Upstream();
await upstream.start();
serveNamedFixtures(upstream);
const svc = await startService({ upstream });
try {
  for (const source of svc.registry.sources) {
    if (source.mode !== 'scheduled' || !source.trending) continue;
    const params = parseParams(source.params, source.trending.params ?? {});
    await svc.engine.run(source as FetchedSource, params, paramsKey(params)).catch(() => undefined);
  }
  const trending = svc.registry.byId.get('trending')!;
  if (trending.mode !== 'local') throw new Error('trending is a local source');
  const params = parseParams(trending.params, {});
  const first = performance.now();
  await svc.engine.compute(trending, params, { clientIp: '127.0.0.1' });
  const firstMs = performance.now() - first;
  const N = 2000;
  let cpu = process.cpuUsage();
  for (let i = 0; i < N; i++) await svc.engine.compute(trending, params, { clientIp: '127.0.0.1' });
  cpu = process.cpuUsage(cpu);
  const computeUs = (cpu.user + cpu.system) / N;
  cpu = process.cpuUsage();
  const M = 500;
  for (let i = 0; i < M; i++) await (await svc.get('/v2/apis/trending')).arrayBuffer();
  cpu = process.cpuUsage(cpu);
  const getUs = (cpu.user + cpu.system) / M;
  console.log(
    `\n| trending request, lists unchanged (project fixture lists) | value |\n| --- | --- |\n| first request (word rarity from the item index, then the merge) | ${firstMs.toFixed(1)} ms |\n| CPU per \`engine.compute\` (merge reused) | ${computeUs.toFixed(0)} µs |\n| CPU per \`GET /v2/apis/trending\` (json, 30 events; client in the same process) | ${getUs.toFixed(0)} µs |`,
  );
} finally {
  await svc.close();
  await upstream.stop();
}
