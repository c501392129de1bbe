/**
 * `npm run demo`: the service against the project's own recorded fixtures (test/fixtures/upstream),
 * for a first look without access to the upstream sites. A local fixture server stands in for
 * every upstream through SOURCES_UPSTREAM_MIRROR, a tiny stand-in model gateway answers /v1, every
 * endpoint's example is requested once so the cache, /status and /metrics are filled, and a demo
 * gateway key and console token are printed. Ctrl-C stops it.
 *
 * The recordings are of one past day, so the demo's clock runs on that day (the day of the newest
 * recorded 60s digest) and says so: today's 60s is that day's digest. Before serving, every list
 * is fetched at 08:00 and 10:00 of that day (earlier editions of three lists, test/fixtures/demo)
 * and the recorded lists from 12:00 on, so history, timelines and trending have several snapshots.
 *
 * Environment: PORT (default 4399), HOST (default 127.0.0.1); every other setting as usual.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createServiceAsync, type Service } from '../src/service.ts';
import { paramsKey, parseParams } from '../src/kernel/params.ts';
import type { AnySource, ParamSpec, RouteSpec } from '../src/kernel/source.ts';
import { addDays, formatDateTime } from '../src/kernel/time.ts';
import { FIXTURE_DIR, Upstream } from '../test/support/upstream.ts';
import { serveDeclaredLists } from '../test/support/declared-list-fixtures.ts';
import { AiUpstream } from '../test/ops/support.ts';

/**
 * Fixtures whose file name is not the upstream path (their tests serve them by name). Anything
 * else is served from `test/fixtures/upstream/<host><path>` by the fixture server itself.
 */
export function serveNamedFixtures(upstream: Upstream): void {
  const file = (rel: string, type: string) => ({ headers: { 'content-type': type }, body: fs.readFileSync(path.join(FIXTURE_DIR, rel)) });
  const html = 'text/html; charset=utf-8';
  const json = 'application/json; charset=utf-8';
  upstream.serve('top.baidu.com', '/board', (req) => file(req.query.get('tab') === 'teleplay' ? 'top.baidu.com/board-teleplay.html' : 'top.baidu.com/board-realtime.html', html));
  upstream.serve('www.toutiao.com', '/hot-event/hot-board/', () => file('www.toutiao.com/hot-board.json', json));
  upstream.serve('aweme-lq.snssdk.com', '/aweme/v1/hot/search/list/', () => file('aweme-lq.snssdk.com/hot-search-list.json', json));
  // The declared lists' fixtures are written by the project in each upstream's format (demo data, not recordings; see their SOURCE.md).
  serveDeclaredLists(upstream);
}

/** Earlier editions of some lists, by edition (HHMM of the demo day): test/fixtures/demo/<edition>/<host><path>. */
export const DEMO_EDITION_DIR = path.resolve(FIXTURE_DIR, '../demo');
export const EDITIONS = ['0800', '1000'] as const;
/** The microblog list of the evening two days before (test/fixtures/demo/two-days-before), written for the demo. */
const TWO_DAYS_BEFORE = 'two-days-before';
/** The demo clock starts at this time of the demo day (the recorded lists are this edition). */
const CLOCK_START = '12:00';

/** The day of the newest recorded 60s digest: the day the demo's clock runs on. */
export function recordingsDay(): string {
  const days = fs
    .readdirSync(path.join(FIXTURE_DIR, '60s-static.viki.moe/60s'))
    .map((f) => /^(\d{4}-\d{2}-\d{2})\.json$/.exec(f)?.[1])
    .filter((d): d is string => !!d)
    .sort();
  const day = days[days.length - 1];
  if (!day) throw new Error('no recorded 60s digest in test/fixtures/upstream/60s-static.viki.moe/60s');
  return day;
}

/** A clock on the demo day: set to an edition's time while filling, then running from CLOCK_START. */
export class DemoClock {
  private fixed: number | undefined;
  private readonly startedAt = Date.now();
  readonly start: number;
  constructor(readonly day: string) {
    this.start = Date.parse(`${day}T${CLOCK_START}:00+08:00`);
  }
  now = (): number => this.fixed ?? this.start + (Date.now() - this.startedAt);
  /** Stop at a time (HHMM) of the demo day (or `dayOffset` days from it), or run again (undefined). */
  at(time: string | undefined, dayOffset = 0): void {
    this.fixed = time === undefined ? undefined : Date.parse(`${addDays(this.day, dayOffset)}T${time.slice(0, 2)}:${time.slice(2)}:00+08:00`);
  }
}

