import { isFinalTaskOp, type TaskOpRow } from './types.js';

/**
 * A worker's lease on one task operation, as for jobs (client-protocol.md "Lease tokens"): the fencing token rises
 * on every takeover, and every write compares it, so a worker that lost its lease (paused, partitioned) writes
 * nothing and sends nothing more.
 */
export interface TaskLease {
  task_op_id: string;
  owner: string;
  token: number;
  expires_at: number;
}

export class TaskLeaseLostError extends Error {
  constructor(readonly taskOpId: string) {
    super(`lease on task operation ${taskOpId} was taken over`);
  }
}

/**
 * A write to a final operation. A final operation holds no lease (the stores clear it), so for a worker this is a
 * lost lease like any other: another worker finished the operation while this one was paused.
 */
export class TaskOperationFinalError extends TaskLeaseLostError {
  constructor(taskOpId: string, state: string) {
    super(taskOpId);
    this.message = `task operation ${taskOpId} is final (${state})`;
  }
}

/** Rows written before leases have none: no owner, token 0. */
const tokenOf = (r: TaskOpRow) => r.fencing_token ?? 0;

export function holdsLease(r: TaskOpRow, lease: TaskLease): boolean {
  return (r.lease_owner ?? null) === lease.owner && tokenOf(r) === lease.token;
}

/** Whether `owner` may take the row's lease at `now`: nobody holds it, it ran out, or it is already `owner`'s. */
export function leaseFree(r: TaskOpRow, owner: string, now: number): boolean {
  return !r.lease_owner || r.lease_owner === owner || (r.lease_expires_at ?? 0) <= now;
}

/** When the row's next turn is due (rows written before scheduling: at once). */
export const dueAt = (r: TaskOpRow): number => r.next_at ?? 0;

/**
 * The row with `owner`'s lease, or null when the operation is final or another worker's lease has not run out. A
 * lease we still hold at the token we know keeps its token; any other is taken with the next one.
 */
export function claimTaskRow(
  cur: TaskOpRow,
  owner: string,
  now: number,
  leaseMs: number,
  held: number | null,
): { row: TaskOpRow; lease: TaskLease } | null {
  if (isFinalTaskOp(cur.state)) return null;
  if (!leaseFree(cur, owner, now)) return null;
  const mine = cur.lease_owner === owner && held === tokenOf(cur);
  const token = mine ? tokenOf(cur) : tokenOf(cur) + 1;
  const expires_at = now + leaseMs;
  return {
    row: { ...cur, lease_owner: owner, lease_expires_at: expires_at, fencing_token: token },
    lease: { task_op_id: cur.task_op_id, owner, token, expires_at },
  };
}
