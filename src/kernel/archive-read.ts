/**
 * Answering `date`/`at` from the snapshot archive: the snapshot in force at the moment, stamped
 * with its time, as a ReadResult the encoding layer renders like any other (X-Cache: HISTORY).
 */
import { sha1 } from './digest.ts';
import type { Archive } from './archive.ts';
import type { Moment } from './archive-params.ts';
import type { ReadResult } from './engine.ts';
import { notFound } from './errors.ts';
import { paramsKey } from './params.ts';
import type { AnyParams, FetchedSource } from './source.ts';
import { formatDate, formatDateTime } from './time.ts';

/**
 * The snapshot's data with its time: object-shaped data gets `snapshot`/`snapshot_at`, and its
 * fetch-time fields (`updated`/`updated_at`) say when this content was first fetched. `data` is
 * the parsed `payload` (stamped in place).
 */
export function stampSnapshot(payload: string, snapshotAt: number, data: unknown = JSON.parse(payload)): { payload: string; data: unknown } {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return { payload, data };
  const o = { ...(data as Record<string, unknown>) };
  if ('updated_at' in o) o.updated_at = snapshotAt;
  if ('updated' in o && typeof o.updated === 'string') o.updated = formatDateTime(snapshotAt);
  o.snapshot = formatDateTime(snapshotAt);
  o.snapshot_at = snapshotAt;
  return { payload: JSON.stringify(o), data: o };
}

function describeMoment(m: Moment): string {
  return m.param === 'date' ? `date=${m.value} (Asia/Shanghai)` : `at=${m.value} (${formatDateTime(m.at)} Asia/Shanghai)`;
}

export async function readSnapshotAt(
  deps: {
    archive: Archive;
    now: number;
    archivedKeys: ReadonlySet<string>;
    /** The stored payload in the source's current shape (see stored-data.ts). */
    current(payload: string): { payload: string; data: unknown };
  },
  source: FetchedSource,
  params: AnyParams,
  moment: Moment,
  historyParamsKey: string,
): Promise<ReadResult> {
  const key = paramsKey(params);
  const former = source.formerly?.find((f) => paramsKey(f.params) === key);
  const snap = (await deps.archive.at(source.id, key, moment.at)) ?? (former && (await deps.archive.at(former.sourceId, '', moment.at)));
  if (!snap) {
    const bounds = (former && (await deps.archive.bounds(former.sourceId, ''))) ?? (await deps.archive.bounds(source.id, key));
    if (!bounds && !deps.archivedKeys.has(key)) {
      throw notFound(`${source.name} (${source.id}) keeps dated snapshots only of the parameters its schedule refreshes (${[...deps.archivedKeys].map((k) => k || 'the defaults').join('; ')}), not of ${key || 'these'}.`);
    }
    if (!bounds) throw notFound(`No snapshot of ${source.name} (${source.id}) is stored for these parameters yet: the archive starts with the first successful fetch.`);
    throw notFound(
      `No snapshot of ${source.name} (${source.id}) is stored for ${describeMoment(moment)}. The earliest available is ${formatDateTime(bounds.first)} Asia/Shanghai (date=${formatDate(bounds.first)}, at=${bounds.first}).`,
    );
  }
  const cur = deps.current(snap.payload);
  const { payload, data } = stampSnapshot(cur.payload, snap.fetchedAt, cur.data);
  return {
    source,
    params,
    paramsKey: key,
    payload,
    data,
    hash: sha1(payload),
    fetchedAt: snap.fetchedAt,
    // A past moment's snapshot never changes; today's may be replaced by the next fetch.
    expiresAt: moment.live ? deps.now + source.freshness.ttlSec * 1000 : null,
    cache: 'HISTORY',
    historyParamsKey,
    asOf: moment.at,
  };
}