/** Serve each list of an edition from its file while that edition is current, the recording otherwise. */
function serveEditions(upstream: Upstream, current: () => string | undefined): void {
  const files = [...EDITIONS, TWO_DAYS_BEFORE].flatMap((e) => listFiles(path.join(DEMO_EDITION_DIR, e)));
  for (const rel of new Set(files)) {
    const [host, ...rest] = rel.split('/');
    const upstreamPath = `/${rest.join('/').replace(/\.json$/, '')}`;
    upstream.serve(host as string, upstreamPath, () => {
      const edition = current();
      const file = edition && fs.existsSync(path.join(DEMO_EDITION_DIR, edition, rel)) ? path.join(DEMO_EDITION_DIR, edition, rel) : path.join(FIXTURE_DIR, rel);
      return { headers: { 'content-type': 'application/json; charset=utf-8' }, body: fs.readFileSync(file) };
    });
  }
}

function listFiles(dir: string, prefix = ''): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? listFiles(path.join(dir, d.name), `${prefix}${d.name}/`) : d.name.endsWith('.json') ? [`${prefix}${d.name}`] : []));
}

/**
 * When the lists are fetched before the clock starts: the evening two days before (the microblog
 * list of that evening; the other lists as recorded), the evening before (21:00, with the 08:00
 * edition: the night's lists were still up in the morning), each edition's time, then the
 * recordings at the clock's start. So the time machine has days back to go to.
 */
const FILLS: readonly { dayOffset: number; time: string; edition: string | undefined }[] = [
  { dayOffset: -2, time: '2100', edition: TWO_DAYS_BEFORE },
  { dayOffset: -1, time: '2100', edition: '0800' },
  ...EDITIONS.map((edition) => ({ dayOffset: 0, time: edition, edition })),
  { dayOffset: 0, time: CLOCK_START.replace(':', ''), edition: undefined },
];

/** Fetch every scheduled key once at each fill's time (see FILLS). */
async function fillEditions(service: Service, clock: DemoClock, setEdition: (e: string | undefined) => void): Promise<void> {
  const scheduled = service.registry.sources.flatMap((s) => (s.mode === 'scheduled' ? [s] : []));
  for (const fill of FILLS) {
    setEdition(fill.edition);
    clock.at(fill.time, fill.dayOffset);
    for (const source of scheduled) {
      for (const raw of source.prefetch?.length ? source.prefetch : [{}]) {
        const params = parseParams(source.params, raw as Record<string, string>);
        await service.engine.run(source, params, paramsKey(params)).catch(() => undefined);
      }
    }
  }
  // Yesterday's digest too, so the 60s feed has more than one day.
  const sixty = service.registry.byId.get('60s');
  if (sixty?.mode === 'scheduled') {
    const params = parseParams(sixty.params, { date: addDays(clock.day, -1) });
    await service.engine.run(sixty, params, paramsKey(params)).catch(() => undefined);
  }
  clock.at(undefined);
}

export interface DemoResult {
  path: string;
  status: number;
  cache: string | null;
}

export interface Demo {
  service: Service;
  /** The day the demo's clock runs on (the recordings' day), and the clock. */
  day: string;
  clock: DemoClock;
  base: string;
  adminToken: string;
  demoKey: string;
  results: DemoResult[];
  close(): Promise<void>;
}

