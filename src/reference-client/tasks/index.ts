import { canonicalJson } from '../../lib/canonical-json.js';
import { UnknownOperationError } from '../../contract/client-protocol.js';
import type { Clock } from '../../lib/clock.js';
import type { InProcessTaskClient } from '../../contract/task-client-protocol.js';
import { toTaskRecord } from './record.js';
import type { TaskPolicy } from './policy.js';
import { SqliteTaskStore } from './store.js';
import { isFinalTaskOp, type SubmitTaskInput, type TaskHistoryEntry, type TaskOpRow, type TaskReport } from './types.js';
import { TaskWorker, type TaskWorkerOptions } from './worker.js';

export * from './types.js';
export { SqliteTaskStore } from './store.js';
export { TaskWorker, newKey, type TaskWorkerOptions } from './worker.js';
export { REFERENCE_POLICY, type TaskPolicy, type RemoteTask } from './policy.js';
export { taskCall, type TaskCallOutcome } from './http.js';
export { toTaskRecord } from './record.js';

export interface TaskClientOptions extends Omit<TaskWorkerOptions, 'store'> {
  /** State directory; the task store is `${state}/tasks.db`. */
  state: string;
  clock: Clock;
  policy?: TaskPolicy;
}

/** The reference task client: its store in the state dir, one worker, and the records a judge reads. */
export interface TaskClient extends InProcessTaskClient {
  submitTask(input: SubmitTaskInput): TaskOpRow;
  runTask(taskOpId: string, signal?: AbortSignal): Promise<TaskReport>;
  records(): Array<{ row: TaskOpRow; history: TaskHistoryEntry[] }>;
  close(): void;
}

/** Thrown by `submitTask` for a known id with a different request (exit 3 in the process form). */
export class ChangedTaskRequestError extends Error {}

export function createTaskClient(opts: TaskClientOptions): TaskClient {
  const store = SqliteTaskStore.open(opts.state);
  const worker = new TaskWorker({ ...opts, store });
  const actor = opts.workerId ?? 'task-worker';
  return {
    submitTask: (i) => {
      const before = store.get(i.task_op_id);
      if (before) {
        // The same request again changes nothing; a changed one is a new operation (new id, new keys).
        const same = before.object_ref === i.object_ref && before.object_version === i.object_version && canonicalJson(before.input) === canonicalJson(i.input);
        if (!same) throw new ChangedTaskRequestError(`task operation ${i.task_op_id} exists with a different request; a changed request is a new operation (new id, new keys)`);
        return before;
      }
      return worker.submitTask(i);
    },
    runTask: (id, signal) => worker.runTask(id, signal),
    records: () => store.list().map((row) => ({ row, history: store.history(row.task_op_id) })),
    show: (id) => {
      const row = store.get(id);
      if (!row) throw new UnknownOperationError(`unknown task operation ${id}`);
      return toTaskRecord(row, store.history(id), actor);
    },
    // Every open operation, driven at once; operations submitted meanwhile are picked up on the next turn.
    work: async ({ signal }) => {
      for (;;) {
        const open = store.list().filter((r) => !isFinalTaskOp(r.state));
        if (open.length === 0 || signal.aborted) return;
        await Promise.all(open.map((r) => worker.runTask(r.task_op_id, signal)));
      }
    },
    close: () => store.close(),
  };
}

/** `runTask` as a free function, for callers holding a worker. */
export function runTask(worker: TaskWorker, taskOpId: string, signal?: AbortSignal): Promise<TaskReport> {
  return worker.runTask(taskOpId, signal);
}
