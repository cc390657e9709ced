/**
 * The parts of the client protocol (client-protocol.md) that need no schema: the operation states and the
 * protocol-level state machine, the exit codes and the errors behind them. Kept apart from client-protocol.ts (which
 * re-exports all of it) so that a client process reading its store (`client show`) does not build zod schemas.
 */
export const WORKING_STATES = [
  'create_pending',
  'create_unknown',
  'reconciliation',
  'accepted',
  'observing',
  'cancel_requested',
  'cancelling',
  'result_collecting',
] as const;
export const FINAL_STATES = [
  'succeeded',
  'failed',
  'cancelled',
  'cancellation_unconfirmed',
  'result_timed_out',
  'result_unavailable',
  'result_validation_failed',
  'needs_attention',
] as const;
export type WorkingState = (typeof WORKING_STATES)[number];
export type FinalState = (typeof FINAL_STATES)[number];
export type OperationState = WorkingState | FinalState;

export function isFinalState(s: OperationState): s is FinalState {
  return (FINAL_STATES as readonly string[]).includes(s);
}

const W = <T extends OperationState[]>(...s: T) => s;
/**
 * The protocol's state machine: from → the states any client may move to (the judge's I15 holds every client to it).
 * Final states have no way out; `null` is the state before `submit`. The reference client moves by its own, narrower
 * table with evidence (reference-client/state-machine.ts, tested to be a subset); this one is not its guard.
 */
export const ALLOWED_TRANSITIONS: Record<OperationState | 'null', readonly OperationState[]> = {
  null: W('create_pending'),
  create_pending: W('accepted', 'result_collecting', 'create_unknown', 'failed', 'cancelled', 'needs_attention', 'observing'),
  create_unknown: W(
    'reconciliation',
    'create_pending',
    'accepted',
    'observing',
    'result_collecting',
    'failed',
    'cancel_requested',
    'needs_attention',
  ),
  reconciliation: W(
    'accepted',
    'observing',
    'result_collecting',
    'create_pending',
    'create_unknown',
    'cancel_requested',
    'failed',
    'cancelled',
    'needs_attention',
  ),
  accepted: W('observing', 'cancel_requested', 'result_collecting', 'failed', 'cancelled', 'result_timed_out', 'needs_attention'),
  observing: W('cancel_requested', 'result_collecting', 'failed', 'cancelled', 'result_timed_out', 'needs_attention'),
  cancel_requested: W('cancelling', 'result_collecting', 'failed', 'cancelled', 'cancellation_unconfirmed', 'needs_attention'),
  cancelling: W('result_collecting', 'failed', 'cancelled', 'cancellation_unconfirmed', 'needs_attention'),
  result_collecting: W('succeeded', 'result_unavailable', 'result_validation_failed', 'result_timed_out', 'needs_attention'),
  succeeded: [],
  failed: [],
  cancelled: [],
  cancellation_unconfirmed: [],
  result_timed_out: [],
  result_unavailable: [],
  result_validation_failed: [],
  needs_attention: [],
};

export function isAllowedTransition(from: OperationState | null, to: OperationState): boolean {
  return ALLOWED_TRANSITIONS[from ?? 'null'].includes(to);
}

/** Exit codes of client-protocol.md. */
export const EXIT = { ok: 0, refused: 2, changedRequest: 3 } as const;

/** Thrown by `submit` for the same operation id with a different request (exit 3 in the process form). */
export class ChangedRequestError extends Error {
  readonly code = 'changed_request';
}
/** Thrown by `cancel`/`show` for an unknown operation id (exit 2 in the process form). */
export class UnknownOperationError extends Error {
  readonly code = 'unknown_operation';
}
