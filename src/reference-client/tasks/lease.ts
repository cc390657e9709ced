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

/** Rows written before leases have none: no owner, token 0. */
const tokenOf = (r: TaskOpRow) => r.fencing_token ?? 0;

export function holdsLease(r: TaskOpRow, lease: TaskLease): boolean {
  return (r.lease_owner ?? null) === lease.owner && tokenOf(r) === lease.token;
}

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
  const other = cur.lease_owner && cur.lease_owner !== owner && (cur.lease_expires_at ?? 0) > now;
  if (other) return null;
  const mine = cur.lease_owner === owner && held === tokenOf(cur);
  const token = mine ? tokenOf(cur) : tokenOf(cur) + 1;
  const expires_at = now + leaseMs;
  return {
    row: { ...cur, lease_owner: owner, lease_expires_at: expires_at, fencing_token: token },
    lease: { task_op_id: cur.task_op_id, owner, token, expires_at },
  };
}
