import type { OperationKind } from '../lease-loop.js';
import { holdsLease, TaskLeaseLostError, type TaskLease } from './lease.js';
import { apply } from './task-apply-step.js';
import { create } from './task-create-step.js';
import { observe } from './task-observe-step.js';
import { entry, Stopped, taskTurn, type TaskStepEnv, type TaskTurn } from './task-step-env.js';
import { isFinalTaskOp, type TaskOpRow } from './types.js';

/**
 * Task operations as an operation kind of the one lease loop (lease-loop.ts): the task store's leases, and a turn
 * that steps one operation under its lease (taskTurn: fenced writes, the lease renewed before each send) and ends by
 * recording when the next turn is due. `only` limits the loop to those operations.
 */
export function taskKind(env: TaskStepEnv, only?: ReadonlySet<string>): OperationKind<TaskLease> {
  const { store } = env;
  return {
    idOf: (lease) => lease.task_op_id,
    hasOpen: () => store.hasOpen(only),
    claimDue: (owner, now, leaseMs, limit, held, busy) => store.claimDue(owner, now, leaseMs, limit, held, busy, only),
    nextWakeAt: (owner, now, busy) => store.nextWakeAt(owner, now, busy, only),
    renew: (lease, now, leaseMs) => store.renew(lease, now, leaseMs),
    release: (lease) => store.release(lease),
    isLeaseLost: (err) => err instanceof TaskLeaseLostError,
    async turn(lease, signal) {
      const row = await store.get(lease.task_op_id);
      if (!row || isFinalTaskOp(row.state)) return false;
      const w = taskTurn(env, lease);
      let wait: number;
      try {
        wait = await taskStep(w, row, signal);
      } catch (err) {
        // Stopped mid-turn: the lease is still ours, and the loop hands it back, so a successor need not wait it out.
        if (err instanceof Stopped) return true;
        throw err;
      }
      // A step that returns a wait leaves the operation open; none (0): it is due again at once (it was due when claimed).
      const after = wait > 0 ? await w.change({ next_at: env.now() + wait }) : await store.get(lease.task_op_id);
      return !!after && holdsLease(after, lease);
    },
  };
}

/** One turn on one operation, routed by its local state; returns how long until its next turn (0: at once). */
export async function taskStep(w: TaskTurn, row: TaskOpRow, signal: AbortSignal): Promise<number> {
  if (isFinalTaskOp(row.state)) return 0;
  if (w.now() > row.deadline_at && row.state !== 'applying') {
    await w.change({ reason: 'deadline passed', updated_at: w.now() }, entry(w, 'needs_attention', `deadline passed in ${row.state}`));
    return 0;
  }
  if (row.state === 'create_pending') return create(w, row, signal);
  if (row.state === 'applying') return apply(w, row, signal);
  return observe(w, row, signal);
}
