import { canonicalJson } from '../../lib/canonical-json.js';
import { UnknownOperationError } from '../../contract/client-states.js';
import type { Clock } from '../../lib/clock.js';
import type { InProcessTaskClient } from '../../contract/task-client-protocol.js';
import { toTaskRecord } from './record.js';
import type { TaskPolicy } from './policy.js';
import { isPostgresUrl, schemaForState } from '../store/pg-pool.js';
import { PgTaskStore } from './pg-store.js';
import { SqliteTaskStore, type TaskStore } from './store.js';
import { isFinalTaskOp, type SubmitTaskInput, type TaskHistoryEntry, type TaskOpRow, type TaskReport } from './types.js';
import { TaskWorker, type TaskWorkerOptions } from './worker.js';

export * from './types.js';
export { SqliteTaskStore, type TaskStore } from './store.js';
export { PgTaskStore } from './pg-store.js';
export { TaskWorker, type TaskWorkerOptions } from './worker.js';
export { newKey } from './task-step-env.js';
export { REFERENCE_POLICY, type TaskPolicy, type RemoteTask } from './policy.js';
export { taskCall, type TaskCallOutcome } from './http.js';
export { toTaskRecord } from './record.js';

export interface TaskClientOptions extends Omit<TaskWorkerOptions, 'store'> {
  /** State directory; the task store is `${state}/tasks.db`, or its PostgreSQL schema when `db` is a postgres:// URL. */
  state: string;
  /** A postgres:// URL; unset: SQLite in `state` (the CLI passes --db or JOBPROOF_CLIENT_DB). */
  db?: string;
  clock: Clock;
  policy?: TaskPolicy;
}

/** The reference task client: its store in the state dir, one worker, and the records a judge reads. */
export interface TaskClient extends InProcessTaskClient {
  submitTask(input: SubmitTaskInput): Promise<TaskOpRow>;
  runTask(taskOpId: string, signal?: AbortSignal): Promise<TaskReport>;
  records(): Promise<Array<{ row: TaskOpRow; history: TaskHistoryEntry[] }>>;
  show(taskOpId: string): Promise<ReturnType<typeof toTaskRecord>>;
  close(): Promise<void>;
}

/** Thrown by `submitTask` for a known id with a different request (exit 3 in the process form). */
export class ChangedTaskRequestError extends Error {}

export function createTaskClient(opts: TaskClientOptions): TaskClient {
  const store = openTaskStore(opts.state, opts.db);
  const worker = new TaskWorker({ ...opts, store });
  const actor = opts.workerId ?? 'task-worker';
  return {
    submitTask: async (i) => {
      const before = await store.get(i.task_op_id);
      if (before) {
        // The same request again changes nothing; a changed one is a new operation (new id, new keys).
        const same =
          before.object_ref === i.object_ref &&
          before.object_version === i.object_version &&
          canonicalJson(before.input) === canonicalJson(i.input);
        if (!same)
          throw new ChangedTaskRequestError(
            `task operation ${i.task_op_id} exists with a different request; a changed request is a new operation (new id, new keys)`,
          );
        return before;
      }
      return worker.submitTask(i);
    },
    runTask: (id, signal) => worker.runTask(id, signal),
    records: async () => Promise.all((await store.list()).map(async (row) => ({ row, history: await store.history(row.task_op_id) }))),
    show: async (id) => {
      const row = await store.get(id);
      if (!row) throw new UnknownOperationError(`unknown task operation ${id}`);
      return toTaskRecord(row, await store.history(id), actor);
    },
    // Every open operation, driven at once; operations submitted meanwhile are picked up on the next turn.
    work: async ({ signal }) => {
      for (;;) {
        const open = (await store.list()).filter((r) => !isFinalTaskOp(r.state));
        if (open.length === 0 || signal.aborted) return;
        await Promise.all(open.map((r) => worker.runTask(r.task_op_id, signal)));
      }
    },
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
