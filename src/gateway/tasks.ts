/**
 * Music tasks: who created which task (recorded when a task is created through us), and the
 * finished ones (SUCCESS or FAILURE never change again) cached per account in SQLite with the
 * upstream's envelope kept as it was sent.
 */
import type { Db } from '../kernel/db.ts';
import { isObject } from './body.ts';

export const FINAL_STATES = new Set(['SUCCESS', 'FAILURE']);

/** Music tasks: SQLite (`SqliteTaskStore`) or PostgreSQL (`PgTaskStore` in pg-stores.ts). */
export interface TaskStore {
  /** The cached envelope text of a finished task, if any. */
  cached(accountId: string, taskId: string): Promise<string | undefined>;
  store(accountId: string, taskId: string, status: string, body: string): Promise<void>;
  recordOwner(taskId: string, accountId: string): Promise<void>;
  /** The account that created the task through this gateway; `undefined` if it was not created here. */
  owner(taskId: string): Promise<string | undefined>;
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

  async recordOwner(taskId: string, accountId: string): Promise<void> {
    this.db.prepare('INSERT OR IGNORE INTO gateway_task_owners (task_id, account_id, created_at) VALUES (?, ?, ?)').run(taskId, accountId, this.now());
  }

  async owner(taskId: string): Promise<string | undefined> {
    return (this.db.prepare('SELECT account_id FROM gateway_task_owners WHERE task_id = ?').get(taskId) as { account_id: string } | undefined)?.account_id;
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
