/** POST /v1/rerank: checked (documents, top_n), forwarded, results returned best first. */
import { isObject, parseJsonObject, readBody, requiredString } from '../body.ts';
import type { GatewayCall } from '../call.ts';
import { badRequest } from '../errors.ts';
import { textTokens } from '../estimate.ts';

export const MAX_RERANK_DOCUMENTS = 1000;

function score(x: unknown): number {
  return isObject(x) && typeof x.relevance_score === 'number' ? x.relevance_score : Number.NEGATIVE_INFINITY;
}

/** Highest `relevance_score` first (stable), at most `topN` entries. */
export function orderResults(body: unknown, topN: number | undefined): unknown {
  if (!isObject(body) || !Array.isArray(body.results)) return body;
  const results = body.results
    .map((r, i) => ({ r, i }))
    .sort((a, b) => score(b.r) - score(a.r) || a.i - b.i)
    .map((x) => x.r);
  return { ...body, results: topN === undefined ? results : results.slice(0, topN) };
}

export async function rerank(call: GatewayCall): Promise<void> {
  const raw = await readBody(call.ctx.req, call.deps.settings.maxBodyBytes);
  const body = parseJsonObject(raw);
  const model = requiredString(body, 'model', 'the reranking model name');
  requiredString(body, 'query', 'the query text to rank the documents against');
  const docs = body.documents;
  if (!Array.isArray(docs) || docs.length === 0) throw badRequest('Parameter "documents" must be a non-empty array of strings.', 'documents');
  if (docs.length > MAX_RERANK_DOCUMENTS) throw badRequest(`Parameter "documents" may hold at most ${MAX_RERANK_DOCUMENTS} documents (got ${docs.length}).`, 'documents');
  const badDoc = docs.findIndex((d) => typeof d !== 'string' && !(isObject(d) && typeof d.text === 'string'));
  if (badDoc >= 0) throw badRequest(`documents[${badDoc}] must be a string (or an object with a "text" string).`, 'documents');
  let topN: number | undefined;
  if (body.top_n !== undefined && body.top_n !== null) {
    const n = body.top_n;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > docs.length) throw badRequest(`Parameter "top_n" must be a whole number from 1 to ${docs.length} (the number of documents).`, 'top_n');
    topN = n;
  }
  call.permitModel(model);
  await call.reserve({ promptTokens: textTokens(raw.length), units: { rerankSearches: 1 } });
  const up = await call.send({ body: raw, contentType: 'application/json' });
  await call.relay(up, { usage: 'openai', rewrite: (answer) => orderResults(answer, topN) });
}