/** The request that shows a route: the source's example when it is for this route, else one built from parameter examples. */
export function demoPath(s: AnySource, route: RouteSpec): string {
  const pattern = new RegExp(`^/v2/apis${route.path.replace(/:\w+/g, '[^/?]+')}(\\?|$)`);
  const literal = s.routes.find((r) => !r.path.includes(':') && new RegExp(`^/v2/apis${r.path}(\\?|$)`).test(s.example));
  if (pattern.test(s.example) && (!literal || literal === route)) return s.example;
  const specs = (s.params ?? {}) as Record<string, ParamSpec>;
  const filled = route.path.replace(/:(\w+)/g, (_, name: string) => {
    const spec = specs[name];
    return encodeURIComponent(spec?.example ?? (spec?.default !== undefined ? String(spec.default) : spec?.type === 'string' ? (spec.enum?.[0] ?? name) : name));
  });
  const required = Object.entries(specs)
    .filter(([name, spec]) => spec.required && spec.in !== 'path' && spec.in !== 'client-ip' && !(route.fixed && name in route.fixed))
    .map(([name, spec]) => `${name}=${encodeURIComponent(spec.example ?? 'demo')}`);
  return `/v2/apis${filled}${required.length ? `?${required.join('&')}` : ''}`;
}

/** The line on every page of the demo. */
export const DEMO_NOTICE = '演示数据：榜单来自项目自带的录制样本和为演示编写的早间版本，时钟停在录制那天，并非实时抓取。';

/** Pictures of the demo (test/fixtures/demo/images), served where the data's image links point. */
const DEMO_IMAGES = path.join(DEMO_EDITION_DIR, 'images');

function serveImages(upstream: Upstream): void {
  const svg = (name: string) => ({ headers: { 'content-type': 'image/svg+xml' }, body: fs.readFileSync(path.join(DEMO_IMAGES, name)) });
  upstream.serve('www.bing.com', '/th', () => svg('wallpaper.svg'));
  upstream.serve('cdn.jsdmirror.com', /^\/gh\/vikiboss\/60s-static-host@main\/static\/images\//, () => svg('60s.svg'));
}

/**
 * The demo's translator on the model gateway's chat completions (fanyi's provider): the sentences
 * of the demo's examples, in the JSON fanyi asks for; anything else is answered as untranslated.
 */
const PHRASEBOOK: Readonly<Record<string, Record<string, string>>> = {
  '你好，世界': { en: 'Hello, world', ja: 'こんにちは、世界', ko: '안녕하세요, 세계', fr: 'Bonjour, le monde' },
  '今天的热搜真热闹': { en: "Today's trending searches are lively", ja: '今日のトレンドはにぎやかだ' },
};

function serveTranslator(upstream: Upstream, aiHost: string): void {
  upstream.serve(aiHost, '/v1/chat/completions', (req) => {
    const body = JSON.parse(req.body.toString('utf8') || '{}') as { messages?: { role: string; content: string }[] };
    const text = body.messages?.find((m) => m.role === 'user')?.content ?? '';
    const system = body.messages?.find((m) => m.role === 'system')?.content ?? '';
    // The target is named on the prompt's first line as "into English (en)".
    const target = /into [^\n]*\(([\w-]+)\)\.?$/m.exec(system.split('\n')[0] ?? '')?.[1] ?? 'en';
    const to = target.toLowerCase();
    const translation = PHRASEBOOK[text]?.[to] ?? `[demo translator knows only its example sentences] ${text}`;
    const content = JSON.stringify({ translation, detected: 'zh-CHS' });
    return { body: { id: 'demo-1', object: 'chat.completion', created: 0, model: 'demo-translator', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } } };
  });
}

