/**
 * Several upstream model gateways behind the one forwarding path. Each request is tried on the
 * upstreams in order (the first attempt may be spread by weight), at most `attempts` of them:
 * a connection error, a timeout, a 5xx or a 429 goes to the next one. This happens only before
 * anything was sent to the client (the caller gets the response only once it is accepted here),
 * and only while the request body can be sent again (a buffer always; a stream only if no byte of
 * it was read yet). A failing upstream is taken out for a cool-down; then one request probes it
 * (half-open): success brings it back, failure starts another cool-down. When every upstream is
 * out, they are still tried (soonest back first) rather than refusing.
 */
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { withFields } from './body.ts';
import type { CancelSignal } from './cancel.ts';
import { GatewayError, type GatewayFamily } from './errors.ts';
import { modelListAttempt } from './model-list.ts';
import { modelPermitted } from './policy.ts';
import { ClientGone, discardBody, UpstreamClient, type UpstreamResponse } from './upstream.ts';
import type { UpstreamSpec } from './upstream-settings.ts';
import type { ApiStyle } from './translate/types.ts';

export type UpstreamState = 'up' | 'cooling' | 'half-open';

/** One upstream as /v2/status shows it. */
export interface UpstreamStatus {
  name: string;
  host: string;
  state: UpstreamState;
  weight: number;
  models: string[];
  requests: number;
  failures: number;
  consecutive_failures: number;
  /** Moving average of the time to the response headers, ms. */
  latency_ms: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  last_error_at: number | null;
  /** When a cooling upstream may be probed again (epoch ms). */
  back_at: number | null;
  /** The last health probe (epoch ms) and whether it passed; `null` before the first. */
  last_probe_at: number | null;
  last_probe_ok: boolean | null;
}

/** One health probe's result. */
export interface ProbeResult {
  upstream: string;
  ok: boolean;
  /** The HTTP status, or the failure (connect, timeout). */
  detail: string;
  ms: number;
}

/** What the metrics see of each attempt. */
export interface UpstreamAttempt {
  upstream: string;
  /**
   * ok, or the failure kind: connect, timeout, status_5xx, status_429, or stream_cut (a response
   * body that failed after its headers, which were counted ok).
   */
  outcome: 'ok' | 'connect' | 'timeout' | 'status_5xx' | 'status_429' | 'stream_cut';
  ms: number;
}

export interface PoolRequest {
  family: GatewayFamily;
  /** The model, when known before forwarding (routes the request to upstreams serving it). */
  model: string | null;
  method: string;
  path: string;
  /** Headers besides the upstream credential. */
  headers: Record<string, string>;
  body?: Buffer | Readable | undefined;
  signal: CancelSignal;
  /**
   * Only this upstream (its URL), whatever its state: a music task lives on the upstream that
   * created it. Ignored when no configured upstream has this URL any more.
   */
  pinned?: string | undefined;
  /**
   * The request as one upstream is to get it (path, headers, body and the style it is spoken
   * in: translated for an upstream that does not speak the client's style, the model renamed
   * by its aliases); only asked of upstreams that `accepts`. Without it every upstream gets
   * `path`, `headers` and `body` in the family's style.
   */
  prepare?: ((spec: UpstreamSpec) => PreparedAttempt) | undefined;
  /** Whether an upstream can take this request (speaks its style, or it can be translated for it); default: all. */
  accepts?: ((spec: UpstreamSpec) => boolean) | undefined;
}

/** One upstream's version of a request (see PoolRequest.prepare). */
export interface PreparedAttempt {
  style: ApiStyle;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  /** Whatever the caller needs to read this upstream's answer (e.g. the codec that translated it). */
  tag?: unknown;
}

export interface PoolOptions {
  upstreams: readonly UpstreamSpec[];
  firstByteTimeoutMs: number;
  idleTimeoutMs: number;
  attempts: number;
  cooldownMs: number;
  now?: () => number;
  random?: () => number;
  onAttempt?: ((a: UpstreamAttempt) => void) | undefined;
  onFailover?: ((from: string, reason: string) => void) | undefined;
}

const LATENCY_WEIGHT = 0.2;

class Member {
  readonly client: UpstreamClient;
  down = false;
  backAt = 0;
  probing = false;
  requests = 0;
  failures = 0;
  consecutiveFailures = 0;
  latencyMs: number | null = null;
  lastLatencyMs: number | null = null;
  lastError: string | null = null;
  lastErrorAt: number | null = null;
  lastProbeAt: number | null = null;
  lastProbeOk: boolean | null = null;

  constructor(
    readonly spec: UpstreamSpec,
    opts: PoolOptions,
  ) {
    this.client = new UpstreamClient({ baseUrl: spec.url, apiKey: spec.apiKey, firstByteTimeoutMs: opts.firstByteTimeoutMs, idleTimeoutMs: opts.idleTimeoutMs });
  }

  serves(model: string | null): boolean {
    return model === null || modelPermitted(this.spec.models, model);
  }

