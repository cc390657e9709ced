import { isoTime } from '../../lib/clock.js';
import { claimTaskRow, holdsLease, TaskLeaseLostError, type TaskLease } from './lease.js';
import { submitTaskLine, taskMove } from './state-machine.js';
import {
  isFinalTaskOp,
  TASK_UNPATCHABLE,
  type HistoryInput,
  type NewTaskOpRow,
  type TaskHistoryEntry,
  type TaskOpRow,
  type TaskPatch,
} from './types.js';

/** The task workflow's durable interface; SQLite (one machine) and PostgreSQL (a fleet) implement it. */
export interface TaskStore {
  /**
   * Record a new operation in the first state, with the state machine's submit line carrying `evidence`; `exists`
   * (and no change) when the id is taken.
   */
  insert(row: NewTaskOpRow, evidence: Record<string, unknown>): Promise<'inserted' | 'exists'>;
  get(id: string): Promise<TaskOpRow | undefined>;
  list(): Promise<TaskOpRow[]>;
  history(id: string): Promise<TaskHistoryEntry[]>;
  /** Lease an open operation (lease.ts claimTaskRow); null when it is final, unknown or another worker holds it. */
  claim(id: string, owner: string, now: number, leaseMs: number, held: number | null): Promise<TaskLease | null>;
  /** Extend a lease; false when its token moved (someone took it) or the operation is final. */
  renew(lease: TaskLease, now: number, leaseMs: number): Promise<boolean>;
  release(lease: TaskLease): Promise<void>;
  /**
   * One fenced change in one transaction: patch the row and, when given, append a history entry whose `from` is the
   * stored state and which the transition table allows. TaskLeaseLostError (and nothing written) when the lease
   * moved. A final operation is never changed again (and holds no lease); the apply key, once written, never replaced.
   */
  change(lease: TaskLease, patch: TaskPatch, history?: HistoryInput): Promise<TaskOpRow>;
  close(): Promise<void>;
}

const FIXED = new Set<string>(TASK_UNPATCHABLE);

/** The row after a patch: the rules both backends apply inside their transaction. */
export function nextTaskRow(id: string, cur: TaskOpRow | undefined, patch: TaskPatch, history?: HistoryInput): TaskOpRow {
  if (!cur) throw new Error(`unknown task operation ${id}`);
  if (isFinalTaskOp(cur.state)) throw new Error(`task operation ${id} is final (${cur.state})`);
  for (const k of Object.keys(patch)) if (FIXED.has(k)) throw new Error(`a task patch may not write ${k}`);
  const next: TaskOpRow = { ...cur, ...patch };
  if (cur.apply_key !== null) next.apply_key = cur.apply_key;
  if (history) next.state = taskMove(cur.state, history.to);
  if (isFinalTaskOp(next.state)) Object.assign(next, { lease_owner: null, lease_expires_at: null });
  return next;
}

/** The stored form of a new operation: its state is where the submit line goes. */
export function firstTaskRow(row: NewTaskOpRow, evidence: Record<string, unknown>): { row: TaskOpRow; first: HistoryInput } {
  const first = submitTaskLine(isoTime(row.submitted_at), evidence);
  return { row: { ...row, state: first.to, lease_owner: null, lease_expires_at: null, fencing_token: 0 }, first };
}

/** What one transaction on one row decided: the answer, and the row (and history line) to write, if any. */
export interface Mutation<T> {
  out: T;
  next?: TaskOpRow;
  line?: HistoryInput;
}

/**
 * The lease and change rules, written once over one primitive each backend gives: run `fn` on the row inside one
 * transaction (the row locked), then write what it returned.
 */
export abstract class TaskStoreBase {
  protected abstract mutate<T>(id: string, fn: (cur: TaskOpRow | undefined) => Mutation<T>): Promise<T>;

  claim(id: string, owner: string, now: number, leaseMs: number, held: number | null): Promise<TaskLease | null> {
    return this.mutate(id, (cur) => {
      const c = cur ? claimTaskRow(cur, owner, now, leaseMs, held) : null;
      return c ? { out: c.lease, next: c.row } : { out: null };
    });
  }

  renew(lease: TaskLease, now: number, leaseMs: number): Promise<boolean> {
    return this.mutate(lease.task_op_id, (cur) => {
      if (!cur || isFinalTaskOp(cur.state) || !holdsLease(cur, lease)) return { out: false };
      lease.expires_at = now + leaseMs;
      return { out: true, next: { ...cur, lease_expires_at: lease.expires_at } };
    });
  }

  release(lease: TaskLease): Promise<void> {
    return this.mutate(lease.task_op_id, (cur) =>
      cur && holdsLease(cur, lease) ? { out: undefined, next: { ...cur, lease_owner: null, lease_expires_at: null } } : { out: undefined },
    );
  }

  change(lease: TaskLease, patch: TaskPatch, history?: HistoryInput): Promise<TaskOpRow> {
    return this.mutate(lease.task_op_id, (cur) => {
      const next = nextTaskRow(lease.task_op_id, cur, patch, history);
      if (!holdsLease(cur!, lease)) throw new TaskLeaseLostError(lease.task_op_id);
      return { out: next, next, line: history };
    });
  }
}
