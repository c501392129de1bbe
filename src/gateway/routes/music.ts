/**
 * GET /v1/music/tasks/{task_id}: the upstream's task envelope, forwarded. Finished tasks
 * (SUCCESS, FAILURE) are cached per account and answered from the gateway's store afterwards. A task created
 * through this gateway may only be read by the account that created it (404 for others), and is
 * asked of the upstream that created it (with several upstreams, another one does not know it).
 */
import type { GatewayCall } from '../call.ts';
import { badRequest, GatewayError } from '../errors.ts';
import { CACHE_HEADER } from '../response-headers.ts';
import { envelopeStatus, FINAL_STATES } from '../tasks.ts';

const TASK_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

export async function musicTask(call: GatewayCall, params: readonly string[]): Promise<void> {
  const taskId = params[0] ?? '';
  if (!TASK_ID.test(taskId)) throw badRequest('The task id must be 1 to 128 letters, digits, "_", "-", "." or ":".', 'task_id');
  const { tasks } = call.deps;
  const owner = await tasks.owner(taskId);
  if (owner !== undefined && owner.accountId !== call.key.accountId)
    throw new GatewayError(404, `No music task "${taskId}" for this account.`, { type: 'invalid_request_error', code: 'task_not_found', param: 'task_id' });
  const cached = await tasks.cached(call.key.accountId, taskId);
  if (cached !== undefined) {
    markCache(call, 'HIT');
    call.ctx.type = 'application/json';
    call.ctx.body = cached;
    return;
  }
  call.upstream();
  const up = await call.send({ method: 'GET', upstream: owner?.upstream ?? undefined });
  markCache(call, 'MISS');
  await call.relay(up, {
    usage: 'none',
    inspect: async (body) => {
      const status = envelopeStatus(body, taskId);
      if (up.status === 200 && status !== undefined && FINAL_STATES.has(status)) await tasks.store(call.key.accountId, taskId, status, JSON.stringify(body));
    },
  });
}

/** The answer's X-Cache, also for the access log (which reads it from the request's state: the exchange keeps its headers to itself). */
function markCache(call: GatewayCall, result: 'HIT' | 'MISS'): void {
  call.ctx.set(CACHE_HEADER, result);
  call.ctx.state.cache = result;
}
