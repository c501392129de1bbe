/**
 * GET /status: every source at a glance for a person (HTML, readable on a phone): fresh, stale
 * or failing, the age of its data, the last error, the next run, a bar chart of recent fetch
 * outcomes and latencies (store.recentRuns), and the gateway's request and error counts.
 * The machine-readable twin is GET /v2/status.
 */
import { Router } from '@koa/router';
import { escapeHtml } from '../encoding/escape.ts';
import type { UpstreamStatus } from '../gateway/upstream-pool.ts';
import type { Backfiller } from '../kernel/backfill.ts';
import type { Registry } from '../kernel/registry.ts';
import type { Scheduler } from '../kernel/scheduler.ts';
import type { RunRecord, Store } from '../kernel/store.ts';
import { formatDateTime } from '../kernel/time.ts';
import { SERVICE_NAME } from '../http/apis-router.ts';
import { htmlPage } from './shell.ts';
import { sourceStatuses, statusOutageNote, type SourceStatus } from '../http/meta-router.ts';
import { StoreUnavailableError } from '../kernel/errors.ts';
import type { GatewayCounts, Metrics } from '../http/metrics.ts';
import type { AppState } from '../http/middleware.ts';
import { upstreamsFor, type OperatorCheck, type PublicUpstream } from '../http/operator-view.ts';

const RUNS_SHOWN = 30;

const STATE_LABEL: Record<SourceStatus['state'], string> = {
  fresh: 'fresh',
  stale: 'stale',
  failing: 'failing',
  down: 'down',
  idle: 'no data yet',
  local: 'local',
};

const STATE_ORDER: SourceStatus['state'][] = ['down', 'failing', 'stale', 'idle', 'fresh', 'local'];

/** `42 s`, `5 min`, `3 h 10 min`, `2 d` */
export function formatAge(sec: number): string {
  const s = Math.max(0, Math.round(sec));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) {
    const m = Math.floor((s % 3600) / 60);
    return `${Math.floor(s / 3600)} h${m ? ` ${m} min` : ''}`;
  }
  return `${Math.floor(s / 86_400)} d`;
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Bars of recent runs, oldest on the left: height = latency (log scale), colour = outcome. */
export function sparkline(runs: readonly RunRecord[]): string {
  if (!runs.length) return '<p class="muted">No fetch recorded yet.</p>';
  const ordered = [...runs].reverse();
  const w = 8;
  const gap = 2;
  const h = 36;
  const maxLog = Math.max(...ordered.map((r) => Math.log10(Math.max(r.ms, 1) + 1)));
  const bars = ordered
    .map((r, i) => {
      const bh = Math.max(3, Math.round((Math.log10(Math.max(r.ms, 1) + 1) / (maxLog || 1)) * h));
      const label = `${formatDateTime(r.startedAt)} · ${r.outcome} · ${formatMs(r.ms)}${r.error ? ` · ${r.error}` : ''}`;
      return `<rect class="run-${r.outcome}" x="${i * (w + gap)}" y="${h - bh}" width="${w}" height="${bh}" rx="1"><title>${escapeHtml(label)}</title></rect>`;
    })
    .join('');
  const failed = runs.filter((r) => r.outcome === 'failed').length;
  const sorted = runs.map((r) => r.ms).sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const width = ordered.length * (w + gap) - gap;
  return `<svg class="spark" role="img" aria-label="${runs.length} recent fetches, ${failed} failed" viewBox="0 0 ${width} ${h}" width="${width}" height="${h}" preserveAspectRatio="xMinYMax meet">${bars}</svg>
<p class="muted runs">${runs.length} recent fetch${runs.length === 1 ? '' : 'es'} · ${runs.length - failed} ok · ${failed} failed · median ${formatMs(median)}</p>`;
}