  /** Up, or cooled down and not already being probed. */
  available(now: number): boolean {
    return !this.down || (now >= this.backAt && !this.probing);
  }

  state(now: number): UpstreamState {
    if (!this.down) return 'up';
    return now >= this.backAt ? 'half-open' : 'cooling';
  }
}

/**
 * A request body that can be offered to several attempts: a buffer as it is; a stream through a
 * fresh wrapper per attempt that starts reading it only when the upstream request pulls, so an
 * attempt that failed before pulling leaves the stream untouched for the next one.
 */
class ReplayableBody {
  private pulled = false;
  constructor(private readonly source: Buffer | Readable | undefined) {}

  get replayable(): boolean {
    return !(this.source instanceof Readable) || !this.pulled;
  }

  forAttempt(): Buffer | Readable | undefined {
    const source = this.source;
    if (!(source instanceof Readable)) return source;
    const mark = (): void => {
      this.pulled = true;
    };
    let attached = false;
    const wrapper: Readable = new Readable({
      read(): void {
        if (!attached) {
          attached = true;
          mark();
          source.on('data', (chunk: Buffer) => {
            if (!wrapper.push(chunk)) source.pause();
          });
          source.once('end', () => wrapper.push(null));
          source.once('error', (err) => wrapper.destroy(err));
        }
        source.resume();
      },
      destroy(err, cb): void {
        if (attached) source.destroy(err ?? undefined);
        cb(err);
      },
    });
    return wrapper;
  }
}

type FailureKind = Exclude<UpstreamAttempt['outcome'], 'ok'>;

function failureKind(err: unknown): FailureKind {
  return err instanceof GatewayError && err.status === 504 ? 'timeout' : 'connect';
}

export class UpstreamPool {
  private readonly members: Member[];
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(private readonly opts: PoolOptions) {
    if (opts.upstreams.length === 0) throw new Error('UpstreamPool needs at least one upstream');
    this.members = opts.upstreams.map((spec) => new Member(spec, opts));
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
  }

