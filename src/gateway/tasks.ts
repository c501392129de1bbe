/**
 * Music tasks: who created which task and on which upstream (recorded when a task is created
 * through us, so its polls go to that upstream), and the
 * finished ones (SUCCESS or FAILURE never change again) cached per account in SQLite with the
 * upstream's envelope kept as it was sent.
 */
import type { Db } from '../kernel/db.ts';
import { isObject } from './body.ts';

export const FINAL_STATES = new Set(['SUCCESS', 'FAILURE']);

/** Who created a music task through this gateway, and on which upstream (its URL; `null` when not recorded). */
export interface TaskOwner {
  accountId: string;
  upstream: string | null;
}

/** Music tasks: SQLite (`SqliteTaskStore`) or PostgreSQL (`PgTaskStore` in pg-stores.ts). */
export interface TaskStore {
  /** The cached envelope text of a finished task, if any. */
  cached(accountId: string, taskId: string): Promise<string | undefined>;
  store(accountId: string, taskId: string, status: string, body: string): Promise<void>;
  /** The first record of a task wins (its account and upstream stay). */
  recordOwner(taskId: string, accountId: string, upstream?: string | null): Promise<void>;
  /** Who created the task through this gateway, and where; `undefined` if it was not created here. */
  owner(taskId: string): Promise<TaskOwner | undefined>;
}

export class SqliteTaskStore implements TaskStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  async cached(accountId: string, taskId: string): Promise<string | undefined> {
    const row = this.db.prepare('SELECT body FROM gateway_music_tasks WHERE account_id = ? AND task_id = ?').get(accountId, taskId) as { body: string } | undefined;
    return row?.body;
  }

  async store(accountId: string, taskId: string, status: string, body: string): Promise<void> {
    this.db
      .prepare('INSERT INTO gateway_music_tasks (account_id, task_id, status, body, stored_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (account_id, task_id) DO UPDATE SET status = excluded.status, body = excluded.body, stored_at = excluded.stored_at')
      .run(accountId, taskId, status, body, this.now());
  }

  async recordOwner(taskId: string, accountId: string, upstream: string | null = null): Promise<void> {
    this.db.prepare('INSERT OR IGNORE INTO gateway_task_owners (task_id, account_id, created_at, upstream) VALUES (?, ?, ?, ?)').run(taskId, accountId, this.now(), upstream);
  }

  async owner(taskId: string): Promise<TaskOwner | undefined> {
    const row = this.db.prepare('SELECT account_id, upstream FROM gateway_task_owners WHERE task_id = ?').get(taskId) as { account_id: string; upstream: string | null } | undefined;
    return row && { accountId: row.account_id, upstream: row.upstream };
  }
}

/** The task id in a task-creation answer: `{data:"id"}`, `{data:{task_id}}`, `{task_id}` or `{id}`. */
export function createdTaskId(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  const d = body.data;
  if (typeof d === 'string' && d) return d;
  if (isObject(d) && typeof d.task_id === 'string') return d.task_id;
  if (typeof body.task_id === 'string') return body.task_id;
  if (typeof body.id === 'string') return body.id;
  return undefined;
}

/** The status of a task-query envelope `{code, message, data:{task_id, status, ...}}`. */
export function envelopeStatus(body: unknown, taskId: string): string | undefined {
  if (!isObject(body) || !isObject(body.data)) return undefined;
  const data = body.data;
  if (data.task_id !== undefined && data.task_id !== taskId) return undefined;
  return typeof data.status === 'string' ? data.status : undefined;
}
