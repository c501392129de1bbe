/**
 * Upstream routes the conformance tests of shared endpoints need beyond the named fixtures: the 60s
 * digest by date, and the RDAP bootstrap that sends .com to its registry.
 */
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURE_DIR, type Upstream, type UpstreamReply, type UpstreamRequest } from '../support/upstream.ts';

const DIGEST_PATH = /^\/60s\/(\d{4}-\d{2}-\d{2})\.json$/;

function digestByDate(req: UpstreamRequest): UpstreamReply {
  const file = path.join(FIXTURE_DIR, '60s-static.viki.moe', '60s', `${DIGEST_PATH.exec(req.path)?.[1]}.json`);
  return fs.existsSync(file) ? { headers: { 'content-type': 'application/json' }, body: fs.readFileSync(file) } : { status: 404, body: 'Not Found' };
}

export function serveSharedEndpointUpstreams(upstream: Upstream): void {
  upstream.serve('60s-static.viki.moe', DIGEST_PATH, digestByDate);
  upstream.serve('rdap.org', /^\/domain\//, (req) => ({ status: 302, headers: { location: `https://rdap.verisign.com/com/v1/domain/${req.path.slice('/domain/'.length)}` } }));
}