  /** The order to try for one request. */
  private order(model: string | null, usable: ((spec: UpstreamSpec) => boolean) | undefined): Member[] {
    // The common case: one upstream for every model, up.
    const only = this.members.length === 1 ? this.members[0]! : undefined;
    if (only && only.spec.models.length === 0 && !only.down && (!usable || usable(only.spec))) return this.members;
    const serving = this.members.filter((m) => m.serves(model));
    if (serving.length === 0)
      throw new GatewayError(404, `No upstream serves the model "${model}". GET /v1/models lists the models this key may use.`, { type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
    const candidates = usable ? serving.filter((m) => usable(m.spec)) : serving;
    if (candidates.length === 0)
      throw new GatewayError(400, `No upstream ${model === null ? '' : `serving the model "${model}" `}can take this request in its API style, and it cannot be translated for them (see each upstream's "api" in AI_UPSTREAMS).`, {
        type: 'invalid_request_error',
        code: 'unsupported_api_style',
        param: model === null ? null : 'model',
      });
    const now = this.now();
    const ready = candidates.filter((m) => m.available(now));
    if (ready.length === 0) return [...candidates].sort((a, b) => a.backAt - b.backAt).slice(0, this.opts.attempts);
    const weighted = ready.filter((m) => m.spec.weight > 0);
    let first = ready[0]!;
    if (weighted.length > 0) {
      let pick = this.random() * weighted.reduce((sum, m) => sum + m.spec.weight, 0);
      first = weighted.find((m) => (pick -= m.spec.weight) < 0) ?? weighted[weighted.length - 1]!;
    }
    return [first, ...ready.filter((m) => m !== first)].slice(0, this.opts.attempts);
  }

  async send(req: PoolRequest): Promise<UpstreamResponse> {
    const pinned = req.pinned === undefined ? undefined : this.members.find((m) => m.spec.url === req.pinned);
    const prepare = req.prepare;
    const order = pinned ? [pinned] : this.order(req.model, req.accepts);
    const body = new ReplayableBody(req.body);
    let lastError: unknown;
    for (let i = 0; i < order.length; i++) {
      const m = order[i]!;
      const more = i < order.length - 1;
      // Prepared first: a request that cannot be prepared (a 400) leaves the upstream's state alone.
      const attempt = prepare?.(m.spec);
      const probe = m.down;
      if (probe) m.probing = true;
      const started = performance.now();
      m.requests++;
      let up: UpstreamResponse;
      try {
        up = attempt
          ? await m.client.send({ method: req.method, path: attempt.path, headers: withFields(m.client.authHeaders(attempt.style), withFields(req.headers, attempt.headers)), body: attempt.body, signal: req.signal })
          : await m.client.send({ method: req.method, path: req.path, headers: withFields(m.client.authHeaders(req.family), req.headers), body: body.forAttempt(), signal: req.signal });
      } catch (err) {
        if (probe) m.probing = false;
        if (err instanceof ClientGone) throw err;
        const kind = failureKind(err);
        this.fail(m, kind, (err as Error).message, performance.now() - started);
        lastError = err;
        if (more && body.replayable) {
          this.opts.onFailover?.(m.spec.name, kind);
          continue;
        }
        throw err;
      }
      const ms = performance.now() - started;
      if (up.status >= 500 || up.status === 429) {
        const kind: FailureKind = up.status === 429 ? 'status_429' : 'status_5xx';
        this.fail(m, kind, `HTTP ${up.status}`, ms);
        if (more && body.replayable) {
          discardBody(up.body);
          this.opts.onFailover?.(m.spec.name, kind);
          continue;
        }
        up.upstream = m.spec.url;
        up.attempt = attempt;
        return up;
      }
      this.succeed(m, ms);
      up.upstream = m.spec.url;
      up.attempt = attempt;
      return up;
    }
    throw lastError;
  }

  private fail(m: Member, outcome: FailureKind, message: string, ms: number, attempt = true): void {
    m.failures++;
    m.consecutiveFailures++;
    m.down = true;
    m.probing = false;
    m.backAt = this.now() + this.opts.cooldownMs;
    m.lastError = `${outcome}: ${message}`.slice(0, 300);
    m.lastErrorAt = this.now();
    if (attempt) this.opts.onAttempt?.({ upstream: m.spec.name, outcome, ms });
  }

  private succeed(m: Member, ms: number, attempt = true): void {
    m.down = false;
    m.probing = false;
    m.consecutiveFailures = 0;
    m.lastLatencyMs = Math.round(ms);
    m.latencyMs = Math.round(m.latencyMs === null ? ms : m.latencyMs + LATENCY_WEIGHT * (ms - m.latencyMs));
    if (attempt) this.opts.onAttempt?.({ upstream: m.spec.name, outcome: 'ok', ms });
  }

  /**
   * Probe every upstream (or the one named) with its style's model list, so a dead upstream is
   * out before a request finds it and a recovered one is back: a 2xx, or a 4xx other than
   * 401/403/429 (it answers, e.g. it has no model list), is alive; a connection error, a timeout,
   * a 5xx, 429, 401 or 403 takes it out for a cool-down.
   */
  async probe(name?: string): Promise<ProbeResult[]> {
    const members = name === undefined ? this.members : this.members.filter((m) => m.spec.name === name);
    return Promise.all(members.map((m) => this.probeOne(m)));
  }

  private async probeOne(m: Member): Promise<ProbeResult> {
    const { style, path, headers } = modelListAttempt(m.spec, 1);
    const started = performance.now();
    const signal = AbortSignal.timeout(Math.min(this.opts.firstByteTimeoutMs, 10_000));
    let detail: string;
    let ok: boolean;
    try {
      const up = await m.client.send({ method: 'GET', path, headers: withFields(m.client.authHeaders(style), withFields(headers, { accept: 'application/json' })), signal });
      discardBody(up.body);
      detail = `HTTP ${up.status}`;
      ok = up.status < 500 && up.status !== 429 && up.status !== 401 && up.status !== 403;
    } catch (err) {
      detail = failureKind(err);
      ok = false;
    }
    const ms = performance.now() - started;
    m.lastProbeAt = this.now();
    m.lastProbeOk = ok;
    if (ok) this.succeed(m, ms, false);
    else this.fail(m, detail.startsWith('HTTP 5') ? 'status_5xx' : detail === 'HTTP 429' ? 'status_429' : detail === 'timeout' ? 'timeout' : 'connect', `probe: ${detail}`, ms, false);
    return { upstream: m.spec.name, ok, detail, ms: Math.round(ms) };
  }

  /**
   * The answer of the upstream at `url` failed after its headers (a stream cut mid-way, a body
   * that stopped): a failure of that upstream, as one before the headers would be.
   */
  bodyFailed(url: string | undefined, message: string): void {
    const m = this.members.find((x) => x.spec.url === url);
    if (m) this.fail(m, 'stream_cut', message, 0);
  }

  names(): string[] {
    return this.members.map((m) => m.spec.name);
  }

  status(): UpstreamStatus[] {
    const now = this.now();
    return this.members.map((m) => ({
      name: m.spec.name,
      host: new URL(m.spec.url).host,
      state: m.state(now),
      weight: m.spec.weight,
      models: m.spec.models,
      requests: m.requests,
      failures: m.failures,
      consecutive_failures: m.consecutiveFailures,
      latency_ms: m.latencyMs,
      last_latency_ms: m.lastLatencyMs,
      last_error: m.lastError,
      last_error_at: m.lastErrorAt,
      back_at: m.down ? m.backAt : null,
      last_probe_at: m.lastProbeAt,
      last_probe_ok: m.lastProbeOk,
    }));
  }

  async close(): Promise<void> {
    await Promise.all(this.members.map((m) => m.client.close()));
  }
}
