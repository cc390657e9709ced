import { TASK_OP_STATES, type HistoryInput, type TaskOpState } from './types.js';

type From = TaskOpState | 'null';
const FINAL_FROM_OPEN = ['applied', 'rejected', 'failed', 'apply_failed', 'needs_attention'] as const;

/**
 * The task client's transition table: the one authority over a task operation's state. Both task stores walk every
 * history line against it inside their transaction (nextTaskRow), so a state no line led to is never stored.
 * `waiting → waiting` is a new proposal seen; `applying → applying` an ambiguous apply retried with the same key.
 */
export const TASK_TRANSITIONS: Record<From, readonly TaskOpState[]> = {
  null: ['create_pending'],
  // A create answer (with the task id) moves to waiting; a refusal, exhausted retries or the deadline to a person.
  create_pending: ['waiting', 'needs_attention'],
  waiting: ['waiting', 'applying', ...FINAL_FROM_OPEN],
  // A refused apply sends the task back to wait for a current approval.
  applying: ['applying', 'waiting', ...FINAL_FROM_OPEN],
  applied: [],
  rejected: [],
  failed: [],
  apply_failed: [],
  needs_attention: [],
};

export function canTaskTransition(from: TaskOpState | null, to: TaskOpState): boolean {
  return TASK_TRANSITIONS[from ?? 'null'].includes(to);
}

export class RefusedTaskTransitionError extends Error {
  constructor(
    readonly from: TaskOpState | null,
    readonly to: TaskOpState,
  ) {
    super(`task transition ${from ?? 'null'} -> ${to} is not allowed`);
  }
}

/** Check one move against the table; returns where it ends. */
export function taskMove(from: TaskOpState | null, to: TaskOpState): TaskOpState {
  if (!(TASK_OP_STATES as readonly string[]).includes(to) || !canTaskTransition(from, to)) throw new RefusedTaskTransitionError(from, to);
  return to;
}

/** The state every task operation starts in. */
export const TASK_SUBMITTED_STATE = 'create_pending' satisfies TaskOpState;

/** The only line that may begin a task history; the stores write it on insert. */
export function submitTaskLine(at: string, evidence: Record<string, unknown>): HistoryInput {
  return { at, to: taskMove(null, TASK_SUBMITTED_STATE), cause: 'submit', evidence };
}