function card(s: SourceStatus, example: string, runs: readonly RunRecord[]): string {
  const rows: [string, string][] = [];
  if (s.state !== 'local' || s.last_success_at) {
    rows.push(['Data age', s.age_sec !== null ? `${formatAge(s.age_sec)} <span class="muted">(${escapeHtml(s.last_success ?? '')})</span>` : '—']);
    rows.push(['Next run', s.next_run ? escapeHtml(s.next_run) : s.next_attempt_at ? `retry ${escapeHtml(formatDateTime(s.next_attempt_at))}` : s.mode === 'on-demand' ? 'on request' : '—']);
    if (s.fail_count) rows.push(['Failures', String(s.fail_count)]);
    if (s.backfill) {
      const gaps = s.backfill.gaps.map((g) => `${g.date} (retry ${g.next_attempt.slice(11, 16)})`);
      rows.push(['Past days', `${s.backfill.stored}/${s.backfill.wanted} stored${s.backfill.running ? ' · filling' : ''}${gaps.length ? ` · <span class="error">gaps: ${escapeHtml(gaps.join(', '))}</span>` : ''}`]);
    }
  } else {
    rows.push(['Data', 'computed on request']);
  }
  return `<article class="card state-${s.state}" id="source-${escapeHtml(s.id)}" data-state="${s.state}">
<header><h2>${escapeHtml(s.name)}</h2><span class="badge">${escapeHtml(STATE_LABEL[s.state])}</span></header>
<p class="muted id"><a href="${escapeHtml(example)}">${escapeHtml(s.id)}</a> · ${escapeHtml(s.mode)}${s.keys > 1 ? ` · ${s.keys} keys` : ''}</p>
<dl>${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>
${s.last_error ? `<p class="error">${escapeHtml(s.last_error)}</p>` : ''}
${s.mode !== 'local' || runs.length ? sparkline(runs) : ''}
</article>`;
}

/** Local sources without fetch runs have nothing to watch: they are listed compactly. */
function compact(s: { status: SourceStatus; runs: readonly RunRecord[] }): boolean {
  return s.status.state === 'local' && s.runs.length === 0;
}

export interface StatusPageInput {
  now: number;
  startedAt: number;
  schedulerRunning: boolean;
  sources: { status: SourceStatus; example: string; runs: RunRecord[] }[];
  gateway: GatewayCounts | undefined;
  /** The full rows for an operator; names and states only for the public (see operator-view.ts). */
  upstreams?: UpstreamStatus[] | PublicUpstream[];
  /** Shown above everything: the data store is unreachable and the states are the last read. */
  note?: string;
}

const UPSTREAM_LABEL: Record<UpstreamStatus['state'], string> = { up: 'up', cooling: 'taken out', 'half-open': 'probing' };

