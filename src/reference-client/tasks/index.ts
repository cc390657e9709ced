import type { Clock } from '../../lib/clock.js';
import type { TaskPolicy } from './policy.js';
import { SqliteTaskStore } from './store.js';
import type { SubmitTaskInput, TaskHistoryEntry, TaskOpRow, TaskReport } from './types.js';
import { TaskWorker, type TaskWorkerOptions } from './worker.js';

export * from './types.js';
export { SqliteTaskStore } from './store.js';
export { TaskWorker, newKey, type TaskWorkerOptions } from './worker.js';
export { REFERENCE_POLICY, type TaskPolicy, type RemoteTask } from './policy.js';
export { taskCall, type TaskCallOutcome } from './http.js';

export interface TaskClientOptions extends Omit<TaskWorkerOptions, 'store'> {
  /** State directory; the task store is `${state}/tasks.db`. */
  state: string;
  clock: Clock;
  policy?: TaskPolicy;
}

/** The reference task client: its store in the state dir, one worker, and the records a judge reads. */
export interface TaskClient {
  submitTask(input: SubmitTaskInput): TaskOpRow;
  runTask(taskOpId: string, signal?: AbortSignal): Promise<TaskReport>;
  records(): Array<{ row: TaskOpRow; history: TaskHistoryEntry[] }>;
  close(): void;
}

export function createTaskClient(opts: TaskClientOptions): TaskClient {
  const store = SqliteTaskStore.open(opts.state);
  const worker = new TaskWorker({ ...opts, store });
  return {
    submitTask: (i) => worker.submitTask(i),
    runTask: (id, signal) => worker.runTask(id, signal),
    records: () => store.list().map((row) => ({ row, history: store.history(row.task_op_id) })),
    close: () => store.close(),
  };
}

/** `runTask` as a free function, for callers holding a worker. */
export function runTask(worker: TaskWorker, taskOpId: string, signal?: AbortSignal): Promise<TaskReport> {
  return worker.runTask(taskOpId, signal);
}
