import type { OperationState } from '../contract/client-protocol.js';

/**
 * The reference client's transition table: which evidence may move an operation from one state to another.
 * Evidence comes in three classes — a provider answer, a journalled intent, a deadline — and nothing else moves a
 * record. Every edge here is also in the protocol's ALLOWED_TRANSITIONS (tested), so the judge's I15 holds by
 * construction.
 */
export const EVIDENCE_CLASS = {
  submit: 'intent',
  cancel_intent: 'intent',
  create_accepted: 'answer',
  create_sync_result: 'answer',
  create_ambiguous: 'answer',
  create_refused: 'answer',
  lookup_answer: 'answer',
  replay_conflict: 'answer',
  status_answer: 'answer',
  cancel_answer: 'answer',
  contract_violation: 'answer',
  results_verified: 'answer',
  results_gone: 'answer',
  results_invalid: 'answer',
  create_deadline: 'deadline',
  result_deadline: 'deadline',
  cancel_deadline: 'deadline',
} as const;
export type EvidenceKind = keyof typeof EVIDENCE_CLASS;
export const EVIDENCE_KINDS = Object.keys(EVIDENCE_CLASS) as EvidenceKind[];

type From = OperationState | 'null';
type Table = Partial<Record<From, Partial<Record<OperationState, readonly EvidenceKind[]>>>>;

const CREATE_ANSWERS = {
  accepted: ['create_accepted', 'lookup_answer'],
  result_collecting: ['create_sync_result'],
  failed: ['create_refused', 'lookup_answer'],
  needs_attention: ['replay_conflict', 'contract_violation'],
} as const;

/** A job's read state decides where observation goes; the same answers arrive by status read, cancel or webhook read. */
const JOB_OUTCOMES = {
  result_collecting: ['status_answer'],
  failed: ['status_answer'],
  cancelled: ['status_answer'],
  needs_attention: ['contract_violation'],
} as const;

export const TRANSITIONS: Table = {
  null: { create_pending: ['submit'] },
  create_pending: {
    ...CREATE_ANSWERS,
    // Without any create sent no job can exist; with one sent, the lookup must have shown there is none.
    failed: ['create_refused', 'lookup_answer', 'create_deadline'],
    create_unknown: ['create_ambiguous'],
    cancelled: ['cancel_intent', 'lookup_answer'],
    // The result deadline came while the provider would not say whether our create made a job: stop, and say so
    // through observing → result_timed_out (the protocol's only way to a timed-out end).
    observing: ['result_deadline'],
  },
  create_unknown: {
    reconciliation: ['lookup_answer'],
    accepted: ['create_accepted'],
    result_collecting: ['create_sync_result'],
    failed: ['create_refused', 'lookup_answer'],
    // cancel_intent alone: the cancel deadline came while the provider would not say whether a job exists.
    cancel_requested: ['lookup_answer', 'cancel_intent'],
    observing: ['result_deadline'],
    needs_attention: ['replay_conflict', 'contract_violation'],
  },
  reconciliation: {
    ...CREATE_ANSWERS,
    create_unknown: ['create_ambiguous'],
    cancel_requested: ['lookup_answer', 'cancel_intent'],
    cancelled: ['lookup_answer'],
    observing: ['result_deadline'],
  },
  accepted: {
    observing: ['status_answer'],
    ...JOB_OUTCOMES,
    cancel_requested: ['cancel_intent'],
    result_timed_out: ['result_deadline'],
  },
  observing: {
    ...JOB_OUTCOMES,
    cancel_requested: ['cancel_intent'],
    result_timed_out: ['result_deadline'],
  },
  cancel_requested: {
    cancelling: ['cancel_answer', 'status_answer'],
    result_collecting: ['cancel_answer', 'status_answer'],
    failed: ['cancel_answer', 'status_answer'],
    cancelled: ['cancel_answer', 'status_answer'],
    // cancel_answer: the API answered that it cannot cancel (405/501), so no answer can ever confirm one.
    cancellation_unconfirmed: ['cancel_deadline', 'cancel_answer'],
    needs_attention: ['contract_violation'],
  },
  cancelling: {
    ...JOB_OUTCOMES,
    cancellation_unconfirmed: ['cancel_deadline'],
  },
  result_collecting: {
    succeeded: ['results_verified'],
    result_unavailable: ['results_gone', 'result_deadline'],
    result_validation_failed: ['results_invalid'],
    needs_attention: ['contract_violation'],
  },
};

export function allowedEvidence(from: OperationState | null, to: OperationState): readonly EvidenceKind[] {
  return TRANSITIONS[from ?? 'null']?.[to] ?? [];
}

export function canTransition(from: OperationState | null, to: OperationState, evidence: EvidenceKind): boolean {
  return allowedEvidence(from, to).includes(evidence);
}

export class RefusedTransitionError extends Error {
  constructor(
    readonly from: OperationState | null,
    readonly to: OperationState,
    readonly evidence: string,
  ) {
    super(`transition ${from ?? 'null'} -> ${to} is not allowed on evidence '${evidence}'`);
  }
}

/** Check one step; throws when the table does not allow it. Returns the step so callers can chain. */
export function transition(
  from: OperationState | null,
  to: OperationState,
  evidence: EvidenceKind,
): { from: OperationState | null; to: OperationState; evidence: EvidenceKind } {
  if (!canTransition(from, to, evidence)) throw new RefusedTransitionError(from, to, evidence);
  return { from, to, evidence };
}