/** The gateway's upstreams: state, latency, requests and the last error (names and states for the public). */
function upstreamTable(upstreams: readonly UpstreamStatus[] | readonly PublicUpstream[], now: number): string {
  if (!upstreams.length) return '';
  if (!isDetailed(upstreams)) {
    const rows = upstreams.map((u) => `<tr class="upstream-${u.state}" data-upstream="${escapeHtml(u.name)}" data-state="${u.state}"><td>${escapeHtml(u.name)}</td><td><span class="badge">${UPSTREAM_LABEL[u.state]}</span></td></tr>`).join('');
    return `<section class="panel" id="upstreams"><h2>AI upstreams (in failover order)</h2><table><thead><tr><th>Upstream</th><th>State</th></tr></thead><tbody>${rows}</tbody></table></section>`;
  }
  const rows = upstreams
    .map((u) => {
      const back = u.state === 'cooling' && u.back_at ? ` <span class="muted">(probed in ${formatAge((u.back_at - now) / 1000)})</span>` : '';
      const error = u.last_error ? `${escapeHtml(u.last_error)}${u.last_error_at ? ` <span class="muted">${escapeHtml(formatDateTime(u.last_error_at))}</span>` : ''}` : '—';
      const probe = u.last_probe_at === null ? '—' : `${u.last_probe_ok ? 'passed' : 'failed'} <span class="muted">${escapeHtml(formatDateTime(u.last_probe_at))}</span>`;
      return `<tr class="upstream-${u.state}" data-upstream="${escapeHtml(u.name)}" data-state="${u.state}"><td>${escapeHtml(u.name)}</td><td><span class="badge">${UPSTREAM_LABEL[u.state]}</span>${back}</td><td>${u.latency_ms === null ? '—' : formatMs(u.latency_ms)}</td><td>${u.requests}</td><td>${u.failures}</td><td data-probe="${u.last_probe_ok === null ? 'none' : u.last_probe_ok ? 'passed' : 'failed'}">${probe}</td><td class="error">${error}</td></tr>`;
    })
    .join('');
  return `<section class="panel" id="upstreams"><h2>AI upstreams (in failover order)</h2><table><thead><tr><th>Upstream</th><th>State</th><th>Latency</th><th>Requests</th><th>Failures</th><th>Last probe</th><th>Last error</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

function isDetailed(upstreams: readonly UpstreamStatus[] | readonly PublicUpstream[]): upstreams is readonly UpstreamStatus[] {
  return upstreams.every((u) => 'host' in u);
}

export function renderStatusPage(input: StatusPageInput): string {
  const counts = new Map<SourceStatus['state'], number>();
  for (const s of input.sources) counts.set(s.status.state, (counts.get(s.status.state) ?? 0) + 1);
  const ordered = [...input.sources].sort((a, b) => STATE_ORDER.indexOf(a.status.state) - STATE_ORDER.indexOf(b.status.state));
  const chips = STATE_ORDER.filter((k) => counts.get(k))
    .map((k) => `<span class="chip chip-${k}"><i></i><b>${counts.get(k)}</b> ${escapeHtml(STATE_LABEL[k])}</span>`)
    .join('');
  const locals = ordered.filter(compact);
  const gw = input.gateway;
  const errorRate = gw && gw.requests ? `${((gw.errors / gw.requests) * 100).toFixed(1)} %` : '—';
  const content = `<h1>${SERVICE_NAME} status</h1>
<p class="muted">Updated ${escapeHtml(formatDateTime(input.now))} (Asia/Shanghai) · up ${formatAge((input.now - input.startedAt) / 1000)} · scheduler ${input.schedulerRunning ? 'running' : 'disabled'} · refreshes every minute</p>
${input.note ? `<p class="error" id="store-note">${escapeHtml(input.note)}</p>` : ''}
<div class="summary">${chips}</div>
<section class="panel" id="gateway">
<h2>AI gateway (since start)</h2>
${
  gw
    ? `<span class="stat"><b id="gateway-requests">${gw.requests}</b>requests</span><span class="stat"><b id="gateway-errors">${gw.errors}</b>errors (4xx/5xx)</span><span class="stat"><b>${errorRate}</b>error rate</span>`
    : '<span class="muted">Metrics are off (METRICS_ENABLED=false).</span>'
}
</section>
${upstreamTable(input.upstreams ?? [], input.now)}
<section class="grid">
${ordered
  .filter((s) => !compact(s))
  .map((s) => card(s.status, s.example, s.runs))
  .join('\n')}
</section>
${
  locals.length
    ? `<section class="panel locals" id="local-sources"><h2>Computed locally (${locals.length}): always available</h2>${locals
        .map((s) => `<a class="local" id="source-${escapeHtml(s.status.id)}" data-state="local" href="${escapeHtml(s.example)}" title="${escapeHtml(s.status.id)}">${escapeHtml(s.status.name)}</a>`)
        .join('')}</section>`
    : ''
}
`;
  const footer = 'JSON: <a href="/v2/status">/v2/status</a> · Metrics: <a href="/metrics">/metrics</a> · Docs: <a href="/docs">/docs</a> · Catalogue: <a href="/v2/apis">/v2/apis</a>';
  return htmlPage(`Status · ${SERVICE_NAME}`, content, footer, { kind: 'status', lang: 'en', head: '<meta http-equiv="refresh" content="60">' });
}

export function createStatusPageRouter(deps: {
  registry: Registry;
  store: Store;
  scheduler?: Scheduler | undefined;
  backfill?: Backfiller | undefined;
  now: () => number;
  startedAt: number;
  metrics?: Metrics | undefined;
  upstreams?: (() => UpstreamStatus[]) | undefined;
  operator: OperatorCheck;
}): Router<AppState> {
  const router = new Router<AppState>();
  let last: StatusPageInput['sources'] | undefined;
  router.get('/status', async (ctx) => {
    const now = deps.now();
    let sources: StatusPageInput['sources'];
    let note: string | undefined;
    try {
      const statuses = await sourceStatuses({ registry: deps.registry, store: deps.store, scheduler: deps.scheduler, backfill: deps.backfill, now });
      last = sources = await Promise.all(
        statuses.map(async (status) => {
          const source = deps.registry.byId.get(status.id);
          return { status, example: source?.example ?? '/v2/apis', runs: await deps.store.recentRuns(status.id, RUNS_SHOWN) };
        }),
      );
    } catch (err) {
      // The store is unreachable: the page as this instance last read it, saying so.
      if (!(err instanceof StoreUnavailableError) || !last) throw err;
      sources = last;
      note = statusOutageNote(err);
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = renderStatusPage({ now, startedAt: deps.startedAt, schedulerRunning: !!deps.scheduler, sources, gateway: await deps.metrics?.gatewayCounts(), upstreams: upstreamsFor(ctx, deps.operator, deps.upstreams?.()), ...(note ? { note } : {}) });
  });
  return router;
}
