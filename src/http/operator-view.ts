/**
 * Who sees operator detail: per-key figures on /metrics, the AI upstreams' addresses, counters
 * and errors on /v2/status and /status. An operator is a loopback client (the client address
 * follows TRUST_PROXY), or a request with `Authorization: Bearer <METRICS_TOKEN or
 * CONSOLE_ADMIN_TOKEN>`. (The console's session cookie is scoped to /console, so it is not one.)
 * Everyone else gets the public view: upstream names and states only, and /metrics without the
 * operator series.
 */
import type { UpstreamState, UpstreamStatus } from '../gateway/upstream-pool.ts';
import { classifyAddress } from '../kernel/net-address.ts';
import { sameSecret } from '../web/console.ts';
import { clientIp, type AppContext } from './middleware.ts';

export type OperatorCheck = (ctx: AppContext) => boolean;

export function operatorCheck(opts: { metricsToken?: string | undefined; consoleToken?: string | undefined }): OperatorCheck {
  const tokens = [opts.metricsToken, opts.consoleToken].filter((t): t is string => !!t);
  return (ctx) => {
    if (classifyAddress(clientIp(ctx))?.range === 'loopback') return true;
    const bearer = /^Bearer (\S+)$/.exec(ctx.get('authorization'))?.[1];
    return !!bearer && tokens.some((t) => sameSecret(bearer, t));
  };
}

/** An upstream as the public sees it. */
export interface PublicUpstream {
  name: string;
  state: UpstreamState;
}

/**
 * Names and states only. An upstream without a configured name is named after its host:port,
 * which is internal: the public sees its place in the failover order instead.
 */
export function publicUpstreams(list: readonly UpstreamStatus[]): PublicUpstream[] {
  return list.map((u, i) => ({ name: u.name === u.host || u.name.startsWith(`${u.host}#`) ? `upstream-${i + 1}` : u.name, state: u.state }));
}

/** The upstreams as this request may see them. */
export function upstreamsFor(ctx: AppContext, operator: OperatorCheck, list: readonly UpstreamStatus[] = []): UpstreamStatus[] | PublicUpstream[] {
  return operator(ctx) ? [...list] : publicUpstreams(list);
}

/** Metric families that name our key ids or the upstreams' names (by default their host:port). */
const OPERATOR_METRICS = /^(?:# (?:HELP|TYPE) )?(?:gateway_key_|gateway_upstream_)/;

/** The Prometheus text without the operator families. */
export function publicMetricsText(text: string): string {
  return text
    .split('\n')
    .filter((line) => !OPERATOR_METRICS.test(line))
    .join('\n');
}
