/**
 * Requests on the gateway's paths, taken ahead of Koa: the request id and access log, the
 * metrics, and the gateway's answer on its own light exchange (see gateway/exchange.ts). The
 * gateway answers every failure itself, in the style of its route; what escapes it (a bug) is
 * logged and answered 500 here, never left hanging.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gateway } from '../gateway/index.ts';
import { GatewayExchange, splitTarget } from '../gateway/exchange.ts';
import type { Logger } from '../kernel/log.ts';
import type { FastPath } from './apis-fast-path.ts';
import { gatewayRouteLabel, type Metrics } from './metrics.ts';
import { logRequest, startRequest } from './middleware.ts';

export interface GatewayEntryDeps {
  gateway: Pick<Gateway, 'owns' | 'handle'>;
  log: Logger;
  metrics?: Metrics | undefined;
  /** The caller's address as the service sees it (see Koa's `proxy`). */
  ipOf(req: IncomingMessage, res: ServerResponse): string;
}

const INTERNAL_ERROR = JSON.stringify({ error: { message: 'Internal server error. The failure was logged; please try again later.', type: 'server_error', code: 'internal_error' } });

export function gatewayEntry(deps: GatewayEntryDeps): FastPath {
  const { gateway, log, metrics } = deps;

  async function serve(x: GatewayExchange): Promise<void> {
    const started = startRequest(x, log);
    x.set('x-request-id', x.state.rid);
    try {
      await gateway.handle(x);
      x.finish();
    } catch (err) {
      x.state.log.error({ err: { message: (err as Error).message, stack: (err as Error).stack } }, 'gateway request failed');
      if (x.res.headersSent) x.res.destroy();
      else x.res.writeHead(500, x.outgoingHeaders({ 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(INTERNAL_ERROR) })).end(INTERNAL_ERROR);
    }
    if (metrics) {
      const route = gatewayRouteLabel(x.path);
      if (x.res.writableEnded || x.res.destroyed) metrics.count(x, route, started);
      else x.res.once('close', () => metrics.count(x, route, started));
    }
    logRequest(x, log, started);
  }

  return (req, res) => {
    const target = splitTarget(req.url ?? '/');
    return gateway.owns(target.path) ? serve(new GatewayExchange(req, res, deps.ipOf, target)) : undefined;
  };
}