export async function startDemo(opts: { port?: number; host?: string; env?: Record<string, string | undefined> } = {}): Promise<Demo> {
  const env = opts.env ?? process.env;
  const upstream = await new Upstream().start();
  serveNamedFixtures(upstream);
  serveImages(upstream);
  const clock = new DemoClock(recordingsDay());
  let edition: string | undefined;
  serveEditions(upstream, () => edition);
  const ai = await new AiUpstream().start();
  serveTranslator(upstream, new URL(ai.url).host);
  const adminToken = env.CONSOLE_ADMIN_TOKEN || `demo-${randomBytes(12).toString('hex')}`;
  let service: Service | undefined;
  try {
    service = await createServiceAsync({
      env: {
        LOG_LEVEL: 'error',
        DB_PATH: ':memory:',
        WARMUP_SPREAD_MS: '1000',
        ...env,
        SOURCES_UPSTREAM_MIRROR: upstream.url,
        AI_UPSTREAM_BASE_URL: ai.url,
        AI_UPSTREAM_API_KEY: 'demo-upstream-key',
        CONSOLE_ADMIN_TOKEN: adminToken,
        SITE_NOTICE: env.SITE_NOTICE ?? DEMO_NOTICE,
      },
      now: clock.now,
    });
    await fillEditions(service, clock, (e) => (edition = e));
    const port = await service.listen(opts.port ?? Number(env.PORT ?? 4399), opts.host ?? env.HOST ?? '127.0.0.1');
    const base = `http://127.0.0.1:${port}`;
    const svc = service;

    // Ask every endpoint once (a few at a time), so the demo shows filled data straight away.
    const paths = svc.registry.sources.flatMap((s) => s.routes.map((r) => demoPath(s, r)));
    const results: DemoResult[] = [];
    const queue = [...paths];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let p = queue.shift(); p !== undefined; p = queue.shift()) {
          const res = await fetch(`${base}${p}`, { redirect: 'manual' });
          await res.arrayBuffer();
          results.push({ path: p, status: res.status, cache: res.headers.get('x-cache') });
        }
      }),
    );
    results.sort((a, b) => paths.indexOf(a.path) - paths.indexOf(b.path));
    const { key } = await svc.gateway.keys.create({ name: 'demo', account: 'demo', level: svc.gateway.levels.defaultLevel, levelExplicit: false, quotaMicros: null, models: [], ips: [], expiresAt: null });

    return {
      service: svc,
      day: clock.day,
      clock,
      base,
      adminToken,
      demoKey: key,
      results,
      async close() {
        await svc.close();
        await ai.stop();
        await upstream.stop();
      },
    };
  } catch (err) {
    await service?.close();
    await ai.stop();
    await upstream.stop();
    throw err;
  }
}

/** The demo, or a one-line message and exit 1 when its port is taken. */
async function startOrExplain(): Promise<Demo> {
  try {
    return await startDemo();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    const port = process.env.PORT ?? '4399';
    process.stderr.write(`Port ${port} is already in use: set PORT to a free port, e.g. PORT=${Number(port) + 1} npm run demo\n`);
    process.exit(1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const demo = await startOrExplain();
  const out = process.stdout;
  const ok = demo.results.filter((r) => r.status < 400);
  out.write(`\nDemo running at ${demo.base} (upstreams: the recorded fixtures in test/fixtures/upstream)\n`);
  out.write(`The recordings are of ${demo.day}: the demo's clock runs on that day (now ${formatDateTime(demo.clock.now())} Asia/Shanghai), so "today" is ${demo.day}.\n`);
  out.write(`Lists were fetched at 21:00 two days before and the day before, and at 08:00, 10:00 (earlier editions written for the demo, test/fixtures/demo) and 12:00 (the recordings).\n`);
  out.write(`Every page says it shows demo data (SITE_NOTICE). Pictures and translations come from the demo itself.\n\n`);
  out.write(`  Home      ${demo.base}/   (the board; yesterday evening: ${demo.base}/?at=${addDays(demo.day, -1)}T21:30)\n`);
  for (const r of demo.results) out.write(`  ${r.status}  ${(r.cache ?? '').padEnd(5)}  ${r.path}\n`);
  out.write(`\n${ok.length} of ${demo.results.length} endpoints answered from the fixtures.\n\n`);
  out.write(`  Docs      ${demo.base}/docs\n`);
  out.write(`  Status    ${demo.base}/status\n`);
  out.write(`  Metrics   ${demo.base}/metrics\n`);
  out.write(`  Catalogue ${demo.base}/v2/apis\n`);
  out.write(`  Console   ${demo.base}/console   admin token: ${demo.adminToken}\n`);
  out.write(`  Trending  ${demo.base}/v2/apis/trending?encoding=html\n`);
  out.write(`  Timeline  ${demo.base}/v2/apis/timeline?q=${encodeURIComponent('大飞机')}&encoding=html\n`);
  out.write(`  60s       ${demo.base}/v2/apis/60s   feed: ${demo.base}/v2/apis/60s/rss\n`);
  out.write(`  Gateway   curl -H 'Authorization: Bearer ${demo.demoKey}' ${demo.base}/v1/models   (a stand-in model gateway answers)\n\n`);
  out.write('Press Ctrl-C to stop.\n');
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      demo.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}
