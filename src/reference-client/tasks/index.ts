import type { Clock } from '../../lib/clock.js';
import type { TaskPolicy } from './policy.js';
import { isPostgresUrl, schemaForState } from '../store/pg-pool.js';
import { PgTaskStore } from './pg-store.js';
import { SqliteTaskStore, type TaskStore } from './store.js';
import type { SubmitTaskInput, TaskHistoryEntry, TaskOpRow, TaskReport } from './types.js';
import { TaskWorker, type TaskWorkerOptions } from './worker.js';

export * from './types.js';
export { SqliteTaskStore, type TaskStore } from './store.js';
export { PgTaskStore } from './pg-store.js';
export { TaskWorker, newKey, type TaskWorkerOptions } from './worker.js';
export { REFERENCE_POLICY, type TaskPolicy, type RemoteTask } from './policy.js';
export { taskCall, type TaskCallOutcome } from './http.js';

export interface TaskClientOptions extends Omit<TaskWorkerOptions, 'store'> {
  /** State directory; the task store is `${state}/tasks.db`, or its PostgreSQL schema when `db` is a postgres:// URL. */
  state: string;
  /** Default: JOBPROOF_CLIENT_DB; SQLite when unset. */
  db?: string;
  clock: Clock;
  policy?: TaskPolicy;
}

/** The reference task client: its store in the state dir, one worker, and the records a judge reads. */
export interface TaskClient {
  submitTask(input: SubmitTaskInput): Promise<TaskOpRow>;
  runTask(taskOpId: string, signal?: AbortSignal): Promise<TaskReport>;
  records(): Promise<Array<{ row: TaskOpRow; history: TaskHistoryEntry[] }>>;
  close(): Promise<void>;
}

export function createTaskClient(opts: TaskClientOptions): TaskClient {
  const store = openTaskStore(opts.state, opts.db ?? process.env.JOBPROOF_CLIENT_DB);
  const worker = new TaskWorker({ ...opts, store });
  return {
    submitTask: (i) => worker.submitTask(i),
    runTask: (id, signal) => worker.runTask(id, signal),
    records: async () => Promise.all((await store.list()).map(async (row) => ({ row, history: await store.history(row.task_op_id) }))),
    close: () => store.close(),
  };
}

export function openTaskStore(state: string, db: string | undefined): TaskStore {
  return isPostgresUrl(db) ? new PgTaskStore(db, schemaForState(state)) : SqliteTaskStore.open(state);
}

/** `runTask` as a free function, for callers holding a worker. */
export function runTask(worker: TaskWorker, taskOpId: string, signal?: AbortSignal): Promise<TaskReport> {
  return worker.runTask(taskOpId, signal);
}
